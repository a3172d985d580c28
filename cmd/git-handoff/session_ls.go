package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/view"
)

// sessionListJSON is the result of `session ls --json`, as
// printJSONArray writes it.
type sessionListJSON struct {
	Sessions []view.Session `json:"sessions"`
	Notices  []string       `json:"notices"`
}

func sessionLsCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:    "ls",
		Aliases: []string{"list"},
		Usage:   "list active sessions with their agent, branch, status and lineage",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "include ended, terminated, replaced and merged sessions"},
			&cli.BoolFlag{Name: "archived", Usage: "include the archived sessions too, after the others, marked (implies --all)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			opts := handoff.SessionListOptions{All: c.Bool("all"), Archived: c.Bool("archived")}
			if opts.All {
				// Final sessions retire at once: --all reaches back the
				// retention age into the archive.
				retention, err := teamsync.Retention(c.Context, st)
				if err != nil {
					return err
				}
				opts.Recent = teamsync.ListedSince(d.Now(), retention)
			}
			if c.Bool("json") {
				return sessionLsJSON(c, d, st, opts)
			}
			return sessionLsText(c, d, st, opts)
		},
	}
}

// sessionRow is what the table shows of a session but its lineage and
// what tmux said of it.
type sessionRow struct{ harness, branch, status, updated, worktree, host string }

// elsewhere marks, in the table, a worktree or host that is not this one.
const elsewhere = " *"

// sessionLsText prints the table of sessions, each kept as the text of
// its row, not as its record, until the lineage of every one is known.
func sessionLsText(c *cli.Context, d *deps, st *refstore.Store, opts handoff.SessionListOptions) error {
	row := func(r *session.Record) sessionRow {
		status := r.Status
		if r.Switching != nil {
			status += " (switching to " + r.Switching.To + ")"
		}
		row := sessionRow{harness: orDash(r.Harness), branch: orDash(r.Branch), status: status,
			updated: r.UpdatedAt.UTC().Format("2006-01-02 15:04"), worktree: orDash(r.Worktree), host: orDash(r.Host)}
		here := handoff.Here(st, r)
		if !here.Worktree {
			row.worktree += elsewhere
		}
		if !here.Host {
			row.host += elsewhere
		}
		return row
	}
	items, notices, err := handoff.SessionListEach(c.Context, st, opts, row)
	if err != nil {
		return err
	}
	notify(d.stderr, notices)
	if len(items) == 0 {
		if opts.All || opts.Archived {
			fmt.Fprintln(d.stderr, "no sessions")
		} else {
			fmt.Fprintln(d.stderr, "no active sessions (--all shows the others)")
		}
		return nil
	}
	marked := false
	err = writeTable(d.stdout, len(items)+1, func(i int) [tableCells]string {
		if i == 0 {
			return [tableCells]string{"SESSION", "AGENT", "BRANCH", "STATUS", "UPDATED", "HOST", "WORKTREE"}
		}
		it := &items[i-1]
		status := it.V.status
		if it.Archived != "" {
			status += ", archived " + it.Archived
		}
		if rt := runtimeText(it.Runtime); rt != "" {
			status += ", " + rt
		}
		marked = marked || strings.HasSuffix(it.V.worktree, elsewhere) || strings.HasSuffix(it.V.host, elsewhere)
		return [tableCells]string{it.Lineage, it.V.harness, it.V.branch, status, it.V.updated, it.V.host, it.V.worktree}
	})
	if err == nil && marked {
		_, err = fmt.Fprintln(d.stdout, "\n* another worktree or host than this one")
	}
	return err
}

// sessionLsJSON prints sessionListJSON, each session kept as its output
// shape as it is read, its lineage and runtime added once all are.
func sessionLsJSON(c *cli.Context, d *deps, st *refstore.Store, opts handoff.SessionListOptions) error {
	items, notices, err := handoff.SessionListEach(c.Context, st, opts, func(r *session.Record) view.Session {
		return view.OfSession(*r, false)
	})
	if err != nil {
		return err
	}
	out := make([]view.Session, len(items))
	for i := range items {
		out[i] = items[i].V
		out[i].Lineage = items[i].Lineage
		out[i].WithRuntime(items[i].Runtime)
		out[i].MarkArchived(items[i].Archived, items[i].ArchivedAs)
	}
	return printJSONArray(d.stdout, "sessions", out, d.withOpenNotices(notices))
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
