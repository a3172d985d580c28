package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/lineage"
)

func sessionLineageCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "lineage",
		Usage:     "draw the line of predecessors and successors of a session",
		UsageText: "git handoff session lineage [ID] [--format tree|json|dot|mermaid]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "tree", Usage: "one of " + strings.Join(lineage.Formats, ", ")},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageErrorf(c, "session lineage takes one session id")
			}
			if f := c.String("format"); !slices.Contains(lineage.Formats, f) {
				return usageErrorf(c, "unknown format %q: use one of %s", f, strings.Join(lineage.Formats, ", "))
			}
			st, id, err := d.storeAndSession(c)
			if err != nil {
				return err
			}
			g, err := lineage.LineGraph(c.Context, st, id)
			if err != nil {
				return sessionError(c, "drawing the lineage", id, err)
			}
			for _, p := range g.Problems() {
				fmt.Fprintf(d.stderr, "notice: lineage: %s\n", p)
			}
			out, err := lineage.Render(g, id, c.String("format"))
			if err != nil {
				return fmt.Errorf("drawing the lineage: %w", err)
			}
			_, err = fmt.Fprint(d.stdout, out)
			return err
		},
	}
}
