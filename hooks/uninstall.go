package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Uninstall removes our shims from repoDir's hooks directory and renames
// each chained hook back to its own name, so the directory is as Install
// found it, whether prepare-commit-msg is armed or not. A hook at a shim's
// place that is not ours is left alone: Unchanged when nothing of ours is
// there, Skipped when a chained companion is (both are the user's).
func Uninstall(ctx context.Context, repoDir string) (Report, error) {
	l, err := locate(ctx, repoDir)
	if err != nil {
		return Report{}, err
	}
	dir := l.hooks
	rep := Report{Dir: dir}
	unlock, err := lockHooks(ctx, l.common, false, lockWait)
	if err != nil {
		return rep, err
	}
	defer unlock()
	var errs []error
	for _, name := range Names() {
		res, err := uninstallOne(dir, name)
		rep.Hooks = append(rep.Hooks, res)
		if err != nil {
			errs = append(errs, fmt.Errorf("uninstalling %s hook: %w", name, err))
		}
	}
	return rep, errors.Join(errs...)
}

func uninstallOne(dir, name string) (HookResult, error) {
	path := filepath.Join(dir, name)
	chained := path + chainedSuffix
	res := HookResult{Name: name, Path: path}

	content, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !exists(path):
		if !exists(chained) {
			res.Action = Unchanged
			return res, nil
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return skipped(res, err)
	case err != nil || !isShim(content): // a dangling symlink is not ours either
		res.Action = Unchanged
		res.Detail = "not a git-handoff shim"
		if exists(chained) {
			res.Action = Skipped
		}
		return res, nil
	default:
		if !exists(chained) {
			if err := os.Remove(path); err != nil {
				return skipped(res, err)
			}
			res.Action = Removed
			return res, nil
		}
	}
	// One rename replaces our shim with the user's hook: a git running the
	// hook meanwhile finds one or the other, never neither.
	if err := os.Rename(chained, path); err != nil {
		return skipped(res, err)
	}
	res.Action = Restored
	res.Detail = "from " + chained
	return res, nil
}
