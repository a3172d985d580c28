package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/view"
)

// maxTerminalRead bounds how much of a terminal log is read; only its end
// goes into the package anyway.
const maxTerminalRead = 8 << 20

// sessionReplaceOptions are the flags of `session replace`.
type sessionReplaceOptions struct {
	session.ReplaceOptions
	TerminalFile string
	ClaimPR      bool
	NoSnapshot   bool
	Stop         bool
	StopTimeout  time.Duration
	JSON         bool
}

func sessionReplaceCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:        "replace",
		Usage:       "replace a session with a new one, recording why (one ref transaction)",
		ArgsUsage:   "ID",
		Description: "Without --terminal, an old session whose agent runs under tmux gives its pane's recent output.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Value: "manual", Usage: "why: stuck, crashed, confused, manual or any text"},
			&cli.StringFlag{Name: "new-id", Usage: "the new session's `ID` (default: a new short id)"},
			&cli.StringFlag{Name: "harness", Usage: "the new session's coding agent (default: the old one's)"},
			&cli.StringFlag{Name: "model", Usage: "the new session's model"},
			&cli.StringFlag{Name: "carry-context", Value: session.ContextSummary, Usage: "summary: build the handoff package; none: record the lineage only"},
			&cli.StringFlag{Name: "terminal", Usage: "the old session's terminal output, from `FILE` or - for stdin (its end goes into the package)"},
			&cli.BoolFlag{Name: "no-snapshot", Usage: "do not keep the old session's uncommitted changes as its snapshot (kept by default when its worktree is here and dirty)"},
			stopTimeoutFlag,
			&cli.BoolFlag{Name: "stop", Usage: "once the replacement exists, stop the old session's agent under tmux and close its tmux session"},
			&cli.BoolFlag{Name: "claim-pr", Usage: "move the old session's pull request to the new one (same transaction) and update its GitHub comment"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			opts := sessionReplaceOptions{
				ReplaceOptions: session.ReplaceOptions{
					OldID: c.Args().First(), NewID: c.String("new-id"), Reason: c.String("reason"),
					Model: c.String("model"), Context: c.String("carry-context"),
				},
				TerminalFile: c.String("terminal"),
				ClaimPR:      c.Bool("claim-pr"),
				NoSnapshot:   c.Bool("no-snapshot"),
				Stop:         c.Bool("stop"),
				StopTimeout:  c.Duration("stop-timeout"),
				JSON:         c.Bool("json"),
			}
			if h := c.String("harness"); h != "" {
				if err := checkHarness(c, h, &opts.Harness); err != nil {
					return err
				}
			}
			switch opts.Context {
			case session.ContextSummary, session.ContextNone:
			default:
				return usageErrorf(c, "--carry-context is summary or none, not %q", opts.Context)
			}
			return runSessionReplace(c, d, opts)
		},
	}
}

func runSessionReplace(c *cli.Context, d *deps, opts sessionReplaceOptions) error {
	if opts.TerminalFile != "" {
		raw, err := readTerminal(d, opts.TerminalFile)
		if err != nil {
			return fmt.Errorf("reading the terminal output: %w", err)
		}
		opts.Terminal = raw
	}
	st, err := d.Store(c.Context)
	if err != nil {
		return err
	}
	res, err := handoff.SessionReplace(c.Context, st, handoff.SessionReplaceOptions{
		ReplaceOptions: opts.ReplaceOptions, ClaimPR: opts.ClaimPR, Connect: d.prHost, NoSnapshot: opts.NoSnapshot,
		Stop: opts.Stop, Grace: opts.StopTimeout, Arbiter: arbiterFor(false),
	}, d.Now)
	if err != nil {
		notify(d.stderr, res.Notices)
		return sessionError(c, "replacing session "+fmt.Sprintf("%q", opts.OldID), opts.OldID, err)
	}
	d.refreshCommitHook(c.Context, res.Bound)
	res.Notices = append(res.Notices, leasesAfterReplace(c.Context, st, res.Old.ID, res.New.ID, d.Now)...)
	var ghErr error
	if len(res.GitHub.Errors) > 0 {
		p := res.New.PR
		ghErr = fmt.Errorf("%s#%d moved in git, but its GitHub comment was not updated (run `git handoff pr claim %d --session %s` to retry): %w",
			p.Repo, p.Number, p.Number, res.New.ID, res.GitHub.Errors[0])
	}
	if opts.JSON {
		out := view.OfReplace(res, res.Notices)
		if err := d.printJSON(out); err != nil {
			return err
		}
		return ghErr
	}
	notify(d.stderr, res.Notices)
	n := res.New.Record
	fmt.Fprintf(d.stderr, "session %s replaces %s (%s)", n.ID, res.Old.ID, n.HandoffReason)
	if res.Carried != nil {
		fmt.Fprintf(d.stderr, "; carried baton %s over", res.Carried.ID)
	}
	if res.Bound != "" {
		fmt.Fprintf(d.stderr, "; worktree %s now bound to %s", res.Bound, n.ID)
	}
	if res.Captured {
		fmt.Fprintf(d.stderr, "; the terminal excerpt comes from its tmux pane")
	}
	if res.Stopped {
		fmt.Fprintf(d.stderr, "; its agent was stopped")
	}
	fmt.Fprintln(d.stderr)
	fmt.Fprintf(d.stderr, "start its agent with: git handoff session launch %s --exec\n", n.ID)
	if res.Package != "" {
		fmt.Fprint(d.stdout, res.Package)
	} else {
		fmt.Fprintln(d.stdout, n.ID)
	}
	return ghErr
}

// readTerminal reads a terminal log from a file or, for "-", stdin, keeping
// at most its last maxTerminalRead bytes.
func readTerminal(d *deps, name string) ([]byte, error) {
	var r io.Reader = d.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Size() > maxTerminalRead {
			if _, err := f.Seek(fi.Size()-maxTerminalRead, io.SeekStart); err != nil {
				return nil, err
			}
		}
		r = f
	}
	buf, err := io.ReadAll(r)
	if len(buf) > maxTerminalRead {
		buf = buf[len(buf)-maxTerminalRead:]
	}
	return buf, err
}
