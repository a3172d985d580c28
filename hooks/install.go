package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Options tune Install.
type Options struct {
	// Command is how the shims call git-handoff. Empty means git-handoff
	// from PATH, falling back to `git handoff`. Anything else, such as an
	// absolute path or "git handoff", is pasted into sh verbatim, so a path
	// with spaces must arrive quoted.
	Command string
}

// Action is what Install or Uninstall did to one hook.
type Action string

const (
	Installed Action = "installed" // wrote a shim where there was no hook
	Chained   Action = "chained"   // moved the user's hook aside and wrote a shim that runs it
	Updated   Action = "updated"   // rewrote a shim from another version or command
	Unchanged Action = "unchanged" // the current shim was already there
	Removed   Action = "removed"   // deleted our shim; there was nothing to restore
	Restored  Action = "restored"  // deleted our shim and put the user's hook back
	Skipped   Action = "skipped"   // left alone; Detail says why
	// Idle: prepare-commit-msg is not installed because no worktree is
	// bound to a session (see Refresh); any hook of the user's is left in
	// its place. Not a change.
	Idle Action = "idle"
)

// HookResult is one line of a Report.
type HookResult struct {
	Name   string
	Path   string
	Action Action
	Detail string // why it was skipped, or which hook is chained
}

// Report lists what Install or Uninstall did, one entry per hook in Names
// order.
type Report struct {
	Dir   string
	Hooks []HookResult
	// Warnings are things the user should know that did not stop Install,
	// such as a hooks directory tracked in the work tree.
	Warnings []string
}

// Changed reports whether anything on disk changed; false means a repeated
// Install (or Uninstall) found nothing to do.
func (r Report) Changed() bool {
	for _, h := range r.Hooks {
		if h.Action != Unchanged && h.Action != Skipped && h.Action != Idle {
			return true
		}
	}
	return false
}

// Install writes the shims into repoDir's hooks directory (as git reports
// it). A hook already there that is not ours is moved to
// <name>.handoff-chained (content, mode and symlinks preserved, as a hard
// link or rename keeps the file itself) and the shim runs it first.
// prepare-commit-msg is then armed or disarmed as Refresh does: in a
// repository where no worktree is bound to a session it is not installed
// (Idle), and a user's prepare-commit-msg stays in place unchained. Running
// it again changes nothing. A hook that cannot be installed without losing
// a file (a user's hook and a chained one both present) is Skipped and
// Install returns an error naming it after handling the others.
func Install(ctx context.Context, repoDir string, opts Options) (Report, error) {
	l, err := locate(ctx, repoDir)
	if err != nil {
		return Report{}, err
	}
	dir := l.hooks
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Report{}, fmt.Errorf("creating hooks directory: %w", err)
	}
	rep := Report{Dir: dir}
	if l.inWorkTree() {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf(
			"hooks directory %s is inside the work tree: the shims and any renamed hooks will show in git status", dir))
	}
	unlock, err := lockHooks(ctx, l.common, false, lockWait)
	if err != nil {
		return rep, err
	}
	defer unlock()
	var errs []error
	for _, name := range Names() {
		var res HookResult
		if name == PrepareCommitMsg {
			res, err = commitHook(ctx, repoDir, l, opts.Command)
		} else {
			res, err = installOne(dir, name, opts.Command)
		}
		rep.Hooks = append(rep.Hooks, res)
		if err != nil {
			errs = append(errs, fmt.Errorf("installing %s hook: %w", name, err))
		}
	}
	return rep, errors.Join(errs...)
}

func installOne(dir, name, command string) (HookResult, error) {
	path := filepath.Join(dir, name)
	chained := path + chainedSuffix
	res := HookResult{Name: name, Path: path}
	shim, err := Shim(name, command)
	if err != nil {
		res.Action = Skipped
		return res, err
	}
	if exists(chained) {
		res.Detail = "runs " + chained
	}

	content, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A dangling symlink also lands here; it is the user's, keep it.
		if _, lerr := os.Lstat(path); lerr == nil {
			return moveAsideAndWrite(res, path, chained, shim)
		}
		res.Action = Installed
		return res, writeShim(path, shim)
	case err != nil:
		return skipped(res, err)
	case isShim(content):
		fi, serr := os.Stat(path)
		if string(content) == shim && serr == nil && fi.Mode()&0o111 != 0 {
			res.Action = Unchanged
			return res, nil
		}
		res.Action = Updated
		return res, writeShim(path, shim)
	default:
		return moveAsideAndWrite(res, path, chained, shim)
	}
}

// skipped reports res as left alone because of err.
func skipped(res HookResult, err error) (HookResult, error) {
	res.Action, res.Detail = Skipped, err.Error()
	return res, err
}

// bothExist reports res as left alone: the user's hook at res.Path and a
// chained one both exist, and neither may be lost.
func bothExist(res HookResult, chained string) (HookResult, error) {
	return skipped(res, fmt.Errorf("both %s and %s exist; move one away", res.Path, chained))
}

// moveAsideAndWrite chains the user's hook at path behind a new shim.
func moveAsideAndWrite(res HookResult, path, chained, shim string) (HookResult, error) {
	if _, err := os.Lstat(chained); err == nil {
		return bothExist(res, chained)
	}
	res.Detail = "runs " + chained
	// A regular file is linked to its new name first, so that the user's
	// hook stays at path until one rename puts the shim there: a commit
	// running meanwhile finds one or the other, never neither. (A symlink
	// is renamed: link(2) may follow it.)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		if err := os.Link(path, chained); err == nil {
			if err := writeShim(path, shim); err != nil {
				_ = os.Remove(chained)
				return skipped(res, err)
			}
			res.Action = Chained
			return res, nil
		}
	}
	if err := os.Rename(path, chained); err != nil {
		return skipped(res, err)
	}
	if err := writeShim(path, shim); err != nil {
		// Put the user's hook back rather than leave no hook at all.
		_ = os.Rename(chained, path)
		return skipped(res, err)
	}
	res.Action = Chained
	return res, nil
}

// writeShim replaces path atomically: git may be running the hook right now.
func writeShim(path, shim string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(shim); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
