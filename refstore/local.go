package refstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".tmp") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func (l localDir) Lock(ctx context.Context, name string) (func(), error) {
	return l.s.LockNote(ctx, l.path(name))
}
