package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func prRouteCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "route",
		Usage:     "print the session that should receive CI and review work on a pull request now",
		ArgsUsage: "NUMBER|URL",
		Description: "Reads the owner from git and follows replacedBy to the newest session of its line. Prints its id\n" +
			"on stdout (notices, such as a terminated session, on stderr). Exit 6 when nobody owns the pull\n" +
			"request. Makes no GitHub request: an orchestrator can call it for every event.",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			st, t, err := localTarget(c, d)
			if err != nil {
				return err
			}
			r, err := handoff.PRRoute(c.Context, st, t.name(), t.Number)
			if err != nil {
				return prHint(t.Number, err)
			}
			if c.Bool("json") {
				return d.printJSON(view.OfPRRoute(r, r.Notices))
			}
			notify(d.stderr, r.Notices)
			fmt.Fprintln(d.stdout, r.Session)
			return nil
		},
	}
}
