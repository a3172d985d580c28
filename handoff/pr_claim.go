package handoff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// PRClaimOptions are what `pr claim` was asked.
type PRClaimOptions struct {
	Number     int    // 0 = the open pull request of the current branch
	Session    string // "" = GIT_HANDOFF_SESSION, else this worktree's
	NoTakeover bool
	Assign     bool   // assign the pull request to the token's user
	Label      string // add this label; "" = none
	NoComment  bool   // leave the ownership comment alone
}

// PRClaimResult is what a claim did, in git and then on GitHub.
type PRClaimResult struct {
	Number int // the pull request, also when the claim failed
	prown.ClaimResult
	GitHub PRGitHub
}

// PRGitHub says what was done on GitHub after the swap in git.
type PRGitHub struct {
	// Comment is created, updated (edited, or already up to date), none (no
	// comment of ours to edit), skipped or failed.
	Comment   string
	CommentID int64  // 0 when none was written or found
	Assigned  string // the login assigned, else ""
	Labeled   string // the label added, else ""
	// Errors are GitHub's failures after the swap, which stands: git is
	// the source of truth, and running the same workflow again finishes
	// the GitHub side.
	Errors []error
}

// The values of PRGitHub.Comment.
const (
	CommentCreated = "created"
	CommentUpdated = "updated"
	CommentNone    = "none"
	CommentSkipped = "skipped"
	CommentFailed  = "failed"
)

// PRClaim makes a session the owner of a pull request: it reads the pull
// request from the host (a closed one is refused with prdata.ErrNotOpen, a
// merged one also marks its owner merged), swaps the ownership record in
// git, and only then writes the ownership comment, the assignee and the
// label. Failures on GitHub after the swap are in the result's
// GitHub.Errors, not the error: the claim stands.
//
// Without a token it refuses before anything changes (*prdata.AuthError with
// NoToken) unless it writes nothing to GitHub.
func PRClaim(ctx context.Context, st refstore.Clone, gh PRHost, opts PRClaimOptions, clock Clock) (PRClaimResult, error) {
	res := PRClaimResult{Number: opts.Number, GitHub: PRGitHub{Comment: CommentSkipped}}
	session, err := SessionID(st, opts.Session)
	if err != nil {
		return res, err
	}
	if session == "" {
		return res, fmt.Errorf("claiming a pull request: %w", ErrNoSession)
	}
	writes := !opts.NoComment || opts.Assign || opts.Label != ""
	if writes && !gh.HasToken() {
		return res, &prdata.AuthError{Op: "claiming a pull request (it writes to GitHub)", NoToken: true}
	}
	repo := gh.Repo().FullName()

	// 1. The pull request, as GitHub has it now.
	var pr prdata.PR
	doing := "claiming the pull request of the current branch"
	if opts.Number > 0 {
		doing = fmt.Sprintf("claiming #%d", opts.Number)
		pr, err = gh.PR(ctx, opts.Number)
	} else {
		head, herr := st.Head(ctx)
		if herr != nil {
			return res, herr
		}
		pr, err = gh.OpenPRForBranch(ctx, "", head.Branch)
		if pr.Number > 0 {
			res.Number = pr.Number
			doing = fmt.Sprintf("claiming #%d (branch %s)", pr.Number, head.Branch)
		}
	}
	if err != nil && !errors.Is(err, prdata.ErrNotOpen) {
		return res, fmt.Errorf("%s: %w", doing, err)
	}
	if !pr.Open() {
		if pr.Merged {
			res.Notices = markMerged(ctx, st, repo, res.Number, clock())
		}
		return res, fmt.Errorf("%s: #%d is %s: %w", doing, res.Number, pr.State, prdata.ErrNotOpen)
	}

	// 2. The swap in git: the source of truth.
	notices := res.Notices
	claim, err := prown.Claim(ctx, st, prown.ClaimOptions{
		Repo: repo, Number: res.Number, URL: pr.URL, Session: session, NoTakeover: opts.NoTakeover,
	}, clock())
	res.ClaimResult = claim
	res.Notices = append(notices, claim.Notices...)
	if err != nil {
		return res, fmt.Errorf("%s: %w", doing, err)
	}

	// 3. GitHub, only now. Each step is idempotent; failures are collected.
	n := res.Number
	if !opts.NoComment {
		body := prdata.RenderOwnershipComment(prown.Comment(claim.Record.Record))
		id, created, err := gh.UpsertOwnershipComment(ctx, n, body)
		switch {
		case err != nil:
			res.GitHub.Comment = CommentFailed
			res.GitHub.Errors = append(res.GitHub.Errors, err)
		case created:
			res.GitHub.Comment = CommentCreated
		default:
			res.GitHub.Comment = CommentUpdated
		}
		res.GitHub.CommentID = id
	}
	if opts.Assign {
		login, err := gh.Login(ctx)
		if err == nil && !slices.ContainsFunc(pr.Assignees, func(a string) bool { return strings.EqualFold(a, login) }) {
			err = gh.Assign(ctx, n, login)
		}
		if err != nil {
			res.GitHub.Errors = append(res.GitHub.Errors, err)
		} else {
			res.GitHub.Assigned = login
		}
	}
	if opts.Label != "" {
		var err error
		if !slices.Contains(pr.Labels, opts.Label) {
			err = gh.AddLabel(ctx, n, opts.Label)
		}
		if err != nil {
			res.GitHub.Errors = append(res.GitHub.Errors, err)
		} else {
			res.GitHub.Labeled = opts.Label
		}
	}
	return res, nil
}
