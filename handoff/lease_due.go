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
	// Bound says which session this worktree's binding names ("" for
	// none). It is asked last, only when a lease is due that no cheaper
	// answer claims (it may start git); an error counts every holder as
	// maybe the caller; nil is no binding.
	Bound func() (string, error)
}

// LeaseRenewalMayBeDue reports whether a lease of held may belong to the
// session an agent's hooks act for and be due for renewal
// (lease.RenewDue): false only when certainly none is. The session
// AgentRenewLeases settles on is one of the agent's id's noted session,
// GIT_HANDOFF_SESSION, or else the worktree's binding (agentSession): a
// lease held by none of those is not the caller's. It reads notes, and
// asks Bound only when that decides.
func LeaseRenewalMayBeDue(held []lease.Stored, c LeaseRenewalCheck, now time.Time) bool {
	var due []lease.Stored
	for _, l := range held {
		if l.Held() && lease.RenewDue(c.Clone, l, now) {
			due = append(due, l)
		}
	}
	if len(due) == 0 {
		return false
	}
	holds := func(id string) bool {
		for _, l := range due {
			if l.Session == id {
				return true
			}
		}
		return false
	}
	if c.NativeID != "" {
		if b, err := c.Worktree.Read(indexPath(HarnessName(c.Harness), c.NativeID)); err == nil {
			if id := strings.TrimSpace(string(b)); id != "" && holds(id) {
				return true
			}
		}
	}
	if v := os.Getenv("GIT_HANDOFF_SESSION"); v != "" {
		return holds(v)
	}
	if c.Bound == nil {
		return false
	}
	bound, err := c.Bound()
	return err != nil || bound != "" && holds(bound)
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
