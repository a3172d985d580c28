package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Uninstall removes git-handoff's hooks from repoDir's repository in
// whichever form they are: our shims from the hooks directory, each chained
// hook renamed back to its own name, so the directory is as Install found
// it, whether prepare-commit-msg is armed or not; and our config hooks,
// each section removed with git config --remove-section, with their shims.
// A hook at a shim's place that is not ours is left alone: Unchanged when
// nothing of ours is there, Skipped when a chained companion is (both are
// the user's).
func Uninstall(ctx context.Context, repoDir string) (Report, error) {
	l, err := locate(ctx, repoDir)
	if err != nil {
		return Report{}, err
	}
	cfg, err := readConfigHooks(ctx, repoDir)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Dir: l.hooks}
	if l.noHooks {
		rep.Dir = configShimDir(l.common)
		rep.Warnings = append(rep.Warnings, "core.hooksPath is the empty string here, so hook files were not looked for: run `git handoff hooks uninstall` again where it is not, if they were installed there")
	}
	unlock, err := lockHooks(ctx, l.common, false, lockWait)
	if err != nil {
		return rep, err
	}
	defer unlock()
	var errs []error
	files, config := false, false
	for _, name := range Names() {
		res := HookResult{Name: name, Path: filepath.Join(l.hooks, name), Action: Unchanged}
		if l.hooks != "" {
			res, err = uninstallOne(l.hooks, name)
			if err != nil {
				errs = append(errs, fmt.Errorf("uninstalling %s hook: %w", name, err))
			}
			if res.Action == Removed || res.Action == Restored {
				res.Form, files = FormFiles, true
			}
		}
		cres, err := uninstallConfigOne(ctx, repoDir, l, name, cfg[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("uninstalling config hook %s: %w", configName(name), err))
		}
		if cres.Action == Removed {
			config = true
			if res.Form == "" && res.Action != Skipped {
				res = cres
			} else {
				res.Detail = joinDetail(res.Detail, "and "+cres.Detail)
			}
		}
		rep.Hooks = append(rep.Hooks, res)
	}
	switch {
	case config:
		rep.Form = FormConfig
		if !files {
			rep.Dir = configShimDir(l.common)
		}
	case files:
		rep.Form = FormFiles
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
