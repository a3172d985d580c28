package refstore

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ReflogEntry is one line of a ref's reflog: the local audit trail of every
// change this clone made to it.
type ReflogEntry struct {
	Ref     string
	Old     string // "" when the ref was created
	New     string // "" when the ref was deleted
	Who     string
	When    time.Time
	Message string
}

// Reflogs reads the reflogs of every ref under prefix. Reflogs are always
// plain files below logs/ in the common dir, even for packed refs.
func (s *Store) Reflogs(prefix string) ([]ReflogEntry, error) {
	root := filepath.Join(s.commonDir, "logs", filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	var out []ReflogEntry
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(filepath.Join(s.commonDir, "logs"), path)
		if err != nil {
			return err
		}
		entries, err := readReflog(path, filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		out = append(out, entries...)
		return nil
	})
	return out, err
}

func readReflog(path, ref string) ([]ReflogEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []ReflogEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if e, ok := parseReflogLine(ref, sc.Text()); ok {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

// parseReflogLine reads "<old> <new> <name> <<email>> <unix> <tz>\t<msg>".
func parseReflogLine(ref, line string) (ReflogEntry, bool) {
	head, msg, _ := strings.Cut(line, "\t")
	n := strings.IndexByte(head, ' ') // 40 hex digits, 64 in a SHA-256 repository
	if n != 40 && n != 64 || len(head) < 2*n+3 || head[2*n+1] != ' ' {
		return ReflogEntry{}, false
	}
	e := ReflogEntry{Ref: ref, Old: head[:n], New: head[n+1 : 2*n+1], Message: msg}
	if isZeroID(e.Old) {
		e.Old = ""
	}
	if isZeroID(e.New) {
		e.New = ""
	}
	ident := head[2*n+2:]
	gt := strings.LastIndexByte(ident, '>')
	if gt < 0 {
		return ReflogEntry{}, false
	}
	e.Who = strings.TrimSpace(ident[:gt+1])
	f := strings.Fields(ident[gt+1:])
	if len(f) >= 1 {
		if sec, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			e.When = time.Unix(sec, 0)
		}
	}
	return e, true
}
