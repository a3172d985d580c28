package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
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
		if h.Action != Unchanged && h.Action != Skipped {
			return true
		}
	}
	return false
}

// Install writes the shims into Dir(repoDir). A hook already there that is
// not ours is renamed to <name>.handoff-chained (content, mode and symlinks
// preserved, as rename keeps the file itself) and the shim runs it first.
// Running it again changes nothing. A hook that cannot be installed without
// losing a file (a user's hook and a chained one both present) is Skipped
// and Install returns an error naming it after handling the others.
func Install(ctx context.Context, repoDir string, opts Options) (Report, error) {
	dir, err := Dir(ctx, repoDir)
	if err != nil {
		return Report{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Report{}, fmt.Errorf("creating hooks directory: %w", err)
	}
	rep := Report{Dir: dir}
	if inWorkTree(ctx, repoDir, dir) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf(
			"hooks directory %s is inside the work tree: the shims and any renamed hooks will show in git status", dir))
	}
	var errs []error
	for _, name := range Names() {
		res, err := installOne(dir, name, opts.Command)
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
		res.Action = Skipped
		res.Detail = err.Error()
		return res, err
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

// moveAsideAndWrite chains the user's hook at path behind a new shim.
func moveAsideAndWrite(res HookResult, path, chained, shim string) (HookResult, error) {
	if _, err := os.Lstat(chained); err == nil {
		res.Action = Skipped
		res.Detail = "both " + path + " and " + chained + " exist; move one away"
		return res, errors.New(res.Detail)
	}
	if err := os.Rename(path, chained); err != nil {
		res.Action = Skipped
		res.Detail = err.Error()
		return res, err
	}
	if err := writeShim(path, shim); err != nil {
		// Put the user's hook back rather than leave no hook at all.
		_ = os.Rename(chained, path)
		res.Action = Skipped
		res.Detail = err.Error()
		return res, err
	}
	res.Action = Chained
	res.Detail = "runs " + chained
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

// inWorkTree reports whether dir lies in repoDir's work tree outside the
// git dir, as a core.hooksPath such as .githooks does. A bare repository has
// no work tree.
func inWorkTree(ctx context.Context, repoDir, dir string) bool {
	out, err := refstore.Git(ctx, repoDir, false, nil,
		"rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir")
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return len(lines) == 2 && within(dir, lines[0]) && !within(dir, lines[1])
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
