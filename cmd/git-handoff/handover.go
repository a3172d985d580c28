package main

import (
	"context"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
)

// handoverDeadline bounds a detached handover: a snapshot, a transcript's
// end and one baton, which take well under a second on an idle machine.
const handoverDeadline = 2 * time.Minute

// handoverCommand finishes the handovers due in this worktree (an agent's
// end hook leaves its session's for it, in a process of its own). Hidden:
// git-handoff runs it; `start` does the same before it claims.
func handoverCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:   "handover",
		Usage:  "hand on the sessions that ended here without a baton (run by the agents' end hooks)",
		Hidden: true,
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(c.Context, handoverDeadline)
			defer cancel()
			notify(d.stderr, handoff.FinishHandovers(ctx, st, d.Now))
			return nil
		},
	}
}
