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

// lockHooks takes the hooks lock in the common git dir, waiting up to
// lockWait for another git-handoff to release it. The returned function
// releases it.
//
// The lock is a kernel lock (flock) on the file, not the file's existence:
// the kernel drops it when its holder dies, so a git-handoff killed while
// changing the hooks leaves nothing that blocks the next one (with a file
// made O_EXCL, every later start waited lockWait and never armed the commit
// hook). The file is removed on release, under the lock; a waiter that then
// gets the lock on the removed file sees that the path no longer names the
// file it locked and starts over, so two holders never lock different files.
func lockHooks(ctx context.Context, common string) (func(), error) {
	path := filepath.Join(common, lockName)
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, fmt.Errorf("locking the hooks: %w", err)
		}
		err = flock(f)
		if err == nil {
			if samePath(f, path) {
				return func() {
					os.Remove(path)
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
			return nil, fmt.Errorf("locking the hooks: another git-handoff has held %s for over %v", path, lockWait)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("locking the hooks: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// flock takes an exclusive lock on f without blocking.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
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
