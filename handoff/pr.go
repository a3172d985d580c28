package handoff

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// PRHost is what the pull-request workflows need from the forge: the facts
// of a pull request and the few writes that tell people who owns it.
// *ghpr.Client is the one in use; the interface lives here, with its
// consumer, so that the workflows can be read (and served by the MCP server
// and the web API) without go-github's shapes.
type PRHost interface {
	Repo() prdata.Repo
	HasToken() bool
	PR(ctx context.Context, n int) (prdata.PR, error)
	// OpenPRForBranch returns prdata.ErrNotOpen (with the closed or merged
	// pull request) or prdata.ErrNoPR when the branch has no open one.
	OpenPRForBranch(ctx context.Context, headOwner, branch string) (prdata.PR, error)
	Facts(ctx context.Context, n int) (prdata.Facts, error)
	Login(ctx context.Context) (string, error)
	UpsertOwnershipComment(ctx context.Context, n int, body string) (commentID int64, created bool, err error)
	EditOwnershipComment(ctx context.Context, n int, body string) (commentID int64, err error)
	Assign(ctx context.Context, n int, login string) error
	AddLabel(ctx context.Context, n int, label string) error
}

// Connect builds a PRHost when a workflow first needs one, so that a
// workflow that ends up not talking to GitHub never builds a client.
type Connect func(context.Context) (PRHost, error)

// markMerged records a merge seen on GitHub and says what it changed.
func markMerged(ctx context.Context, st refstore.Clone, repo string, number int, now time.Time) []string {
	res, err := prown.MarkMerged(ctx, st, repo, number, now)
	notices := res.Notices
	switch {
	case err != nil:
		notices = append(notices, fmt.Sprintf("recording #%d as merged: %v", number, err))
	case res.Changed && res.Session != nil && res.Session.Status == session.StatusMerged:
		notices = append(notices, fmt.Sprintf("#%d is merged: session %s is now merged (read-only)", number, res.Session.ID))
	}
	return notices
}

// prFactsTimeout bounds the GitHub reads a replacement or a brief waits for:
// the facts are worth having, not worth hanging on.
const prFactsTimeout = 15 * time.Second

// PRFacts renders the facts of the pull request p points at for a handoff
// package or a brief (brief.PRFacts). A pointer to another
// repository than the host's renders as "". Failing to fetch them degrades
// to a section saying so and a notice, never to a failed workflow.
func PRFacts(ctx context.Context, connect Connect, p *session.PRPointer) (string, []string) {
	if p == nil || p.Number <= 0 {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, prFactsTimeout)
	defer cancel()
	md, err := prFactsMarkdown(ctx, connect, p)
	if err == nil {
		return md, nil
	}
	return PRFactsFailed(p, err)
}

// PRFactsFailed is the section, and the notice, that stand in for the
// facts of p when they could not be fetched.
func PRFactsFailed(p *session.PRPointer, err error) (string, []string) {
	msg := fmt.Sprintf("the facts of %s#%d could not be fetched: %v", p.Repo, p.Number, err)
	return fmt.Sprintf("### Pull request %s#%d\n\n%s\n\n%s\n", p.Repo, p.Number, p.URL, msg), []string{msg}
}

func prFactsMarkdown(ctx context.Context, connect Connect, p *session.PRPointer) (string, error) {
	if connect == nil {
		return "", fmt.Errorf("no GitHub connection")
	}
	gh, err := connect(ctx)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(gh.Repo().FullName(), p.Repo) {
		return "", nil
	}
	f, err := gh.Facts(ctx, p.Number)
	if err != nil {
		return "", fmt.Errorf("reading the facts of #%d: %w", p.Number, err)
	}
	return brief.PRFacts(f), nil
}

// sessionPR is the pull request the session's record points at; nil when
// id is "" or the session owns none.
func sessionPR(ctx context.Context, st refstore.Records, id string) (*session.PRPointer, error) {
	if id == "" {
		return nil, nil
	}
	s, err := session.Read(ctx, st, id)
	if err != nil {
		return nil, err
	}
	return s.PR, nil
}
