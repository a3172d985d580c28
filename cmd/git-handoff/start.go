package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func startCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "start",
		Usage: "start a session: claim the baton left for it and print the brief",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "session `ID` (default: a new short id)"},
			&cli.StringFlag{Name: "harness", Usage: "the coding agent running this session"},
			&cli.StringFlag{Name: "model", Usage: "the model it runs"},
			&cli.StringFlag{Name: "objective", Usage: "what this session is for"},
			maxBytesFlag(),
			ownerFlag(), branchFlag(),
			&cli.BoolFlag{Name: "offline", Usage: "claim locally even when a remote knows the baton; the next sync settles it"},
			&cli.BoolFlag{Name: "apply-snapshot", Usage: "apply the uncommitted work the baton's session left (its snapshot) to this worktree"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			res, err := handoff.Start(c.Context, st, handoff.StartOptions{
				Session: c.String("session"), Harness: c.String("harness"), Model: c.String("model"),
				Objective: c.String("objective"), MaxBytes: c.Int("max-bytes"),
				Owner: c.String("owner"), Branch: c.String("branch"),
				Arbiter: arbiterFor(c.Bool("offline")), ApplySnapshot: c.Bool("apply-snapshot"),
			}, d.Now)
			if err != nil {
				var ee *handoff.ExistsError
				if errors.As(err, &ee) {
					return withHint(fmt.Errorf("starting session: %w", err), "pick another --session, or revive it with `git handoff session restore "+ee.ID+"`")
				}
				return fmt.Errorf("starting session: %w", err)
			}
			d.refreshStoreCommitHook(c.Context, st)
			if c.Bool("json") {
				if err := d.printJSON(view.OfStart(res, res.Notices)); err != nil {
					return err
				}
				return startSnapshotErr(res)
			}
			notify(d.stderr, res.Notices)
			printConflicts(d.stderr, res.Conflicts)
			fmt.Fprintf(d.stderr, "session %s started on %s", res.Session.ID, res.Session.Branch)
			if res.Claimed {
				fmt.Fprintf(d.stderr, "; claimed baton %s", res.Handoff.ID)
			}
			fmt.Fprintln(d.stderr)
			if _, err = fmt.Fprint(d.stdout, res.Brief); err != nil {
				return err
			}
			return startSnapshotErr(res)
		},
	}
}
