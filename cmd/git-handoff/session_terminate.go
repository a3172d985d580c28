package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
)

// terminateJSON is the result of `session terminate --json`.
type terminateJSON struct {
	Session sessionJSON `json:"session"`
	Changed bool        `json:"changed"` // false: it was already terminated
}

func sessionTerminateCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "terminate",
		Usage:     "mark a session whose agent is dead (restore or replace it later)",
		UsageText: "git handoff session terminate ID [--summary TEXT] [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "summary", Usage: "what it had done, for whoever takes over"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf(c, "session terminate takes exactly one session id")
			}
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			id := c.Args().First()
			res, err := handoff.SessionTerminate(c.Context, st, id, c.String("summary"), d.Now)
			if err != nil {
				return sessionError(c, fmt.Sprintf("terminating session %q", id), id, err)
			}
			if c.Bool("json") {
				return d.printJSON(terminateJSON{Session: toSessionJSON(res.Session.Record, false), Changed: res.Changed})
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
