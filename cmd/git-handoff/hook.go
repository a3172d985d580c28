package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/agenthook"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/teamsync"
)

// hookCommand is what the installed shims call. It is internal: hooks.Run
// turns every failure into a warning, so it always exits 0.
func hookCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:            "hook",
		Usage:           "run one of git-handoff's git hooks (called by the installed shims)",
		ArgsUsage:       "NAME [ARGS...]",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			if c.Args().First() == "agent" {
				// A coding agent's own hook: agentconf installs these.
				if c.NArg() != 3 {
					return usageErrorf(c, "hook agent needs the agent and the event: hook agent HARNESS %s", strings.Join(agenthook.Events(), "|"))
				}
				agenthook.Run(c.Context, c.Args().Get(1), c.Args().Get(2), d.stdin, d.stdout, d.stderr, agentWorkflows{d})
				return nil
			}
			// The pre-push hook is a sync, most often with nothing new
			// (readLaterCommands).
			d.readLater = d.readLater || c.Args().First() == "pre-push"
			hooks.Run(c.Context, c.Args().First(), c.Args().Tail(), d.stderr, hookDeps{d})
			return nil
		},
	}
}

// agentWorkflows runs the agent hooks' workflows in the repository the
// agent named.
type agentWorkflows struct{ d *deps }

func (a agentWorkflows) store(ctx context.Context, dir string) (*refstore.Store, error) {
	if a.d.store == nil {
		a.d.dir = dir
	}
	return a.d.Store(ctx)
}

func (a agentWorkflows) Start(ctx context.Context, dir string, opts handoff.AgentStartOptions) (handoff.AgentStartResult, error) {
	st, err := a.store(ctx, dir)
	if err != nil {
		return handoff.AgentStartResult{}, err
	}
	opts.Arbiter = arbiterFor(false)
	res, err := handoff.AgentStart(ctx, st, opts, a.d.Now)
	if err == nil && !res.Continued {
		a.d.refreshStoreCommitHook(ctx, st)
	}
	return res, err
}

func (a agentWorkflows) Stop(ctx context.Context, dir string, opts handoff.AgentStopOptions) (handoff.AgentStopResult, error) {
	st, err := a.store(ctx, dir)
	if err != nil {
		return handoff.AgentStopResult{}, err
	}
	res, err := handoff.AgentStop(ctx, st, opts, a.d.Now)
	if err == nil && res.Session != "" {
		res.Notices = append(res.Notices, renewTurn(ctx, st, res.Session, a.d.Now)...)
	}
	return res, err
}

// renewTurn renews, at the end of an agent's turn, the session's leases
// whose renewal is due; a failure is a notice (the agent goes on, and the
// next turn tries again while the lease has time left).
func renewTurn(ctx context.Context, st *refstore.Store, id string, now handoff.Clock) []string {
	if _, err := handoff.LeaseRenewTurn(ctx, st, id, renewalBoard(st), now); err != nil {
		return []string{fmt.Sprintf("the leases of session %s were not renewed: %v", id, err)}
	}
	return nil
}

// RenewLeases renews, from within a turn (the pre-tool hook), the leases
// of the agent's session that are due, at the board a turn's end uses.
func (a agentWorkflows) RenewLeases(ctx context.Context, dir string, opts handoff.AgentRenewOptions) error {
	st, err := a.store(ctx, dir)
	if err != nil {
		return err
	}
	_, err = handoff.AgentRenewLeases(ctx, st, opts, renewalBoard(st), a.d.Now)
	return err
}

// renewalBoard opens the board the agents' hooks renew leases at (the
// arbiter, else this clone), for the renewal to open once one is due.
func renewalBoard(st *refstore.Store) func(context.Context) (lease.Board, error) {
	return func(ctx context.Context) (lease.Board, error) { return teamsync.LeaseBoard(ctx, st, false) }
}

func (a agentWorkflows) Now() time.Time { return a.d.Now() }

func (a agentWorkflows) End(ctx context.Context, dir string, opts handoff.AgentEndOptions) (string, error) {
	st, err := a.store(ctx, dir)
	if err != nil {
		return "", err
	}
	// The handover goes on after the hook has answered, in a process of
	// its own (`git handoff handover`), where the binary can start one.
	opts.Later = a.d.detach != nil
	id, err := handoff.AgentEnd(ctx, st, opts, a.d.Now)
	if opts.Later && handoff.HandoverDue(st) {
		if derr := a.d.detach(st.Dir(), "handover"); derr != nil {
			// Finished here instead, as far as the hook's time goes; the
			// next start here finishes what is left.
			handoff.FinishHandovers(ctx, st, a.d.Now)
		}
	}
	return id, err
}

func (a agentWorkflows) Delivered(ctx context.Context, dir, id string) error {
	st, err := a.store(ctx, dir)
	if err != nil {
		return err
	}
	return handoff.AgentDelivered(ctx, st, id)
}

// hookDeps answers the hooks' questions from the store.
type hookDeps struct{ d *deps }

func (h hookDeps) BoundSession(ctx context.Context) (hooks.Session, bool, error) {
	st, err := h.d.Store(ctx)
	if err != nil {
		return hooks.Session{}, false, err
	}
	id, err := handoff.SessionID(st, "")
	if err != nil || id == "" {
		return hooks.Session{}, false, err
	}
	s, err := session.Read(ctx, st, id)
	if err != nil {
		// An id from GIT_HANDOFF_SESSION with no record still names the
		// session the commit belongs to.
		return hooks.Session{ID: id}, os.Getenv("GIT_HANDOFF_SESSION") == id, nil
	}
	if !s.Live() {
		return hooks.Session{}, false, nil
	}
	return hooks.Session{ID: s.ID, Harness: s.Harness}, true, nil
}

func (h hookDeps) WaitingBaton(ctx context.Context, branch string) (hooks.Waiting, bool, error) {
	st, err := h.d.Store(ctx)
	if err != nil {
		return hooks.Waiting{}, false, err
	}
	who, err := handoff.Resolve(ctx, st, "", branch)
	if err != nil {
		return hooks.Waiting{}, false, err
	}
	b, _, err := baton.Eligible(ctx, st, who.Owner, who.Branch)
	if err != nil || b == nil {
		return hooks.Waiting{}, false, err
	}
	w := hooks.Waiting{ID: b.ID, Owner: b.Owner, Branch: b.Branch, Shared: b.Shared}
	if len(b.NextSteps) > 0 {
		w.Step = strings.SplitN(b.NextSteps[0], "\n", 2)[0]
	}
	return w, true, nil
}

// PathLeases are the path leases other sessions hold, as this clone's
// copies have them: a commit is checked against what this clone knows,
// with no fetch.
func (h hookDeps) PathLeases(ctx context.Context, session string) ([]hooks.PathLease, error) {
	st, err := h.d.Store(ctx)
	if err != nil {
		return nil, err
	}
	s, err := lease.ReadBoard(ctx, st, lease.Prefix, lease.GuardRef, refstore.ArchivePrefix)
	if err != nil {
		return nil, err
	}
	vs, err := lease.Views(ctx, st.Local(), s, session, false, h.d.Now())
	if err != nil {
		return nil, err
	}
	var out []hooks.PathLease
	for _, v := range vs {
		if v.Held() && !v.Mine && !v.Expired && v.Key.Kind == lease.KindPath {
			out = append(out, hooks.PathLease{Key: v.Record.Key, Session: v.Session, Owner: v.Owner, Agent: v.Agent, FreesAt: v.FreesAt})
		}
	}
	return out, nil
}

// PushRecords syncs our records with remote when `git handoff init` set it
// up; other remotes (or a URL) get nothing.
func (h hookDeps) PushRecords(ctx context.Context, remote, _ string) error {
	st, err := h.d.Store(ctx)
	if err != nil {
		return err
	}
	if ok, err := teamsync.Initialized(ctx, st, remote); err != nil || !ok {
		return err
	}
	// No retention here: a push must not pay a read of every record
	// (sync retires once a day).
	res, err := teamsync.Sync(ctx, st, teamsync.Options{Remote: remote, Now: h.d.Now()})
	for _, c := range res.Conflicts {
		fmt.Fprintf(h.d.stderr, "git-handoff: %s\n", c.Summary)
	}
	for _, w := range condenseSkipped(res.Warnings) {
		fmt.Fprintf(h.d.stderr, "git-handoff: %s\n", w)
	}
	if w := withheldNotice(res); w != "" {
		fmt.Fprintf(h.d.stderr, "git-handoff: %s\n", w)
	}
	return err
}
