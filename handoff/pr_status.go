package handoff

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// PRStatusOptions are what `pr status` was asked.
type PRStatusOptions struct {
	// Number 0 = the pull request Session owns, else the open one of the
	// current branch.
	Number  int
	Session string
}

// PRStatusResult is a pull request's facts from GitHub and its owner in git.
type PRStatusResult struct {
	Repo    string
	Number  int
	Facts   prdata.Facts
	Owner   string // the owning session; "" when nobody owns it here
	Notices []string
}

// PRStatus reads a pull request's state, checks, reviews and unresolved
// threads. A merged pull request marks its owning session merged.
func PRStatus(ctx context.Context, st refstore.Clone, gh PRHost, opts PRStatusOptions, clock Clock) (PRStatusResult, error) {
	res := PRStatusResult{Repo: gh.Repo().FullName(), Number: opts.Number}
	if res.Number == 0 {
		id, err := SessionID(st, opts.Session)
		if err != nil {
			return res, err
		}
		if p, err := sessionPR(ctx, st, id); err == nil && p != nil {
			res.Number = p.Number
		}
	}
	if res.Number == 0 {
		head, err := st.Head(ctx)
		if err != nil {
			return res, err
		}
		pr, err := gh.OpenPRForBranch(ctx, "", head.Branch)
		if err != nil && !errors.Is(err, prdata.ErrNotOpen) {
			return res, fmt.Errorf("finding the pull request: %w", err)
		}
		res.Number = pr.Number
	}
	f, err := gh.Facts(ctx, res.Number)
	if err != nil {
		return res, fmt.Errorf("reading the facts of #%d: %w", res.Number, err)
	}
	res.Facts = f
	rec, rerr := prown.Find(ctx, st, res.Repo, res.Number)
	switch {
	case rerr == nil:
		res.Owner = rec.OwnerSession
	case !errors.Is(rerr, refstore.ErrNotFound):
		res.Notices = append(res.Notices, rerr.Error())
	}
	if f.PR.Merged && rerr == nil && !rec.Merged() {
		res.Notices = append(res.Notices, markMerged(ctx, st, res.Repo, res.Number, clock())...)
	}
	return res, nil
}
