package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func briefCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "brief",
		Usage: "print the brief a session starting now would get, claiming nothing",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "brief for session `ID` (its handoff package heads it)"},
			maxBytesFlag(),
			ownerFlag(), branchFlag(),
			&cli.BoolFlag{Name: "no-pr", Usage: "leave out the facts of the pull request the session owns (no GitHub request)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			opts := handoff.BriefOptions{
				Session: c.String("session"), Owner: c.String("owner"), Branch: c.String("branch"), MaxBytes: c.Int("max-bytes"),
			}
			if !c.Bool("no-pr") {
				opts.PRFacts = d.prFacts
			}
			res, err := handoff.Brief(c.Context, st, opts, d.Now)
			if err != nil {
				return fmt.Errorf("building the brief: %w", err)
			}
			if c.Bool("json") {
				return d.printJSON(view.OfBrief(res, res.Notices))
			}
			notify(d.stderr, res.Notices)
			_, err = fmt.Fprint(d.stdout, res.Brief)
			return err
		},
	}
}
