package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/view"
)

func rebasedNote(rebased bool) string {
	if rebased {
		return " (merged onto this HEAD)"
	}
	return ""
}

// startSnapshotErr is a refused --apply-snapshot of start: the session
// started and its brief was printed, the worktree is unchanged.
func startSnapshotErr(res handoff.StartResult) error {
	if res.SnapshotErr == nil {
		return nil
	}
	return snapshotHint(res.SnapshotErr, res.Snapshot.Snapshot.Session)
}

func snapshotHint(err error, id string) error {
	var he *refstore.HeadMismatchError
	if errors.As(err, &he) {
		return withHint(err, "then run `"+handoff.ApplyCommand(id)+"`")
	}
	return withHint(err, "once the way is clear, run `"+handoff.ApplyCommand(id)+"`")
}

var applySnapshotFlag = &cli.BoolFlag{Name: "apply-snapshot", Usage: "apply the uncommitted work the session (or the one it replaced) left, its snapshot, to the worktree"}

// sessionSnapshot says whether session id (or the one it replaced) left
// a snapshot and, with --apply-snapshot, applies it: restore and launch.
func (d *deps) sessionSnapshot(c *cli.Context, st *refstore.Store, id string) error {
	off, notes, err := handoff.SessionSnapshot(c.Context, st, handoff.SnapshotApplyOptions{Session: id, Apply: c.Bool("apply-snapshot")})
	notify(d.stderr, notes)
	if err != nil && off != nil {
		return snapshotHint(err, off.Snapshot.Session)
	}
	if errors.Is(err, refstore.ErrNotFound) {
		return nil // the workflow itself says the session is unknown
	}
	return err
}

func snapshotCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "snapshot",
		Usage: "a session's uncommitted work, kept as a commit at refs/ao/snapshots/ID: take, show, apply",
		Subcommands: []*cli.Command{
			{
				Name:  "take",
				Usage: "keep this worktree's uncommitted changes as the session's snapshot (index and worktree untouched)",
				Flags: []cli.Flag{&cli.StringFlag{Name: "session", Usage: "the session `ID` (default: GIT_HANDOFF_SESSION, else this worktree's)"}, jsonFlag},
				Action: func(c *cli.Context) error {
					st, id, err := d.storeAndSession(c)
					if err != nil {
						return err
					}
					t, err := handoff.TakeSnapshot(c.Context, st, id)
					if err != nil {
						return err
					}
					if c.Bool("json") {
						return d.printJSON(struct {
							Snapshot *view.Snapshot `json:"snapshot"`
							Clean    bool           `json:"clean"`
						}{view.OfSnapshot(t.Snapshot, true), t.Clean})
					}
					if t.Snapshot == nil {
						fmt.Fprintf(d.stderr, "nothing uncommitted in %s: no snapshot taken\n", t.Worktree)
						return nil
					}
					fmt.Fprintf(d.stderr, "kept the uncommitted work of session %s at %s\n", id, t.Snapshot.Ref)
					fmt.Fprintln(d.stdout, t.Snapshot.Commit)
					return nil
				},
			},
			{
				Name:      "show",
				Usage:     "the snapshot a session left, and whether this worktree holds it",
				ArgsUsage: "[ID]",
				Flags:     []cli.Flag{jsonFlag},
				Action: func(c *cli.Context) error {
					st, id, err := d.storeAndSession(c)
					if err != nil {
						return err
					}
					off, err := handoff.ShowSnapshot(c.Context, st, id)
					if err != nil {
						return fmt.Errorf("reading the snapshot of session %q: %w", id, err)
					}
					if c.Bool("json") {
						return d.printJSON(view.OfSnapshot(&off.Snapshot, off.Present))
					}
					s := off.Snapshot
					fmt.Fprintf(d.stdout, "snapshot %s of session %s\nref:     %s\nhead:    %s\ntaken:   %s\n", s.Commit, s.Session, s.Ref, orDash(s.Head), s.When.Format(time.RFC3339))
					if off.Present {
						fmt.Fprintln(d.stdout, "here:    this worktree holds it")
					} else {
						fmt.Fprintf(d.stdout, "apply:   %s\n", handoff.ApplyCommand(s.Session))
					}
					return nil
				},
			},
			{
				Name:      "apply",
				Usage:     "apply a session's snapshot to this worktree (same HEAD; refused, changing nothing, over local changes)",
				ArgsUsage: "ID",
				Flags:     []cli.Flag{jsonFlag},
				Action: func(c *cli.Context) error {
					st, err := d.Store(c.Context)
					if err != nil {
						return err
					}
					id := c.Args().First()
					res, err := handoff.ApplySnapshot(c.Context, st, id)
					if err != nil {
						if errors.Is(err, refstore.ErrNotFound) {
							return withHint(fmt.Errorf("applying the snapshot of session %q: %w", id, err), "fetch the team's snapshots with `git handoff sync`")
						}
						return snapshotHint(err, id)
					}
					if c.Bool("json") {
						return d.printJSON(struct {
							Snapshot *view.Snapshot `json:"snapshot"`
							Applied  *view.Applied  `json:"applied"`
						}{view.OfSnapshot(&res.Snapshot, true), view.OfApplied(res.Applied)})
					}
					if res.Applied.Already {
						fmt.Fprintf(d.stderr, "snapshot %s of session %s is in this worktree already\n", res.Snapshot.Commit, id)
						return nil
					}
					fmt.Fprintf(d.stderr, "applied snapshot %s of session %s%s: %d path%s; staged changes staged again, untracked files untracked\n",
						res.Snapshot.Commit, id, rebasedNote(res.Applied.Rebased), len(res.Applied.Paths), plural(len(res.Applied.Paths)))
					return nil
				},
			},
		},
	}
}
