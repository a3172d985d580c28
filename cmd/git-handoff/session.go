package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// sessionCommand groups the commands on session records and their lineage.
func sessionCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "session",
		Usage: "list, inspect, replace, switch and restore sessions",
		Description: "Sessions are records under refs/ao/sessions/. Replacing one links the old and the new\n" +
			"session explicitly (supersedes / replacedBy); switching keeps the session and its worktree\n" +
			"and changes the coding agent; restoring revives a session under its own id.",
		Subcommands: []*cli.Command{
			sessionLsCommand(d),
			sessionShowCommand(d),
			sessionLineageCommand(d),
			sessionReplaceCommand(d),
			sessionSwitchCommand(d),
			sessionLaunchCommand(d),
			sessionAttachCommand(d),
			sessionExecLaunchCommand(),
			sessionExitedCommand(d),
			sessionNativeCommand(d),
			sessionRestoreCommand(d),
			sessionTerminateCommand(d),
			sessionSummaryCommand(d),
		},
	}
}

// sessionID is the session a command names: its first argument, else
// GIT_HANDOFF_SESSION, else this worktree's binding.
func sessionID(c *cli.Context, st *refstore.Store) (string, error) {
	if id := c.String("session"); id != "" {
		return id, nil // a command that names its session by flag (snapshot take)
	}
	if c.NArg() > 0 {
		return c.Args().First(), nil
	}
	return sessionIDFromEnv(c, st)
}

// sessionIDFromEnv is GIT_HANDOFF_SESSION, else this worktree's binding.
func sessionIDFromEnv(c *cli.Context, st *refstore.Store) (string, error) {
	id, err := handoff.SessionID(st, "")
	if err != nil {
		return "", err
	}
	if id == "" {
		return "", usageErrorf(c, "name a session: git handoff session %s ID (no GIT_HANDOFF_SESSION is set and this worktree is bound to none)", c.Command.Name)
	}
	return id, nil
}

// sessionError gives a session command's error its context and a hint
// where the fix is known.
func sessionError(c *cli.Context, doing, id string, err error) error {
	var rep *session.ReplacedError
	var ro *session.ReadOnlyError
	var sw *session.SwitchingError
	var ex *session.ExistsError
	var nf *handoff.ProgramNotFoundError
	var live *handoff.LiveError
	var notLive *handoff.NotLiveError
	wrapped := fmt.Errorf("%s: %w", doing, err)
	switch {
	case errors.Is(err, harness.ErrUnknown):
		return usageErrorf(c, "%s: %v", doing, err)
	case errors.As(err, &rep):
		live := rep.Live
		if live == "" {
			live = rep.By
		}
		if live == "" {
			return wrapped
		}
		return withHint(wrapped, fmt.Sprintf("act on its successor: git handoff session show %s", live))
	case errors.As(err, &ro):
		return withHint(wrapped, "a merged session's work is done: start a new session with `git handoff start`")
	case errors.As(err, &sw):
		return withHint(wrapped, "wait for that switch to finish, or retry after the guard expires")
	case errors.As(err, &ex):
		return withHint(wrapped, "pick another --new-id, or leave it out for a generated one")
	case errors.Is(err, refstore.ErrNotFound):
		return withHint(wrapped, "list sessions with `git handoff session ls --all`")
	case errors.As(err, &nf):
		return withHint(wrapped, fmt.Sprintf("install %s or put it on PATH; nothing was stopped", nf.Program))
	case errors.As(err, &live):
		return withHint(wrapped, fmt.Sprintf("attach to it with `git handoff session attach %s`, or switch it with `git handoff session switch %s --harness H`", live.ID, live.ID))
	case errors.As(err, &notLive):
		if notLive.State == nil {
			return withHint(wrapped, fmt.Sprintf("start it under tmux with `git handoff session launch %s --tmux`", notLive.ID))
		}
		return withHint(wrapped, fmt.Sprintf("relaunch it with `git handoff session restore %s` or `git handoff session switch %s --harness H`", notLive.ID, notLive.ID))
	case errors.Is(err, session.ErrNoFirstMessage):
		return withHint(wrapped, promptHint(c, id))
	}
	return wrapped
}

// promptHint is the one command that gives a session with nothing to start
// with its task: restore and switch save --prompt. launch has no such flag,
// and restoring an active session changes nothing, so launch points at a
// switch.
func promptHint(c *cli.Context, id string) string {
	switch c.Command.Name {
	case "restore":
		return fmt.Sprintf("give the task: git handoff session restore %s --prompt 'what to do'", id)
	case "switch":
		return fmt.Sprintf("give the task: git handoff session switch %s --harness %s --prompt 'what to do'", id, c.String("harness"))
	}
	return fmt.Sprintf("give the task: git handoff session switch %s --harness H --prompt 'what to do'", id)
}

// guardHolder names this process in a switch guard.
func guardHolder() string {
	host, _ := os.Hostname()
	who := os.Getenv("USER")
	if who == "" {
		who = "someone"
	}
	return fmt.Sprintf("%s on %s (pid %d)", who, host, os.Getpid())
}

// runtimeText is a runtime state in a few words: "tmux live",
// "tmux exited (status 1)".
func runtimeText(rs *handoff.RuntimeState) string {
	if rs == nil {
		return ""
	}
	t := rs.Kind + " " + rs.State
	switch {
	case rs.State == "exited" && rs.Signal != 0:
		t += fmt.Sprintf(" (signal %d)", rs.Signal)
	case rs.State == "exited":
		t += fmt.Sprintf(" (status %d)", rs.ExitStatus)
	}
	return t
}

// printPlan shows a launch plan to a person: the command on stdout, one
// shell-quoted line that can be pasted, and its notes on stderr.
func (d *deps) printPlan(p session.LaunchPlan) {
	if p.Note != "" {
		fmt.Fprintf(d.stderr, "notice: %s\n", p.Note)
	}
	if len(p.Argv) == 0 {
		return
	}
	var parts []string
	if p.Dir != "" {
		parts = append(parts, "cd", shellQuote(p.Dir), "&&")
	}
	for _, e := range p.Env {
		parts = append(parts, shellQuote(e))
	}
	for _, a := range p.Argv {
		parts = append(parts, shellQuote(a))
	}
	fmt.Fprintln(d.stdout, strings.Join(parts, " "))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
