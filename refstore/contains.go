package refstore

import (
	"context"
	"strings"
)

// RemoteTracking names the remote-tracking ref that contains commit, or ""
// when none does (the commit was never pushed, or not fetched back since).
// It asks git (for-each-ref --contains), which stops at the first ref that
// answers; git's commit-graph keeps the walk short, and the caller bounds
// it with ctx.
func (s *Store) RemoteTracking(ctx context.Context, commit string) (string, error) {
	out, err := Git(ctx, s.workDir, false, nil, "for-each-ref", "--count=1", "--format=%(refname)", "--contains", commit, "refs/remotes/")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
