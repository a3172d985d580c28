package ghpr

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// ErrNoRemote means the repository has no remote by that name.
var ErrNoRemote = errors.New("no such remote")

// DetectRepo finds the GitHub repository work in dir belongs to. GH_REPO wins
// (its host from the value, else GH_HOST, else github.com); otherwise the URL
// of remote (default "origin") as `git remote get-url` reports it, which
// applies insteadOf rewrites. getenv is os.Getenv outside tests.
func DetectRepo(ctx context.Context, dir, remote string, getenv func(string) string) (Repo, error) {
	if v := getenv("GH_REPO"); v != "" {
		r, err := ParseRepo(v, getenv("GH_HOST"))
		if err != nil {
			return Repo{}, fmt.Errorf("GH_REPO: %w", err)
		}
		return r, nil
	}
	if remote == "" {
		remote = "origin"
	}
	out, err := refstore.Git(ctx, dir, true, nil, "remote", "get-url", "--", remote)
	if err != nil {
		var ge *refstore.GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "No such remote") {
			return Repo{}, fmt.Errorf("remote %q: %w (set GH_REPO=OWNER/REPO or add the remote)", remote, ErrNoRemote)
		}
		return Repo{}, fmt.Errorf("reading remote %q: %w", remote, err)
	}
	r, err := ParseRemoteURL(string(out))
	if err != nil {
		return Repo{}, fmt.Errorf("remote %q: %w", remote, err)
	}
	return r, nil
}
