package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/lineage"
)

func sessionLsCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "ls",
		Aliases:   []string{"list"},
		Usage:     "list active sessions with their agent, branch, status and lineage",
		UsageText: "git handoff session ls [--all] [--json]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "include ended, terminated, replaced and merged sessions"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "session ls takes no arguments, got %q", c.Args().First())
			}
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			stored, warns, err := lineage.ListSessions(c.Context, st)
			if err != nil {
				return err
			}
			lines := make([]string, len(warns))
			for i, w := range warns {
				lines[i] = w.String()
			}
			notify(d.stderr, lines)
			sessions := lineage.Sessions(stored)
			g := lineage.NewGraph(lineage.Nodes(sessions))
			for _, p := range g.Problems() {
				fmt.Fprintf(d.stderr, "notice: lineage: %s\n", p)
			}
			all := c.Bool("all")
			shown := sessions[:0]
			for _, s := range sessions {
				if all || s.Status == lineage.StatusActive {
					shown = append(shown, s)
				}
			}
			if c.Bool("json") {
				out := make([]sessionJSON, len(shown))
				for i, s := range shown {
					out[i] = toSessionJSON(s, false)
					out[i].Lineage = lineage.Summary(g, s.ID)
				}
				return printJSON(d.stdout, map[string]any{"sessions": out})
			}
			if len(shown) == 0 {
				if all {
					fmt.Fprintln(d.stderr, "no sessions")
				} else {
					fmt.Fprintln(d.stderr, "no active sessions (--all shows the others)")
				}
				return nil
			}
			tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SESSION\tAGENT\tBRANCH\tSTATUS\tUPDATED")
			for _, s := range shown {
				status := s.Status
				if s.Switching != nil {
					status += " (switching to " + s.Switching.To + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", lineage.Summary(g, s.ID), orDash(s.Harness), orDash(s.Branch), status, s.UpdatedAt.UTC().Format("2006-01-02 15:04"))
			}
			return tw.Flush()
		},
	}
}

func orDash(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if s == "" {
		return "-"
	}
	return s
}
