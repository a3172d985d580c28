package refstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A record's blob is written before the ref that names it moves, so until
// the transaction commits nothing reaches it. `git gc --prune=now` run
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
// objects a transaction names that this Store did not write as blobs
// (archive months and snapshots are commits, which the next sync finds
// lost and fetches or pushes again).

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

// holdBlob keeps data, just written as blob id, until a transaction that
// names it commits: outlastPrune may need to write it again.
func (s *Store) holdBlob(id string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[string][]byte{}
	}
	if _, ok := s.held[id]; ok {
		return
	}
	data = append([]byte(nil), data...) // the caller's buffer is its own
	s.held[id] = data
	s.heldOrder = append(s.heldOrder, id)
	s.heldBytes += len(data)
	for s.heldBytes > maxHeldBytes && len(s.heldOrder) > 1 {
		old := s.heldOrder[0]
		s.heldOrder = s.heldOrder[1:]
		s.heldBytes -= len(s.held[old])
		delete(s.held, old)
	}
}

// heldBlobs returns the data this Store holds for the blobs updates name,
// by id, and with forget stops holding them.
func (s *Store) heldBlobs(updates []Update, forget bool) map[string][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out map[string][]byte
	for _, u := range updates {
		data, ok := s.held[u.New]
		if !ok {
			continue
		}
		if out == nil {
			out = map[string][]byte{}
		}
		out[u.New] = data
		if forget {
			delete(s.held, u.New)
			s.heldBytes -= len(data)
		}
	}
	if forget && len(out) > 0 {
		kept := s.heldOrder[:0]
		for _, id := range s.heldOrder {
			if _, ok := s.held[id]; ok {
				kept = append(kept, id)
			}
		}
		s.heldOrder = kept
	}
	return out
}

// committed is called once a transaction of updates has committed. With
// gcSeen (gc.pid was there when it began), or gc.pid there now, it
// outlasts the prune that may have raced it; either way the Store stops
// holding the transaction's blobs. The refs have moved whatever happens
// here, so a failure is said on stderr rather than returned: the caller
// must not take a committed transaction for a lost one.
func (s *Store) committed(ctx context.Context, updates []Update, gcSeen bool) {
	at := time.Now()
	blobs := s.heldBlobs(updates, true)
	if len(blobs) == 0 || !gcSeen && !s.gcRunning() {
		return
	}
	if err := s.outlastPrune(ctx, blobs, at); err != nil {
		fmt.Fprintf(os.Stderr, "warning: git gc ran beside this write, and a record it wrote could not be written again: %v\n", err)
	}
}

// outlastPrune writes blobs again once no gc runs or the clock is past
// the second of committedAt, and once more any the check after that finds
// gone.
func (s *Store) outlastPrune(ctx context.Context, blobs map[string][]byte, committedAt time.Time) error {
	next := committedAt.Truncate(time.Second).Add(time.Second + gcWaitMargin)
	for s.gcRunning() && time.Now().Before(next) && ctx.Err() == nil {
		// When ctx ends, the rewrite below still helps against a prune
		// that already deleted a blob.
		time.Sleep(gcPoll)
	}
	ctx = context.WithoutCancel(ctx) // the ref already names them
	for id, data := range blobs {
		for try := 0; ; try++ {
			if _, err := s.rewriteBlob(ctx, id, data); err != nil {
				return err
			}
			if _, err := s.ReadObject(ctx, id); err == nil {
				break
			} else if !errors.Is(err, ErrNotFound) || try == 2 {
				return err
			}
		}
	}
	return nil
}

// rewriteMissing writes again each blob updates name that this Store wrote
// and the repository no longer has: a prune deleted it between the write
// and the transaction, and git refused to point a ref at it. It reports
// whether it wrote any.
func (s *Store) rewriteMissing(ctx context.Context, updates []Update) (bool, error) {
	wrote := false
	for id, data := range s.heldBlobs(updates, false) {
		if _, err := s.ReadObject(ctx, id); !errors.Is(err, ErrNotFound) {
			continue
		}
		if _, err := s.rewriteBlob(ctx, id, data); err != nil {
			return wrote, err
		}
		wrote = true
	}
	return wrote, nil
}

// rewriteBlob writes data as a blob again and checks that git gives it
// the id it had.
func (s *Store) rewriteBlob(ctx context.Context, id string, data []byte) (string, error) {
	got, err := s.writeBlob(ctx, data)
	if err != nil {
		return "", err
	}
	if got != id {
		return "", errors.New("git hash-object gave " + got + " for the blob written as " + id)
	}
	return got, nil
}
