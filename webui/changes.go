package webui

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// fingerprint sums what a change to our records changes on disk, without
// reading one record: the name, size and modification time of every loose
// ref file of our kinds (a write renames a new file into place), and of
// packed-refs and a reftable directory. Two equal fingerprints mean
// nothing of ours moved; a different one may be a pack-refs that moved
// nothing, which costs the page one needless reload.
//
// refs/ao/preserved/ belongs to another tool and refs/ao/remotes/ holds
// fetched copies the page does not show until merged: neither counts.
func fingerprint(commonDir string) string {
	h := sha256.New()
	stat := func(path string) {
		if fi, err := os.Stat(path); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\n", path, fi.Size(), fi.ModTime().UnixNano(), inode(fi))
		}
	}
	stat(filepath.Join(commonDir, "packed-refs"))
	stat(filepath.Join(commonDir, "reftable", "tables.list"))
	for _, kind := range refstore.Kinds {
		root := filepath.Join(commonDir, filepath.FromSlash(strings.TrimSuffix(kind, "/")))
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, ".lock") {
				return nil
			}
			if fi, err := d.Info(); err == nil {
				fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\n", path, fi.Size(), fi.ModTime().UnixNano(), inode(fi))
			}
			return nil
		})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// changeJSON is the data of one change event.
type changeJSON struct {
	ProjectID string    `json:"projectId"`
	Root      string    `json:"root"` // the fingerprint now; listings say which one they were read at
	At        time.Time `json:"at"`   // when the server saw it (wall clock)
}

// keepAlive is how long the stream stays silent at most, so proxies and
// the browser keep it open.
const keepAlive = 15 * time.Second

// events is the change stream (server-sent events): one "change" event at
// once, then one each time the fingerprint of the project's refs changes.
// The page reloads what it shows on each.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	repo, err := s.project(r)
	if err != nil {
		writeError(w, statusOf(err), err, nil)
		return
	}
	st, _, err := s.open(r.Context(), repo, false)
	if err != nil {
		writeError(w, statusOf(err), err, nil)
		return
	}
	commonDir := st.CommonDir()
	st.Close()
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("streaming is not supported here"), nil)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// Tell the browser how soon to reconnect after the server went away.
	fmt.Fprintf(w, "retry: 2000\n\n")
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	last, quiet := "", time.Now()
	for {
		if fp := fingerprint(commonDir); fp != last {
			last = fp
			data, _ := json.Marshal(changeJSON{ProjectID: repo.Name, Root: fp, At: time.Now().UTC()})
			if _, err := fmt.Fprintf(w, "event: change\ndata: %s\n\n", data); err != nil {
				return
			}
			flusher.Flush()
			quiet = time.Now()
		} else if time.Since(quiet) >= keepAlive {
			if _, err := fmt.Fprint(w, ": still here\n\n"); err != nil {
				return
			}
			flusher.Flush()
			quiet = time.Now()
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}
