package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
)

func sessionRestoreCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "revive a session under its own id, in its worktree, with its agent",
		ArgsUsage: "ID",
		Description: "The worktree is re-created if it is gone; the agent resumes its own conversation where it\n" +
			"can, and otherwise starts fresh with the brief. Restoring an active session does nothing.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "prompt", Usage: "the task, saved on the session, for a fresh launch that has none"},
			applySnapshotFlag,
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			id := c.Args().First()
			res, err := handoff.SessionRestore(c.Context, st, handoff.SessionRelaunchOptions{
				ID: id, Prompt: c.String("prompt"), By: guardHolder(), Launcher: launcher(), Exited: exitedCommand(),
			}, d.Now)
			if err != nil {
				notify(d.stderr, res.Notices)
				return sessionError(c, fmt.Sprintf("restoring session %q", id), id, err)
			}
			d.refreshCommitHook(c.Context, res.Bound)
			if err := d.printRelaunch(c, res); err != nil {
				return err
			}
			// After the restore: the worktree may only now exist again.
			return d.sessionSnapshot(c, st, id)
		},
	}
}
