package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// Dir returns the absolute directory git runs hooks from for the repository
// or worktree at repoDir. Asking git (rev-parse --git-path hooks) rather than
// assuming .git/hooks honours core.hooksPath, linked worktrees (which share
// the main repository's hooks) and bare repositories.
func Dir(ctx context.Context, repoDir string) (string, error) {
	out, err := refstore.Git(ctx, repoDir, false, nil, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", fmt.Errorf("finding the hooks directory: %w", err)
	}
	dir := strings.TrimRight(string(out), "\r\n")
	if dir == "" {
		return "", fmt.Errorf("finding the hooks directory: git printed nothing")
	}
	if !filepath.IsAbs(dir) {
		abs, err := filepath.Abs(filepath.Join(repoDir, dir))
		if err != nil {
			return "", fmt.Errorf("finding the hooks directory: %w", err)
		}
		dir = abs
	}
	return filepath.Clean(dir), nil
}
