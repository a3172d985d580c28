package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func endCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "end",
		Usage: "end a session, leaving a baton for the next one when given --next",
		Description: "Without --next, --failed, --question or --shared the session ends and no baton is written: a session\n" +
			"with nothing to hand over is no error. A baton needs at least one next step that is not empty.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "the ending session `ID` (default: GIT_HANDOFF_SESSION, else this worktree's)"},
			prose("next", "a next step"),
			prose("failed", "an approach that failed"),
			prose("question", "an open question"),
			&cli.BoolFlag{Name: "shared", Usage: "let any owner's next session on any branch claim it"},
			ownerFlag(), branchFlag(),
			&cli.StringFlag{Name: "harness", Usage: "the coding agent that wrote it"},
			&cli.BoolFlag{Name: "snapshot", Usage: "keep the worktree's uncommitted changes as the session's snapshot (refs/ao/snapshots/ID), for another clone to apply"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			// No baton flag at all is an empty payload: end, write nothing.
			// A flag given empty (`--next ""`) is a payload, and refused.
			noBaton := !c.IsSet("next") && !c.IsSet("failed") && !c.IsSet("question") && !c.IsSet("shared")
			res, err := handoff.End(c.Context, st, handoff.EndOptions{
				Session: c.String("session"), Owner: c.String("owner"), Branch: c.String("branch"),
				Harness: c.String("harness"), Shared: c.Bool("shared"),
				Next: c.StringSlice("next"), Failed: c.StringSlice("failed"), Questions: c.StringSlice("question"),
				Snapshot: c.Bool("snapshot"), NoBaton: noBaton,
			}, d.Now)
			if errors.Is(err, baton.ErrNoSteps) {
				return usageErrorf(c, "%v", err)
			}
			if err != nil && noBaton {
				return fmt.Errorf("ending the session: %w", err)
			}
			if err != nil {
				return fmt.Errorf("leaving a baton: %w", err)
			}
			if res.Unbound {
				d.refreshStoreCommitHook(c.Context, st)
			}
			ended := ""
			if res.Session != nil {
				ended = res.Session.ID
				res.Notices = append(res.Notices, leasesAfterEnd(c.Context, st, ended, d.Now)...)
			}
			if c.Bool("json") {
				return d.printJSON(view.OfEnd(res, res.Notices))
			}
			notify(d.stderr, res.Notices)
			if !res.Left {
				if ended == "" {
					fmt.Fprintln(d.stderr, "no session to end here; no baton left (give --next to leave one)")
				} else {
					fmt.Fprintf(d.stderr, "ended session %s; no baton left (give --next to leave one)\n", ended)
				}
				return nil
			}
			h := res.Handoff
			scope := "for " + h.Owner + " on " + h.Branch
			if h.Shared {
				scope = "shared, from " + h.Branch
			}
			fmt.Fprintf(d.stdout, "left baton %s %s (%d next step%s)\n", h.ID, scope, len(h.NextSteps), plural(len(h.NextSteps)))
			return nil
		},
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
