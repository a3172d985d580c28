package handoff

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// PRReleaseOptions are what `pr release` was asked.
type PRReleaseOptions struct {
	Repo      string // owner/name
	Number    int
	NoComment bool // leave the ownership comment alone
	// Connect reaches GitHub to edit the comment; only called when there
	// is one to edit.
	Connect Connect
	// Leases is where the released owner's lease pr:N is freed; nil
	// frees none.
	Leases lease.Board
}

// PRReleaseResult is what a release did, in git and then on GitHub.
type PRReleaseResult struct {
	prown.ReleaseResult
	GitHub PRGitHub // Comment: updated, none, skipped or failed
	// Lease is the released owner's lease pr:N, freed; nil when it held
	// none (or none was asked to be freed).
	Lease   *lease.Outcome
	Notices []string
}

// PRRelease leaves the pull request without an owner (prown.Release), then
// edits its ownership comment, if it has one of ours, to say so; it never
// posts one. A GitHub failure is in GitHub.Errors: the release stands.
func PRRelease(ctx context.Context, st refstore.Clone, opts PRReleaseOptions, clock Clock) (PRReleaseResult, error) {
	rel, err := prown.Release(ctx, st, opts.Repo, opts.Number, clock())
	if err != nil {
		return PRReleaseResult{}, fmt.Errorf("releasing #%d: %w", opts.Number, err)
	}
	res := PRReleaseResult{ReleaseResult: rel, GitHub: PRGitHub{Comment: CommentSkipped}}
	res.Lease, res.Notices = releasePRLease(ctx, st, opts.Leases, rel.Previous, opts.Number, clock)
	if opts.NoComment {
		return res, nil
	}
	id, err := editReleased(ctx, opts.Connect, opts.Number, rel.Record.Record)
	res.GitHub.CommentID = id
	switch {
	case err != nil:
		res.GitHub.Comment = CommentFailed
		res.GitHub.Errors = []error{err}
	case id == 0:
		res.GitHub.Comment = CommentNone
	default:
		res.GitHub.Comment = CommentUpdated
	}
	return res, nil
}

// editReleased edits the ownership comment to say what the released record
// says. It returns the comment's id, 0 when there was none.
func editReleased(ctx context.Context, connect Connect, n int, rec prown.Record) (int64, error) {
	if rec.OwnerSession != "" {
		return 0, nil // not released: there is nothing to say
	}
	if connect == nil {
		return 0, fmt.Errorf("no GitHub connection")
	}
	gh, err := connect(ctx)
	if err != nil {
		return 0, err
	}
	// Without a token this is an *AuthError before any request.
	return gh.EditOwnershipComment(ctx, n, prdata.RenderOwnershipComment(prown.Comment(rec)))
}

// releasePRLease frees the lease pr:n that the released owner held. A
// lease another session holds stays theirs; one nobody holds is nothing to
// do; a board that cannot be reached is a notice (the lease then expires
// once its holder stops renewing it).
func releasePRLease(ctx context.Context, st refstore.Clone, b lease.Board, owner string, n int, clock Clock) (*lease.Outcome, []string) {
	if b == nil || owner == "" {
		return nil, nil
	}
	key := lease.Key{Kind: lease.KindPR, Value: strconv.Itoa(n)}
	r, err := lease.Release(ctx, st, b, owner, []lease.Key{key}, "its pull request was released", lease.Clock(clock))
	var nh *lease.NotHolderError
	switch {
	case errors.As(err, &nh):
		return nil, nil
	case err != nil:
		return nil, []string{fmt.Sprintf("the lease %s of session %s was not released (%v): `git handoff lease release %s --session %s`", key, owner, err, key, owner)}
	}
	for _, o := range r.Leases {
		if o.Action == lease.Released {
			return &o, nil
		}
	}
	return nil, nil
}
