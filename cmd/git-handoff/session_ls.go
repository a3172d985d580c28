package main

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
)

// sessionListJSON is the result of `session ls --json`, as printJSONEach
// writes it.
type sessionListJSON struct {
	Sessions []sessionJSON `json:"sessions"`
	Notices  []string      `json:"notices"`
}

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
			all := c.Bool("all")
			res, err := handoff.SessionList(c.Context, st, handoff.SessionListOptions{All: all})
			if err != nil {
				return err
			}
			shown := res.Sessions
			if c.Bool("json") {
				// sessionListJSON, written a session at a time: the
				// whole document of 100,000 sessions is never held.
				enc, ebuf := itemEncoder()
				return printJSONEach(d.stdout, "sessions", len(shown), func(i int, out *bytes.Buffer) error {
					j := toSessionJSON(shown[i].Record, false)
					j.Lineage = shown[i].Lineage
					withRuntime(&j, shown[i].Runtime)
					ebuf.Reset()
					err := enc.Encode(j)
					out.Write(ebuf.Bytes())
					return err
				}, d.withOpenNotices(res.Notices))
			}
			notify(d.stderr, res.Notices)
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
				if rt := runtimeText(s.Runtime); rt != "" {
					status += ", " + rt
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Lineage, orDash(s.Harness), orDash(s.Branch), status, s.UpdatedAt.UTC().Format("2006-01-02 15:04"))
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
