package refstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// staleLockAge is how long a lock on a tracking ref must have stood
// before sync calls its git fetch dead: git holds one for milliseconds.
const staleLockAge = 2 * time.Second

// DropStaleLocks removes the locks a killed `git fetch` left on
// the tracking refs under prefix (refs/ao/remotes/<remote>/), which otherwise
// fail every later fetch. Unlike a lock on a record, such a lock holds no
// news: the tracking ref only caches what the remote holds, and the next
// fetch brings it again. A lock younger than staleLockAge is waited for
// (only a fetch that just failed on it pays that), and removed if it is
// still there, unchanged, by then. It returns how many it removed.
func (s *Store) DropStaleLocks(prefix string) int {
	root := filepath.Join(s.commonDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	n := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".lock") {
			return nil
		}
		if fi, err := d.Info(); err == nil && dropIfStale(path, fi) {
			n++
		}
		return nil
	})
	return n
}

// dropIfStale removes the lock file at path (found as fi) once it has
// stood staleLockAge unchanged, waiting for that if it is younger, and
// reports whether it removed it. One that goes or is rewritten meanwhile
// was a live git's, and stays.
func dropIfStale(path string, fi fs.FileInfo) bool {
	if age := time.Since(fi.ModTime()); age < staleLockAge {
		time.Sleep(staleLockAge - age)
		now, err := os.Stat(path)
		if err != nil || !now.ModTime().Equal(fi.ModTime()) {
			return false // gone, or rewritten: a live git's
		}
	}
	return os.Remove(path) == nil
}

// A git killed while it wrote this worktree's binding leaves the
// binding's lock behind (in the files backend; a reftable's lock is every
// ref's, BackendLock): the soak's kill trials found an end killed, with
// its process group, between its unbinding's prepare and commit. git
// removes no lock it did not take, so every later bind and unbind of the
// worktree failed on it, each only a notice, until the sync that retired
// the ended session could not unbind either and the binding was left
// naming a ref that was gone (git fsck fails on it). Only git-handoff
// writes the binding, holding the lock for milliseconds, and the binding
// holds no news of its own (the session's record does): so a write of it
// that fails on a lock that has stood staleLockAge unchanged removes the
// lock and tries once more. Record refs' locks stay the user's to remove
// (BackendLock): a lock there may guard a record only the dead git knew.

// bindingLock is the lock file git takes to write this worktree's binding
// in the files backend.
func (s *Store) bindingLock() string {
	return filepath.Join(s.gitDir, filepath.FromSlash(WorktreeSession)+".lock")
}

// pastBindingLock runs write, a write of the binding, and once more when
// it failed on a lock that clearBindingLock then cleared.
func (s *Store) pastBindingLock(ctx context.Context, write func() error) error {
	err := write()
	if err != nil && ctx.Err() == nil && s.clearBindingLock() {
		err = write() // a killed git's lock was in the way
	}
	return err
}

// clearBindingLock is asked after a write of the binding failed: it
// reports whether a lock on the binding was in the way and is gone now
// (removed as a dead git's, or released by a live one meanwhile), so that
// the write is worth another try.
func (s *Store) clearBindingLock() bool {
	p := s.bindingLock()
	fi, err := os.Stat(p)
	if err != nil {
		return false // no lock in the way: the write failed for another reason
	}
	dropIfStale(p, fi)
	_, err = os.Stat(p)
	return errors.Is(err, fs.ErrNotExist)
}
