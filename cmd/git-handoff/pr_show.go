package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
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
			st, t, err := localTarget(c, d)
			if err != nil {
				return err
			}
			rec, err := handoff.PRShow(c.Context, st, handoff.PRShowOptions{Repo: t.name(), Number: t.Number, Session: c.String("session")})
			if err != nil {
				return prHint(rec.Number, err)
			}
			if c.Bool("json") {
				return d.printJSON(toPRRecordJSON(rec))
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
