package handoff_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/transcript"
)

// The automatic handoff and the claim offered again (handover.go), through
// the agent hooks' workflows as the hooks call them.

func agentStartAs(t *testing.T, st *refstore.Store, harnessName, id string) handoff.AgentStartResult {
	t.Helper()
	res, err := handoff.AgentStart(context.Background(), st, handoff.AgentStartOptions{Harness: harnessName, NativeID: id, Source: "startup"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func agentTurn(t *testing.T, st *refstore.Store, harnessName, id, msg string) {
	t.Helper()
	if _, err := handoff.AgentStop(context.Background(), st, handoff.AgentStopOptions{Harness: harnessName, NativeID: id, LastMessage: msg}, clock); err != nil {
		t.Fatal(err)
	}
}

func agentExit(t *testing.T, st *refstore.Store, harnessName, id string) {
	t.Helper()
	if _, err := handoff.AgentEnd(context.Background(), st, handoff.AgentEndOptions{Harness: harnessName, NativeID: id, Reason: "other"}, clock); err != nil {
		t.Fatal(err)
	}
}

func privateBaton(t *testing.T, st *refstore.Store) baton.Stored {
	t.Helper()
	who, err := handoff.Resolve(context.Background(), st, "", "")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := refstore.HandoffRef(false, who.Owner, who.Branch)
	if err != nil {
		t.Fatal(err)
	}
	b, err := baton.Read(context.Background(), st, ref)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const codexID = "019a0b1c-2d3e-7f40-8123-456789abcdef"

func TestAgentThatWorkedAndLeftNoBatonHandsOnAutomatically(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	task := leaveBaton(t, st, "handle block comments in the lexer")
	first := agentStartAs(t, st, "claude", claudeID)
	if !first.Claimed {
		t.Fatalf("the task was not claimed: %+v", first)
	}
	if err := handoff.AgentDelivered(ctx, st, first.Session.ID); err != nil {
		t.Fatal(err)
	}
	commitFile(t, st.Dir(), "lexer.go", "lexer: skip block comments")
	agentTurn(t, st, "claude", claudeID, "Block comments are skipped now; nested ones are not handled yet.")
	// It was asked for a baton once at that stop; it ignores it and exits.
	agentExit(t, st, "claude", claudeID)

	auto := privateBaton(t, st)
	if !auto.Live() || auto.Auto == nil || auto.Auto.Session != first.Session.ID || auto.Auto.Task != task.Handoff.ID {
		t.Fatalf("automatic handoff = %+v (auto %+v)", auto.Baton, auto.Auto)
	}
	if auto.Auto.CommitTotal != 1 || auto.Auto.Commits[0].Subject != "lexer: skip block comments" {
		t.Fatalf("its commits = %+v", auto.Auto.Commits)
	}
	if len(auto.NextSteps) != 1 || auto.NextSteps[0] != "handle block comments in the lexer" {
		t.Fatalf("the claimed task is not carried: %q", auto.NextSteps)
	}

	next := agentStartAs(t, st, "codex", codexID)
	if !next.Claimed || next.Baton == nil || next.Baton.ID != auto.ID {
		t.Fatalf("the next session did not receive the automatic handoff: %+v", next)
	}
	for _, want := range []string{"Automatic handoff (written by git-handoff", "nested ones are not handled yet", "handle block comments in the lexer", "lexer: skip block comments", "The task it had claimed (baton " + task.Handoff.ID} {
		if !strings.Contains(next.Context, want) {
			t.Fatalf("the brief lacks %q:\n%s", want, next.Context)
		}
	}
}

func TestAgentThatDidNothingHandsNothingOn(t *testing.T) {
	st := open(t)
	first := agentStartAs(t, st, "claude", claudeID)
	agentTurn(t, st, "claude", claudeID, "Hello! What shall we work on?")
	agentExit(t, st, "claude", claudeID)
	who, err := handoff.Resolve(context.Background(), st, "", "")
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := refstore.HandoffRef(false, who.Owner, who.Branch)
	if _, err := baton.Read(context.Background(), st, ref); err == nil {
		t.Fatalf("session %s did nothing, yet a baton waits", first.Session.ID)
	}
}

func TestAClaimTheAgentNeverActedOnIsOfferedAgain(t *testing.T) {
	for _, tc := range []struct {
		name      string
		delivered bool // the start hook wrote its answer
	}{
		{"the hook was killed before answering", false},
		{"the agent crashed before its first turn", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			task := leaveBaton(t, st, "fix the flaky parser test")
			first := agentStartAs(t, st, "claude", claudeID)
			if tc.delivered {
				if err := handoff.AgentDelivered(ctx, st, first.Session.ID); err != nil {
					t.Fatal(err)
				}
			}
			// No SessionEnd: the agent was killed. The next one starts here.
			next := agentStartAs(t, st, "claude", claudeID2)
			if !next.Claimed || next.Baton == nil || next.Baton.ID != task.Handoff.ID {
				t.Fatalf("the baton was not offered again: %+v", next)
			}
			if !strings.Contains(strings.Join(next.Notices, "\n"), "never acted on it") {
				t.Fatalf("notices %q do not name the first session", next.Notices)
			}
			old, err := session.Read(ctx, st, first.Session.ID)
			if err != nil || old.Live() {
				t.Fatalf("first session = %+v, %v", old.Record, err)
			}
			b := privateBaton(t, st)
			if b.ClaimedBySession != next.Session.ID || b.Reoffered == nil || b.Reoffered.Session != first.Session.ID {
				t.Fatalf("baton = %+v", b.Baton)
			}
		})
	}
}

func TestAClaimTheAgentActedOnIsNeverOfferedAgain(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	task := leaveBaton(t, st, "answer the open question")
	first := agentStartAs(t, st, "claude", claudeID)
	if err := handoff.AgentDelivered(ctx, st, first.Session.ID); err != nil {
		t.Fatal(err)
	}
	agentTurn(t, st, "claude", claudeID, "The answer is in the design notes; nothing to change.")
	agentExit(t, st, "claude", claudeID)
	// It took a turn on its task and changed nothing: the claim stands
	// (the agent may have answered it in words), and nothing is written.
	b := privateBaton(t, st)
	if b.ID != task.Handoff.ID || !b.Claimed || b.ClaimedBySession != first.Session.ID || b.Reoffered != nil {
		t.Fatalf("baton = %+v", b.Baton)
	}
}

func TestAClaimMadeByAStartTheAgentRanItselfIsNeverOfferedAgain(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	task := leaveBaton(t, st, "a task read on the terminal")
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Harness: "copilot"}, clock)
	if err != nil || !res.Claimed {
		t.Fatalf("start = %+v, %v", res, err)
	}
	if err := st.Unbind(ctx); err != nil { // as if the next one ran elsewhere
		t.Fatal(err)
	}
	if _, err := handoff.EndSession(ctx, st, res.Session.ID, session.EndAgentExit, clock); err != nil {
		t.Fatal(err)
	}
	if b := privateBaton(t, st); b.ID != task.Handoff.ID || b.Live() {
		t.Fatalf("a claim read by the agent itself was offered again: %+v", b.Baton)
	}
}

func TestAutomaticHandoffNeverReplacesAWaitingBaton(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	agentStartAs(t, st, "claude", claudeID)
	commitFile(t, st.Dir(), "a.go", "work")
	waiting := leaveBaton(t, st, "a baton someone wrote")
	// leaveBaton names no session: the agent's own is still live.
	agentExit(t, st, "claude", claudeID)
	if b := privateBaton(t, st); b.ID != waiting.Handoff.ID || !b.Live() {
		t.Fatalf("the waiting baton was replaced: %+v", b.Baton)
	}
	_ = ctx
}

func TestResumedConversationWithdrawsItsAutomaticHandoff(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	agentStartAs(t, st, "claude", claudeID)
	commitFile(t, st.Dir(), "a.go", "work")
	agentExit(t, st, "claude", claudeID)
	auto := privateBaton(t, st)
	if auto.Auto == nil || !auto.Live() {
		t.Fatalf("no automatic handoff: %+v", auto.Baton)
	}
	res, err := handoff.AgentStart(ctx, st, handoff.AgentStartOptions{Harness: "claude", NativeID: claudeID, Source: "resume"}, clock)
	if err != nil || !res.Continued {
		t.Fatalf("resume = %+v, %v", res, err)
	}
	if b := privateBaton(t, st); b.ID != auto.ID || b.Live() {
		t.Fatalf("the automatic handoff of a session that goes on still waits: %+v", b.Baton)
	}
}

// Withdrawn, the automatic handoff gives the ref back to what it held: the
// baton the session had claimed, claimed by it.
func TestWithdrawnAutomaticHandoffPutsTheClaimBack(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	task := leaveBaton(t, st, "the task")
	first := agentStartAs(t, st, "claude", claudeID)
	commitFile(t, st.Dir(), "a.go", "work")
	agentExit(t, st, "claude", claudeID)
	if b := privateBaton(t, st); b.Auto == nil {
		t.Fatalf("no automatic handoff: %+v", b.Baton)
	}
	if _, err := handoff.AgentStart(ctx, st, handoff.AgentStartOptions{Harness: "claude", NativeID: claudeID, Source: "resume"}, clock); err != nil {
		t.Fatal(err)
	}
	b := privateBaton(t, st)
	if b.ID != task.Handoff.ID || !b.Claimed || b.ClaimedBySession != first.Session.ID || b.Auto != nil {
		t.Fatalf("after the withdrawal the ref holds %+v, want %s claimed by %s", b.Baton, task.Handoff.ID, first.Session.ID)
	}
}

func TestReplacementCarriesTheClaimedTaskAndSummary(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	task := leaveBaton(t, st, "port the lexer to the new token type")
	first := agentStartAs(t, st, "claude", claudeID)
	agentTurn(t, st, "claude", claudeID, "Half the tokens are ported; the keyword table is next.")
	res, err := handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{
		ReplaceOptions: session.ReplaceOptions{OldID: first.Session.ID, Reason: "stuck"}, NoSnapshot: true,
	}, clock)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The task it had claimed (baton " + task.Handoff.ID, "port the lexer to the new token type", "the keyword table is next"} {
		if !strings.Contains(res.Package, want) {
			t.Fatalf("the package lacks %q:\n%s", want, res.Package)
		}
	}
	if len(res.New.ClaimedHandoff) == 0 || !strings.Contains(string(res.New.ClaimedHandoff), task.Handoff.ID) {
		t.Fatalf("the replacement does not hold the task: %s", res.New.ClaimedHandoff)
	}
}

func TestSyncPrefersAWrittenBatonOverAConcurrentAutomaticOne(t *testing.T) {
	written := baton.Baton{ID: "h-written", Owner: "o", Branch: "b"}
	auto := baton.Baton{ID: "h-auto", Owner: "o", Branch: "b", Auto: &baton.Auto{Session: "s-1", Why: "agent exited"}}
	auto.CreatedAt = written.CreatedAt.Add(1) // newer, yet it loses
	if got := teamsync.JoinBaton(written, auto); got.ID != "h-written" {
		t.Fatalf("join kept %s", got.ID)
	}
	if got := teamsync.JoinBaton(auto, written); got.ID != "h-written" {
		t.Fatalf("join kept %s", got.ID)
	}
}

// An agent gives its session-end hook a second or two: a hook stopped
// after the session ended and before the automatic handoff was written
// leaves a note, and the next start here finishes the handover before it
// claims.
func TestHandoverCutShortIsFinishedByTheNextStart(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	first := agentStartAs(t, st, "claude", claudeID)
	commitFile(t, st.Dir(), "a.go", "work cut short")
	// The hook noted the handover, ended the session, and was stopped.
	if _, _, err := session.End(ctx, st, first.Session.ID, session.EndAgentExit, clock()); err != nil {
		t.Fatal(err)
	}
	if err := st.Unbind(ctx); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(st.GitDir(), "handoff", "agent", "handover", first.Session.ID)
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte(session.EndAgentExit+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	next := agentStartAs(t, st, "codex", codexID)
	if !next.Claimed || next.Baton == nil || next.Baton.Auto == nil || next.Baton.Auto.Session != first.Session.ID {
		t.Fatalf("the next start did not finish the handover: %+v", next)
	}
	if _, err := os.Stat(note); !os.IsNotExist(err) {
		t.Fatalf("the note stayed: %v", err)
	}
}

// Copilot's Stop names no last message: the summary comes from the
// transcript it names (a real one, package transcript's fixture).
func TestStopOfCopilotReadsTheSummaryFromItsTranscript(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Harness: "copilot"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	path, err := filepath.Abs("../transcript/testdata/copilot.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, err := transcript.LastReply("copilot", path)
	if err != nil || want == "" {
		t.Fatalf("the fixture's last reply: %q, %v", want, err)
	}
	if _, err := handoff.AgentStop(ctx, st, handoff.AgentStopOptions{Harness: "copilot", Transcript: path}, clock); err != nil {
		t.Fatal(err)
	}
	s, err := session.Read(ctx, st, res.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s.Summary != session.CapSummary(want) || s.TurnAt == nil {
		t.Fatalf("summary %q (turn at %v), want %q", s.Summary, s.TurnAt, want)
	}
}

// A summary with a credential in it is kept redacted.
func TestTheAgentsLastMessageIsRedacted(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	first := agentStartAs(t, st, "claude", claudeID)
	secret := "AKIA" + "ZQ3T7W5YX2KJH6NB"
	agentTurn(t, st, "claude", claudeID, "Deployed with key "+secret+"; all green.")
	s, err := session.Read(ctx, st, first.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.Summary, secret) || !strings.Contains(s.Summary, "[redacted aws-access-token]") {
		t.Fatalf("summary %q", s.Summary)
	}
}

// OpenCode's plugin sends no end of turn under `opencode run` (found end
// to end): a claim of one of its sessions is never offered again.
func TestAClaimOfAnAgentWhoseTurnsGoUnseenIsNeverOfferedAgain(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	task := leaveBaton(t, st, "a task for opencode")
	first, err := handoff.AgentStart(ctx, st, handoff.AgentStartOptions{Harness: "opencode", NativeID: "ses_3eabc1234567890ABCDEFGHIJK", Source: "startup"}, clock)
	if err != nil || !first.Claimed {
		t.Fatalf("start = %+v, %v", first, err)
	}
	if err := handoff.AgentDelivered(ctx, st, first.Session.ID); err != nil {
		t.Fatal(err)
	}
	next := agentStartAs(t, st, "claude", claudeID2)
	if next.Claimed {
		t.Fatalf("the claim of an opencode session was offered again: %+v", next.Baton)
	}
	if b := privateBaton(t, st); b.ID != task.Handoff.ID || b.ClaimedBySession != first.Session.ID {
		t.Fatalf("baton = %+v", b.Baton)
	}
}

// TestRestoreHandsOnTheWorkOfTheSessionItEnds: a restore into a worktree
// bound to another active session ends that session as a start there
// would, and what it did (a commit, no baton) is handed on automatically
// rather than dropped.
func TestRestoreHandsOnTheWorkOfTheSessionItEnds(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	start(t, st, "s-old")
	if _, err := handoff.EndSession(ctx, st, "s-old", session.EndAgentExit, clock); err != nil {
		t.Fatal(err)
	}
	start(t, st, "s-busy")
	commitFile(t, st.Dir(), "parser.go", "parser: accept trailing commas")
	if _, err := handoff.SessionSummary(ctx, st, "s-busy", "Trailing commas parse; the printer still drops them.", clock); err != nil {
		t.Fatal(err)
	}
	res, err := handoff.SessionRestore(ctx, st, handoff.SessionRelaunchOptions{ID: "s-old", By: "test", Prompt: "go on"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if res.EndedBound != "s-busy" {
		t.Fatalf("restore ended %q, want s-busy; notices %q", res.EndedBound, res.Notices)
	}
	auto := privateBaton(t, st)
	if !auto.Live() || auto.Auto == nil || auto.Auto.Session != "s-busy" {
		t.Fatalf("no automatic handoff of s-busy: %+v (auto %+v); notices %q", auto.Baton, auto.Auto, res.Notices)
	}
	if auto.Auto.CommitTotal != 1 || !strings.Contains(auto.Auto.Summary, "printer still drops them") {
		t.Fatalf("automatic handoff = %+v", auto.Auto)
	}
	if !strings.Contains(strings.Join(res.Notices, "\n"), auto.ID) {
		t.Fatalf("the notices do not name the automatic handoff %s: %q", auto.ID, res.Notices)
	}
}

// TestAClaimTheStartHookNeverGaveIsGivenAtTheFirstStop: the start hook
// claimed a baton and was cut short before its answer reached the agent,
// which went on without it. Its first stop keeps it going with that brief,
// once; after that the agent has acted on it, and its exit with nothing
// done offers the claim to nobody else.
func TestAClaimTheStartHookNeverGaveIsGivenAtTheFirstStop(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	task := leaveBaton(t, st, "rename the config loader")
	first := agentStartAs(t, st, "claude", claudeID)
	if !first.Claimed {
		t.Fatalf("not claimed: %+v", first)
	}
	// No AgentDelivered: the hook was killed after the claim.
	stop, err := handoff.AgentStop(ctx, st, handoff.AgentStopOptions{Harness: "claude", NativeID: claudeID, LastMessage: "Hello! What shall we do?"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !stop.Block || !stop.Redelivered || stop.Session != first.Session.ID {
		t.Fatalf("first stop = %+v, want the brief given again", stop)
	}
	for _, want := range []string{"session-start hook was cut short", "rename the config loader", task.Handoff.ID, "do not run `git handoff start` again"} {
		if !strings.Contains(stop.Reason, want) {
			t.Fatalf("the stop's answer lacks %q:\n%s", want, stop.Reason)
		}
	}
	// The hook wrote that answer, and says so.
	if err := handoff.AgentDelivered(ctx, st, first.Session.ID); err != nil {
		t.Fatal(err)
	}
	again, err := handoff.AgentStop(ctx, st, handoff.AgentStopOptions{Harness: "claude", NativeID: claudeID, LastMessage: "Renamed nothing yet; the loader is used in two places."}, clock)
	if err != nil || again.Redelivered {
		t.Fatalf("second stop = %+v, %v: given once only", again, err)
	}
	agentExit(t, st, "claude", claudeID)
	b := privateBaton(t, st)
	if b.ID != task.Handoff.ID || b.ClaimedBySession != first.Session.ID || b.Reoffered != nil {
		t.Fatalf("the claim the agent was given at its stop was offered again: %+v", b.Baton)
	}
}

// Copilot's stops carry no last message, and its transcript may lack the
// last reply when its stop hook runs (seen in CI): the summary a stop read
// is the reply before, and the session's end reads the transcript once
// more, so what is handed on is the last reply.
func TestCopilotsSummaryIsItsLastReplyWhenItsSessionEnds(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	fixture, err := os.ReadFile("../transcript/testdata/copilot.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	last, err := transcript.LastReply("copilot", path)
	if err != nil || last == "" {
		t.Fatalf("the fixture's last reply: %q, %v", last, err)
	}
	// The transcript as the stop hook saw it: without the last reply.
	lines := strings.SplitAfter(string(fixture), "\n")
	cut := len(lines)
	for cut > 0 && !strings.Contains(lines[cut-1], strings.SplitN(last, "\n", 2)[0]) {
		cut--
	}
	if cut == 0 {
		t.Fatal("the fixture's last reply is on no line")
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines[:cut-1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := transcript.LastReply("copilot", path)
	if err != nil || before == "" || before == last {
		t.Fatalf("the cut transcript's last reply: %q, %v; want an earlier one than %q", before, err, last)
	}

	res := agentStartAs(t, st, "copilot", codexID)
	if _, err := handoff.AgentStop(ctx, st, handoff.AgentStopOptions{Harness: "copilot", NativeID: codexID, Transcript: path}, clock); err != nil {
		t.Fatal(err)
	}
	if s, _ := session.Read(ctx, st, res.Session.ID); s.Summary != session.CapSummary(before) {
		t.Fatalf("summary at the stop = %q, want %q", s.Summary, before)
	}
	// Then the agent finishes writing, and its session ends (Copilot's
	// sessionEnd names no transcript).
	if err := os.WriteFile(path, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := handoff.AgentEnd(ctx, st, handoff.AgentEndOptions{Harness: "copilot", NativeID: codexID, Reason: "complete"}, clock); err != nil {
		t.Fatal(err)
	}
	if s, _ := session.Read(ctx, st, res.Session.ID); s.Summary != session.CapSummary(last) {
		t.Fatalf("summary at the end = %q, want the last reply %q", s.Summary, last)
	}
}

// A teammate's baton fetched from the remote and not merged yet (only the
// remote's copy here holds it) waits as much as one written here: an
// automatic handoff written now would descend from it and replace it at
// the next sync, with only the agent's hook told. None is written.
func TestAutomaticHandoffNeverReplacesABatonWaitingAtTheRemote(t *testing.T) {
	st := open(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, "", "init", "-q", "--bare", remote)
	gittest.Run(t, st.Dir(), "remote", "add", "origin", remote)
	gittest.Run(t, st.Dir(), "config", "handoff.remote", "origin")
	agentStartAs(t, st, "claude", claudeID)
	commitFile(t, st.Dir(), "a.go", "work")
	waiting := leaveBaton(t, st, "a teammate's baton")
	// Its only copy here becomes the remote's, as a fetch left it.
	tracking, err := refstore.RemoteRef("origin", waiting.Handoff.Ref)
	if err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, st.Dir(), "update-ref", tracking, waiting.Handoff.OID)
	gittest.Run(t, st.Dir(), "update-ref", "-d", waiting.Handoff.Ref)
	agentExit(t, st, "claude", claudeID)
	if out := gittest.Run(t, st.Dir(), "for-each-ref", waiting.Handoff.Ref); out != "" {
		t.Fatalf("an automatic handoff was written over the baton waiting at the remote: %s", out)
	}
}
