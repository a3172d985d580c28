package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

// undismissCommand undoes a dismiss while nothing has happened to the baton
// since (handoff.Undismiss): the status page's Undo, from the command line.
func undismissCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "undismiss",
		Usage:     "put a dismissed baton back, waiting, while nothing has replaced it since",
		ArgsUsage: "ID",
		Description: "Undoes `git handoff dismiss ID` (or the status page's Dismiss) as long as the dismissal is still the\n" +
			"baton's latest version: no new baton on that owner and branch, no claim of a teammate's copy. The\n" +
			"baton waits again with its notes unchanged, decided where its claims are (the remote, when it has\n" +
			"one), as the dismissal was. Otherwise it refuses (exit 5) and changes nothing.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "offline", Usage: "restore locally even when a remote knows the baton; the next sync settles it"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			id := c.Args().First()
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			res, err := handoff.Undismiss(c.Context, st, handoff.UndismissOptions{ID: id, Arbiter: arbiterFor(c.Bool("offline"))}, d.Now)
			if err != nil {
				d.printLost(c, res.Notices, res.Conflicts, view.Undismiss{Notices: view.NonNil(res.Notices), Conflicts: res.Conflicts})
				return err
			}
			if c.Bool("json") {
				return d.printJSON(view.Undismiss{Restored: true, Handoff: view.OfBaton(&res.Restored), Notices: view.NonNil(res.Notices)})
			}
			notify(d.stderr, res.Notices)
			fmt.Fprintf(d.stdout, "baton %s waits again\n", id)
			return nil
		},
	}
}
