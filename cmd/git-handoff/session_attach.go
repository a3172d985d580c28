package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

func sessionAttachCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:        "attach",
		Usage:       "attach this terminal to the session's agent running under tmux",
		ArgsUsage:   "[ID]",
		Description: "Refused when the session's agent runs in no tmux session git-handoff started, or has exited.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "print", Usage: "print the tmux command instead of running it"},
		},
		Action: func(c *cli.Context) error {
			st, id, err := d.storeAndSession(c)
			if err != nil {
				return err
			}
			res, err := handoff.SessionAttach(c.Context, st, id)
			if err != nil {
				return sessionError(c, fmt.Sprintf("attaching to session %q", id), id, err)
			}
			if c.Bool("print") {
				var parts []string
				for _, a := range res.Argv {
					parts = append(parts, shellQuote(a))
				}
				fmt.Fprintln(d.stdout, strings.Join(parts, " "))
				return nil
			}
			cmd := exec.CommandContext(c.Context, res.Argv[0], res.Argv[1:]...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = d.stdin, d.stdout, d.stderr
			// Attaching from inside another tmux server nests a client,
			// which tmux refuses while TMUX is set; switch-client (same
			// server) needs it.
			cmd.Env = os.Environ()
			if slices.Contains(res.Argv, "attach-session") {
				cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "TMUX=") })
			}
			err = cmd.Run()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return &silentCode{code: ee.ExitCode()}
			}
			if err != nil {
				return fmt.Errorf("attaching to session %q: %w", id, err)
			}
			return nil
		},
	}
}

// sessionExecLaunchCommand is what a tmux pane runs when the agent's
// command is too long for tmux: it reads the launch file and becomes the
// agent (tmuxrt.ExecLaunchFile). Internal: started by session launch --tmux
// and switch.
func sessionExecLaunchCommand() *cli.Command {
	return &cli.Command{
		Name:      "exec-launch",
		Hidden:    true,
		Usage:     "internal: run the launch file a tmux pane was given",
		ArgsUsage: "FILE",
		Action: func(c *cli.Context) error {
			return tmuxrt.ExecLaunchFile(c.Args().First())
		},
	}
}

// launcher is how a tmux pane runs this program on a launch file.
func launcher() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil // long commands are then refused with a reason
	}
	return []string{exe, "session", "exec-launch"}
}

// exitedCommand is how tmux tells this program that a session's agent
// exited (tmuxrt.Spec.OnExit; the session id is appended).
func exitedCommand() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil // the session then ends only when asked
	}
	return []string{exe, "session", "exited"}
}

// sessionExitedCommand is what tmux's pane-died hook runs when a session's
// agent exits: it ends the session (handoff.SessionExited).
func sessionExitedCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "exited",
		Hidden:    true,
		Usage:     "internal: tmux saw a session's agent exit",
		ArgsUsage: "ID",
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			res, err := handoff.SessionExited(c.Context, st, c.Args().First(), d.Now)
			notify(d.stderr, res.Notices)
			return err
		},
	}
}
