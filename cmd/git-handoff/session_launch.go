package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
)

func sessionLaunchCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "launch",
		Usage: "print (or run) the exact command that starts or resumes the session's agent",
		UsageText: "git handoff session launch [ID] [--print|--exec] [--json]\n\n" +
			"The agent runs in the session's worktree with GIT_HANDOFF_SESSION set. A harness that ran\n" +
			"this session before resumes its own conversation; otherwise it starts fresh with the brief.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "print", Usage: "print the command (the default)"},
			&cli.BoolFlag{Name: "exec", Usage: "run it, in the foreground, and exit with its status"},
			applySnapshotFlag,
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageErrorf(c, "session launch takes one session id")
			}
			if c.Bool("print") && c.Bool("exec") {
				return usageErrorf(c, "--print and --exec exclude each other")
			}
			st, id, err := d.storeAndSession(c)
			if err != nil {
				return err
			}
			// Before the agent runs: a refused apply launches nothing.
			if err := d.sessionSnapshot(c, st, id); err != nil {
				return err
			}
			res, err := handoff.SessionLaunch(c.Context, st, handoff.SessionLaunchOptions{ID: id, Exec: c.Bool("exec")}, d.Now)
			var gone *handoff.WorktreeGoneError
			var none *handoff.NoLaunchError
			switch {
			case errors.As(err, &gone):
				return withHint(fmt.Errorf("launching session %q: %w", id, err), "re-create it with `git handoff session restore "+id+"`")
			case errors.As(err, &none):
				return fmt.Errorf("launching session %q: %w", id, err)
			case err != nil:
				return sessionError(c, fmt.Sprintf("launching session %q", id), id, err)
			}
			plan := res.Plan
			if !c.Bool("exec") {
				if c.Bool("json") {
					return d.printJSON(toLaunchJSON(plan))
				}
				d.printPlan(plan)
				return nil
			}
			if plan.Note != "" {
				fmt.Fprintf(d.stderr, "notice: %s\n", plan.Note)
			}
			notify(d.stderr, res.Notices)
			cmd := exec.CommandContext(c.Context, plan.Argv[0], plan.Argv[1:]...)
			cmd.Dir = plan.Dir
			cmd.Env = append(os.Environ(), plan.Env...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = d.stdin, d.stdout, d.stderr
			err = cmd.Run()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return &silentCode{code: ee.ExitCode()}
			}
			if err != nil {
				return fmt.Errorf("launching session %q: %w", id, err)
			}
			return nil
		},
	}
}
