package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/view"
)

// prClaimOptions are the flags of `pr claim`.
type prClaimOptions struct {
	Arg        string // NUMBER, #NUMBER or URL; "" = the open PR of the current branch
	Session    string
	NoTakeover bool
	Assign     bool
	Label      string
	NoComment  bool
	JSON       bool
}

func prClaimCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "claim",
		Usage:     "make a session the owner of a pull request (taking it over from another session)",
		ArgsUsage: "[NUMBER|URL]",
		Description: "Without NUMBER, claims the open pull request whose head is the current branch. Closed and merged\n" +
			"pull requests are refused (a merged one marks its owning session merged). Ownership changes by\n" +
			"compare-and-swap in git first; then the pull request's one ownership comment is written or edited,\n" +
			"and the token's user assigned (--assign) and a label added (--label). If GitHub fails after the swap,\n" +
			"the ownership stands and running the same claim again finishes the GitHub side.\n" +
			"The session also takes the lease pr:NUMBER (see `git handoff lease`); one another session took with\n" +
			"`lease take` refuses the claim (exit 5, naming it); one taken with the ownership moves with a takeover.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "the claiming session `ID` (default: GIT_HANDOFF_SESSION, else this worktree's)"},
			&cli.BoolFlag{Name: "no-takeover", Usage: "refuse (exit 5) when another active session owns it"},
			&cli.BoolFlag{Name: "assign", Usage: "assign the pull request to the token's user"},
			&cli.StringFlag{Name: "label", Usage: "add `LABEL` to the pull request"},
			&cli.BoolFlag{Name: "no-comment", Usage: "do not write the ownership comment"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			return runPRClaim(c, d, prClaimOptions{
				Arg: c.Args().First(), Session: c.String("session"), NoTakeover: c.Bool("no-takeover"),
				Assign: c.Bool("assign"), Label: strings.TrimSpace(c.String("label")), NoComment: c.Bool("no-comment"),
				JSON: c.Bool("json"),
			})
		},
	}
}

// prClaimJSON is the result of `pr claim --json`.
type prClaimJSON struct {
	Record        prRecordJSON `json:"record"`
	PreviousOwner string       `json:"previousOwner"`
	TookOver      bool         `json:"tookOver"`
	Changed       bool         `json:"changed"`
	GitHub        prGitHubJSON `json:"github"`
	// Lease is the lease pr:N the session holds with the pull request (as
	// `lease take --json` gives each key); null when none was taken.
	Lease   *view.LeaseOutcome `json:"lease"`
	Notices []string           `json:"notices"`
}

// prGitHubJSON says what was done on GitHub after the swap.
type prGitHubJSON = view.PRGitHub

func runPRClaim(c *cli.Context, d *deps, opts prClaimOptions) error {
	ctx := c.Context
	st, err := d.Store(ctx)
	if err != nil {
		return err
	}
	// Without a session nothing is worth connecting for.
	if session, err := handoff.SessionID(st, opts.Session); err != nil {
		return err
	} else if session == "" {
		return fmt.Errorf("claiming a pull request: %w", handoff.ErrNoSession)
	}
	gh, err := d.GitHub(ctx)
	if err != nil {
		return err
	}
	t, err := parseTarget(c, gh.Repo(), opts.Arg)
	if err != nil {
		return err
	}
	board, boardNote := prLeaseBoard(ctx, st)
	res, err := handoff.PRClaim(ctx, st, gh, handoff.PRClaimOptions{
		Number: t.Number, Session: opts.Session, NoTakeover: opts.NoTakeover,
		Assign: opts.Assign, Label: opts.Label, NoComment: opts.NoComment, Leases: board,
	}, d.Now)
	if err == nil && boardNote != "" {
		res.Notices = append(res.Notices, boardNote)
	}
	if err != nil {
		notify(d.stderr, res.Notices)
		var ae *ghpr.AuthError
		if errors.As(err, &ae) && ae.NoToken {
			// Refused before anything changed, rather than after the swap.
			env := "GH_TOKEN"
			if h := strings.ToLower(gh.Repo().Host); h != "" && h != ghpr.DefaultHost && !strings.HasSuffix(h, ".ghe.com") {
				env = "GH_ENTERPRISE_TOKEN"
			}
			return withHint(err, fmt.Sprintf("set %s for %s or run gh auth login; or claim in git only with --no-comment", env, gh.Repo().Host))
		}
		return prHint(res.Number, err)
	}
	ghErrs := res.GitHub.Errors
	if opts.JSON {
		out := prClaimJSON{
			Record: toPRRecordJSON(res.Record), PreviousOwner: res.Previous, TookOver: res.TookOver,
			Changed: res.Changed, GitHub: toPRGitHubJSON(res.GitHub), Lease: prLeaseJSON(res.Lease, res.Record.OwnerSession, d.Now()),
			Notices: view.NonNil(res.Notices),
		}
		if err := d.printJSON(out); err != nil {
			return err
		}
	} else {
		notify(d.stderr, res.Notices)
		r := res.Record
		switch {
		case !res.Changed:
			fmt.Fprintf(d.stdout, "%s already owns %s#%d %s\n", r.OwnerSession, r.Repo, r.Number, r.URL)
		case res.TookOver:
			fmt.Fprintf(d.stdout, "%s now owns %s#%d %s (taken over from %s)\n", r.OwnerSession, r.Repo, r.Number, r.URL, res.Previous)
		case res.Previous != "" && res.Previous != r.OwnerSession:
			fmt.Fprintf(d.stdout, "%s now owns %s#%d %s (previously %s, %s)\n", r.OwnerSession, r.Repo, r.Number, r.URL, res.Previous, orUnknown(res.PreviousStatus))
		default:
			fmt.Fprintf(d.stdout, "%s now owns %s#%d %s\n", r.OwnerSession, r.Repo, r.Number, r.URL)
		}
		switch res.GitHub.Comment {
		case handoff.CommentCreated:
			fmt.Fprintf(d.stderr, "ownership comment posted on #%d\n", res.Number)
		case handoff.CommentUpdated:
			fmt.Fprintf(d.stderr, "ownership comment on #%d is up to date\n", res.Number)
		}
	}
	if len(ghErrs) == 0 {
		return nil
	}
	// The swap stands: git is the source of truth. Say what GitHub missed
	// and how to finish it; the exit code follows the first failure.
	for _, e := range ghErrs[1:] {
		fmt.Fprintf(d.stderr, "warning: %v\n", e)
	}
	return fmt.Errorf("%s owns #%d in git, but GitHub was not updated (run the same `git handoff pr claim %d` again to retry; it is idempotent): %w",
		res.Record.OwnerSession, res.Number, res.Number, ghErrs[0])
}

// prLeaseBoard is where the lease of a pull request is decided, as for
// `lease take`; when that cannot be found, no lease is taken and the
// notice says so (ownership is decided in git regardless).
func prLeaseBoard(ctx context.Context, st *refstore.Store) (lease.Board, string) {
	b, err := teamsync.LeaseBoard(ctx, st, false)
	if err != nil {
		return nil, fmt.Sprintf("no lease was taken or freed with the pull request (finding where leases are decided: %v)", err)
	}
	return b, ""
}

// prLeaseJSON shapes the lease a pull request command took or freed.
func prLeaseJSON(o *lease.Outcome, session string, now time.Time) *view.LeaseOutcome {
	if o == nil {
		return nil
	}
	res := view.OfLeaseResult(handoff.LeaseResult{Result: lease.Result{Leases: []lease.Outcome{*o}}, Session: session}, nil, now)
	return &res.Leases[0]
}

func toPRGitHubJSON(g handoff.PRGitHub) prGitHubJSON { return view.OfPRGitHub(g) }

func orUnknown(s string) string {
	if s == "" {
		return "no record here"
	}
	return s
}
