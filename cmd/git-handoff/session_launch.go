package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/view"
)

func sessionLaunchCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "launch",
		Usage:     "print (or run) the exact command that starts or resumes the session's agent",
		ArgsUsage: "[ID]",
		Description: "The agent runs in the session's worktree with GIT_HANDOFF_SESSION set. A harness that ran\n" +
			"this session before resumes its own conversation; otherwise it starts fresh with the brief.\n" +
			"With --tmux it runs in a tmux session of its own, on the user's tmux server (or the one\n" +
			"GIT_HANDOFF_TMUX_SOCKET names, as tmux -L does), and the command returns, leaving a watcher\n" +
			"that lives as long as the agent's pane: when the agent dies, or waits for input longer than\n" +
			"handoff.stallAfter, the session continues in the first agent of handoff.fallback that starts\n" +
			"(see `git handoff continue`; what the watchers decide goes to .git/handoff/watch.log).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "print", Usage: "print the command (the default)"},
			&cli.BoolFlag{Name: "exec", Usage: "run it, in the foreground, and exit with its status"},
			applySnapshotFlag,
			&cli.BoolFlag{Name: "tmux", Usage: "run it in a detached tmux session named after the session, and record it"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			modes := 0
			for _, m := range []string{"print", "exec", "tmux"} {
				if c.Bool(m) {
					modes++
				}
			}
			if modes > 1 {
				return usageErrorf(c, "--print, --exec and --tmux exclude each other")
			}
			st, id, err := d.storeAndSession(c)
			if err != nil {
				return err
			}
			// Before the agent runs: a refused apply launches nothing.
			if err := d.sessionSnapshot(c, st, id); err != nil {
				return err
			}
			res, err := handoff.SessionLaunch(c.Context, st, handoff.SessionLaunchOptions{ID: id, Exec: c.Bool("exec"), Tmux: c.Bool("tmux"), Launcher: launcher(), Exited: continueExitedCommand()}, d.Now)
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
			if c.Bool("tmux") {
				startWatcher(c.Context, st.Dir(), id, res.Runtime, &res.Notices)
				return d.printTmuxLaunch(c, id, res)
			}
			if !c.Bool("exec") {
				if c.Bool("json") {
					return d.printJSON(view.OfLaunch(plan))
				}
				d.printPlan(plan)
				return nil
			}
			return d.runPlan(c, id, plan, res.Notices)
		},
	}
}

func (d *deps) printTmuxLaunch(c *cli.Context, id string, res handoff.SessionLaunchResult) error {
	rt := res.Runtime
	if c.Bool("json") {
		return d.printJSON(view.TmuxLaunch{
			Session: id, Runtime: &view.Runtime{Runtime: *rt, State: tmuxrt.StateLive},
			Launch: view.OfLaunch(res.Plan), Notices: view.NonNil(res.Notices),
		})
	}
	if res.Plan.Note != "" {
		fmt.Fprintf(d.stderr, "notice: %s\n", res.Plan.Note)
	}
	notify(d.stderr, res.Notices)
	fmt.Fprintf(d.stderr, "session %s runs %s in tmux session %s: attach with `git handoff session attach %s`\n", id, res.Plan.Harness, rt.Name, id)
	fmt.Fprintln(d.stdout, rt.Name)
	return nil
}

// startWatcher leaves the process that watches a session's agent under
// tmux for a stall (handoff.Watch): a job of the agent's tmux server, as
// the pane-died hook is, so that it outlives this command, needs no
// terminal, and exits with the agent's pane. Exits are tmux's to report
// (continueExitedCommand); stalls need a look at the pane now and then.
func startWatcher(ctx context.Context, dir, id string, rt *session.Runtime, notices *[]string) {
	exe, err := os.Executable()
	if err == nil {
		err = tmuxrt.Server{Path: rt.Socket}.Background(ctx, dir, []string{exe, "continue", "watch", id})
	}
	if err != nil {
		*notices = append(*notices, "no watcher for a stalled agent: "+err.Error())
	}
}
