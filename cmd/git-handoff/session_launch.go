package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/lineage"
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
			cur, err := lineage.ReadSession(c.Context, st, id)
			if err == nil {
				err = lineage.Launchable(cur.Session)
			}
			if err != nil {
				return sessionError(c, fmt.Sprintf("launching session %q", id), id, err)
			}
			plan, err := lineage.PlanLaunch(cur.Session, d.briefer(c.Context, st))
			if err != nil {
				return sessionError(c, fmt.Sprintf("launching session %q", id), id, err)
			}
			if !c.Bool("exec") {
				if c.Bool("json") {
					return printJSON(d.stdout, toLaunchJSON(plan))
				}
				d.printPlan(plan)
				return nil
			}
			if len(plan.Argv) == 0 {
				return fmt.Errorf("launching session %q: %s", id, plan.Note)
			}
			if plan.Dir != "" {
				if fi, err := os.Stat(plan.Dir); err != nil || !fi.IsDir() {
					return withHint(fmt.Errorf("launching session %q: its worktree %s is gone", id, plan.Dir),
						"re-create it with `git handoff session restore "+id+"`")
				}
			}
			if plan.Note != "" {
				fmt.Fprintf(d.stderr, "notice: %s\n", plan.Note)
			}
			if err := lineage.MarkLaunched(c.Context, st, id, d.Now()); err != nil {
				fmt.Fprintf(d.stderr, "notice: the launch was not recorded: %v\n", err)
			}
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
