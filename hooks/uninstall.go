package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Uninstall removes our shims from Dir(repoDir) and renames each chained
// hook back to its own name, so the directory is as Install found it. A hook
// at a shim's place that is not ours is left alone (Skipped), and so is its
// chained companion: both are the user's.
func Uninstall(ctx context.Context, repoDir string) (Report, error) {
	dir, err := Dir(ctx, repoDir)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Dir: dir}
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
	case err != nil:
		res.Action = Skipped
		res.Detail = err.Error()
		return res, err
	case !isShim(content):
		res.Action = Skipped
		res.Detail = "not a git-handoff shim"
		return res, nil
	default:
		if err := os.Remove(path); err != nil {
			res.Action = Skipped
			res.Detail = err.Error()
			return res, err
		}
	}
	if !exists(chained) {
		res.Action = Removed
		return res, nil
	}
	if err := os.Rename(chained, path); err != nil {
		res.Action = Skipped
		res.Detail = err.Error()
		return res, err
	}
	res.Action = Restored
	res.Detail = "from " + chained
	return res, nil
}
