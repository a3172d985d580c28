package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// layout is where a repository keeps its hooks, as git reports it. Asking
// git (rev-parse --git-path hooks) rather than assuming .git/hooks honours
// core.hooksPath, linked worktrees (which share the main repository's
// hooks, unless a relative core.hooksPath gives each its own) and bare
// repositories.
type layout struct {
	hooks  string // the hooks directory, absolute
	common string // the common git dir
	top    string // this worktree's top; "" in a bare repository or a git dir
}

// locate asks git, in one process, where repoDir's hooks and common git dir
// are, and the top of its worktree.
func locate(ctx context.Context, repoDir string) (layout, error) {
	out, err := refstore.Git(ctx, repoDir, false, nil, "rev-parse", "--path-format=absolute",
		"--git-path", "hooks", "--git-common-dir", "--is-inside-work-tree", "--show-cdup")
	if err != nil {
		return layout{}, fmt.Errorf("finding the hooks directory: %w", err)
	}
	// hooks, common dir, true|false, then the way up to the top (an empty
	// line at the top itself) only inside a work tree.
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) < 3 || lines[0] == "" || lines[1] == "" {
		return layout{}, fmt.Errorf("finding the hooks directory: unexpected output from git rev-parse: %q", out)
	}
	l := layout{hooks: filepath.Clean(lines[0]), common: filepath.Clean(lines[1])}
	if lines[2] == "true" && len(lines) == 4 {
		// git's paths are real paths; so must this one be to compare.
		dir, err := filepath.Abs(repoDir)
		if err == nil {
			if real, rerr := filepath.EvalSymlinks(dir); rerr == nil {
				dir = real
			}
			l.top = filepath.Clean(filepath.Join(dir, lines[3]))
		}
	}
	return l, nil
}

// ownHooks reports whether the hooks directory belongs to this repository
// alone: inside its common git dir or inside this worktree.
func (l layout) ownHooks() bool {
	return within(l.hooks, l.common) || (l.top != "" && within(l.hooks, l.top))
}

// inWorkTree reports whether the hooks directory lies in the work tree
// outside the git dir, as a core.hooksPath such as .githooks does.
func (l layout) inWorkTree() bool {
	return l.top != "" && within(l.hooks, l.top) && !within(l.hooks, l.common)
}
