package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// TestLifecycleOverMemstore runs a session's record through create,
// modify, end, revive, terminate, its turns and its binding over the
// in-memory clone.
func TestLifecycleOverMemstore(t *testing.T) {
	ctx := context.Background()
	st := memRepo(t)
	create(t, st, Record{ID: "s1", Harness: "codex", Prompt: "fix it"})
	if _, err := Create(ctx, st, Record{ID: "s1", Status: StatusActive}, "test: again"); !errors.Is(err, ErrExists) {
		t.Fatalf("create of an existing id: %v", err)
	}
	if _, err := Read(ctx, st, "nobody"); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("read of no session: %v", err)
	}

	// Modify: fn's error leaves the record as it was.
	before, err := Read(ctx, st, "s1")
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	if _, err := Modify(ctx, st, "s1", "test", func(*Record) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("modify with an error: %v", err)
	}
	if _, err := SetSummary(ctx, st, "s1", "  half done  ", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The version stored names the one it replaced.
	s, err := Read(ctx, st, "s1")
	if err != nil || s.Summary != "half done" || s.Prev != before.OID || s.Rev != before.Rev+1 {
		t.Fatalf("summary: %+v, %v", s.Record, err)
	}
	s, ok, err := RecordTurn(ctx, st, "s1", "", t0.Add(2*time.Minute))
	if err != nil || !ok || s.TurnAt == nil || s.Summary != "half done" {
		t.Fatalf("turn: %+v, %v, %v", s.Record, ok, err)
	}

	// Bound to its worktree, ended by its agent's exit: unbound, and
	// revived when the agent resumes.
	if err := st.Bind(s.Ref); err != nil {
		t.Fatal(err)
	}
	ended, ok, err := End(ctx, st, "s1", EndAgentExit, t0.Add(3*time.Minute))
	if err != nil || !ok || ended.Status != StatusEnded || ended.EndReason != EndAgentExit || ended.EndedAt == nil {
		t.Fatalf("end: %+v, %v, %v", ended.Record, ok, err)
	}
	if dir, err := Unbind(ctx, st, s, "test: unbind"); err != nil || dir != "" {
		t.Fatalf("unbind from a version no longer bound: %q, %v", dir, err)
	}
	if dir, err := Unbind(ctx, st, ended, "test: unbind"); err != nil || dir != st.Dir() {
		t.Fatalf("unbind: %q, %v", dir, err)
	}
	if bound, _ := st.BoundSession(); bound != "" {
		t.Fatalf("still bound to %q", bound)
	}
	if _, ok, err := End(ctx, st, "s1", EndAgentExit, t0.Add(4*time.Minute)); err != nil || ok {
		t.Fatalf("end of an ended session: %v, %v", ok, err)
	}
	revived, ok, err := Revive(ctx, st, "s1", t0.Add(5*time.Minute))
	if err != nil || !ok || revived.Status != StatusActive || revived.EndedAt != nil || revived.EndReason != "" {
		t.Fatalf("revive: %+v, %v, %v", revived.Record, ok, err)
	}

	// A switch in flight holds off an end and a termination.
	if _, err := Modify(ctx, st, "s1", "test: guard", func(s *Record) error {
		s.Switching = &Switching{By: "other", Since: t0, Until: t0.Add(time.Hour)}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var se *SwitchingError
	if _, _, err := End(ctx, st, "s1", "", t0.Add(6*time.Minute)); !errors.As(err, &se) {
		t.Fatalf("end under a switch: %v", err)
	}
	if _, _, err := Terminate(ctx, st, "s1", "", t0.Add(6*time.Minute)); !errors.As(err, &se) {
		t.Fatalf("terminate under a switch: %v", err)
	}

	// Terminated (the guard expired): not revived by its agent, and a
	// second termination changes nothing.
	term, ok, err := Terminate(ctx, st, "s1", "dead", t0.Add(2*time.Hour))
	if err != nil || !ok || term.Status != StatusTerminated || term.Summary != "dead" {
		t.Fatalf("terminate: %+v, %v, %v", term.Record, ok, err)
	}
	if _, ok, err := Terminate(ctx, st, "s1", "", t0.Add(3*time.Hour)); err != nil || ok {
		t.Fatalf("terminate again: %v, %v", ok, err)
	}
	if _, ok, err := Revive(ctx, st, "s1", t0.Add(3*time.Hour)); err != nil || ok {
		t.Fatalf("revive of a terminated session: %v, %v", ok, err)
	}
	if _, ok, err := RecordTurn(ctx, st, "s1", "more", t0.Add(3*time.Hour)); err != nil || ok {
		t.Fatalf("a turn of a terminated session: %v, %v", ok, err)
	}

	// Merged is read-only.
	create(t, st, Record{ID: "m", Status: StatusMerged})
	var ro *ReadOnlyError
	if _, err := SetSummary(ctx, st, "m", "x", t0); !errors.As(err, &ro) {
		t.Fatalf("summary of a merged session: %v", err)
	}
	if _, _, err := Terminate(ctx, st, "m", "", t0); !errors.As(err, &ro) {
		t.Fatalf("terminate of a merged session: %v", err)
	}
	if err := MarkLaunched(ctx, st, "s1", t0.Add(4*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if s, err := Read(ctx, st, "s1"); err != nil || s.Launched["codex"].Last != t0.Add(4*time.Hour) {
		t.Fatalf("launched: %+v, %v", s.Launched, err)
	}
}
