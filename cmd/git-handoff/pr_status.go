package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

// prStatusJSON is the result of `pr status --json`: the facts the handoff
// package and the owner's brief carry.
type prStatusJSON struct {
	FetchedAt      time.Time    `json:"fetchedAt"`
	Repo           string       `json:"repo"`
	Number         int          `json:"number"`
	URL            string       `json:"url"`
	Title          string       `json:"title"`
	State          string       `json:"state"` // open, closed, merged
	Draft          bool         `json:"draft"`
	Merged         bool         `json:"merged"`
	Mergeable      *bool        `json:"mergeable"` // null: GitHub was still computing it
	MergeableState string       `json:"mergeableState"`
	HeadBranch     string       `json:"headBranch"`
	HeadSHA        string       `json:"headSha"`
	Base           string       `json:"base"`
	OwnerSession   string       `json:"ownerSession"` // from git; "" when nobody owns it here
	Checks         prChecksJSON `json:"checks"`
	// ReviewDecision is GitHub's (APPROVED, CHANGES_REQUESTED,
	// REVIEW_REQUIRED) or "" when none is required or it is unknown.
	ReviewDecision     string   `json:"reviewDecision"`
	ChangesRequestedBy []string `json:"changesRequestedBy"`
	ApprovedBy         []string `json:"approvedBy"`
	// Threads are the unresolved review threads; when ThreadsResolutionKnown
	// is false (GraphQL was not available) they are every thread.
	Threads                []prThreadJSON `json:"threads"`
	ThreadsResolutionKnown bool           `json:"threadsResolutionKnown"`
	Warnings               []string       `json:"warnings"`
	Notices                []string       `json:"notices"`
}

type prChecksJSON struct {
	Failing  []prCheckJSON `json:"failing"`
	Pending  []prCheckJSON `json:"pending"`
	Passing  []prCheckJSON `json:"passing"`
	Skipping []prCheckJSON `json:"skipping"`
	NotHead  int           `json:"notHead"` // how many ran on another commit than the head
}

type prCheckJSON struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // check_run or status
	State   string `json:"state"`
	URL     string `json:"url"`
	SHA     string `json:"sha"`
	NotHead bool   `json:"notHead"`
}

type prThreadJSON struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Author   string `json:"author"`
	Excerpt  string `json:"excerpt"`
	URL      string `json:"url"`
	Outdated bool   `json:"outdated"`
	Resolved *bool  `json:"resolved"` // null: unknown (REST fallback)
}

func toChecksJSON(cs []ghpr.Check) []prCheckJSON {
	out := []prCheckJSON{}
	for _, c := range cs {
		out = append(out, prCheckJSON{Name: c.Name, Kind: c.Kind, State: c.State, URL: c.URL, SHA: c.SHA, NotHead: c.NotHead})
	}
	return out
}

func prStatusCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "the pull request's facts from GitHub: state, checks, reviews, unresolved threads",
		ArgsUsage: "[NUMBER|URL]",
		Description: "Without NUMBER: the pull request the current session owns, else the open one of the current branch.\n" +
			"Works without a token on public repositories. A merged pull request marks its owning session merged.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "the pull request of session `ID`"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			ctx := c.Context
			st, err := d.Store(ctx)
			if err != nil {
				return err
			}
			gh, err := d.GitHub(ctx)
			if err != nil {
				return err
			}
			t, err := parseTarget(c, gh.Repo(), c.Args().First())
			if err != nil {
				return err
			}
			res, err := handoff.PRStatus(ctx, st, gh, handoff.PRStatusOptions{Number: t.Number, Session: c.String("session")}, d.Now)
			if err != nil {
				return prHint(res.Number, err)
			}
			f, owner, notices := res.Facts, res.Owner, res.Notices
			t.Number = res.Number
			if c.Bool("json") {
				p := f.PR
				out := prStatusJSON{
					FetchedAt: f.FetchedAt, Repo: t.name(), Number: p.Number, URL: p.URL, Title: p.Title,
					State: p.State, Draft: p.Draft, Merged: p.Merged, Mergeable: p.Mergeable, MergeableState: p.MergeableState,
					HeadBranch: p.HeadBranch, HeadSHA: p.HeadSHA, Base: p.Base, OwnerSession: owner,
					Checks: prChecksJSON{
						Failing: toChecksJSON(f.Checks.Failing), Pending: toChecksJSON(f.Checks.Pending),
						Passing: toChecksJSON(f.Checks.Passing), Skipping: toChecksJSON(f.Checks.Skipping),
						NotHead: f.Checks.Stale,
					},
					ReviewDecision: f.ReviewDecision, ChangesRequestedBy: view.NonNil(f.ChangesRequestedBy), ApprovedBy: view.NonNil(f.ApprovedBy),
					Threads: []prThreadJSON{}, ThreadsResolutionKnown: f.ThreadsKnown,
					Warnings: view.NonNil(f.Warnings), Notices: view.NonNil(notices),
				}
				for _, th := range f.Threads {
					out.Threads = append(out.Threads, prThreadJSON{Path: th.Path, Line: th.Line, Author: th.Author, Excerpt: th.Excerpt, URL: th.URL, Outdated: th.Outdated, Resolved: th.Resolved})
				}
				return d.printJSON(out)
			}
			notify(d.stderr, notices)
			fmt.Fprint(d.stdout, brief.PRFacts(f))
			if owner != "" {
				fmt.Fprintf(d.stdout, "\nOwned by session %s.\n", owner)
			} else {
				fmt.Fprintf(d.stdout, "\nNo session owns it here: git handoff pr claim %d\n", t.Number)
			}
			return nil
		},
	}
}
