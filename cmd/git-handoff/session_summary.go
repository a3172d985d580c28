package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func sessionSummaryCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:        "summary",
		Usage:       "record the latest summary of a session's work",
		ArgsUsage:   "[ID] TEXT",
		Description: "With only TEXT, the summary is for this worktree's (or GIT_HANDOFF_SESSION's) session.",
		Flags:       []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			var id, text string
			switch c.NArg() {
			case 1:
				text = c.Args().First()
				if id, err = handoff.SessionID(st, ""); err != nil {
					return err
				}
				if id == "" {
					return usageErrorf(c, "no session to record %q for: give it as git handoff session summary ID TEXT (no GIT_HANDOFF_SESSION is set and this worktree is bound to none)", text)
				}
			default: // one or two: the arguments' check
				id, text = c.Args().First(), c.Args().Get(1)
			}
			if strings.TrimSpace(text) == "" {
				return usageErrorf(c, "the summary is empty")
			}
			res, err := handoff.SessionSummary(c.Context, st, id, strings.TrimSpace(text), d.Now)
			if err != nil {
				return sessionError(c, fmt.Sprintf("recording the summary of %q", id), id, err)
			}
			if c.Bool("json") {
				return d.printJSON(view.OfSession(res.Session.Record, false))
			}
			notify(d.stderr, res.Notices)
			fmt.Fprintf(d.stderr, "summary of session %s recorded\n", id)
			return nil
		},
	}
}
