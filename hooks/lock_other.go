//go:build !unix

package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// lockHooks takes the hooks lock in the common git dir, waiting up to wait
// for another git-handoff to release it. The returned function releases
// it. Without flock the lock is the file's existence (O_EXCL), so a holder
// that was killed leaves it behind: the error says so. There is no shared
// mode here: shared is taken exclusively, which is as correct, only less
// concurrent.
func lockHooks(ctx context.Context, common string, shared bool, wait time.Duration) (func(), error) {
	path := filepath.Join(common, lockName)
	deadline := time.Now().Add(wait)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("locking the hooks: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("locking the hooks: %s still exists after %v; if no git-handoff is running, remove it", path, wait)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("locking the hooks: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
