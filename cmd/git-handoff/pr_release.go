package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/prown"
)

// prReleaseJSON is the result of `pr release --json`.
type prReleaseJSON struct {
	Record        prRecordJSON        `json:"record"`
	PreviousOwner string              `json:"previousOwner"`
	Changed       bool                `json:"changed"`
	GitHub        prReleaseGitHubJSON `json:"github"`
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
		UsageText: "git handoff pr release NUMBER|URL [--no-comment] [--json]",
		Description: "Clears the owner and the owner session's pr pointer in one transaction; the history keeps the\n" +
			"release. Releasing what nobody owns changes nothing in git. Then the pull request's ownership\n" +
			"comment, if there is one, is edited to say that no session owns it any more (none is posted).\n" +
			"If GitHub fails or no token is found, the release stands and a warning says so; running the same\n" +
			"release again finishes the comment.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-comment", Usage: "do not touch the ownership comment on GitHub"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf(c, "pr release takes exactly one pull request")
			}
			ctx := c.Context
			st, t, err := localTarget(c, d)
			if err != nil {
				return err
			}
			res, err := prown.Release(ctx, st, t.name(), t.Number, d.Now())
			if err != nil {
				return prError(fmt.Sprintf("releasing #%d", t.Number), t, err)
			}
			gh := prReleaseGitHubJSON{Comment: "skipped", Errors: []string{}}
			var ghErr error
			if !c.Bool("no-comment") {
				gh.CommentID, ghErr = tellGitHubReleased(ctx, d, t, res.Record.Record)
				switch {
				case ghErr != nil:
					gh.Comment = "failed"
					gh.Errors = append(gh.Errors, ghErr.Error())
				case gh.CommentID == 0:
					gh.Comment = "none"
				default:
					gh.Comment = "updated"
				}
			}
			if c.Bool("json") {
				if err := printJSON(d.stdout, prReleaseJSON{Record: toPRRecordJSON(res.Record), PreviousOwner: res.Previous, Changed: res.Changed, GitHub: gh}); err != nil {
					return err
				}
			} else {
				if res.Changed {
					fmt.Fprintf(d.stderr, "released %s#%d (was owned by %s)\n", res.Record.Repo, res.Record.Number, res.Previous)
				} else {
					fmt.Fprintf(d.stderr, "%s#%d has no owner; nothing to release\n", res.Record.Repo, res.Record.Number)
				}
				if gh.Comment == "updated" {
					fmt.Fprintf(d.stderr, "ownership comment on #%d says it is released\n", t.Number)
				}
			}
			if ghErr != nil {
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

// tellGitHubReleased edits the pull request's ownership comment, if it has
// one of ours, to say what the released record says. It never posts one.
// It returns the comment's id, 0 when there was none.
func tellGitHubReleased(ctx context.Context, d *deps, t prTarget, rec prown.Record) (int64, error) {
	if rec.OwnerSession != "" {
		return 0, nil // not released: there is nothing to say
	}
	gh, err := d.GitHub(ctx)
	if err != nil {
		return 0, err
	}
	// Without a token this is an *AuthError before any request.
	return gh.EditOwnershipComment(ctx, t.Number, ghpr.RenderOwnershipComment(prown.Comment(rec)))
}
