package handoff_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
)

// The end of a turn renews the session's leases only once half their time
// to live has passed, and opens the board only then.
func TestLeaseRenewTurn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := open(t)
	start(t, st, "s1")
	now := clock()
	at := func() time.Time { return now }
	opened := 0
	board := func(context.Context) (lease.Board, error) { opened++; return lease.LocalBoard{St: st}, nil }

	if _, err := handoff.LeaseRenewTurn(ctx, st, "s1", board, at); err != nil || opened != 0 {
		t.Fatalf("nothing leased: opened the board %d times (%v)", opened, err)
	}
	if _, err := handoff.LeaseTake(ctx, st, lease.LocalBoard{St: st}, handoff.LeaseOptions{Session: "s1", Keys: []string{"issue:7"}, TTL: 10 * time.Minute}, at); err != nil {
		t.Fatal(err)
	}
	k, _ := lease.ParseKey("issue:7")
	taken, err := lease.Read(ctx, st, k)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(4 * time.Minute)
	r, err := handoff.LeaseRenewTurn(ctx, st, "s1", board, at)
	if err != nil || opened != 0 || len(r.Leases) != 1 || r.Leases[0].Action != lease.NotDue {
		t.Fatalf("before half the TTL: %+v, board opened %d times (%v)", r, opened, err)
	}
	now = now.Add(time.Minute)
	r, err = handoff.LeaseRenewTurn(ctx, st, "s1", board, at)
	if err != nil || opened != 1 || len(r.Leases) != 1 || r.Leases[0].Action != lease.Renewed || r.Where != "this clone" {
		t.Fatalf("at half the TTL: %+v, board opened %d times (%v)", r, opened, err)
	}
	if cur, _ := lease.Read(ctx, st, k); cur.OID == taken.OID || !cur.Held() || cur.Session != "s1" {
		t.Fatalf("not renewed: %+v", cur)
	}
	if r, err := handoff.LeaseRenewTurn(ctx, st, "", board, at); err != nil || len(r.Leases) != 0 {
		t.Fatalf("no session: %+v (%v)", r, err)
	}
}

// Within a turn, the pre-tool hook asks LeaseRenewalMayBeDue (notes only)
// and renews through AgentRenewLeases only when it says a lease of the
// agent's session may be due: the session its agent id is noted for, the
// one GIT_HANDOFF_SESSION names, or the worktree's binding; never another
// session's lease.
func TestAgentRenewLeasesWithinATurn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := open(t)
	started := agentStart(t, st, claudeID, "startup")
	me := started.Session.ID
	if err := st.Unbind(ctx); err != nil { // the agent's id alone names the session
		t.Fatal(err)
	}
	now := clock()
	at := func() time.Time { return now }
	local := lease.LocalBoard{St: st}
	take := func(session, key string) {
		t.Helper()
		if _, err := handoff.LeaseTake(ctx, st, local, handoff.LeaseOptions{Session: session, Keys: []string{key}, TTL: 10 * time.Minute}, at); err != nil {
			t.Fatal(err)
		}
	}
	take(me, "issue:7")
	take("s-other", "path:src/**")
	held := func() []lease.Stored {
		t.Helper()
		all, _, err := lease.List(ctx, st, lease.Prefix)
		if err != nil {
			t.Fatal(err)
		}
		return all
	}
	// Unbound, as the hook reads the binding's file.
	check := handoff.LeaseRenewalCheck{Harness: "claude-code", NativeID: claudeID, Clone: st.Local(), Worktree: st.WorktreeLocal(), BoundKnown: true}
	opened := 0
	board := func(context.Context) (lease.Board, error) { opened++; return local, nil }
	renew := func() lease.Result {
		t.Helper()
		r, err := handoff.AgentRenewLeases(ctx, st, handoff.AgentRenewOptions{Harness: "claude-code", NativeID: claudeID}, board, at)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	now = now.Add(4 * time.Minute)
	asked := 0
	unknown := handoff.LeaseRenewalCheck{Harness: "claude-code", Clone: st.Local(), Worktree: st.WorktreeLocal(),
		AskBound: func() (string, error) { asked++; return "", nil }}
	if handoff.LeaseRenewalMayBeDue(held(), check, now) || handoff.LeaseRenewalMayBeDue(held(), unknown, now) || asked != 0 {
		t.Fatalf("before half the TTL: a renewal may be due (the binding asked %d times)", asked)
	}
	if r := renew(); opened != 0 || len(r.Leases) != 1 || r.Leases[0].Action != lease.NotDue {
		t.Fatalf("before half the TTL: %+v, board opened %d times", r, opened)
	}

	now = now.Add(2 * time.Minute)
	if !handoff.LeaseRenewalMayBeDue(held(), check, now) {
		t.Fatal("past half the TTL: no renewal due for the agent's session")
	}
	other := check
	other.NativeID = claudeID2 // another agent's: only s-other's and this one's leases here
	if handoff.LeaseRenewalMayBeDue(held(), other, now) {
		t.Fatal("an agent with no session here may have a renewal due")
	}
	for name, c := range map[string]handoff.LeaseRenewalCheck{
		"bound":      {Harness: "claude-code", Clone: st.Local(), Worktree: st.WorktreeLocal(), Bound: me, BoundKnown: true},
		"asked":      {Harness: "claude-code", Clone: st.Local(), Worktree: st.WorktreeLocal(), AskBound: func() (string, error) { return me, nil }},
		"unreadable": {Harness: "claude-code", Clone: st.Local(), Worktree: st.WorktreeLocal(), AskBound: func() (string, error) { return "", errors.New("no") }},
	} {
		if !handoff.LeaseRenewalMayBeDue(held(), c, now) {
			t.Errorf("%s binding: no renewal due", name)
		}
	}
	bound := handoff.LeaseRenewalCheck{Harness: "claude-code", Clone: st.Local(), Worktree: st.WorktreeLocal(), Bound: "s-other", BoundKnown: true}
	if !handoff.LeaseRenewalMayBeDue(held(), bound, now) {
		t.Error("bound to a session with a lease due: no renewal due") // the caller may be s-other
	}
	// GIT_HANDOFF_SESSION names the session before the binding does.
	t.Setenv("GIT_HANDOFF_SESSION", me)
	if !handoff.LeaseRenewalMayBeDue(held(), handoff.LeaseRenewalCheck{Harness: "claude-code", Clone: st.Local(), Worktree: st.WorktreeLocal(), BoundKnown: true}, now) {
		t.Error("GIT_HANDOFF_SESSION's lease: no renewal due")
	}
	t.Setenv("GIT_HANDOFF_SESSION", "s-third")
	if handoff.LeaseRenewalMayBeDue(held(), bound, now) {
		t.Error("GIT_HANDOFF_SESSION names a session with no lease: a renewal may be due")
	}
	t.Setenv("GIT_HANDOFF_SESSION", "")

	before := held()
	r := renew()
	if opened != 1 || len(r.Leases) != 1 || r.Leases[0].Action != lease.Renewed || r.Leases[0].Key.String() != "issue:7" {
		t.Fatalf("past half the TTL: %+v, board opened %d times", r, opened)
	}
	after := held()
	for i := range after {
		changed := after[i].OID != before[i].OID
		if mine := after[i].Session == me; changed != mine {
			t.Errorf("%s of %s: changed %v", after[i].Key, after[i].Session, changed)
		}
	}
	if handoff.LeaseRenewalMayBeDue(after, check, now) {
		t.Error("just renewed: a renewal may still be due")
	}
}
