package refstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// LockNote takes an exclusive lock named path (a file of git-handoff's own
// under the git directory, created if missing) and returns its release.
// It waits while another process, or another goroutine, holds it, until ctx
// ends. The lock is the kernel's (flock), so a killed holder never leaves it
// behind; the file itself stays, empty.
func (s *Store) LockNote(ctx context.Context, path string) (func(), error) {
	if err := s.MkdirAll(ctx, filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if err != syscall.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, ctx.Err())
		case <-time.After(wait):
		}
	}
}
