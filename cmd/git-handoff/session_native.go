package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func sessionNativeCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:        "native",
		Usage:       "record a coding agent's own session id for a session (agents' hooks call this)",
		ArgsUsage:   "[ID]",
		Description: "The id is kept next to the harness that issued it and only ever handed back to that harness.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "harness", Usage: "the coding agent that issued the id"},
			&cli.StringFlag{Name: "id", Usage: "its own session `ID`"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			var name string
			if err := checkHarness(c, c.String("harness"), &name); err != nil {
				return err
			}
			if c.String("id") == "" {
				return usageErrorf(c, "give the agent's own session id with --id")
			}
			st, id, err := d.storeAndSession(c)
			if err != nil {
				return err
			}
			res, err := handoff.SessionNative(c.Context, st, id, name, c.String("id"), d.Now)
			if err != nil {
				return sessionError(c, fmt.Sprintf("recording the %s session id of %q", name, id), id, err)
			}
			if c.Bool("json") {
				return d.printJSON(view.OfSession(res.Record, false))
			}
			fmt.Fprintf(d.stderr, "session %s: %s resumes as %s\n", id, name, c.String("id"))
			return nil
		},
	}
}
