//go:build unix

package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockHooks takes the hooks lock in the common git dir, waiting up to wait
// for other holders to release it. shared takes it shared, as a command
// that bound a worktree does to wait out any change to the hooks already
// under way (see refresh); otherwise it is exclusive. The returned
// function releases it.
//
// The lock is a kernel lock (flock) on the file, not the file's existence:
// the kernel drops it when its holder dies, so a git-handoff killed while
// changing the hooks leaves nothing that blocks the next one (with a file
// made O_EXCL, every later start waited and never armed the commit hook).
// The file is removed on release by an exclusive holder, or by the last of
// the shared ones; a waiter that then gets the lock on the removed file sees
// that the path no longer names the file it locked and starts over, so two
// holders never lock different files.
func lockHooks(ctx context.Context, common string, shared bool, wait time.Duration) (func(), error) {
	path := filepath.Join(common, lockName)
	deadline := time.Now().Add(wait)
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, fmt.Errorf("locking the hooks: %w", err)
		}
		err = flock(f, how)
		if err == nil {
			if samePath(f, path) {
				return func() {
					// A shared holder removes the file only when it
					// can have it alone: others may hold it shared.
					if !shared || flock(f, syscall.LOCK_EX) == nil {
						os.Remove(path)
					}
					f.Close()
				}, nil
			}
			f.Close() // released and removed meanwhile: lock the new file
			continue
		}
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("locking the hooks: %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("locking the hooks: another git-handoff has held %s for over %v", path, wait)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("locking the hooks: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// flock takes the lock how (LOCK_EX or LOCK_SH) on f without blocking.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// samePath reports whether path still names the open file f.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}
