package main

import (
	"context"
	"fmt"
	"os"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/session"
)

// forge is what deps keeps of GitHub: the client, made at first use.
type forge struct {
	gh *ghpr.Client
}

// GitHub connects to the GitHub repository of this checkout, once: GH_REPO
// or the origin remote, a token from the environment, gh or git's
// credential helper (none is fine for reads of public repositories), and
// the endpoints for its host (GITHUB_API_URL and GITHUB_GRAPHQL_URL
// override them). No request is made here.
func (d *deps) GitHub(ctx context.Context) (*ghpr.Client, error) {
	if d.gh != nil {
		return d.gh, nil
	}
	dir := "."
	if st, err := d.Store(ctx); err == nil {
		dir = st.Dir()
	}
	c, _, err := ghpr.Connect(ctx, dir, "origin", os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("connecting to GitHub: %w", err)
	}
	d.gh = c
	return c, nil
}

// prHost is the GitHub connection as the workflows take it.
func (d *deps) prHost(ctx context.Context) (handoff.PRHost, error) {
	gh, err := d.GitHub(ctx)
	if err != nil {
		return nil, err
	}
	return gh, nil
}

// The workflows' PR host is GitHub's client.
var _ handoff.PRHost = (*ghpr.Client)(nil)

// prFacts renders the facts of the pull request p for a brief, asking
// GitHub in process.
func (d *deps) prFacts(ctx context.Context, p *session.PRPointer) (string, []string) {
	return handoff.PRFacts(ctx, d.prHost, p)
}
