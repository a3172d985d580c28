package handoff

import (
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/ghpr/prdata"
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
}

// PRReleaseResult is what a release did, in git and then on GitHub.
type PRReleaseResult struct {
	prown.ReleaseResult
	GitHub PRGitHub // Comment: updated, none, skipped or failed
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
