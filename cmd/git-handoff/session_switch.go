package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/view"
)

func sessionSwitchCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "switch",
		Usage:     "run the session with another coding agent in the same worktree",
		ArgsUsage: "ID",
		Description: "A session whose agent runs under tmux (session launch --tmux) is switched in place: the new\n" +
			"launch is checked first, then the old agent stopped and the new one started in the same pane.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "harness", Usage: "the coding agent to switch to: " + strings.Join(harness.Names(), ", ")},
			&cli.StringFlag{Name: "model", Usage: "its model (default: the agent's own default)"},
			&cli.StringFlag{Name: "prompt", Usage: "the task, saved on the session, for a fresh launch that has none"},
			&cli.BoolFlag{Name: "no-snapshot", Usage: "do not keep the worktree's uncommitted changes as the session's snapshot (kept by default when dirty)"},
			stopTimeoutFlag,
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			var name string
			if err := checkHarness(c, c.String("harness"), &name); err != nil {
				return err
			}
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			id := c.Args().First()
			res, err := handoff.SessionSwitch(c.Context, st, handoff.SessionRelaunchOptions{
				ID: id, Harness: name, Model: c.String("model"), Prompt: c.String("prompt"), By: guardHolder(),
				NoSnapshot: c.Bool("no-snapshot"),
				Grace:      c.Duration("stop-timeout"), Launcher: launcher(), Exited: exitedCommand(),
			}, d.Now)
			if err != nil {
				notify(d.stderr, res.Notices)
				return sessionError(c, fmt.Sprintf("switching session %q to %s", id, name), id, err)
			}
			d.refreshCommitHook(c.Context, res.Bound)
			return d.printRelaunch(c, res)
		},
	}
}

// stopTimeoutFlag bounds how long an agent under tmux gets to exit on
// SIGTERM before it is killed.
var stopTimeoutFlag = &cli.DurationFlag{Name: "stop-timeout", Value: handoff.StopGrace,
	Usage: "how long an agent running under tmux gets to exit on SIGTERM before it is killed", Action: positiveDuration("stop-timeout")}

// checkHarness refuses an unknown harness as a usage error, before
// anything is read or changed, and stores its canonical name.
func checkHarness(c *cli.Context, name string, canonical *string) error {
	if name == "" {
		return usageErrorf(c, "name the coding agent with --harness: %s", strings.Join(harness.Names(), ", "))
	}
	h, err := harness.Lookup(name)
	if err != nil {
		return usageErrorf(c, "%v", err)
	}
	*canonical = h.Name
	return nil
}

// relaunchJSON is the result of `session switch` and `session restore`.
type relaunchJSON struct {
	Session   view.Session `json:"session"`
	From      string       `json:"from"`
	Launch    *view.Launch `json:"launch"`
	Recreated string       `json:"recreatedWorktree"`
	Bound     string       `json:"bound"`
	// EndedSession: the active session the worktree was bound to, ended
	// so that this one is bound there.
	EndedSession string   `json:"endedSession,omitempty"`
	Changed      bool     `json:"changed"`
	Notices      []string `json:"notices"`
}

func (d *deps) printRelaunch(c *cli.Context, res session.RelaunchResult) error {
	s := res.Session.Record
	if c.Bool("json") {
		out := relaunchJSON{Session: view.OfSession(s, false), From: res.From, Recreated: res.Recreated,
			Bound: res.Bound, EndedSession: res.EndedBound, Changed: !res.NoOp, Notices: view.NonNil(res.Notices)}
		if !res.NoOp {
			l := view.OfLaunch(res.Plan)
			out.Launch = &l
		}
		return d.printJSON(out)
	}
	notify(d.stderr, res.Notices)
	if res.NoOp {
		fmt.Fprintf(d.stderr, "session %s is already active with %s: nothing to restore\n", s.ID, orDash(s.Harness))
		return nil
	}
	if res.Recreated != "" {
		fmt.Fprintf(d.stderr, "re-created worktree %s\n", res.Recreated)
	}
	how := "starts fresh with the brief"
	switch res.Plan.Mode {
	case session.ModeResume:
		how = "resumes its own conversation " + res.Plan.NativeID
	case session.ModeNone:
		how = "nobody can launch"
	}
	if c.Command.Name == "restore" {
		fmt.Fprintf(d.stderr, "session %s restored with %s, which %s\n", s.ID, s.Harness, how)
	} else {
		fmt.Fprintf(d.stderr, "session %s switched from %s to %s, which %s\n", s.ID, orDash(res.From), s.Harness, how)
	}
	if rt := s.Runtime; rt != nil {
		fmt.Fprintf(d.stderr, "it runs in tmux session %s: attach with `git handoff session attach %s`\n", rt.Name, s.ID)
		return nil
	}
	d.printPlan(res.Plan)
	return nil
}
