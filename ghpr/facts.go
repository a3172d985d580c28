package ghpr

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/google/go-github/v60/github"
)

const excerptLen = 160

// Checks lists the check runs and commit statuses on sha, paginating
// through both.
func (c *Client) Checks(ctx context.Context, sha string) (Checks, error) {
	op := fmt.Sprintf("reading checks of %s", shortSHA(sha))
	out := Checks{Failing: []Check{}, Pending: []Check{}, Passing: []Check{}, Skipping: []Check{}}
	if sha == "" {
		return out, fmt.Errorf("%s: no commit", op)
	}
	opts := &github.ListCheckRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		res, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, c.repo.Owner, c.repo.Name, sha, opts)
		if err != nil {
			return out, c.wrap(op, err)
		}
		for _, r := range res.CheckRuns {
			state := r.GetConclusion()
			if r.GetStatus() != "completed" || state == "" {
				state = r.GetStatus()
			}
			url := r.GetDetailsURL()
			if url == "" {
				url = r.GetHTMLURL()
			}
			out.Add(Check{
				Name: r.GetName(), Kind: "check_run", State: strings.ToLower(state),
				Bucket: BucketCheckRun(r.GetStatus(), r.GetConclusion()),
				URL:    url, SHA: r.GetHeadSHA(), NotHead: r.GetHeadSHA() != sha,
			})
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	sopts := &github.ListOptions{PerPage: 100}
	for {
		res, resp, err := c.gh.Repositories.GetCombinedStatus(ctx, c.repo.Owner, c.repo.Name, sha, sopts)
		if err != nil {
			return out, c.wrap(op, err)
		}
		for _, s := range res.Statuses {
			out.Add(Check{
				Name: s.GetContext(), Kind: "status", State: strings.ToLower(s.GetState()),
				Bucket: BucketStatus(s.GetState()), URL: s.GetTargetURL(),
				SHA: res.GetSHA(), NotHead: res.GetSHA() != "" && res.GetSHA() != sha,
			})
		}
		if resp.NextPage == 0 {
			break
		}
		sopts.Page = resp.NextPage
	}
	return out, nil
}

// Verdicts reads pull request n's reviews: each reviewer's latest
// APPROVED, CHANGES_REQUESTED or DISMISSED review is their verdict
// (COMMENTED and PENDING reviews do not change it).
func (c *Client) Verdicts(ctx context.Context, n int) (approved, changesRequested []string, err error) {
	op := fmt.Sprintf("reading reviews of #%d", n)
	if err := checkNumber(n); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	latest := map[string]string{}
	opts := &github.ListOptions{PerPage: 100}
	for {
		page, resp, err := c.gh.PullRequests.ListReviews(ctx, c.repo.Owner, c.repo.Name, n, opts)
		if err != nil {
			return nil, nil, c.wrap(op, err)
		}
		// GitHub lists reviews oldest first.
		for _, r := range page {
			switch st := r.GetState(); st {
			case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
				latest[r.GetUser().GetLogin()] = st
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	approved, changesRequested = []string{}, []string{}
	for who, st := range latest {
		switch st {
		case "APPROVED":
			approved = append(approved, who)
		case "CHANGES_REQUESTED":
			changesRequested = append(changesRequested, who)
		}
	}
	sort.Strings(approved)
	sort.Strings(changesRequested)
	return approved, changesRequested, nil
}

// RESTThreads rebuilds review threads from REST review comments (a reply
// names its thread's first comment in in_reply_to_id). REST cannot say
// whether a thread is resolved, so Resolved is nil on every one.
func (c *Client) RESTThreads(ctx context.Context, n int) ([]Thread, error) {
	op := fmt.Sprintf("reading review comments of #%d", n)
	// Number 0 would list the review comments of the whole repository.
	if err := checkNumber(n); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	threads := []Thread{}
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := c.gh.PullRequests.ListComments(ctx, c.repo.Owner, c.repo.Name, n, opts)
		if err != nil {
			return nil, c.wrap(op, err)
		}
		for _, cm := range page {
			if cm.GetInReplyTo() != 0 {
				continue
			}
			line := cm.GetLine()
			if line == 0 {
				line = cm.GetOriginalLine()
			}
			threads = append(threads, Thread{
				ID: fmt.Sprint(cm.GetID()), Path: cm.GetPath(), Line: line,
				Author: cm.GetUser().GetLogin(), Excerpt: excerpt(cm.GetBody(), excerptLen),
				URL: cm.GetHTMLURL(), Outdated: cm.Line == nil && cm.OriginalLine != nil,
			})
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return threads, nil
}

// Facts gathers a pull request's state, checks on its head, reviews and
// unresolved threads. The PR is read first (its head SHA names the checks);
// the rest is fetched in parallel. Threads come from GraphQL; if GraphQL
// fails for any reason but a rate limit or cancellation, they come from REST
// with ThreadsKnown false and a warning saying why.
func (c *Client) Facts(ctx context.Context, n int) (Facts, error) {
	// Stamped before the first request: every fact is at least this fresh.
	fetchedAt := c.now().UTC()
	pr, err := c.PR(ctx, n)
	if err != nil {
		return Facts{}, err
	}
	f := Facts{PR: pr, ChangesRequestedBy: []string{}, ApprovedBy: []string{}, Threads: []Thread{}}
	var (
		wg                   sync.WaitGroup
		checksErr, reviewErr error
		gqlErr               error
		threads              []Thread
		decision             string
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		f.Checks, checksErr = c.Checks(ctx, pr.HeadSHA)
	}()
	go func() {
		defer wg.Done()
		f.ApprovedBy, f.ChangesRequestedBy, reviewErr = c.Verdicts(ctx, n)
	}()
	go func() {
		defer wg.Done()
		threads, decision, gqlErr = c.ReviewThreads(ctx, n)
	}()
	wg.Wait()
	for _, e := range []error{checksErr, reviewErr} {
		if e != nil {
			return Facts{}, e
		}
	}
	if gqlErr == nil {
		f.ThreadsKnown = true
		f.ReviewDecision = decision
		for _, th := range threads {
			if !*th.Resolved {
				f.Threads = append(f.Threads, th)
			}
		}
	} else {
		var rl *RateLimitError
		if errors.As(gqlErr, &rl) || ctx.Err() != nil {
			return Facts{}, gqlErr
		}
		rest, err := c.RESTThreads(ctx, n)
		if err != nil {
			return Facts{}, err
		}
		f.Threads = rest
		f.Warnings = append(f.Warnings, "review threads: resolution unknown (GraphQL failed: "+gqlErr.Error()+"); showing every thread")
		if len(f.ChangesRequestedBy) > 0 {
			// Not GitHub's decision, but what the verdicts imply.
			f.ReviewDecision = "CHANGES_REQUESTED"
		}
	}
	if f.Checks.Stale > 0 {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%d checks ran on a commit other than the head %s", f.Checks.Stale, shortSHA(pr.HeadSHA)))
	}
	if pr.Open() && pr.Mergeable == nil {
		f.Warnings = append(f.Warnings, "mergeability: GitHub is still computing it; ask again shortly")
	}
	f.FetchedAt = fetchedAt
	return f, nil
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// excerpt is the first non-empty line of a markdown body, whitespace
// collapsed, cut to n runes.
func excerpt(body string, n int) string {
	var line string
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	return prdata.Clip(line, n)
}
