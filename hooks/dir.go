package hooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-handoff/git-handoff/refstore"
)

// layout is where a repository keeps its hooks, as git reports it. Asking
// git (rev-parse --git-path hooks) rather than assuming .git/hooks honours
// core.hooksPath, linked worktrees (which share the main repository's
// hooks, unless a relative core.hooksPath gives each its own) and bare
// repositories.
type layout struct {
	// hooks is the hooks directory, absolute; "" where core.hooksPath is
	// the empty string (noHooks), with which git runs no hook files, only
	// hooks from config.
	hooks   string
	noHooks bool
	gitDir  string // this worktree's git dir
	common  string // the common git dir
	top     string // this worktree's top; "" in a bare repository or a git dir
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
	noHooks := errors.Is(err, refstore.ErrHooksDisabled)
	if err != nil && !noHooks {
		return layout{}, fmt.Errorf("finding the hooks directory: %w", err)
	}
	return layout{hooks: hooks, noHooks: noHooks, gitDir: rl.GitDir, common: rl.CommonDir, top: rl.WorkTree}, nil
}

// hooksDisabled is the error for a hook-file operation where git runs no
// hook files (core.hooksPath is the empty string), with what still works.
func hooksDisabled(ctx context.Context, repoDir string) error {
	if ok, _ := ConfigHooksSupported(ctx, repoDir); ok {
		return fmt.Errorf("%w; this git runs hooks from config all the same: `git handoff hooks install --hooks=config` registers them there", refstore.ErrHooksDisabled)
	}
	return fmt.Errorf("%w; run `git handoff hooks install` where it is not", refstore.ErrHooksDisabled)
}

// ownHooks reports whether the hooks directory belongs to this repository
// alone: inside its common git dir or inside this worktree.
func (l layout) ownHooks() bool {
	return l.hooks != "" && (within(l.hooks, l.common) || l.top != "" && within(l.hooks, l.top))
}

// inWorkTree reports whether the hooks directory lies in the work tree
// outside the git dir, as a core.hooksPath such as .githooks does.
func (l layout) inWorkTree() bool {
	return l.hooks != "" && l.top != "" && within(l.hooks, l.top) && !within(l.hooks, l.common)
}
