package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
)

func logCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "recent baton events (created, continued, claimed, cancelled, dismissed, conflict) and lease events, newest first",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 50, Usage: "show at most `N` events", Action: atLeast("limit", 1, "")},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			events, err := baton.Events(c.Context, st, c.Int("limit"))
			if err != nil {
				return fmt.Errorf("reading the baton history: %w", err)
			}
			events = withLeaseEvents(c.Context, st, events, c.Int("limit"))
			if c.Bool("json") {
				return d.printJSON(toLogJSON(events))
			}
			tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
			for _, e := range events {
				last := e.Session
				if e.Dropped != "" {
					last = "dropped " + e.Dropped + " (git cat-file -p " + e.Dropped + ")"
				}
				if e.Reason != "" {
					last += ": " + e.Reason
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.At.Format("2006-01-02 15:04:05"), e.Kind, e.ID, e.Owner, e.Branch, last)
			}
			return tw.Flush()
		},
	}
}
