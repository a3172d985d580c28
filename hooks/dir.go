package hooks

import (
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/refstore"
)

// layout is where a repository keeps its hooks, as git reports it. Asking
// git (rev-parse --git-path hooks) rather than assuming .git/hooks honours
// core.hooksPath, linked worktrees (which share the main repository's
// hooks, unless a relative core.hooksPath gives each its own) and bare
// repositories.
type layout struct {
	hooks  string // the hooks directory, absolute
	gitDir string // this worktree's git dir
	common string // the common git dir
	top    string // this worktree's top; "" in a bare repository or a git dir
}

// locate finds where repoDir's hooks and common git dir are, and the top
// of its worktree, in process as git would (refstore.Locate), asking git
// only for setups it leaves to git.
func locate(ctx context.Context, repoDir string) (layout, error) {
	rl, err := refstore.Locate(ctx, repoDir)
	if err != nil {
		return layout{}, fmt.Errorf("finding the hooks directory: %w", err)
	}
	return locateIn(ctx, repoDir, rl)
}

// locateIn is locate for a repository already found (rl).
func locateIn(ctx context.Context, repoDir string, rl refstore.Layout) (layout, error) {
	hooks, err := refstore.HooksDir(ctx, repoDir, rl)
	if err != nil {
		return layout{}, fmt.Errorf("finding the hooks directory: %w", err)
	}
	return layout{hooks: hooks, gitDir: rl.GitDir, common: rl.CommonDir, top: rl.WorkTree}, nil
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
