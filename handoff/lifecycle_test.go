package handoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// deadline is what these tests give themselves: a loaded machine runs a
// few git commands in far less.
func deadline(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func readSession(t *testing.T, ctx context.Context, st *refstore.Store, id string) session.Stored {
	t.Helper()
	s, err := session.Read(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func bound(t *testing.T, st *refstore.Store) string {
	t.Helper()
	id, err := st.BoundSession()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// The agent's SessionEnd ends its session, without a baton, and unbinds
// the worktree; a /clear (reason clear) goes on; a switch in flight keeps
// the session active.
func TestAgentEndEndsTheSession(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	first := agentStart(t, st, claudeID, "startup")
	id := first.Session.ID
	if _, err := handoff.AgentEnd(ctx, st, handoff.AgentEndOptions{Harness: "claude", NativeID: claudeID, Reason: "clear"}, clock); err != nil {
		t.Fatal(err)
	}
	if s := readSession(t, ctx, st, id); s.Status != session.StatusActive || bound(t, st) != id {
		t.Fatalf("after a clear: %s, bound to %q", s.Status, bound(t, st))
	}
	got, err := handoff.AgentEnd(ctx, st, handoff.AgentEndOptions{Harness: "claude", NativeID: claudeID, Reason: "prompt_input_exit"}, clock)
	if err != nil || got != id {
		t.Fatalf("AgentEnd = %q, %v", got, err)
	}
	s := readSession(t, ctx, st, id)
	if s.Status != session.StatusEnded || s.EndedAt == nil {
		t.Fatalf("after SessionEnd: status %s, endedAt %v", s.Status, s.EndedAt)
	}
	if b := bound(t, st); b != "" {
		t.Fatalf("the worktree is still bound to %q", b)
	}

	// A switch holds the guard: the old agent's SessionEnd ends nothing.
	second := agentStart(t, st, claudeID2, "startup")
	if _, err := session.Modify(ctx, st, second.Session.ID, "test: guard", func(r *session.Record) error {
		now := clock()
		r.Switching = &session.Switching{By: "test", Since: now, Until: now.Add(time.Hour), To: "codex"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := handoff.AgentEnd(ctx, st, handoff.AgentEndOptions{Harness: "claude", NativeID: claudeID2}, clock); err != nil {
		t.Fatal(err)
	}
	if s := readSession(t, ctx, st, second.Session.ID); s.Status != session.StatusActive || bound(t, st) != second.Session.ID {
		t.Fatalf("a switch in flight: %s, bound to %q", s.Status, bound(t, st))
	}
	var held *session.SwitchingError
	if _, err := handoff.SessionTerminate(ctx, st, second.Session.ID, "", clock); !errors.As(err, &held) {
		t.Fatalf("terminate during a switch = %v", err)
	}
}

// start in a worktree bound to another active session ends that one and
// says so; one active session stays bound.
func TestStartEndsTheSessionBoundHere(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	start(t, st, "s-old")
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s-new", Harness: "claude-code"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if res.EndedBound != "s-old" || !hasNotice(res.Notices, "bound to active session s-old") {
		t.Fatalf("start: ended %q, notices %q", res.EndedBound, res.Notices)
	}
	if s := readSession(t, ctx, st, "s-old"); s.Status != session.StatusEnded || s.EndedAt == nil {
		t.Fatalf("s-old is %s", s.Status)
	}
	if b := bound(t, st); b != "s-new" {
		t.Fatalf("bound to %q", b)
	}
	// A third start in a worktree bound to nothing active ends nothing.
	if _, err := handoff.EndSession(ctx, st, "s-new", session.EndAgentExit, clock); err != nil {
		t.Fatal(err)
	}
	res, err = handoff.Start(ctx, st, handoff.StartOptions{Session: "s-third", Harness: "claude-code"}, clock)
	if err != nil || res.EndedBound != "" {
		t.Fatalf("start after the end: ended %q, %v", res.EndedBound, err)
	}
}

// restore in a worktree bound to another active session ends that one,
// says so, and binds the restored one.
func TestRestoreEndsTheSessionBoundHere(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	start(t, st, "s-a")
	if _, err := handoff.EndSession(ctx, st, "s-a", session.EndAgentExit, clock); err != nil {
		t.Fatal(err)
	}
	start(t, st, "s-b")
	res, err := handoff.SessionRestore(ctx, st, handoff.SessionRelaunchOptions{ID: "s-a", By: "test", Prompt: "go on"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if res.EndedBound != "s-b" || !strings.Contains(strings.Join(res.Notices, "\n"), "active session s-b") {
		t.Fatalf("restore: ended %q, notices %q", res.EndedBound, res.Notices)
	}
	if a, b := readSession(t, ctx, st, "s-a"), readSession(t, ctx, st, "s-b"); a.Status != session.StatusActive || b.Status != session.StatusEnded {
		t.Fatalf("s-a %s, s-b %s", a.Status, b.Status)
	}
	if b := bound(t, st); b != "s-a" {
		t.Fatalf("bound to %q", b)
	}

	// An active session whose worktree is bound to another active one is
	// restored there too: restore is no no-op then.
	st2 := st
	if _, err := session.Modify(ctx, st2, "s-b", "test: revive", func(r *session.Record) error {
		r.Status, r.EndedAt = session.StatusActive, nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err = handoff.SessionRestore(ctx, st, handoff.SessionRelaunchOptions{ID: "s-b", By: "test", Prompt: "go on"}, clock)
	if err != nil || res.NoOp || res.EndedBound != "s-a" || bound(t, st) != "s-b" {
		t.Fatalf("restore of an active session not bound here: %+v, %v; bound %q", res, err, bound(t, st))
	}
}

// Switching the agent of a session that is not active, from a surface
// that must not revive it (the status page), is refused.
func TestSwitchLiveOnlyRefusesEnded(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	start(t, st, "s-e")
	if _, err := handoff.EndSession(ctx, st, "s-e", session.EndAgentExit, clock); err != nil {
		t.Fatal(err)
	}
	_, err := handoff.SessionSwitch(ctx, st, handoff.SessionRelaunchOptions{ID: "s-e", Harness: "codex", By: "test", LiveOnly: true}, clock)
	var na *handoff.NotActiveError
	if !errors.As(err, &na) || !errors.Is(err, refstore.ErrConflict) || !strings.Contains(err.Error(), "session restore s-e") {
		t.Fatalf("switch of an ended session = %v", err)
	}
	if s := readSession(t, ctx, st, "s-e"); s.Status != session.StatusEnded || s.Harness != "claude-code" {
		t.Fatalf("a refused switch changed s-e: %s %s", s.Status, s.Harness)
	}
}

// A conversation the agent resumes after its exit ended the session goes
// on in that session: revived, bound here again, its claimed baton given
// again. A session ended otherwise (a start in its worktree) is not
// revived: the resumed conversation gets a session of its own.
func TestResumeRevivesASessionItsAgentEnded(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	left := leaveBaton(t, st, "fix the flaky parser test")
	first := agentStart(t, st, claudeID, "startup")
	if !first.Claimed || first.Baton == nil || first.Baton.ID != left.Handoff.ID {
		t.Fatalf("first start: %+v", first)
	}
	id := first.Session.ID
	if _, err := handoff.AgentEnd(ctx, st, handoff.AgentEndOptions{Harness: "claude", NativeID: claudeID, Reason: "prompt_input_exit"}, clock); err != nil {
		t.Fatal(err)
	}
	if s := readSession(t, ctx, st, id); s.Status != session.StatusEnded || s.EndReason != session.EndAgentExit {
		t.Fatalf("after SessionEnd: %s (%q)", s.Status, s.EndReason)
	}
	resumed := agentStart(t, st, claudeID, "resume")
	if resumed.Session.ID != id || !resumed.Continued || resumed.Baton == nil || resumed.Baton.ID != left.Handoff.ID {
		t.Fatalf("resume: session %s continued %v baton %+v", resumed.Session.ID, resumed.Continued, resumed.Baton)
	}
	if !hasNotice(resumed.Notices, "goes on") {
		t.Errorf("no notice of the revival: %q", resumed.Notices)
	}
	if s := readSession(t, ctx, st, id); s.Status != session.StatusActive || s.EndedAt != nil || bound(t, st) != id {
		t.Fatalf("after resume: %s, ended %v, bound to %q", s.Status, s.EndedAt, bound(t, st))
	}

	// Another start in the worktree ends it (not by its agent): a resume
	// of its conversation then starts a session of its own.
	if _, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s-other", Harness: "claude-code"}, clock); err != nil {
		t.Fatal(err)
	}
	if s := readSession(t, ctx, st, id); s.Status != session.StatusEnded || s.EndReason != session.EndStartedHere {
		t.Fatalf("after another start here: %s (%q)", s.Status, s.EndReason)
	}
	again := agentStart(t, st, claudeID, "resume")
	if again.Session.ID == id {
		t.Fatalf("a session another start ended was revived")
	}
}
