package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// prShowOptions reads the pull request asked for against this checkout's
// GitHub repository. When the remote is not on GitHub, pr show still
// answers from the records here (it never asks GitHub): by the number
// alone, or the repository a URL names, and says so.
func prShowOptions(c *cli.Context, d *deps, st *refstore.Store) (handoff.PRShowOptions, error) {
	opts := handoff.PRShowOptions{Session: c.String("session")}
	repo, err := ghpr.DetectRepo(c.Context, st.Dir(), "origin", os.Getenv)
	if err == nil {
		t, err := parseTarget(c, repo, c.Args().First())
		opts.Repo, opts.Number = t.name(), t.Number
		return opts, err
	}
	if arg := c.Args().First(); arg != "" {
		r, n, perr := ghpr.ParsePRRef(arg)
		if perr != nil {
			return opts, usageErrorf(c, "%v", perr)
		}
		opts.Number = n
		if r.Owner != "" {
			opts.Repo = r.FullName()
		}
	}
	fmt.Fprintf(d.stderr, "notice: this repository's remote is not on GitHub (%v): answering from the records in this clone; GitHub was not asked\n", err)
	return opts, nil
}

func prShowCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show who owns a pull request and its handoff history (local, no GitHub request)",
		ArgsUsage: "[NUMBER|URL]",
		Description: "Without NUMBER, shows the pull request the current session owns (--session, else\n" +
			"GIT_HANDOFF_SESSION, else this worktree's session).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "show the pull request of session `ID`"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			opts, err := prShowOptions(c, d, st)
			if err != nil {
				return err
			}
			rec, err := handoff.PRShow(c.Context, st, opts)
			var amb *handoff.AmbiguousPRError
			if errors.As(err, &amb) {
				return withHint(err, "name it by URL, or set GH_REPO=OWNER/REPO")
			}
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
