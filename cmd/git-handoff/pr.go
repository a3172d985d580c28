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
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/view"
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

// prHint gives a pull-request workflow's error (which says what it was
// doing) a hint where the fix is known; number is the pull request.
func prHint(number int, err error) error {
	var owned *prown.OwnedError
	var busy *prown.BusyError
	var inactive *prown.InactiveError
	var unowned *prown.UnownedError
	var merged *prown.MergedError
	var nopr *handoff.NoPRError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &nopr):
		return &usageError{msg: err.Error(), help: helpFor("pr show")}
	case errors.As(err, &owned):
		return withHint(err, fmt.Sprintf("to take it over: git handoff pr claim %d (without --no-takeover)", number))
	case errors.As(err, &busy):
		return withHint(err, fmt.Sprintf("release that one first: git handoff pr release %d", busy.Number))
	case errors.As(err, &inactive):
		if inactive.Live != "" && inactive.Live != inactive.Session {
			return withHint(err, "claim it for the live session: --session "+inactive.Live)
		}
		return withHint(err, "start or restore a session first: git handoff start")
	case errors.As(err, &unowned):
		return withHint(err, fmt.Sprintf("claim it: git handoff pr claim %d --session ID", number))
	case errors.As(err, &merged):
		return withHint(err, "a merged pull request's work is done: start a new session and pull request")
	case errors.Is(err, ghpr.ErrNotOpen):
		return withHint(err, "only an open pull request can be claimed")
	case errors.Is(err, ghpr.ErrNoPR):
		return withHint(&notFound{err}, "open one first (gh pr create), or name it: git handoff pr claim NUMBER")
	}
	return err
}

// notFound makes a missing pull request exit 6 like any missing record.
type notFound struct{ err error }

func (e *notFound) Error() string   { return e.err.Error() }
func (e *notFound) Unwrap() []error { return []error{e.err, refstore.ErrNotFound} }

// Output shapes, made for --json and kept stable.

type prRecordJSON = view.PRRecord

func toPRRecordJSON(s prown.Stored) prRecordJSON { return view.OfPRRecord(s) }

func stampUTC(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
