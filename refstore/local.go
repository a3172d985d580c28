package refstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// LocalRoot is the directory under the common git dir that holds all of
// git-handoff's local state (Local).
const LocalRoot = "handoff"

// localDir is the git adapter's Local: files under <common dir>/handoff,
// written as git writes its own files there (temp file, the repository's
// shared permissions, rename), locked with flock.
type localDir struct {
	s    *Store
	root string
}

// Local is the clone's own state outside refs (roles.go).
func (s *Store) Local() Local { return localDir{s: s, root: filepath.Join(s.commonDir, LocalRoot)} }

// WorktreeLocal is this worktree's own state outside refs (roles.go).
func (s *Store) WorktreeLocal() Local {
	return localDir{s: s, root: filepath.Join(s.gitDir, LocalRoot)}
}

func (l localDir) Path(name string) string { return l.path(name) }

func (l localDir) path(name string) string {
	return filepath.Join(l.root, filepath.FromSlash(name))
}

func (l localDir) Read(name string) ([]byte, error) { return os.ReadFile(l.path(name)) }

func (l localDir) Write(ctx context.Context, name string, data []byte) error {
	return l.s.WriteNote(ctx, l.path(name), data)
}

func (l localDir) Remove(name string) error {
	if err := os.Remove(l.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (l localDir) Rename(from, to string) error { return os.Rename(l.path(from), l.path(to)) }

// staleTemp is how old a temp file of a write must be to be a killed
// writer's leftover, removed by the next listing of its directory.
const staleTemp = time.Hour

func (l localDir) List(dir string) ([]string, error) {
	ents, err := os.ReadDir(l.path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		switch {
		case e.IsDir():
		case strings.HasSuffix(e.Name(), ".tmp"):
			// Half a note from a process killed while writing it.
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTemp {
				os.Remove(filepath.Join(l.path(dir), e.Name()))
			}
		default:
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func (l localDir) Lock(ctx context.Context, name string) (func(), error) {
	return l.s.LockNote(ctx, l.path(name))
}
