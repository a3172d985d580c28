package handoff_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// Continuation in another agent (continue.go), on real repositories.

// continuedSession starts a Claude Code session through its hooks that
// claims a task and reports one turn, as a session that then hits its
// limit has: its id and the task.
func continuedSession(t *testing.T, st *refstore.Store) (string, baton.Stored) {
	t.Helper()
	task := leaveBaton(t, st, "handle block comments in the lexer")
	first := agentStartAs(t, st, "claude-code", claudeID)
	if !first.Claimed {
		t.Fatalf("the task was not claimed: %+v", first)
	}
	agentTurn(t, st, "claude-code", claudeID, "Block comments are skipped now; nested ones are not handled yet.")
	return first.Session.ID, task.Handoff
}

// allRefs is every ref of the repository with what it names: what "writes
// nothing" is checked against.
func allRefs(t *testing.T, dir string) string {
	t.Helper()
	return gittest.Run(t, dir, "for-each-ref", "--format=%(objectname) %(refname)")
}

// fakeAgents puts programs named like the agents' on a PATH of their own
// (and nothing else but git's directory): installed agents, as LookPath
// finds them.
func fakeAgents(t *testing.T, names ...string) {
	t.Helper()
	bin := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+filepath.Dir(git))
}

func TestContinuePreviewWritesNothingAndShowsTheBriefGiven(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	id, task := continuedSession(t, st)
	before := allRefs(t, st.Dir())
	opts := handoff.ContinueOptions{ID: id, To: "codex", By: "test", Why: "claude-code stopped: usage limit, resets 15:00 UTC", Preview: true}
	pre, err := handoff.Continue(ctx, st, opts, clock)
	if err != nil {
		t.Fatal(err)
	}
	if after := allRefs(t, st.Dir()); after != before {
		t.Fatalf("the preview wrote refs:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	for _, want := range []string{"You take over from another agent: claude-code stopped: usage limit, resets 15:00 UTC",
		"nested ones are not handled yet", "handle block comments in the lexer", "The task it had claimed (baton " + task.ID + "), now yours"} {
		if !strings.Contains(pre.Brief, want) {
			t.Fatalf("the preview's brief lacks %q:\n%s", want, pre.Brief)
		}
	}
	if pre.Plan.Harness != "codex" || pre.Command != "" || pre.Baton != nil {
		t.Fatalf("preview = %+v", pre)
	}

	opts.Preview = false
	got, err := handoff.Continue(ctx, st, opts, clock)
	if err != nil {
		t.Fatal(err)
	}
	if got.Brief != pre.Brief {
		t.Fatalf("the brief given is not the one previewed:\n%s\n--- preview:\n%s", got.Brief, pre.Brief)
	}
	if got.Session.Harness != "codex" || got.Session.Continued == nil || got.Session.Continued.From != "claude-code" || !got.Session.Waiting() {
		t.Fatalf("the session record after the continuation: %+v", got.Session)
	}
	if got.Command != "git handoff session launch "+id+" --exec" {
		t.Fatalf("command = %q", got.Command)
	}
	b := privateBaton(t, st)
	if b.ID != got.Baton.ID || !b.Claimed || b.ClaimedBySession != id || b.Auto == nil || b.Auto.Continued != "codex" || b.Auto.Task != task.ID {
		t.Fatalf("the continuation's baton = %+v (auto %+v)", b.Baton, b.Auto)
	}
	events, err := baton.Events(ctx, st, 10)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events {
		if e.Kind == "continued" && e.ID == b.ID {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("log events %+v: want one continued event for %s", events, b.ID)
	}
	// The command it names plans codex with that brief.
	launch, err := handoff.SessionLaunch(ctx, st, handoff.SessionLaunchOptions{ID: id}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if p := launch.Plan; p.Harness != "codex" || !strings.Contains(strings.Join(p.Argv, " "), "You take over from another agent") {
		t.Fatalf("session launch plans %+v", p)
	}
}

func TestContinueKeepsUncommittedWorkAsASnapshot(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	id, _ := continuedSession(t, st)
	if err := os.WriteFile(filepath.Join(st.Dir(), "lexer.go"), []byte("package lexer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := handoff.Continue(ctx, st, handoff.ContinueOptions{ID: id, To: "gemini", By: "test"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	snap := got.Baton.Auto.Snapshot
	if snap == "" || !strings.Contains(got.Brief, "kept as snapshot "+snap[:10]) {
		t.Fatalf("no snapshot named (auto %+v):\n%s", got.Baton.Auto, got.Brief)
	}
	if !strings.Contains(allRefs(t, st.Dir()), snap+" refs/ao/snapshots/") {
		t.Fatalf("snapshot %s is not under refs/ao/snapshots", snap)
	}
}

// TestContinueRaceOfTwoProcessesHasOneWinner: two processes continue the
// same session from claude-code at once, one in codex and one in gemini.
// Exactly one wins; the other is told the session is being (or was)
// continued, and the record and the log tell one continuation.
func TestContinueRaceOfTwoProcessesHasOneWinner(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	id, _ := continuedSession(t, st)
	type run struct {
		to  string
		out []byte
		err error
	}
	done := make(chan run, 2)
	for _, to := range []string{"codex", "gemini"} {
		go func() {
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestContinueHelperProcess$", "-test.timeout=90s", "-test.v")
			cmd.Env = append(os.Environ(), "CONTINUE_HELPER_DIR="+st.Dir(), "CONTINUE_HELPER_ID="+id, "CONTINUE_HELPER_TO="+to)
			out, err := cmd.CombinedOutput()
			done <- run{to, out, err}
		}()
	}
	var won, lost []run
	for range 2 {
		r := <-done
		switch {
		case strings.Contains(string(r.out), "CONTINUED"):
			won = append(won, r)
		case strings.Contains(string(r.out), "REFUSED"):
			lost = append(lost, r)
		default:
			t.Fatalf("helper for %s: %v\n%s", r.to, r.err, r.out)
		}
	}
	if len(won) != 1 || len(lost) != 1 {
		t.Fatalf("%d won, %d lost: want one each", len(won), len(lost))
	}
	s, err := session.Read(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Harness != won[0].to || s.Continued == nil || s.Continued.To != won[0].to || s.Switching != nil {
		t.Fatalf("session runs %s (continued %+v, guard %+v); %s won", s.Harness, s.Continued, s.Switching, won[0].to)
	}
	// A third decider that saw claude-code stop, coming after both, finds
	// the work done.
	var already *handoff.AlreadyContinuedError
	if _, err := handoff.Continue(ctx, st, handoff.ContinueOptions{ID: id, To: lost[0].to, From: "claude-code", By: "late", Auto: true}, clock); !errors.As(err, &already) {
		t.Fatalf("a late decider: %v, want *AlreadyContinuedError", err)
	}
	events, err := baton.Events(ctx, st, 20)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range events {
		if e.Kind == "continued" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d continued events, want 1: %+v", n, events)
	}
}

// TestContinueHelperProcess is one racing decider of the test above, in a
// process of its own; it does nothing when run by itself.
func TestContinueHelperProcess(t *testing.T) {
	dir := os.Getenv("CONTINUE_HELPER_DIR")
	if dir == "" {
		t.Skip("a helper of TestContinueRaceOfTwoProcessesHasOneWinner")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = handoff.Continue(ctx, st, handoff.ContinueOptions{
		ID: os.Getenv("CONTINUE_HELPER_ID"), To: os.Getenv("CONTINUE_HELPER_TO"), From: "claude-code", By: "helper " + os.Getenv("CONTINUE_HELPER_TO"),
		Why: "claude-code stopped: usage limit", Auto: true,
	}, clock)
	var sw *session.SwitchingError
	var already *handoff.AlreadyContinuedError
	switch {
	case err == nil:
		t.Log("CONTINUED")
	case errors.As(err, &sw), errors.As(err, &already):
		t.Log("REFUSED: " + err.Error())
	default:
		t.Fatal(err)
	}
}

func TestFallbackSkipsALimitedAndAnUninstalledAgent(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	fakeAgents(t, "gemini", "codex") // opencode is not installed
	now := clock()
	if err := handoff.RememberLimit(ctx, st, "someone", "gemini", handoff.Limit{Until: now.Add(2 * time.Hour), Why: "gemini stopped: usage limit"}, now); err != nil {
		t.Fatal(err)
	}
	got, skipped, err := handoff.ChooseFallback(st, "someone", "claude-code", []string{"claude-code", "opencode", "gemini", "codex"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got != "codex" || len(skipped) != 3 {
		t.Fatalf("chose %q, passing over %+v", got, skipped)
	}
	for i, want := range []string{"the agent that stopped", "not installed", "limited until"} {
		if !strings.Contains(skipped[i].Why, want) {
			t.Errorf("passed over %s because %q, want %q", skipped[i].Agent, skipped[i].Why, want)
		}
	}
	// Another owner's limit is not this one's; a limit past its reset is
	// forgotten.
	if got, _, _ := handoff.ChooseFallback(st, "someone-else", "claude-code", []string{"gemini"}, now); got != "gemini" {
		t.Errorf("another owner's fallback = %q, want gemini", got)
	}
	if got, _, _ := handoff.ChooseFallback(st, "someone", "claude-code", []string{"gemini"}, now.Add(3*time.Hour)); got != "gemini" {
		t.Errorf("after the reset, fallback = %q, want gemini", got)
	}
}

// TestAgentFailureDecidesAndRemembersTheLimit: a usage limit reported by
// the hook, with handoff.fallback naming a limited, an uninstalled and an
// installed agent, continues in the installed one and remembers the limit
// until the reset the message names; a failure another agent would not
// get past continues nothing; with no fallback, nothing is automatic.
func TestAgentFailureDecidesAndRemembersTheLimit(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	id, _ := continuedSession(t, st)
	fakeAgents(t, "gemini", "codex")
	report := handoff.AgentFailureOptions{Harness: "claude-code", NativeID: claudeID, Error: "rate_limit",
		Message: "You've hit your session limit · resets 3pm (UTC)"}
	res, err := handoff.AgentFailure(ctx, st, report, clock)
	if err != nil || res.Continue != nil || !strings.Contains(res.Why, "handoff.fallback is not set") {
		t.Fatalf("with no fallback: %+v, %v", res, err)
	}
	gittest.Run(t, st.Dir(), "config", "handoff.fallback", "opencode gemini codex")
	s, _ := session.Read(ctx, st, id)
	if err := handoff.RememberLimit(ctx, st, s.Owner, "gemini", handoff.Limit{Until: clock().Add(time.Hour), Why: "test"}, clock()); err != nil {
		t.Fatal(err)
	}
	res, err = handoff.AgentFailure(ctx, st, report, clock)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Continue
	if c == nil || c.To != "codex" || c.From != "claude-code" || c.ID != id || !c.Auto || res.InPlace {
		t.Fatalf("decision = %+v (continue %+v)", res, c)
	}
	if want := "claude-code stopped: usage limit, resets 15:00 UTC"; c.Why != want {
		t.Fatalf("why = %q, want %q", c.Why, want)
	}
	limited, err := handoff.Limited(st, s.Owner, clock())
	if err != nil {
		t.Fatal(err)
	}
	if l := limited["claude-code"]; !l.Until.Equal(time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC)) {
		t.Fatalf("claude-code is remembered as limited until %s, want 15:00 UTC", l.Until)
	}
	res, err = handoff.AgentFailure(ctx, st, handoff.AgentFailureOptions{Harness: "claude-code", NativeID: claudeID, Error: "max_output_tokens"}, clock)
	if err != nil || res.Continue != nil {
		t.Fatalf("a failure of this conversation: %+v, %v", res, err)
	}
}

func TestResetOfClaudeLimitMessages(t *testing.T) {
	now := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct{ msg, want string }{
		{"You've hit your session limit · resets 3pm (UTC)", "2026-11-02T15:00:00Z"},
		{"You've hit your weekly limit · resets 3:30pm (UTC)", "2026-11-02T15:30:00Z"},
		{"You've hit your session limit · resets 8am (UTC)", "2026-11-03T08:00:00Z"},
		{"You've hit your weekly limit · resets Nov 5, 3pm (UTC)", "2026-11-05T15:00:00Z"},
		{"You've hit your session limit · resets 3pm (Europe/Paris)", "2026-11-02T14:00:00Z"},
		{"API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.", ""},
	} {
		got, _ := handoff.ResetOf(tc.msg, now)
		s := ""
		if !got.IsZero() {
			s = got.UTC().Format(time.RFC3339)
		}
		if s != tc.want {
			t.Errorf("reset of %q = %q, want %q", tc.msg, s, tc.want)
		}
	}
}

func TestContinueUndoGoesBackBeforeTheNewAgentWorked(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	id, task := continuedSession(t, st)
	before, _ := session.Read(ctx, st, id)
	if _, err := handoff.Continue(ctx, st, handoff.ContinueOptions{ID: id, To: "codex", By: "test"}, clock); err != nil {
		t.Fatal(err)
	}
	res, err := handoff.ContinueUndo(ctx, st, handoff.ContinueUndoOptions{ID: id, By: "test"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Session.Record
	if s.Harness != "claude-code" || s.Continued != nil || string(s.ClaimedHandoff) != string(before.ClaimedHandoff) {
		t.Fatalf("after the undo: harness %s, continued %+v, claimed %s", s.Harness, s.Continued, s.ClaimedHandoff)
	}
	if b := privateBaton(t, st); b.ID != task.ID || b.ClaimedBySession != id {
		t.Fatalf("the branch's baton after the undo = %+v, want the task %s claimed by %s again", b.Baton, task.ID, id)
	}
	if _, err := handoff.ContinueUndo(ctx, st, handoff.ContinueUndoOptions{ID: id, By: "test"}, clock); !errors.Is(err, handoff.ErrNothingToUndo) {
		t.Fatalf("a second undo: %v, want ErrNothingToUndo", err)
	}

	// Once the new agent committed, there is no going back.
	if _, err := handoff.Continue(ctx, st, handoff.ContinueOptions{ID: id, To: "codex", By: "test"}, clock); err != nil {
		t.Fatal(err)
	}
	commitFile(t, st.Dir(), "lexer.go", "lexer: nested block comments")
	var worked *handoff.WorkedError
	if _, err := handoff.ContinueUndo(ctx, st, handoff.ContinueUndoOptions{ID: id, By: "test"}, clock); !errors.As(err, &worked) {
		t.Fatalf("undo after a commit: %v, want *WorkedError", err)
	}
}

// TestAFallbackThatCannotStartLeavesTheSessionAsItWas: continuing under
// tmux in an agent whose program is not installed is refused before
// anything stops, and the automatic handoff written for it is withdrawn.
func TestAFallbackThatCannotStartLeavesTheSessionAsItWas(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	id, task := continuedSession(t, st)
	fakeAgents(t) // no agent installed
	before, _ := session.Read(ctx, st, id)
	_, err := handoff.Continue(ctx, st, handoff.ContinueOptions{ID: id, To: "codex", By: "test", Tmux: true}, clock)
	var nf *handoff.ProgramNotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("continue = %v, want *ProgramNotFoundError", err)
	}
	after, _ := session.Read(ctx, st, id)
	if after.Harness != before.Harness || after.Continued != nil || after.Switching != nil || string(after.ClaimedHandoff) != string(before.ClaimedHandoff) {
		t.Fatalf("the session changed: %+v", after.Record)
	}
	if b := privateBaton(t, st); b.ID != task.ID || b.ClaimedBySession != id {
		t.Fatalf("the branch's baton = %+v, want the task %s claimed by %s", b.Baton, task.ID, id)
	}
}

// A session started on another host is continued there, not here: this
// clone's guard is not the one a decider there takes.
func TestContinueRefusesASessionOfAnotherHost(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	id, _ := continuedSession(t, st)
	if _, err := session.Modify(ctx, st, id, "test: elsewhere", func(s *session.Record) error {
		s.Host = "elsewhere.invalid"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	before := allRefs(t, st.Dir())
	_, err := handoff.Continue(ctx, st, handoff.ContinueOptions{ID: id, To: "codex", By: "test"}, clock)
	var ee *handoff.ElsewhereError
	if !errors.As(err, &ee) || ee.Host != "elsewhere.invalid" {
		t.Fatalf("continued a session of another host: %v", err)
	}
	if after := allRefs(t, st.Dir()); after != before {
		t.Fatalf("the refused continuation wrote refs:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// A fallback that fails to start leaves the session as it was, its
// automatic handoff withdrawn, is passed over for a while, and the next
// of Then takes over.
func TestContinueTriesTheNextWhenAFallbackFailsToStart(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	fakeAgents(t, "gemini", "codex")
	id, task := continuedSession(t, st)
	var tried []string
	run := func(_ context.Context, _ session.Record, plan session.LaunchPlan) (*session.Runtime, error) {
		tried = append(tried, plan.Harness)
		if plan.Harness == "gemini" {
			return nil, &handoff.StartError{Agent: "gemini", Exit: "status 1"}
		}
		return nil, nil
	}
	res, err := handoff.Continue(ctx, st, handoff.ContinueOptions{ID: id, To: "gemini", Then: []string{"codex"}, By: "test", Auto: true, Why: "claude-code stopped", Run: run}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tried, " ") != "gemini codex" || res.Session.Harness != "codex" {
		t.Fatalf("tried %q, the session runs %s", tried, res.Session.Harness)
	}
	if !strings.Contains(strings.Join(res.Notices, "\n"), "gemini did not take over: gemini exited at once (status 1)") {
		t.Errorf("the notices do not say gemini failed:\n%s", strings.Join(res.Notices, "\n"))
	}
	if res.Session.Continued == nil || !strings.Contains(string(res.Session.Continued.PrevClaimed), task.ID) {
		t.Errorf("the continuation does not keep the task the session held: %+v", res.Session.Continued)
	}
	got, _, err := handoff.ChooseFallback(st, res.Session.Owner, "claude-code", []string{"gemini", "codex"}, clock())
	if err != nil || got != "codex" {
		t.Errorf("after gemini failed to start the fallback is %q (%v), want codex", got, err)
	}
	// Alone, the failure is the answer, and the session is as it was.
	before, _ := session.Read(ctx, st, id)
	_, err = handoff.Continue(ctx, st, handoff.ContinueOptions{ID: id, To: "gemini", By: "test", Run: run}, clock)
	var se *handoff.StartError
	if !errors.As(err, &se) {
		t.Fatalf("a failed start answered %v", err)
	}
	after, _ := session.Read(ctx, st, id)
	if after.Harness != before.Harness || string(after.ClaimedHandoff) != string(before.ClaimedHandoff) {
		t.Fatalf("the failed start changed the session: %s -> %s", before.Harness, after.Harness)
	}
}
