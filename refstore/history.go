package refstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// History calls fn with each version of a record, newest first: the blob
// tip, then the version its "prev" names, and so on, for as long as this
// clone has the objects and fn returns true. Every record version names the
// one it replaced, so this is the record's history on every ref backend:
// git keeps reflogs of our refs (update-ref --create-reflog, which keeps the
// replaced versions reachable) but prints none for a ref naming a blob, and
// the reftable backend keeps them in no file we could read.
func (s *Store) History(ctx context.Context, tip string, fn func(Entry) bool) error {
	return WalkHistory(ctx, s.ReadObject, tip, fn)
}

// maxOverWalk bounds WrittenOver's walk down a prev chain.
const maxOverWalk = 64

// WrittenOver reports whether the version tip is want, or was written over
// it: through the prev links of the blobs this clone has, each version
// naming the ones it replaced (Cause.Follows: Prev, and Back, which a fetch
// of the tip alone brings). A blob missing here ends the walk unproven; so
// does a chain longer than maxOverWalk.
func WrittenOver(ctx context.Context, st Records, tip, want string) bool {
	if tip == "" || want == "" {
		return false
	}
	if tip == want {
		return true
	}
	found, n := false, 0
	st.History(ctx, tip, func(e Entry) bool {
		n++
		found = RevOf(e.Data).Follows(want)
		return !found && n < maxOverWalk
	})
	return found
}

// ConflictNote is one local write that replaced this clone's own version
// of a record with a teammate's that won the join (a message starting with
// ConflictReflog). git keeps Dropped reachable in the ref's reflog, but
// cannot list reflog entries of blob refs, so the write is noted here too,
// for `git handoff log`.
type ConflictNote struct {
	At      time.Time `json:"at"`
	Ref     string    `json:"ref"`
	Kept    string    `json:"kept"`
	Dropped string    `json:"dropped"`
	Message string    `json:"message"`
}

// conflictNotesMax bounds the notes file: past it the file becomes the
// one older file (the one before that is dropped), so the notes cost at
// most twice this, whatever the age of the clone.
const conflictNotesMax = 1 << 20

// conflictsNote is the local note of conflicts (Local).
const conflictsNote = "conflicts"

func (s *Store) conflictNotesPath() string {
	return filepath.Join(s.commonDir, LocalRoot, conflictsNote)
}

// noteConflicts appends a ConflictNote for each update of a committed
// transaction whose message says it settled a conflict. A failure is not
// the write's: the ref moved, and its reflog has the entry.
func (s *Store) noteConflicts(msg string, updates []Update) {
	if !strings.HasPrefix(msg, ConflictReflog) {
		return
	}
	var b []byte
	now := time.Now().UTC()
	for _, u := range updates {
		line, err := json.Marshal(ConflictNote{At: now, Ref: u.Ref, Kept: u.New, Dropped: u.Old, Message: reflogMsg(msg)})
		if err != nil {
			return
		}
		b = append(append(b, line...), '\n')
	}
	path := s.conflictNotesPath()
	if fi, err := os.Stat(path); err == nil && fi.Size() > conflictNotesMax {
		os.Rename(path, path+".1")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	// A writer killed mid-line left the file without its last newline:
	// start on a line of our own, so the torn line is the only one lost.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			b = append([]byte{'\n'}, b...)
		}
	}
	// One write of whole lines to a file opened for appending: concurrent
	// writers' lines do not interleave.
	f.Write(b)
}

// lateConflicts is the directory of conflicts noted apart from the write
// that settled them (NoteConflict), one file each.
const lateConflicts = "conflicts.d"

// NoteConflict notes a conflict settled by a write this clone did not see
// finish: a tie decided at the arbiter by a push whose answer a killed
// process never read (teamsync/ties.go). Its own file, named by what it
// records, so a conflict noted twice is one note and no append races one.
func NoteConflict(ctx context.Context, l Local, n ConflictNote) error {
	line, err := json.Marshal(n)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(n.Ref + "\x00" + n.Kept + "\x00" + n.Dropped))
	return l.Write(ctx, lateConflicts+"/"+hex.EncodeToString(sum[:8]), append(line, '\n'))
}

// ConflictNotes returns the noted conflicts in l, oldest first. A line a
// killed writer left torn is skipped.
func ConflictNotes(l Local) ([]ConflictNote, error) {
	var out []ConflictNote
	names := []string{conflictsNote + ".1", conflictsNote}
	late, err := l.List(lateConflicts)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, n := range late {
		names = append(names, lateConflicts+"/"+n)
	}
	for _, name := range names {
		b, err := l.Read(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for line := range bytes.SplitSeq(b, []byte{'\n'}) {
			var n ConflictNote
			if json.Unmarshal(line, &n) == nil && n.Ref != "" {
				out = append(out, n)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}
