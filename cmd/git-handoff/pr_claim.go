package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/prown"
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
		UsageText: "git handoff pr claim [NUMBER|URL] [--session S] [--no-takeover] [--assign] [--label L] [--no-comment] [--json]",
		Description: "Without NUMBER, claims the open pull request whose head is the current branch. Closed and merged\n" +
			"pull requests are refused (a merged one marks its owning session merged). Ownership changes by\n" +
			"compare-and-swap in git first; then the pull request's one ownership comment is written or edited,\n" +
			"and the token's user assigned (--assign) and a label added (--label). If GitHub fails after the swap,\n" +
			"the ownership stands and running the same claim again finishes the GitHub side.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "the claiming session `ID` (default: GIT_HANDOFF_SESSION, else this worktree's)"},
			&cli.BoolFlag{Name: "no-takeover", Usage: "refuse (exit 5) when another active session owns it"},
			&cli.BoolFlag{Name: "assign", Usage: "assign the pull request to the token's user"},
			&cli.StringFlag{Name: "label", Usage: "add `LABEL` to the pull request"},
			&cli.BoolFlag{Name: "no-comment", Usage: "do not write the ownership comment"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageErrorf(c, "pr claim takes at most one pull request")
			}
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
	Notices       []string     `json:"notices"`
}

// prGitHubJSON says what was done on GitHub after the swap.
type prGitHubJSON struct {
	Comment   string   `json:"comment"`   // created, updated (edited, or already up to date), skipped, failed
	CommentID int64    `json:"commentId"` // 0 when none was written or found
	Assigned  string   `json:"assigned"`  // the login assigned (--assign), else ""
	Labeled   string   `json:"labeled"`   // the label added (--label), else ""
	Errors    []string `json:"errors"`
}

func runPRClaim(c *cli.Context, d *deps, opts prClaimOptions) error {
	ctx := c.Context
	st, err := d.Store(ctx)
	if err != nil {
		return err
	}
	session, err := currentSession(st, opts.Session)
	if err != nil {
		return err
	}
	if session == "" {
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
	writes := !opts.NoComment || opts.Assign || opts.Label != ""
	if writes && !gh.HasToken() {
		// Refused before anything changes, rather than after the swap.
		env := "GH_TOKEN"
		if h := strings.ToLower(gh.Repo().Host); h != "" && h != ghpr.DefaultHost && !strings.HasSuffix(h, ".ghe.com") {
			env = "GH_ENTERPRISE_TOKEN"
		}
		return withHint(&ghpr.AuthError{Op: "claiming a pull request (it writes to GitHub)", NoToken: true},
			fmt.Sprintf("set %s for %s or run gh auth login; or claim in git only with --no-comment", env, gh.Repo().Host))
	}

	// 1. The pull request, as GitHub has it now.
	var pr ghpr.PR
	doing := "claiming the pull request of the current branch"
	if t.Number > 0 {
		doing = fmt.Sprintf("claiming #%d", t.Number)
		pr, err = gh.PR(ctx, t.Number)
	} else {
		head, herr := st.Head(ctx)
		if herr != nil {
			return herr
		}
		pr, err = gh.OpenPRForBranch(ctx, "", head.Branch)
		if pr.Number > 0 {
			t.Number = pr.Number
			doing = fmt.Sprintf("claiming #%d (branch %s)", t.Number, head.Branch)
		}
	}
	var notices []string
	if err != nil && !errors.Is(err, ghpr.ErrNotOpen) {
		return prError(doing, t, err)
	}
	if !pr.Open() {
		if pr.Merged {
			notices = append(notices, markMerged(ctx, d, st, t)...)
		}
		notify(d.stderr, notices)
		return prError(doing, t, fmt.Errorf("#%d is %s: %w", t.Number, pr.State, ghpr.ErrNotOpen))
	}

	// 2. The swap in git: the source of truth.
	res, err := prown.Claim(ctx, st, prown.ClaimOptions{
		Repo: t.name(), Number: t.Number, URL: pr.URL, Session: session, NoTakeover: opts.NoTakeover,
	}, d.Now())
	notices = append(notices, res.Notices...)
	if err != nil {
		notify(d.stderr, notices)
		return prError(doing, t, err)
	}

	// 3. GitHub, only now. Each step is idempotent; failures are collected.
	out := prClaimJSON{
		Record: toPRRecordJSON(res.Record), PreviousOwner: res.Previous, TookOver: res.TookOver,
		Changed: res.Changed, GitHub: prGitHubJSON{Comment: "skipped", Errors: []string{}},
	}
	var ghErrs []error
	if !opts.NoComment {
		body := ghpr.RenderOwnershipComment(prown.Comment(res.Record.Record))
		id, created, err := gh.UpsertOwnershipComment(ctx, t.Number, body)
		switch {
		case err != nil:
			out.GitHub.Comment = "failed"
			ghErrs = append(ghErrs, err)
		case created:
			out.GitHub.Comment = "created"
		default:
			out.GitHub.Comment = "updated"
		}
		out.GitHub.CommentID = id
	}
	if opts.Assign {
		login, err := gh.Login(ctx)
		if err == nil && !slices.ContainsFunc(pr.Assignees, func(a string) bool { return strings.EqualFold(a, login) }) {
			err = gh.Assign(ctx, t.Number, login)
		}
		if err != nil {
			ghErrs = append(ghErrs, err)
		} else {
			out.GitHub.Assigned = login
		}
	}
	if opts.Label != "" {
		err := error(nil)
		if !slices.Contains(pr.Labels, opts.Label) {
			err = gh.AddLabel(ctx, t.Number, opts.Label)
		}
		if err != nil {
			ghErrs = append(ghErrs, err)
		} else {
			out.GitHub.Labeled = opts.Label
		}
	}
	for _, e := range ghErrs {
		out.GitHub.Errors = append(out.GitHub.Errors, e.Error())
	}
	out.Notices = nonNil(notices)

	if opts.JSON {
		if err := printJSON(d.stdout, out); err != nil {
			return err
		}
	} else {
		notify(d.stderr, notices)
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
		switch out.GitHub.Comment {
		case "created":
			fmt.Fprintf(d.stderr, "ownership comment posted on #%d\n", t.Number)
		case "updated":
			fmt.Fprintf(d.stderr, "ownership comment on #%d is up to date\n", t.Number)
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
		session, t.Number, t.Number, ghErrs[0])
}

func orUnknown(s string) string {
	if s == "" {
		return "no record here"
	}
	return s
}
