package ghpr

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// PR is what we need to know about a pull request.
type PR struct {
	Number int    `json:"number"`
	URL    string `json:"url"` // the web page
	Title  string `json:"title"`
	State  string `json:"state"` // "open", "closed" or "merged"
	Draft  bool   `json:"draft"`
	Merged bool   `json:"merged"`
	// Mergeable is nil while GitHub is still computing it (PR asks again a
	// few times first) and for closed pull requests.
	Mergeable      *bool    `json:"mergeable"`
	MergeableState string   `json:"mergeableState"` // clean, dirty, blocked, behind, unstable, unknown…
	HeadBranch     string   `json:"headBranch"`
	HeadSHA        string   `json:"headSha"`
	HeadOwner      string   `json:"headOwner"` // differs from the repository owner for forks
	Base           string   `json:"base"`
	Author         string   `json:"author"`
	Assignees      []string `json:"assignees"`
	Labels         []string `json:"labels"`
}

// Open reports whether the pull request can still be worked on and claimed.
func (p PR) Open() bool { return p.State == "open" }

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

// ParsePRRef reads how a user names a pull request: "123", "#123", or its
// web URL ("https://HOST/OWNER/REPO/pull/123", with or without a trailing
// "/files" and the like). repo is set only for a URL, so the caller can check
// it is the repository it works in.
func ParsePRRef(s string) (repo Repo, number int, err error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(strings.TrimPrefix(s, "#")); err == nil {
		if n <= 0 {
			return Repo{}, 0, fmt.Errorf("pull request %q: number must be positive", s)
		}
		return Repo{}, n, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Repo{}, 0, fmt.Errorf("pull request %q: want a number, #number or a pull request URL", s)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 4 || parts[2] != "pull" {
		return Repo{}, 0, fmt.Errorf("pull request %q: not a pull request URL (want HOST/OWNER/REPO/pull/NUMBER)", redactURL(s))
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil || n <= 0 {
		return Repo{}, 0, fmt.Errorf("pull request %q: bad number %q", redactURL(s), parts[3])
	}
	return Repo{Host: normalizeHost(u.Hostname()), Owner: parts[0], Name: parts[1]}, n, nil
}
