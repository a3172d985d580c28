package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

// prReleaseJSON is the result of `pr release --json`.
type prReleaseJSON struct {
	Record        prRecordJSON        `json:"record"`
	PreviousOwner string              `json:"previousOwner"`
	Changed       bool                `json:"changed"`
	GitHub        prReleaseGitHubJSON `json:"github"`
	// Lease is the released owner's lease pr:N, freed; null when it
	// held none.
	Lease   *view.LeaseOutcome `json:"lease"`
	Notices []string           `json:"notices"`
}

// prReleaseGitHubJSON says what was done on GitHub after the release.
type prReleaseGitHubJSON struct {
	Comment   string   `json:"comment"`   // updated (edited, or already up to date), none (no comment of ours to edit), skipped, failed
	CommentID int64    `json:"commentId"` // 0 when there was none
	Errors    []string `json:"errors"`
}

func prReleaseCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "release",
		Usage:     "leave a pull request without an owning session (and say so in its ownership comment)",
		ArgsUsage: "NUMBER|URL",
		Description: "Clears the owner and the owner session's pr pointer in one transaction; the history keeps the\n" +
			"release. Releasing what nobody owns changes nothing in git. Then the pull request's ownership\n" +
			"comment, if there is one, is edited to say that no session owns it any more (none is posted).\n" +
			"If GitHub fails or no token is found, the release stands and a warning says so; running the same\n" +
			"release again finishes the comment. The owner's lease pr:NUMBER is released with it.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-comment", Usage: "do not touch the ownership comment on GitHub"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, t, err := localTarget(c, d)
			if err != nil {
				return err
			}
			board, boardNote := prLeaseBoard(c.Context, st)
			res, err := handoff.PRRelease(c.Context, st, handoff.PRReleaseOptions{
				Repo: t.name(), Number: t.Number, NoComment: c.Bool("no-comment"), Connect: d.prHost, Leases: board,
			}, d.Now)
			if err != nil {
				return prHint(t.Number, err)
			}
			if boardNote != "" && res.Changed {
				res.Notices = append(res.Notices, boardNote)
			}
			if c.Bool("json") {
				out := prReleaseJSON{Record: toPRRecordJSON(res.Record), PreviousOwner: res.Previous, Changed: res.Changed,
					GitHub: prReleaseGitHubJSON{Comment: res.GitHub.Comment, CommentID: res.GitHub.CommentID, Errors: toPRGitHubJSON(res.GitHub).Errors},
					Lease:  prLeaseJSON(res.Lease, "", d.Now()), Notices: view.NonNil(res.Notices)}
				if err := d.printJSON(out); err != nil {
					return err
				}
			} else {
				notify(d.stderr, res.Notices)
				if res.Changed {
					fmt.Fprintf(d.stderr, "released %s#%d (was owned by %s)\n", res.Record.Repo, res.Record.Number, res.Previous)
				} else {
					fmt.Fprintf(d.stderr, "%s#%d has no owner; nothing to release\n", res.Record.Repo, res.Record.Number)
				}
				if res.GitHub.Comment == handoff.CommentUpdated {
					fmt.Fprintf(d.stderr, "ownership comment on #%d says it is released\n", t.Number)
				}
			}
			for _, ghErr := range res.GitHub.Errors {
				// The release stands: git is the source of truth, and the
				// comment is only a view of it. A warning, not a failure.
				fmt.Fprintf(d.stderr, "warning: %s#%d is released in git, but its ownership comment was not updated (run `git handoff pr release %d` again to retry, or pass --no-comment): %v\n",
					res.Record.Repo, res.Record.Number, t.Number, ghErr)
				if h := ghpr.ErrorHint(ghErr); h != "" {
					fmt.Fprintf(d.stderr, "hint: %s\n", h)
				}
			}
			return nil
		},
	}
}
