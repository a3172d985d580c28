package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func dismissCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "dismiss",
		Usage:     "delete an unclaimed baton by its id",
		ArgsUsage: "ID",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "offline", Usage: "dismiss locally even when a remote knows the baton; the next sync settles it (a claim made meanwhile elsewhere wins)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			id := c.Args().First()
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			res, err := handoff.Dismiss(c.Context, st, handoff.DismissOptions{ID: id, Arbiter: arbiterFor(c.Bool("offline"))}, d.Now)
			if err != nil {
				d.printLost(c, res.Notices, res.Conflicts, view.Dismiss{Notices: view.NonNil(res.Notices), Conflicts: res.Conflicts})
				return err
			}
			if c.Bool("json") {
				return d.printJSON(view.Dismiss{Dismissed: true, Handoff: view.OfBaton(&res.Dismissed), Notices: view.NonNil(res.Notices)})
			}
			notify(d.stderr, res.Notices)
			fmt.Fprintf(d.stdout, "dismissed baton %s\n", id)
			return nil
		},
	}
}
