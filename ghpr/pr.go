package ghpr

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-github/v60/github"
)

func prFrom(g *github.PullRequest) PR {
	p := PR{
		Number:         g.GetNumber(),
		URL:            g.GetHTMLURL(),
		Title:          g.GetTitle(),
		State:          g.GetState(),
		Draft:          g.GetDraft(),
		Merged:         g.GetMerged() || g.MergedAt != nil,
		Mergeable:      g.Mergeable,
		MergeableState: g.GetMergeableState(),
		HeadBranch:     g.GetHead().GetRef(),
		HeadSHA:        g.GetHead().GetSHA(),
		HeadOwner:      g.GetHead().GetUser().GetLogin(),
		Base:           g.GetBase().GetRef(),
		Author:         g.GetUser().GetLogin(),
		Assignees:      []string{},
		Labels:         []string{},
	}
	if p.HeadOwner == "" {
		p.HeadOwner = g.GetHead().GetRepo().GetOwner().GetLogin()
	}
	if p.Merged {
		p.State = "merged"
	}
	for _, a := range g.Assignees {
		p.Assignees = append(p.Assignees, a.GetLogin())
	}
	for _, l := range g.Labels {
		p.Labels = append(p.Labels, l.GetName())
	}
	return p
}

// PR reads pull request n. While GitHub is still computing mergeability
// (mergeable: null on an open pull request) it asks again, up to
// MergeablePolls times, 1s, 2s, 3s… apart, and then returns what it has.
func (c *Client) PR(ctx context.Context, n int) (PR, error) {
	op := fmt.Sprintf("reading pull request #%d", n)
	if err := checkNumber(n); err != nil {
		return PR{}, fmt.Errorf("%s: %w", op, err)
	}
	for try := 0; ; try++ {
		g, _, err := c.gh.PullRequests.Get(ctx, c.repo.Owner, c.repo.Name, n)
		if err != nil {
			return PR{}, c.wrap(op, err)
		}
		p := prFrom(g)
		if p.Mergeable != nil || p.State != "open" || try >= c.polls {
			return p, nil
		}
		if err := c.sleep(ctx, time.Duration(try+1)*time.Second); err != nil {
			return PR{}, fmt.Errorf("%s: %w", op, err)
		}
	}
}

// OpenPRForBranch finds the open pull request whose head is branch in
// headOwner's repository (default: this repository's owner). With none
// open it returns ErrNotOpen when a closed or merged one exists (naming
// it), else ErrNoPR.
func (c *Client) OpenPRForBranch(ctx context.Context, headOwner, branch string) (PR, error) {
	if headOwner == "" {
		headOwner = c.repo.Owner
	}
	op := fmt.Sprintf("finding the pull request for branch %q", branch)
	if branch == "" {
		return PR{}, fmt.Errorf("%s: no branch (detached HEAD?)", op)
	}
	// A head without "owner:" is silently ignored by GitHub and would list
	// every pull request.
	opts := &github.PullRequestListOptions{
		State:       "all",
		Head:        headOwner + ":" + branch,
		ListOptions: github.ListOptions{PerPage: 100},
	}
	var closed *github.PullRequest
	for {
		page, resp, err := c.gh.PullRequests.List(ctx, c.repo.Owner, c.repo.Name, opts)
		if err != nil {
			return PR{}, c.wrap(op, err)
		}
		for _, g := range page {
			if g.GetHead().GetRef() != branch {
				continue
			}
			if g.GetState() == "open" {
				return c.PR(ctx, g.GetNumber())
			}
			if closed == nil {
				closed = g
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if closed != nil {
		p := prFrom(closed)
		return p, fmt.Errorf("%s: #%d is %s: %w", op, p.Number, p.State, ErrNotOpen)
	}
	return PR{}, fmt.Errorf("%s: %w", op, ErrNoPR)
}
