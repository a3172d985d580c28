package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

// terminateJSON is the result of `session terminate --json`.
type terminateJSON struct {
	Session view.Session `json:"session"`
	Changed bool         `json:"changed"`           // false: it was already terminated
	Stopped string       `json:"stopped,omitempty"` // the tmux session whose running agent was stopped first
	Unbound string       `json:"unbound,omitempty"` // the worktree no longer bound to it
	Notices []string     `json:"notices"`
}

func sessionTerminateCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "terminate",
		Usage:     "end a session whose agent is dead, stopping it first if it runs in tmux (restore or replace it later)",
		ArgsUsage: "ID",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "summary", Usage: "what it had done, for whoever takes over"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			id := c.Args().First()
			res, err := handoff.SessionTerminate(c.Context, st, id, c.String("summary"), d.Now)
			if err != nil {
				notify(d.stderr, res.Notices)
				return sessionError(c, fmt.Sprintf("terminating session %q", id), id, err)
			}
			res.Notices = append(res.Notices, leasesAfterEnd(c.Context, st, id, d.Now)...)
			if c.Bool("json") {
				return d.printJSON(terminateJSON{Session: view.OfSession(res.Session.Record, false), Changed: res.Changed,
					Stopped: res.Stopped, Unbound: res.Unbound, Notices: view.NonNil(res.Notices)})
			}
			notify(d.stderr, res.Notices)
			if res.Stopped != "" {
				fmt.Fprintf(d.stderr, "stopped its agent and destroyed tmux session %s\n", res.Stopped)
			}
			if !res.Changed {
				fmt.Fprintf(d.stderr, "session %s was already terminated\n", id)
				return nil
			}
			fmt.Fprintf(d.stderr, "session %s terminated: revive it with `git handoff session restore %s` or hand it on with `git handoff session replace %s`\n", id, id, id)
			return nil
		},
	}
}
