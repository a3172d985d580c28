package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func cancelCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "cancel",
		Usage: "take back my unclaimed private baton for this branch",
		Flags: []cli.Flag{
			ownerFlag(), branchFlag(),
			&cli.BoolFlag{Name: "offline", Usage: "cancel locally even when a remote knows the baton; the next sync settles it (a claim made meanwhile elsewhere wins)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			res, err := handoff.Cancel(c.Context, st, handoff.CancelOptions{Owner: c.String("owner"), Branch: c.String("branch"), Arbiter: arbiterFor(c.Bool("offline"))}, d.Now)
			if err != nil {
				d.printLost(c, res.Notices, res.Conflicts, view.Cancel{Notices: view.NonNil(res.Notices), Conflicts: res.Conflicts})
				return err
			}
			if c.Bool("json") {
				return d.printJSON(view.Cancel{Cancelled: res.Cancelled != nil, Handoff: view.OfBaton(res.Cancelled), Notices: view.NonNil(res.Notices)})
			}
			notify(d.stderr, res.Notices)
			if res.Cancelled == nil {
				fmt.Fprintf(d.stderr, "no baton of %s is waiting on %s\n", res.Who.Owner, res.Who.Branch)
				return nil
			}
			fmt.Fprintf(d.stdout, "cancelled baton %s\n", res.Cancelled.ID)
			return nil
		},
	}
}
