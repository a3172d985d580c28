package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
)

func dismissCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "dismiss",
		Usage:     "delete an unclaimed baton by its id",
		ArgsUsage: "ID",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf(c, "dismiss takes one baton id")
			}
			id := c.Args().First()
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			h, warns, err := baton.FindLive(c.Context, st, id)
			notify(d.stderr, warningLines(warns))
			if err != nil {
				return fmt.Errorf("dismissing baton: %w", err)
			}
			out, err := baton.Delete(c.Context, st, h, "dismissed", d.Now())
			if err != nil {
				return fmt.Errorf("dismissing baton %s: %w", id, err)
			}
			if c.Bool("json") {
				return printJSON(d.stdout, map[string]any{"dismissed": true, "handoff": toJSON(&out)})
			}
			fmt.Fprintf(d.stdout, "dismissed baton %s\n", id)
			return nil
		},
	}
}
