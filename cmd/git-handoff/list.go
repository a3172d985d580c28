package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/sign"
	"github.com/git-handoff/git-handoff/view"
)

func listCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the batons waiting for me (--all: every owner's, claimed ones too)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every owner's batons, claimed ones too"},
			ownerFlag(),
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			opts := handoff.ListOptions{All: c.Bool("all"), Owner: c.String("owner")}
			if c.Bool("json") {
				return listJSON(c, d, st, opts)
			}
			res, err := handoff.List(c.Context, st, opts)
			if err != nil {
				return err
			}
			list := res.Handoffs
			notify(d.stderr, res.Notices)
			if len(list) == 0 {
				fmt.Fprintln(d.stderr, "no batons")
				return nil
			}
			tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tOWNER\tBRANCH\tSTATE\tSIGNATURE\tCREATED\tNEXT STEP")
			for _, h := range list {
				state := "waiting"
				if h.Claimed {
					state = "claimed by " + h.ClaimedBySession
				}
				if h.Shared {
					state += " (shared)"
				}
				if s, ok := res.Snapshots[h.SessionID]; ok {
					state += ", snapshot " + s.Commit[:min(12, len(s.Commit))]
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", h.ID, h.Owner, h.Branch, state, signatureCell(h.Signature), h.CreatedAt.Format("2006-01-02 15:04"), firstLine(h.NextSteps))
			}
			return tw.Flush()
		},
	}
}

func firstLine(steps []string) string {
	if len(steps) == 0 {
		return ""
	}
	s := steps[0]
	for i, r := range s {
		if r == '\n' || i >= 60 {
			return s[:i] + "…"
		}
	}
	return s
}

// signatureCell is a baton's verification in a table cell: the state, and
// who signed when it is someone other than the owner.
func signatureCell(v *refstore.Verification) string {
	switch {
	case v == nil:
		return "-"
	case v.State == sign.Other:
		return "signed by " + v.Signer
	}
	return string(v.State)
}

// listJSON prints the batons as they are read and shaped: each is kept
// as its output's JSON text, never as its record or its output value.
func listJSON(c *cli.Context, d *deps, st *refstore.Store, opts handoff.ListOptions) error {
	snapshot := handoff.SnapshotsOf(c.Context, st)
	var text jsonItems
	spans, notices, err := handoff.ListEach(c.Context, st, opts, func(s *baton.Stored) jsonSpan {
		sn, ok := snapshot(s.SessionID)
		return text.add(view.OfListed(s, sn, ok))
	})
	if err != nil {
		return err
	}
	return text.print(d.stdout, "handoffs", spans, d.withOpenNotices(notices))
}
