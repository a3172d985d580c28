package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/view"
)

func continueCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "continue",
		Usage: "carry a session on in another coding agent, in the same worktree, with a brief of where it was",
		Description: "Writes the session's automatic handoff (why, its last summary, the task it claimed, its commits,\n" +
			"the end of its transcript, its uncommitted work as a snapshot), then runs the session on the\n" +
			"other agent with that brief as its first prompt: in place when it runs under tmux (--tmux),\n" +
			"else in the foreground (--exec), or recorded with the command that starts it printed (--print).\n" +
			"--preview prints the brief and changes nothing; --undo goes back before the new agent worked.\n" +
			"With `git config handoff.fallback \"codex gemini\"`, an agent's failure hook does it by itself.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "in", Usage: "the coding agent to continue in: " + strings.Join(harness.Names(), ", ")},
			&cli.StringFlag{Name: "session", Usage: "the session (default: GIT_HANDOFF_SESSION, else this worktree's)"},
			&cli.StringFlag{Name: "model", Usage: "the new agent's model (default: its own default)"},
			&cli.BoolFlag{Name: "preview", Usage: "print the brief the new agent would get; change nothing"},
			&cli.BoolFlag{Name: "tmux", Usage: "run the new agent under tmux now (in the session's pane when it has one)"},
			&cli.BoolFlag{Name: "exec", Usage: "run the new agent in the foreground and exit with its status"},
			&cli.BoolFlag{Name: "print", Usage: "record the continuation and print the command that starts the new agent"},
			&cli.BoolFlag{Name: "undo", Usage: "go back to the agent the session was continued from (before the new one worked)"},
			stopTimeoutFlag,
			jsonFlag,
			// Set by an agent's failure hook for the process it detaches.
			&cli.StringFlag{Name: "from", Hidden: true},
			&cli.StringFlag{Name: "reason", Hidden: true},
			&cli.BoolFlag{Name: "auto", Hidden: true},
			&cli.StringSliceFlag{Name: "then", Hidden: true},
		},
		Subcommands: continueWatchCommands(d),
		Action: func(c *cli.Context) error {
			modes := 0
			for _, m := range []string{"tmux", "exec", "print", "preview"} {
				if c.Bool(m) {
					modes++
				}
			}
			if modes > 1 {
				return usageErrorf(c, "--tmux, --exec, --print and --preview exclude each other")
			}
			if c.NArg() > 0 {
				return usageErrorf(c, "continue takes no arguments: name the session with --session")
			}
			if c.Bool("undo") {
				if c.String("in") != "" || modes > 0 {
					return usageErrorf(c, "--undo takes no --in, --tmux, --exec, --print or --preview")
				}
				return d.continueUndo(c)
			}
			var to string
			if err := checkAgent(c, c.String("in"), &to); err != nil {
				return err
			}
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			id, err := continuedID(c, st)
			if err != nil {
				return err
			}
			tmux := c.Bool("tmux")
			if modes == 0 {
				tmux = handoff.LiveUnderTmux(c.Context, st, id)
			}
			res, err := handoff.Continue(c.Context, st, handoff.ContinueOptions{
				ID: id, To: to, Then: c.StringSlice("then"), Model: c.String("model"), By: guardHolder(), From: c.String("from"),
				Why: c.String("reason"), Auto: c.Bool("auto"), Preview: c.Bool("preview"), Tmux: tmux,
				Grace: c.Duration("stop-timeout"), Launcher: launcher(), Exited: continueExitedCommand(),
			}, d.Now)
			if err != nil {
				notify(d.stderr, res.Notices)
				return continueError(c, id, to, err)
			}
			if c.Bool("exec") {
				notify(d.stderr, res.Notices)
				fmt.Fprintf(d.stderr, "session %s continues in %s (%s)\n", id, to, res.Why)
				return d.execLaunch(c, st, id)
			}
			return d.printContinue(c, res)
		},
	}
}

// continuedID is the session to continue: --session, else
// GIT_HANDOFF_SESSION, else the one this worktree is bound to.
func continuedID(c *cli.Context, st *refstore.Store) (string, error) {
	id, err := handoff.SessionID(st, c.String("session"))
	if err == nil && id == "" {
		err = usageErrorf(c, "name the session with --session ID (no GIT_HANDOFF_SESSION is set and this worktree is bound to none)")
	}
	return id, err
}

// checkAgent refuses an unknown agent as a usage error, before anything is
// read, and stores its canonical name.
func checkAgent(c *cli.Context, name string, canonical *string) error {
	if name == "" {
		return usageErrorf(c, "name the coding agent to continue in with --in: %s", strings.Join(harness.Names(), ", "))
	}
	h, err := harness.Lookup(name)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	*canonical = h.Name
	return nil
}

// continueError is sessionError with what a continuation adds.
func continueError(c *cli.Context, id, to string, err error) error {
	var already *handoff.AlreadyContinuedError
	var notActive *handoff.NotActiveError
	doing := fmt.Sprintf("continuing session %q in %s", id, to)
	switch {
	case errors.As(err, &already):
		return withHint(fmt.Errorf("%s: %w", doing, err), fmt.Sprintf("see it with `git handoff session show %s`", id))
	case errors.As(err, &notActive):
		return fmt.Errorf("%s: %w", doing, err)
	}
	return sessionError(c, doing, id, err)
}

func (d *deps) printContinue(c *cli.Context, res handoff.ContinueResult) error {
	preview := c.Bool("preview")
	if c.Bool("json") {
		return d.printJSON(view.OfContinue(res, preview))
	}
	notify(d.stderr, res.Notices)
	s := res.Session
	if preview {
		// Exactly the first message, on stdout; what it would do, on stderr.
		fmt.Fprintf(d.stderr, "preview: session %s would continue in %s (%s); nothing was changed\n", s.ID, s.Harness, res.Why)
		io.WriteString(d.stdout, strings.TrimRight(res.Brief, "\n")+"\n")
		return nil
	}
	fmt.Fprintf(d.stderr, "session %s continues in %s (until now %s): %s\n", s.ID, s.Harness, res.From, res.Why)
	if res.Baton != nil {
		fmt.Fprintf(d.stderr, "its automatic handoff is baton %s, claimed by the session for %s\n", res.Baton.ID, s.Harness)
	}
	if res.Started {
		fmt.Fprintf(d.stderr, "it runs in tmux session %s: attach with `git handoff session attach %s`\n", s.Runtime.Name, s.ID)
		return nil
	}
	fmt.Fprintf(d.stderr, "start it with: %s\n", res.Command)
	fmt.Fprintln(d.stdout, res.Command)
	return nil
}

// execLaunch runs the session's recorded agent in the foreground, as
// `session launch --exec` does, and exits with its status.
func (d *deps) execLaunch(c *cli.Context, st *refstore.Store, id string) error {
	res, err := handoff.SessionLaunch(c.Context, st, handoff.SessionLaunchOptions{ID: id, Exec: true}, d.Now)
	if err != nil {
		return sessionError(c, fmt.Sprintf("launching session %q", id), id, err)
	}
	return d.runPlan(c, id, res.Plan, res.Notices)
}

// runPlan runs a launch plan in the foreground, this terminal's, and
// exits with its program's code.
func (d *deps) runPlan(c *cli.Context, id string, plan session.LaunchPlan, notices []string) error {
	if plan.Note != "" {
		fmt.Fprintf(d.stderr, "notice: %s\n", plan.Note)
	}
	notify(d.stderr, notices)
	cmd := exec.CommandContext(c.Context, plan.Argv[0], plan.Argv[1:]...)
	cmd.Dir = plan.Dir
	cmd.Env = append(os.Environ(), plan.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = d.stdin, d.stdout, d.stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &silentCode{code: ee.ExitCode()}
	}
	if err != nil {
		return fmt.Errorf("launching session %q: %w", id, err)
	}
	return nil
}

func (d *deps) continueUndo(c *cli.Context) error {
	st, err := d.Store(c.Context)
	if err != nil {
		return err
	}
	id, err := continuedID(c, st)
	if err != nil {
		return err
	}
	res, err := handoff.ContinueUndo(c.Context, st, handoff.ContinueUndoOptions{
		ID: id, By: guardHolder(), Grace: c.Duration("stop-timeout"), Launcher: launcher(), Exited: continueExitedCommand(),
	}, d.Now)
	if err != nil {
		notify(d.stderr, res.Notices)
		return sessionError(c, fmt.Sprintf("undoing the continuation of session %q", id), id, err)
	}
	return d.printRelaunch(c, res)
}

// printContinued is `session show`'s line for a continuation, with the
// command that starts the new agent while it waits for one.
func printContinued(w io.Writer, s session.Record) {
	k := s.Continued
	if k == nil {
		return
	}
	how := "by hand"
	if k.Auto {
		how = "by itself"
	}
	fmt.Fprintf(w, "continued %s → %s %s at %s: %s\n", k.From, k.To, how, stamp(k.At), k.Why)
	if s.Waiting() {
		fmt.Fprintf(w, "start     %s\n", handoff.LaunchCommand(s.ID))
	}
}

// Failed answers an agent's failure hook (agenthook.FailureWorkflow): the
// session continues in the first fallback agent that can take it. Under
// tmux the continuation runs in a process of its own, since stopping the
// agent ends its hooks' process group.
func (a agentWorkflows) Failed(ctx context.Context, dir string, opts handoff.AgentFailureOptions) (string, []string, error) {
	st, err := a.store(ctx, dir)
	if err != nil {
		return "", nil, err
	}
	dec, err := handoff.AgentFailure(ctx, st, opts, a.d.Now)
	notices := dec.Notices
	if err != nil || dec.Continue == nil {
		if dec.Session == "" {
			return "", notices, err
		}
		return dec.Why, notices, err
	}
	co := *dec.Continue
	co.By = "the failure hook of " + opts.Harness + " (" + guardHolder() + ")"
	co.Launcher, co.Exited = launcher(), continueExitedCommand()
	if dec.InPlace && a.d.detach != nil {
		args := []string{"continue", "--in", co.To, "--session", co.ID, "--from", co.From, "--reason", co.Why, "--auto", "--tmux"}
		for _, next := range co.Then {
			args = append(args, "--then", next)
		}
		if err := a.d.detach(st.Dir(), args...); err == nil {
			return fmt.Sprintf("%s. Session %s continues in %s in its tmux pane.", co.Why, co.ID, co.To), notices, nil
		}
	}
	res, err := handoff.Continue(ctx, st, co, a.d.Now)
	notices = append(notices, res.Notices...)
	var already *handoff.AlreadyContinuedError
	var sw *session.SwitchingError
	switch {
	case errors.As(err, &already):
		return fmt.Sprintf("%s. %v.", co.Why, err), notices, nil
	case errors.As(err, &sw):
		return fmt.Sprintf("%s. Session %s is being continued already (%s).", co.Why, co.ID, sw.Guard.By), notices, nil
	case err != nil:
		return co.Why + ". It could not continue in " + co.To + ".", notices, err
	case res.Started:
		return fmt.Sprintf("%s. Session %s continues in %s in tmux: attach with `git handoff session attach %s`.", co.Why, co.ID, co.To, co.ID), notices, nil
	}
	return fmt.Sprintf("%s. Session %s continues in %s: start it with `%s`.", co.Why, co.ID, co.To, res.Command), notices, nil
}

// mcpDetach is the MCP server's way to run a command that outlives it
// (mcpserver.Deps.Detach), in the server's directory; nil where this
// system has none.
func mcpDetach(d *deps) func(args ...string) error {
	if d.detach == nil {
		return nil
	}
	return func(args ...string) error { return d.detach(".", args...) }
}
