package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// prCommand groups the pull-request ownership commands.
func prCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "pr",
		Usage: "pull request ownership: claim, show, status, route, release",
		Description: "A pull request has exactly one owning session, recorded under refs/ao/prs/<owner>/<repo>/<number>.\n" +
			"Replacing the owner moves the pull request to its successor; CI failures and review comments go to\n" +
			"whoever owns it now (`git handoff pr route`). GitHub is told after the ownership swap in git succeeded:\n" +
			"one comment per pull request, edited on every transfer.",
		Subcommands: []*cli.Command{
			prClaimCommand(d),
			prShowCommand(d),
			prStatusCommand(d),
			prRouteCommand(d),
			prReleaseCommand(d),
		},
	}
}

// prTarget is the pull request a command acts on.
type prTarget struct {
	Repo   ghpr.Repo // host, owner, name
	Number int       // 0 = not named
}

func (t prTarget) name() string { return t.Repo.FullName() }

// localRepo is this checkout's GitHub repository, without any request:
// GH_REPO, else the origin remote.
func localRepo(ctx context.Context, d *deps) (ghpr.Repo, error) {
	dir := "."
	if st, err := d.Store(ctx); err == nil {
		dir = st.Dir()
	}
	r, err := ghpr.DetectRepo(ctx, dir, "origin", os.Getenv)
	if err != nil {
		return ghpr.Repo{}, withHint(fmt.Errorf("finding the GitHub repository: %w", err), "add the GitHub remote as origin, or set GH_REPO=OWNER/REPO")
	}
	return r, nil
}

// localTarget opens the store and reads the command's pull request argument
// against this checkout's GitHub repository, for the commands that answer
// from git alone.
func localTarget(c *cli.Context, d *deps) (*refstore.Store, prTarget, error) {
	st, err := d.Store(c.Context)
	if err != nil {
		return nil, prTarget{}, err
	}
	repo, err := localRepo(c.Context, d)
	if err != nil {
		return nil, prTarget{}, err
	}
	t, err := parseTarget(c, repo, c.Args().First())
	return st, t, err
}

// parseTarget reads NUMBER, #NUMBER or a pull request URL (which must name
// repo). An empty arg leaves Number 0.
func parseTarget(c *cli.Context, repo ghpr.Repo, arg string) (prTarget, error) {
	t := prTarget{Repo: repo}
	if arg == "" {
		return t, nil
	}
	r, n, err := ghpr.ParsePRRef(arg)
	if err != nil {
		return t, usageErrorf(c, "%v", err)
	}
	if r.Owner != "" && (!strings.EqualFold(r.Owner, repo.Owner) || !strings.EqualFold(r.Name, repo.Name) || !sameHost(r.Host, repo.Host)) {
		return t, usageErrorf(c, "%s is a pull request of %s, but this repository is %s", arg, r, repo)
	}
	t.Number = n
	return t, nil
}

func sameHost(a, b string) bool {
	norm := func(h string) string {
		if h == "" {
			return ghpr.DefaultHost
		}
		return strings.ToLower(h)
	}
	return norm(a) == norm(b)
}

// currentSession is --session, else GIT_HANDOFF_SESSION, else this
// worktree's binding; "" when none.
func currentSession(st *refstore.Store, flag string) (string, error) {
	return handoff.SessionID(st, flag)
}

// sessionPR is the pull request the current session's record points at.
func sessionPR(ctx context.Context, st *refstore.Store, id string) (*lineage.PRPointer, error) {
	if id == "" {
		return nil, nil
	}
	s, err := lineage.ReadSession(ctx, st, id)
	if err != nil {
		return nil, err
	}
	return s.PR, nil
}

// prError gives an ownership error its context and a hint where the fix is
// known.
func prError(doing string, t prTarget, err error) error {
	wrapped := fmt.Errorf("%s: %w", doing, err)
	var owned *prown.OwnedError
	var busy *prown.BusyError
	var inactive *prown.InactiveError
	var unowned *prown.UnownedError
	var merged *prown.MergedError
	switch {
	case errors.As(err, &owned):
		return withHint(wrapped, fmt.Sprintf("to take it over: git handoff pr claim %d (without --no-takeover)", t.Number))
	case errors.As(err, &busy):
		return withHint(wrapped, fmt.Sprintf("release that one first: git handoff pr release %d", busy.Number))
	case errors.As(err, &inactive):
		if inactive.Live != "" && inactive.Live != inactive.Session {
			return withHint(wrapped, "claim it for the live session: --session "+inactive.Live)
		}
		return withHint(wrapped, "start or restore a session first: git handoff start")
	case errors.As(err, &unowned):
		return withHint(wrapped, fmt.Sprintf("claim it: git handoff pr claim %d --session ID", t.Number))
	case errors.As(err, &merged):
		return withHint(wrapped, "a merged pull request's work is done: start a new session and pull request")
	case errors.Is(err, ghpr.ErrNotOpen):
		return withHint(wrapped, "only an open pull request can be claimed")
	case errors.Is(err, ghpr.ErrNoPR):
		return withHint(&notFound{wrapped}, "open one first (gh pr create), or name it: git handoff pr claim NUMBER")
	case errors.Is(err, handoff.ErrNoSession):
		return wrapped
	}
	return wrapped
}

// notFound makes a missing pull request exit 6 like any missing record.
type notFound struct{ err error }

func (e *notFound) Error() string   { return e.err.Error() }
func (e *notFound) Unwrap() []error { return []error{e.err, refstore.ErrNotFound} }

// Output shapes, made for --json and kept stable.

type prRecordJSON struct {
	Repo         string           `json:"repo"`
	Number       int              `json:"number"`
	URL          string           `json:"url"`
	Ref          string           `json:"ref"`
	OwnerSession string           `json:"ownerSession"`
	ClaimedAt    time.Time        `json:"claimedAt"`
	MergedAt     *time.Time       `json:"mergedAt"`
	History      []prTransferJSON `json:"history"`
}

type prTransferJSON struct {
	Session string    `json:"session"`
	From    string    `json:"from"`
	At      time.Time `json:"at"`
	Reason  string    `json:"reason"`
	Harness string    `json:"harness"`
}

func toPRRecordJSON(s prown.Stored) prRecordJSON {
	out := prRecordJSON{
		Repo: s.Repo, Number: s.Number, URL: s.URL, Ref: s.Ref, OwnerSession: s.OwnerSession,
		ClaimedAt: s.ClaimedAt, MergedAt: s.MergedAt, History: []prTransferJSON{},
	}
	for _, h := range s.History {
		out.History = append(out.History, prTransferJSON{Session: h.Session, From: h.From, At: h.At, Reason: h.Reason, Harness: h.Harness})
	}
	return out
}

// markMerged records a merge seen on GitHub and tells the user.
func markMerged(ctx context.Context, d *deps, st *refstore.Store, t prTarget) []string {
	res, err := prown.MarkMerged(ctx, st, t.name(), t.Number, d.Now())
	notices := res.Notices
	switch {
	case err != nil:
		notices = append(notices, fmt.Sprintf("recording #%d as merged: %v", t.Number, err))
	case res.Changed && res.Session != nil && res.Session.Status == lineage.StatusMerged:
		notices = append(notices, fmt.Sprintf("#%d is merged: session %s is now merged (read-only)", t.Number, res.Session.ID))
	}
	return notices
}

// prFactsMarkdown fetches the facts of the pull request a session points at
// and renders them for a handoff package or a brief (prown.PackageSection).
// It returns "" without error when the pointer is nil or names another
// repository than this checkout's. For `session replace` (PackageExtra)
// and the brief; a failure should become a notice, not stop them.
func prFactsMarkdown(ctx context.Context, d *deps, p *lineage.PRPointer) (string, error) {
	if p == nil || p.Number <= 0 {
		return "", nil
	}
	gh, err := d.GitHub(ctx)
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
	return prown.PackageSection(f), nil
}

func stampUTC(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
