package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// The watchers of an agent under tmux (handoff.AgentExited, handoff.Watch):
// internal commands, under `continue`, that tmux and `session launch
// --tmux` start.

// continueExitedCommand is how tmux tells this program that a session's
// agent exited (tmuxrt.Spec.OnExit; the session id is appended): the
// session continues in a fallback, or ends.
func continueExitedCommand() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil // the session then ends only when asked
	}
	return []string{exe, "continue", "exited"}
}

func continueWatchCommands(d *deps) []*cli.Command {
	watchOpts := func(c *cli.Context) (handoff.WatchOptions, error) {
		if c.NArg() != 1 {
			return handoff.WatchOptions{}, usageErrorf(c, "name the session")
		}
		return handoff.WatchOptions{ID: c.Args().First(), By: guardHolder(), Launcher: launcher(), Exited: continueExitedCommand()}, nil
	}
	// watching is a watcher command's action: its session named, the
	// store opened, its decisions logged to the watch log.
	watching := func(run func(*cli.Context, *refstore.Store, handoff.WatchOptions) error) cli.ActionFunc {
		return func(c *cli.Context) error {
			opts, err := watchOpts(c)
			if err != nil {
				return err
			}
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			opts.Log = handoff.WatchLog(st)
			return run(c, st, opts)
		}
	}
	return []*cli.Command{{
		Name:      "exited",
		Hidden:    true,
		Usage:     "internal: tmux saw a session's agent exit; continue it in a fallback agent, or end it",
		ArgsUsage: "ID",
		Action: watching(func(c *cli.Context, st *refstore.Store, opts handoff.WatchOptions) error {
			res, err := handoff.AgentExited(c.Context, st, opts, d.Now)
			notify(d.stderr, res.Notices)
			return err
		}),
	}, {
		Name:      "watch",
		Hidden:    true,
		Usage:     "internal: watch a session's agent under tmux for a stall (handoff.stallAfter), until its pane is gone",
		ArgsUsage: "ID",
		Action: watching(func(c *cli.Context, st *refstore.Store, opts handoff.WatchOptions) error {
			return handoff.Watch(c.Context, st, opts, d.Now)
		}),
	}}
}
