package handoff

import (
	"context"
	"os"
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
	// Bound is the session this worktree's binding names ("" for none);
	// BoundUnknown when it could not be read.
	Bound        string
	BoundUnknown bool
}

// LeaseRenewalMayBeDue reports whether a lease of held may belong to the
// session an agent's hooks act for and be due for renewal
// (lease.RenewDue): false only when certainly none is. The session
// AgentRenewLeases settles on is one of the agent's id's noted session,
// GIT_HANDOFF_SESSION and the worktree's binding (agentSession): a lease
// of none of those is not the caller's. It starts no git.
func LeaseRenewalMayBeDue(held []lease.Stored, c LeaseRenewalCheck, now time.Time) bool {
	if len(held) == 0 {
		return false
	}
	ids := map[string]bool{}
	if c.NativeID != "" {
		if b, err := c.Worktree.Read(indexPath(HarnessName(c.Harness), c.NativeID)); err == nil {
			ids[strings.TrimSpace(string(b))] = true
		}
	}
	anyone := false // the binding could not be read: any holder may be the caller
	if v := os.Getenv("GIT_HANDOFF_SESSION"); v != "" {
		ids[v] = true
	} else if c.BoundUnknown {
		anyone = true
	} else if c.Bound != "" {
		ids[c.Bound] = true
	}
	for _, l := range held {
		if l.Held() && l.Session != "" && (anyone || ids[l.Session]) && lease.RenewDue(c.Clone, l, now) {
			return true
		}
	}
	return false
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
