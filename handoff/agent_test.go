package handoff_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

const (
	claudeID  = "0b9c5a3e-1111-4222-8333-444455556666"
	claudeID2 = "7d1e2f3a-5555-4666-8777-888899990000"
)

func leaveBaton(t *testing.T, st *refstore.Store, next ...string) handoff.EndResult {
	t.Helper()
	res, err := handoff.End(context.Background(), st, handoff.EndOptions{Session: "none", Next: next}, clock)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func agentStart(t *testing.T, st *refstore.Store, id, source string) handoff.AgentStartResult {
	t.Helper()
	res, err := handoff.AgentStart(context.Background(), st, handoff.AgentStartOptions{Harness: "claude", NativeID: id, Source: source}, clock)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestAgentStartClaimsOnceAndRedeliversOnResumeAndCompact(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	left := leaveBaton(t, st, "fix the flaky parser test")

	first := agentStart(t, st, claudeID, "startup")
	if !first.Claimed || first.Continued || first.Baton == nil || first.Baton.ID != left.Handoff.ID {
		t.Fatalf("startup = %+v", first)
	}
	if !strings.Contains(first.Context, "fix the flaky parser test") {
		t.Fatalf("the baton's next step is not in the context:\n%s", first.Context)
	}
	s, err := session.Read(ctx, st, first.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s.Harness != "claude-code" || s.Launched["claude-code"].NativeID != claudeID {
		t.Fatalf("session = harness %q, launched %+v", s.Harness, s.Launched)
	}
	b, err := baton.Read(ctx, st, left.Handoff.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if b.ClaimedBySession != first.Session.ID {
		t.Fatalf("baton claimed by %q, want %q", b.ClaimedBySession, first.Session.ID)
	}

	// A second baton arrives; resume and compact give the claimed one
	// again, point at the new one, and claim nothing.
	second := leaveBaton(t, st, "a later baton")
	for _, source := range []string{"resume", "compact"} {
		again := agentStart(t, st, claudeID, source)
		if !again.Continued || again.Claimed || again.Session.ID != first.Session.ID {
			t.Fatalf("%s = %+v", source, again)
		}
		if !strings.Contains(again.Context, "fix the flaky parser test") || !strings.Contains(again.Context, "continuing git-handoff session "+first.Session.ID) {
			t.Fatalf("%s context lacks the claimed baton:\n%s", source, again.Context)
		}
		if !strings.Contains(again.Context, second.Handoff.ID) || !strings.Contains(again.Context, "git handoff claim") {
			t.Fatalf("%s context does not point at the waiting baton %s:\n%s", source, second.Handoff.ID, again.Context)
		}
		w, err := baton.Read(ctx, st, second.Handoff.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if w.ClaimedBySession != "" {
			t.Fatalf("%s claimed the new baton: %+v", source, w.Baton)
		}
	}
	sessions, _, err := session.List(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 1 {
		t.Fatalf("%d sessions, want 1", len(sessions))
	}
}

func TestAgentClearWithANewIDContinuesTheBoundSession(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	leaveBaton(t, st, "step one")
	first := agentStart(t, st, claudeID, "startup")
	clear := agentStart(t, st, claudeID2, "clear")
	if !clear.Continued || clear.Session.ID != first.Session.ID {
		t.Fatalf("clear = %+v", clear)
	}
	s, err := session.Read(ctx, st, first.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Launched["claude-code"].NativeID; got != claudeID2 {
		t.Fatalf("native id after clear = %q, want the new %q (resume must find the latest)", got, claudeID2)
	}
	// A brand-new conversation in the same worktree is a new session.
	fresh := agentStart(t, st, "11111111-2222-4333-8444-555566667777", "startup")
	if fresh.Continued || fresh.Session.ID == first.Session.ID {
		t.Fatalf("new conversation = %+v", fresh)
	}
}

func TestAgentStartFitsAFullBatonInTheCap(t *testing.T) {
	st := open(t)
	// A baton near the largest record: far over any agent's cap.
	step := strings.Repeat("é step ", 900)
	var next []string
	for i := 0; i < 8; i++ {
		next = append(next, step)
	}
	leaveBaton(t, st, next...)
	res, err := handoff.AgentStart(context.Background(), st, handoff.AgentStartOptions{Harness: "claude-code", NativeID: claudeID, MaxChars: 10000}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Claimed {
		t.Fatalf("a full baton was left unclaimed: %+v", res.Notices)
	}
	if n := utf8.RuneCountInString(res.Context); n > 10000 {
		t.Fatalf("context is %d characters, over the cap", n)
	}
	if !strings.HasPrefix(strings.SplitN(res.Context, "\n\n", 2)[1], "## 🤝 Active Session Handoff") {
		t.Fatalf("the baton does not come first:\n%.300s", res.Context)
	}
	if res.BriefFile == "" || !strings.Contains(res.Context, res.BriefFile) {
		t.Fatalf("the context does not say where the rest is (file %q)", res.BriefFile)
	}
	whole, err := os.ReadFile(res.BriefFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(whole), strings.TrimSpace(step)) != 8 {
		t.Fatalf("the brief file lacks some of the baton's steps")
	}
}

func TestAgentStopAsksOnceForABatonAfterWork(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	res := agentStart(t, st, claudeID, "startup")
	stop := func(active bool) handoff.AgentStopResult {
		t.Helper()
		r, err := handoff.AgentStop(ctx, st, handoff.AgentStopOptions{Harness: "claude-code", NativeID: claudeID, Active: active}, clock)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := stop(false); r.Block {
		t.Fatalf("asked for a baton before any work: %+v", r)
	}
	if err := os.WriteFile(filepath.Join(st.Dir(), "parser.go"), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := stop(true); r.Block {
		t.Fatalf("blocked while already answering a stop hook: %+v", r)
	}
	r := stop(false)
	if !r.Block || r.Session != res.Session.ID || !strings.Contains(r.Reason, "git handoff end --next") {
		t.Fatalf("after work, stop = %+v", r)
	}
	if r := stop(false); r.Block {
		t.Fatalf("asked twice: %+v", r)
	}
}

func TestAgentStopNeverAsksWhenABatonWasLeft(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	agentStart(t, st, claudeID, "startup")
	commitFile(t, st.Dir(), "parser.go", "fix the parser")
	if _, err := handoff.End(ctx, st, handoff.EndOptions{Next: []string{"ship it"}}, clock); err != nil {
		t.Fatal(err)
	}
	r, err := handoff.AgentStop(ctx, st, handoff.AgentStopOptions{Harness: "claude-code", NativeID: claudeID}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if r.Block {
		t.Fatalf("asked for a baton after one was left: %+v", r)
	}
}

func TestAgentStopCountsCommitsOfASessionNoHookStarted(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	// Copilot and Goose: the agent runs `git handoff start` itself.
	if _, err := handoff.Start(ctx, st, handoff.StartOptions{Harness: "copilot"}, clock); err != nil {
		t.Fatal(err)
	}
	commitFile(t, st.Dir(), "a.go", "work")
	r, err := handoff.AgentStop(ctx, st, handoff.AgentStopOptions{Harness: "copilot"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Block {
		t.Fatalf("a commit since start did not ask for a baton: %+v", r)
	}
}

// Found with the real Copilot CLI: the agent ran `git handoff start`,
// wrote a file and stopped; its first stop noted the working tree as it
// found it then, and the file went unseen.
func TestAgentStopSeesFilesChangedBeforeTheFirstStopOfASessionNoHookStarted(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	if _, err := handoff.Start(ctx, st, handoff.StartOptions{Harness: "copilot"}, clock); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.Dir(), "parser.go"), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := handoff.AgentStop(ctx, st, handoff.AgentStopOptions{Harness: "copilot"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Block {
		t.Fatalf("a file changed since start did not ask for a baton: %+v", r)
	}
}

func commitFile(t *testing.T, dir, name, msg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "add", name)
	gittest.Run(t, dir, "commit", "-q", "-m", msg)
}

func TestAgentLaunchedForASessionContinuesIt(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	leaveBaton(t, st, "carry on with the lexer")
	// `session launch` runs the agent with GIT_HANDOFF_SESSION set; codex
	// cannot be told its id, so the hook learns it.
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s-launched", Harness: "codex"}, clock)
	if err != nil || !res.Claimed {
		t.Fatalf("start = %+v, %v", res, err)
	}
	if err := st.Unbind(ctx); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_HANDOFF_SESSION", "s-launched")
	const codexID = "5f0c2a9e-aaaa-4bbb-8ccc-ddddeeeeffff"
	got, err := handoff.AgentStart(ctx, st, handoff.AgentStartOptions{Harness: "codex", NativeID: codexID, Source: "startup"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Continued || got.Session.ID != "s-launched" || !strings.Contains(got.Context, "carry on with the lexer") {
		t.Fatalf("launched agent's start = %+v", got)
	}
	s, err := session.Read(ctx, st, "s-launched")
	if err != nil {
		t.Fatal(err)
	}
	if s.Launched["codex"].NativeID != codexID {
		t.Fatalf("codex's id was not recorded: %+v", s.Launched)
	}
}

// Found with the real agents (Codex continuing a session from Claude Code):
// a fresh launch gives the whole brief as the first prompt, and the
// session-start hook gave it again, baton and all. The plan marks the
// launch briefed; the hook then names the session and nothing more (without
// the mark it gives the brief: TestAgentLaunchedForASessionContinuesIt).
func TestBriefedLaunchIsNotBriefedAgainAtStart(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	leaveBaton(t, st, "carry on with the lexer")
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s-briefed", Harness: "codex", Objective: "finish the lexer"}, clock)
	if err != nil || !res.Claimed {
		t.Fatalf("start = %+v, %v", res, err)
	}
	plan, err := handoff.SessionLaunch(ctx, st, handoff.SessionLaunchOptions{ID: "s-briefed"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if first := plan.Plan.Argv[len(plan.Plan.Argv)-1]; !strings.Contains(first, "carry on with the lexer") {
		t.Fatalf("the first prompt lacks the brief:\n%s", first)
	}
	if !slices.Contains(plan.Plan.Env, session.BriefedEnv+"=s-briefed") {
		t.Fatalf("a fresh launch with the brief has env %q", plan.Plan.Env)
	}
	for _, kv := range plan.Plan.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	const codexID = "5f0c2a9e-aaaa-4bbb-8ccc-ddddeeee0001"
	got, err := handoff.AgentStart(ctx, st, handoff.AgentStartOptions{Harness: "codex", NativeID: codexID, Source: "startup"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Continued || got.Session.ID != "s-briefed" || strings.Contains(got.Context, "carry on with the lexer") ||
		!strings.Contains(got.Context, "continuing git-handoff session s-briefed (startup): its brief comes in your first prompt") {
		t.Fatalf("the briefed launch's start = %+v", got)
	}
	if s, err := session.Read(ctx, st, "s-briefed"); err != nil || s.Launched["codex"].NativeID != codexID {
		t.Fatalf("codex's id was not recorded: %+v, %v", s.Launched, err)
	}
	// A compaction later in the same process gives the brief again.
	compact, err := handoff.AgentStart(ctx, st, handoff.AgentStartOptions{Harness: "codex", NativeID: codexID, Source: "compact"}, clock)
	if err != nil || !strings.Contains(compact.Context, "carry on with the lexer") {
		t.Fatalf("compact got %q, %v; want the brief", compact.Context, err)
	}
}

// Found with the real agents: after `session switch`, the fresh launch's
// first message said no baton was waiting, though the session held one.
func TestRelaunchGivesTheClaimedBatonAgain(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	leaveBaton(t, st, "port the lexer to the new API")
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s-relaunch", Harness: "claude-code", Objective: "finish the lexer"}, clock)
	if err != nil || !res.Claimed {
		t.Fatalf("start = %+v, %v", res, err)
	}
	later := leaveBaton(t, st, "a baton for somebody else")
	plan, err := handoff.SessionLaunch(ctx, st, handoff.SessionLaunchOptions{ID: "s-relaunch"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	first := plan.Plan.Argv[len(plan.Plan.Argv)-1]
	if !strings.Contains(first, "port the lexer to the new API") {
		t.Fatalf("the first message lacks the claimed baton:\n%s", first)
	}
	if strings.Contains(first, "a baton for somebody else") {
		t.Fatalf("the first message shows a baton nobody claimed:\n%s", first)
	}
	if !strings.Contains(first, later.Handoff.ID) {
		t.Fatalf("the first message does not point at the waiting baton %s:\n%s", later.Handoff.ID, first)
	}
}

// Codex runs the same hook twice at once when it is both on its command
// line and in a trusted project's hooks.json: one session, one claim.
func TestAgentStartTwiceAtOnceMakesOneSession(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	leaveBaton(t, st, "only once")
	const codexID = "5f0c2a9e-aaaa-4bbb-8ccc-ddddeeeeffff"
	results := make(chan handoff.AgentStartResult, 2)
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() {
			res, err := handoff.AgentStart(ctx, st, handoff.AgentStartOptions{Harness: "codex", NativeID: codexID, Source: "startup"}, clock)
			results <- res
			errs <- err
		}()
	}
	var claimed, continued int
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		r := <-results
		if r.Claimed {
			claimed++
		}
		if r.Continued {
			continued++
		}
	}
	sessions, _, err := session.List(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 1 || claimed != 1 || continued != 1 {
		t.Fatalf("%d sessions, %d claims, %d continued; want 1, 1, 1", len(sessions), claimed, continued)
	}
}

// The same start hook installed twice (the plugin beside the project's
// committed configuration) runs twice for one new conversation: the brief
// is given once; the second start says nothing. A resume still repeats it.
func TestAgentStartTwiceForOneConversationGivesTheBriefOnce(t *testing.T) {
	st := open(t)
	leaveBaton(t, st, "given once")
	first := agentStart(t, st, claudeID, "startup")
	if !first.Claimed || !strings.Contains(first.Context, "given once") {
		t.Fatalf("first start = %+v", first)
	}
	second := agentStart(t, st, claudeID, "startup")
	if !second.Continued || second.Claimed || second.Session.ID != first.Session.ID || second.Context != "" {
		t.Fatalf("second start of the same conversation = %+v, want the same session and no context", second)
	}
	resumed := agentStart(t, st, claudeID, "resume")
	if !strings.Contains(resumed.Context, "given once") {
		t.Fatalf("resume lost the claimed baton:\n%s", resumed.Context)
	}
}

// Every conversation of an agent used to leave a lock file of its own
// beside its index note, forever; the hooks now share one lock per
// worktree, and a conversation adds its index note alone.
func TestAgentConversationsLeaveOnlyTheirIndexNotes(t *testing.T) {
	st := open(t)
	ids := []string{
		"0b9c5a3e-1111-4222-8333-000000000001",
		"0b9c5a3e-1111-4222-8333-000000000002",
		"0b9c5a3e-1111-4222-8333-000000000003",
	}
	for _, id := range ids {
		agentStart(t, st, id, "startup")
		if _, err := handoff.AgentStop(context.Background(), st, handoff.AgentStopOptions{Harness: "claude", NativeID: id}, clock); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(filepath.Join(st.GitDir(), "handoff", "agent", "native"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := []string{"claude-code." + ids[0], "claude-code." + ids[1], "claude-code." + ids[2]}
	if !slices.Equal(names, want) {
		t.Fatalf("the native index directory holds %q, want %q", names, want)
	}
}

// Found with the real Codex continuing a Claude Code session on a loaded
// machine: a switch starts the new agent while it holds the session's
// guard and records the new agent after, so the new agent's session-start
// hook read a record that still named Claude Code, made a session of its
// own, and the switched session never learned Codex's id.
func TestAgentStartedDuringItsSwitchContinuesTheSession(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	leaveBaton(t, st, "carry on with the parser")
	if res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s-switch", Harness: "claude-code"}, clock); err != nil || !res.Claimed {
		t.Fatalf("start = %+v, %v", res, err)
	}
	t.Setenv("GIT_HANDOFF_SESSION", "s-switch")
	const codexID = "5f0c2a9e-aaaa-4bbb-8ccc-ddddeeee0002"
	var during handoff.AgentStartResult
	run := func(ctx context.Context, cur session.Record, plan session.LaunchPlan) (*session.Runtime, error) {
		// The agent's own hook, run by the agent the launch started,
		// before the switch is recorded.
		if cur.Harness != "claude-code" || cur.Switching == nil {
			t.Errorf("the launch ran on a record with harness %q and guard %+v, want claude-code under the guard", cur.Harness, cur.Switching)
		}
		var err error
		during, err = handoff.AgentStart(ctx, st, handoff.AgentStartOptions{Harness: "codex", NativeID: codexID, Source: "startup"}, clock)
		return nil, err
	}
	if _, err := session.Switch(ctx, st, session.RelaunchOptions{ID: "s-switch", Harness: "codex", Prompt: "go on with the parser", By: "test", Run: run}, clock()); err != nil {
		t.Fatal(err)
	}
	if !during.Continued || during.Session.ID != "s-switch" {
		t.Fatalf("the hook of the agent switched to made %+v, want session s-switch continued", during.Session)
	}
	s, err := session.Read(ctx, st, "s-switch")
	if err != nil {
		t.Fatal(err)
	}
	if s.Harness != "codex" || s.Launched["codex"].NativeID != codexID || s.Switching != nil {
		t.Fatalf("after the switch: harness %q launched %+v guard %+v", s.Harness, s.Launched, s.Switching)
	}
	ids, err := st.RefIDs(ctx, refstore.SessionPrefix)
	if err != nil || len(ids) != 1 {
		t.Fatalf("sessions %v (%v), want only s-switch", ids, err)
	}
	// Another agent started meanwhile is not the one switched to: it gets
	// a session of its own.
	other, err := handoff.AgentStart(ctx, st, handoff.AgentStartOptions{Harness: "gemini", NativeID: "c0ffee00-1111-4222-8333-444455556666", Source: "startup"}, clock)
	if err != nil || other.Session.ID == "s-switch" {
		t.Fatalf("gemini's start = %+v, %v; want a session of its own", other.Session, err)
	}
}
