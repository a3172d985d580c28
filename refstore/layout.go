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

	hooks        string // where git looks for hooks (rev-parse --git-path hooks)
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
	out, err := Git(ctx, abs, false, nil, "rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--is-bare-repository", "--show-object-format",
		"--git-path", "hooks", "--is-inside-work-tree", "--show-cdup")
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return Layout{}, fmt.Errorf("%w (or any of the parent directories): %s", ErrNotRepository, dir)
		}
		return Layout{}, err
	}
	if len(lines) < 6 {
		return Layout{}, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	l := Layout{
		GitDir:       filepath.Clean(lines[0]),
		CommonDir:    filepath.Clean(lines[1]),
		Bare:         lines[2] == "true",
		objectFormat: lines[3],
		hooks:        filepath.Clean(lines[4]),
	}
	// The way up to the top (an empty line at the top itself), only
	// inside a worktree; git's paths are real paths, so is this one.
	if lines[5] == "true" {
		up := ""
		if len(lines) > 6 {
			up = lines[6]
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
	if l.hooks != "" {
		return l.hooks, nil
	}
	out, err := Git(ctx, dir, false, nil, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	return filepath.Clean(strings.TrimSpace(string(out))), nil
}
