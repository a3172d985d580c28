package refstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// RefPacker is a store whose refs can be loose files that git reads one
// by one wherever it walks every ref: *Store is one; package memstore has
// no files.
type RefPacker interface {
	// PackLoose asks git to pack our refs when at least min refs under
	// prefix are loose files, and reports whether it did.
	PackLoose(ctx context.Context, prefix string, min int) (bool, error)
}

var _ RefPacker = (*Store)(nil)

// PackLoose has git pack the refs under refs/ao/ (git pack-refs, what
// git gc does to every ref) when min or more refs under prefix (one of
// ours, under Root) are loose files. Every plain git fetch checks that
// what it fetched connects to the clone's objects, against every ref
// there (rev-list --not --all), and a loose ref costs that check a file
// read: 2,876 loose refs under refs/ao/ cost it about 30 ms, packed about
// 2.5 (git 2.39 and 2.55 alike). git gc packs them too, but only when gc
// runs; every command writes records loose, and a sync that fetched or
// retired many leaves many. What is counted are files in the loose refs'
// directory, as git lays it out: the count decides only whether git
// packs (the refs' values are git's alone), and a reftable, whose tables
// git compacts itself, is never packed here. Git 2.42 and later pack ours
// alone (--include); older ones pack every ref, as their gc does.
func (s *Store) PackLoose(ctx context.Context, prefix string, min int) (bool, error) {
	if !strings.HasPrefix(prefix, Root) || !strings.HasSuffix(prefix, "/") {
		return false, fmt.Errorf("%w: prefix %q is not one of ours under %s", ErrBadName, prefix, Root)
	}
	if s.commonDir == "" || !s.filesBackend() {
		return false, nil
	}
	n := 0
	stop := errors.New("enough")
	err := filepath.WalkDir(filepath.Join(s.commonDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/"))), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a directory removed meanwhile
		}
		if d.Type().IsRegular() && !strings.HasSuffix(d.Name(), ".lock") {
			if n++; n >= min {
				return stop
			}
		}
		return nil
	})
	if n < min || err != nil && !errors.Is(err, stop) {
		return false, nil
	}
	_, err = Git(ctx, s.workDir, false, nil, "pack-refs", "--include", Root+"*")
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode() == 129 { // no --include before git 2.42
		_, err = Git(ctx, s.workDir, false, nil, "pack-refs", "--all")
	}
	return err == nil, err
}
