package refstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Layout is where a repository's parts are, as git's setup finds them from
// some directory.
type Layout struct {
	GitDir    string // this worktree's git dir, absolute
	CommonDir string // the git dir all worktrees share, absolute
	// WorkTree is the top of the worktree the directory is inside; "" in a
	// bare repository or inside a git dir.
	WorkTree string
	Bare     bool // core.bare: the repository has no worktree

	hooks string // where git looks for hooks (rev-parse --git-path hooks)
	// noHooks: core.hooksPath is the empty string, with which git runs no
	// hooks at all (Gemini CLI sets it so for every shell command it runs).
	noHooks      bool
	objectFormat string // "sha1" or "sha256"
}

// Locate finds the repository containing dir through one git rev-parse:
// git's own setup (GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR, ceilings,
// core.worktree, safe.directory) decides.
func Locate(ctx context.Context, dir string) (Layout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Layout{}, err
	}
	args := []string{"rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--is-bare-repository", "--show-object-format",
		"--is-inside-work-tree", "--show-cdup"}
	out, err := Git(ctx, abs, false, nil, append(args, "--git-path", "hooks")...)
	noHooks := false
	if hooksPathEmpty(err) {
		noHooks = true
		out, err = Git(ctx, abs, false, nil, args...)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return Layout{}, fmt.Errorf("%w (or any of the parent directories): %s", ErrNotRepository, dir)
		}
		return Layout{}, err
	}
	// --show-cdup prints an empty line at the top itself: the hooks
	// path, when asked, is always the last line.
	hooks := ""
	if !noHooks && len(lines) > 0 {
		hooks = filepath.Clean(lines[len(lines)-1])
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 5 {
		return Layout{}, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	l := Layout{
		GitDir:       filepath.Clean(lines[0]),
		CommonDir:    filepath.Clean(lines[1]),
		Bare:         lines[2] == "true",
		objectFormat: lines[3],
		hooks:        hooks,
		noHooks:      noHooks,
	}
	// The way up to the top, only inside a worktree; git's paths are
	// real paths, so is this one.
	if lines[4] == "true" {
		up := ""
		if len(lines) > 5 {
			up = lines[5]
		}
		l.WorkTree = filepath.Join(realPath(abs), up)
	}
	return l, nil
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// HooksDir is where git looks for dir's repository's hooks (git rev-parse
// --git-path hooks), as Locate found it.
func HooksDir(ctx context.Context, dir string, l Layout) (string, error) {
	if l.noHooks {
		return "", ErrHooksDisabled
	}
	if l.hooks != "" {
		return l.hooks, nil
	}
	out, err := Git(ctx, dir, false, nil, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if hooksPathEmpty(err) {
		return "", ErrHooksDisabled
	}
	if err != nil {
		return "", err
	}
	return filepath.Clean(strings.TrimSpace(string(out))), nil
}

// ErrHooksDisabled: core.hooksPath is set to the empty string here, so git
// runs no hooks and there is no hooks directory to install into or check.
var ErrHooksDisabled = errors.New("git runs no hooks here: core.hooksPath is set to the empty string (git config --show-origin core.hooksPath says where)")

// hooksPathEmpty reports git refusing to make an empty core.hooksPath
// absolute: git then runs no hooks, and every other answer still stands.
func hooksPathEmpty(err error) bool {
	var ge *GitError
	return errors.As(err, &ge) && strings.Contains(ge.Stderr, "The empty string is not a valid path")
}
