package refstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// A record's blob (or an archive month's commit) is written before the ref
// that names it moves, so until the transaction commits nothing reaches
// it. `git gc --prune=now` run
// beside a writer (git-gc(1) calls this unsafe, and people still do it)
// walks the refs once and then deletes every loose object the walk did not
// reach whose mtime is not later than the second the prune started. A blob
// written before that walk and named only after it is deleted, and its ref
// names nothing: a baton that `end` reported written is gone (bench/soak
// met it about once in ten runs). git's own update-ref checks that the
// object exists, but the prune deletes it after that check.
//
// git holds <common dir>/gc.pid for as long as gc runs. A transaction that
// saw it, before it began or once it committed, may have raced a prune.
// outlastPrune waits until that gc has ended, or until the clock is past
// the second the transaction committed in, whichever comes first, and
// then writes each of its blobs again. hash-object -w writes a blob the
// prune deleted afresh, and freshens one still there: its mtime is then
// later than the cut-off of any prune whose walk began before the commit,
// so that prune keeps it. A prune that began after the commit saw the
// ref. The cost, only while a gc runs: at most a second, and one blob
// write per record. Not covered: a gc that began and ended inside one
// transaction (a few milliseconds; gc's own processes take longer), and
// objects a transaction names that this Store cannot write again alike:
// those it did not write, and snapshot commits, which carry their time.
// An archive month's TreeCommit is built again from what built it.

// gcLockFile is the file git gc holds while it runs (git's gc.pid, in the
// common dir).
const gcLockFile = "gc.pid"

// gcWaitMargin is how far past the second boundary outlastPrune waits: the
// kernel stamps files with a clock that may lag the one Go reads by a tick.
const gcWaitMargin = 30 * time.Millisecond

// gcPoll is how often outlastPrune looks whether gc still runs.
const gcPoll = 10 * time.Millisecond

// maxHeldBytes bounds the blobs a long-lived Store (serve, mcp) keeps for
// outlastPrune: written but never named by a committed transaction, they
// would otherwise pile up. Past it, the oldest are forgotten.
const maxHeldBytes = 4 << 20

// gcRunning reports whether git gc holds its lock in this repository: its
// gc.pid, "<pid> <host>", names a process that is alive, or one on
// another host (as git itself judges the lock, less its twelve-hour
// limit). A gc.pid that cannot be read is taken as held.
func (s *Store) gcRunning() bool {
	b, err := os.ReadFile(filepath.Join(s.commonDir, gcLockFile))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	var pid int
	var host string
	if n, _ := fmt.Sscanf(string(b), "%d %s", &pid, &host); n != 2 || pid <= 0 {
		return true
	}
	if me, err := os.Hostname(); err != nil || me != host {
		return true
	}
	return syscall.Kill(pid, 0) != syscall.ESRCH
}

// heldObject is how to write an object of this Store's again: a blob's
// bytes, or a TreeCommit's BuildTree (which git makes the same again).
type heldObject struct {
	data    []byte      // a blob's bytes; nil for a TreeCommit
	base    string      // a TreeCommit's base
	entries []TreeEntry // a TreeCommit's entries: their blobs go first
	size    int         // what it costs to hold
}

// hold keeps o, just written as object id, until a transaction that names
// it commits: outlastPrune may need to write it again.
func (s *Store) hold(id string, o heldObject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[string]heldObject{}
	}
	if _, ok := s.held[id]; ok {
		return
	}
	s.held[id] = o
	s.heldOrder = append(s.heldOrder, id)
	s.heldBytes += o.size
	for s.heldBytes > maxHeldBytes && len(s.heldOrder) > 1 {
		old := s.heldOrder[0]
		s.heldOrder = s.heldOrder[1:]
		s.heldBytes -= s.held[old].size
		delete(s.held, old)
	}
}

// holdBlob holds a blob written from data.
func (s *Store) holdBlob(id string, data []byte) {
	data = append([]byte(nil), data...) // the caller's buffer is its own
	s.hold(id, heldObject{data: data, size: len(data)})
}

// holdBuilt holds a TreeCommit BuildTree wrote.
func (s *Store) holdBuilt(id, base string, entries []TreeEntry) {
	entries = slices.Clone(entries)
	size := len(base)
	for _, e := range entries {
		size += len(e.Path) + len(e.OID)
	}
	s.hold(id, heldObject{base: base, entries: entries, size: size})
}

// heldFor returns what this Store holds of the objects updates name, and
// of the blobs of the TreeCommits among them, blobs first; with forget it
// stops holding the objects updates name (the blobs below a TreeCommit
// may be named by a later transaction too).
func (s *Store) heldFor(updates []Update, forget bool) (ids []string, objs []heldObject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var blobIDs, builtIDs []string
	var blobs, built []heldObject
	seen := map[string]bool{}
	for _, u := range updates {
		o, ok := s.held[u.New]
		if !ok || seen[u.New] {
			continue
		}
		seen[u.New] = true
		if o.data != nil {
			blobIDs, blobs = append(blobIDs, u.New), append(blobs, o)
		} else {
			builtIDs, built = append(builtIDs, u.New), append(built, o)
			for _, e := range o.entries {
				if b, ok := s.held[e.OID]; ok && !seen[e.OID] && b.data != nil {
					seen[e.OID] = true
					blobIDs, blobs = append(blobIDs, e.OID), append(blobs, b)
				}
			}
		}
	}
	if forget {
		n := len(s.held)
		for _, u := range updates {
			if o, ok := s.held[u.New]; ok {
				s.heldBytes -= o.size
				delete(s.held, u.New)
			}
		}
		if len(s.held) != n {
			s.heldOrder = slices.DeleteFunc(s.heldOrder, func(id string) bool { _, ok := s.held[id]; return !ok })
		}
	}
	return append(blobIDs, builtIDs...), append(blobs, built...)
}

// committed is called once a transaction of updates has committed. With
// gcSeen (gc.pid was there when it began), or gc.pid there now, it
// outlasts the prune that may have raced it; either way the Store stops
// holding the objects the transaction names. The refs have moved whatever
// happens here, so a failure is said on stderr rather than returned: the
// caller must not take a committed transaction for a lost one.
func (s *Store) committed(ctx context.Context, updates []Update, gcSeen bool) {
	at := time.Now()
	ids, objs := s.heldFor(updates, true)
	if len(ids) == 0 || !gcSeen && !s.gcRunning() {
		return
	}
	if err := s.outlastPrune(ctx, ids, objs, at); err != nil {
		fmt.Fprintf(os.Stderr, "warning: git gc ran beside this write, and a record it wrote could not be written again: %v\n", err)
	}
}

// outlastPrune writes objs (ids) again once no gc runs or the clock is past
// the second of committedAt, blobs first, and once more any the check
// after that finds gone.
func (s *Store) outlastPrune(ctx context.Context, ids []string, objs []heldObject, committedAt time.Time) error {
	next := committedAt.Truncate(time.Second).Add(time.Second + gcWaitMargin)
	for s.gcRunning() && time.Now().Before(next) && ctx.Err() == nil {
		// When ctx ends, the rewrite below still helps against a prune
		// that already deleted an object.
		time.Sleep(gcPoll)
	}
	ctx = context.WithoutCancel(ctx) // the refs already name them
	for i, id := range ids {
		for try := 0; ; try++ {
			if err := s.rewrite(ctx, id, objs[i]); err != nil {
				return err
			}
			whole, err := s.whole(ctx, id, objs[i])
			if err != nil {
				return err
			}
			if whole {
				break
			}
			if try == 2 {
				return fmt.Errorf("%s: %w", id, ErrMissingObject)
			}
		}
	}
	return nil
}

// whole reports whether the repository has id and, for a TreeCommit,
// everything it reaches.
func (s *Store) whole(ctx context.Context, id string, o heldObject) (bool, error) {
	if o.data == nil {
		missing, err := s.Missing(ctx, id)
		return err == nil && len(missing) == 0, nil
	}
	if _, err := s.ReadObject(ctx, id); err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// rewriteMissing writes again each object updates name that this Store
// wrote and the repository no longer has whole: a prune deleted it
// between the write and the transaction, and git refused to point a ref
// at it. It reports whether it wrote any.
func (s *Store) rewriteMissing(ctx context.Context, updates []Update) (bool, error) {
	ids, objs := s.heldFor(updates, false)
	wrote := false
	for i, id := range ids {
		if whole, err := s.whole(ctx, id, objs[i]); err != nil || whole {
			continue
		}
		if err := s.rewrite(ctx, id, objs[i]); err != nil {
			return wrote, err
		}
		wrote = true
	}
	return wrote, nil
}

// rewrite writes o again and checks that git gives it the id it had.
// git writes what is missing and freshens what is there.
func (s *Store) rewrite(ctx context.Context, id string, o heldObject) error {
	var got string
	var err error
	if o.data != nil {
		got, err = s.writeBlob(ctx, o.data)
	} else {
		got, err = s.buildTree(ctx, o.base, o.entries)
	}
	if err != nil {
		return err
	}
	if got != id {
		return fmt.Errorf("git wrote %s again as %s", id, got)
	}
	return nil
}
