package refstore

import (
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
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if age := time.Since(fi.ModTime()); age < staleLockAge {
			time.Sleep(staleLockAge - age)
			now, err := os.Stat(path)
			if err != nil || !now.ModTime().Equal(fi.ModTime()) {
				return nil // gone, or rewritten: a live fetch's
			}
		}
		if os.Remove(path) == nil {
			n++
		}
		return nil
	})
	return n
}
