package handoff

import (
	"context"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

// Renewal from the pre-tool hook. The end of a turn renews the session's
// leases (LeaseRenewTurn), but one turn can outlast a lease's TTL (30
// minutes by default), so the hook that runs before each write renews
// them too, when one is due. That hook runs on every write: it first asks
// LeaseRenewalMayBeDue, which reads only notes (files) about the leases
// one listing gave, and opens the Store and the board (AgentRenewLeases)
// only when a lease of the calling session may be due, about once per
// half a TTL.

// LeaseRenewalCheck is what LeaseRenewalMayBeDue reads besides the leases.
type LeaseRenewalCheck struct {
	Harness  string
	NativeID string // the agent's own session id, "" when it gave none
	// Clone and Worktree are the notes of the clone (its common dir) and
	// of this worktree (its git dir).
	Clone, Worktree refstore.NoteReader
	// Bound is the session this worktree's binding names ("" for none)
	// when BoundKnown: read from its file, at no cost.
	Bound      string
	BoundKnown bool
	// AskBound asks git for the binding when it is not known, only once
	// some lease is due that nothing cheaper claims; an error (or nil)
	// counts every holder as maybe the caller.
	AskBound func() (string, error)
}

// LeaseRenewalMayBeDue reports whether a lease of held may belong to the
// session an agent's hooks act for and be due for renewal
// (lease.RenewDue): false only when certainly none is. The session
// AgentRenewLeases settles on is one of the agent's id's noted session,
// GIT_HANDOFF_SESSION, or else the worktree's binding (agentSession): a
// lease held by none of those is not the caller's, and its note is not
// even read. It starts no git but through AskBound.
func LeaseRenewalMayBeDue(held []lease.Stored, c LeaseRenewalCheck, now time.Time) bool {
	named := map[string]bool{}
	if c.NativeID != "" {
		if b, err := c.Worktree.Read(indexPath(HarnessName(c.Harness), c.NativeID)); err == nil {
			named[strings.TrimSpace(string(b))] = true
		}
	}
	caller, known := callerSession(c.Bound, c.BoundKnown)
	if known {
		named[caller] = true
	}
	delete(named, "")
	due := func(l lease.Stored) bool { return l.Held() && lease.RenewDue(c.Clone, l, now) }
	for _, l := range held {
		if named[l.Session] && due(l) {
			return true
		}
	}
	if known {
		return false
	}
	// The binding is unknown: ask it only if another session's lease is
	// due at all.
	others := map[string]bool{}
	for _, l := range held {
		if !named[l.Session] && due(l) {
			others[l.Session] = true
		}
	}
	if len(others) == 0 {
		return false
	}
	if c.AskBound == nil {
		return true
	}
	bound, err := c.AskBound()
	return err != nil || others[bound]
}

// AgentRenewOptions name the agent whose session's leases are renewed.
type AgentRenewOptions struct {
	Harness  string
	NativeID string
}

// AgentRenewLeases renews the due leases of the session an agent's hooks
// act for (the one its end of turn renews), from a hook within a turn.
// With no such live session, or nothing due, it writes nothing and opens
// no board.
func AgentRenewLeases(ctx context.Context, st refstore.Clone, opts AgentRenewOptions, open func(context.Context) (lease.Board, error), clock Clock) (lease.Result, error) {
	h, err := harness.Lookup(opts.Harness)
	if err != nil {
		return lease.Result{}, err
	}
	s, ok, err := agentSession(ctx, st, h.Name, opts.NativeID, SourceResume, clock())
	if err != nil || !ok {
		return lease.Result{}, err
	}
	return LeaseRenewTurn(ctx, st, s.ID, open, clock)
}
