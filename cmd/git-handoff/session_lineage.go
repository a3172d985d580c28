package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lineage"
)

func sessionLineageCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "lineage",
		Usage:     "draw the line of predecessors and successors of a session",
		ArgsUsage: "[ID]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "tree", Usage: "one of " + strings.Join(lineage.Formats, ", ")},
		},
		Action: func(c *cli.Context) error {
			if f := c.String("format"); !slices.Contains(lineage.Formats, f) {
				return usageErrorf(c, "unknown format %q: use one of %s", f, strings.Join(lineage.Formats, ", "))
			}
			st, id, err := d.storeAndSession(c)
			if err != nil {
				return err
			}
			res, err := handoff.SessionLineage(c.Context, st, id, c.String("format"))
			notify(d.stderr, res.Notices)
			if err != nil {
				return sessionError(c, "drawing the lineage", id, err)
			}
			_, err = fmt.Fprint(d.stdout, res.Drawing)
			return err
		},
	}
}
