package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/prown"
)

func prShowCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show who owns a pull request and its handoff history (local, no GitHub request)",
		UsageText: "git handoff pr show [NUMBER|URL] [--session S] [--json]",
		Description: "Without NUMBER, shows the pull request the current session owns (--session, else\n" +
			"GIT_HANDOFF_SESSION, else this worktree's session).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "show the pull request of session `ID`"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageErrorf(c, "pr show takes at most one pull request")
			}
			ctx := c.Context
			st, t, err := localTarget(c, d)
			if err != nil {
				return err
			}
			if t.Number == 0 {
				id, err := currentSession(st, c.String("session"))
				if err != nil {
					return err
				}
				p, err := sessionPR(ctx, st, id)
				if err != nil {
					return fmt.Errorf("finding the pull request of session %q: %w", id, err)
				}
				if p == nil {
					return usageErrorf(c, "name a pull request: the current session (%q) owns none", id)
				}
				t.Number = p.Number
			}
			rec, err := prown.Read(ctx, st, t.name(), t.Number)
			if err != nil {
				return prError(fmt.Sprintf("showing #%d", t.Number), t, err)
			}
			if c.Bool("json") {
				return printJSON(d.stdout, toPRRecordJSON(rec))
			}
			fmt.Fprintf(d.stdout, "%s#%d %s\n", rec.Repo, rec.Number, rec.URL)
			switch {
			case rec.OwnerSession == "":
				fmt.Fprintln(d.stdout, "owner: nobody (released)")
			default:
				fmt.Fprintf(d.stdout, "owner: %s since %s\n", rec.OwnerSession, stampUTC(rec.ClaimedAt))
			}
			if rec.MergedAt != nil {
				fmt.Fprintf(d.stdout, "merged: seen %s\n", stampUTC(*rec.MergedAt))
			}
			fmt.Fprintln(d.stdout, "history:")
			for _, h := range rec.History {
				from, to := h.From, h.Session
				if from == "" {
					from = "—"
				}
				if to == "" {
					to = "nobody"
				}
				fmt.Fprintf(d.stdout, "  %s  %s → %s  %s\n", stampUTC(h.At), from, to, h.Reason)
			}
			return nil
		},
	}
}
