package agenthook_test

// End-to-end proofs of "never start cold" with the agents' released CLIs
// against the fake model: what a session did reaches the next one when it
// left no baton, a replacement carries the task, and a claim the agent
// never acted on is offered again.

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/fakemodel"
)

// commitWithoutBaton is a model that, asked to "make work", commits a file
// through the shell tool and, asked for a baton by the Stop hook, declines
// with a summary; tok marks its answers.
func commitWithoutBaton(tok string) fakemodel.Script {
	return func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case !r.OffersShell():
			return fakemodel.Say("a title")
		case strings.Contains(r.LastUser, stopMarker):
			return fakemodel.Say("SUMMARY-" + tok + ": block comments are skipped; nested ones are next. No baton from me.")
		case strings.Contains(r.LastUser, "make work") && len(r.ToolResults) == 0:
			rep, _ := r.Shell("echo " + tok + " > made.txt && git add made.txt && git commit -q -m 'COMMIT-" + tok + "'")
			return rep
		}
		return fakemodel.Say("done " + tok)
	}
}

// Claude Code claims a task, commits, is asked for a baton at Stop,
// declines and exits: Codex's next session on the branch is given the
// automatic handoff, with Claude's last message, the task it had claimed
// and its commit, labelled as git-handoff's.
func TestClaudeLeavesNoBatonCodexStartsWarm(t *testing.T) {
	agenttest.Find(t, agenttest.Claude)
	agenttest.Find(t, agenttest.Codex)
	p := newProject(t, agenttest.Claude, agenttest.Codex)
	tok := tokenE2E()
	task := p.leave("TASK-" + tok + ": skip block comments in the lexer")

	fake := fakemodel.Start(t, commitWithoutBaton(tok))
	claude := p.agentFor(agenttest.Claude, fake)
	first := mustRun(t, claude, fake, agenttest.Run{Dir: p.dir, Prompt: "make work"})
	s := p.sessionOf(agenttest.Claude, first.SessionID)
	if s.Status != "ended" {
		t.Fatalf("claude's session is %s after it exited, want ended", s.Status)
	}
	// The SessionEnd hook leaves the handover to a process of its own.
	var auto *batonJSON
	for deadline := time.Now().Add(30 * time.Second); auto == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		for _, b := range p.batons() {
			if b.Auto != nil && b.Auto.Session == s.ID {
				auto = &b
			}
		}
	}
	if auto == nil || auto.Claimed || auto.Auto.Task != task || !strings.Contains(auto.Auto.Summary, "SUMMARY-"+tok) {
		t.Fatalf("no automatic handoff for %s with its summary and task: %+v\n%s", s.ID, p.batons(), fake.Dump())
	}

	fake2 := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply { return fakemodel.Say("on it " + tok) })
	codex := p.agentFor(agenttest.Codex, fake2)
	second := mustRun(t, codex, fake2, agenttest.Run{Dir: p.dir, Prompt: "go on"})
	if !anyContains(mainTurns(fake2, 0), "Automatic handoff (written by git-handoff", "SUMMARY-"+tok, "TASK-"+tok, "COMMIT-"+tok) {
		t.Fatalf("codex was not given the automatic handoff\n%s", fake2.Dump())
	}
	next := p.sessionOf(agenttest.Codex, second.SessionID)
	if next.ClaimedHandoff == nil || next.ClaimedHandoff.ID != auto.ID {
		t.Fatalf("codex's session %s claimed %+v, want the automatic handoff %s", next.ID, next.ClaimedHandoff, auto.ID)
	}
	if b := p.baton(auto.ID); !b.Claimed || b.ClaimedBySession != next.ID {
		t.Fatalf("the automatic handoff is %+v, want claimed by %s", b, next.ID)
	}
}

// A Claude session that took its task and a turn on it is replaced: the
// replacement's package holds the task and the session's last message.
func TestReplacingAClaudeSessionCarriesItsTaskAndSummary(t *testing.T) {
	agenttest.Find(t, agenttest.Claude)
	p := newProject(t, agenttest.Claude)
	tok := tokenE2E()
	p.leave("TASK-" + tok + ": port the keyword table")
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		if !r.OffersShell() {
			return fakemodel.Say("a title")
		}
		return fakemodel.Say("SUMMARY-" + tok + ": half the keywords are ported.")
	})
	claude := p.agentFor(agenttest.Claude, fake)
	first := mustRun(t, claude, fake, agenttest.Run{Dir: p.dir, Prompt: "work on it"})
	s := p.sessionOf(agenttest.Claude, first.SessionID)
	var rep struct {
		Package string `json:"package"`
	}
	p.decode(p.handoff("session", "replace", s.ID, "--reason", "stuck", "--json"), &rep)
	for _, want := range []string{"TASK-" + tok, "SUMMARY-" + tok} {
		if !strings.Contains(rep.Package, want) {
			t.Fatalf("the package lacks %q:\n%s", want, rep.Package)
		}
	}
}

// Claude Code killed right after its SessionStart hook claimed a baton,
// before its first turn: the next Claude session here is given that
// baton, with a notice naming the first. It is killed as its first turn's
// request reaches the model (which the hook's brief is part of), not at a
// deadline waited out.
func TestClaudeKilledAtStartLeavesItsBatonToTheNext(t *testing.T) {
	agenttest.Find(t, agenttest.Claude)
	p := newProject(t, agenttest.Claude)
	tok := tokenE2E()
	task := p.leave("TASK-" + tok)
	var hang atomic.Bool
	hang.Store(true)
	release := make(chan struct{})
	asked := make(chan struct{})
	var askedOnce sync.Once
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		if r.OffersShell() && hang.Load() {
			askedOnce.Do(func() { close(asked) })
			select { // the model does not answer: the agent is killed
			case <-release:
			case <-time.After(60 * time.Second):
			}
		}
		return fakemodel.Say("got it " + tok)
	})
	claude := p.agentFor(agenttest.Claude, fake)
	killed := claude.Run(agenttest.Run{Dir: p.dir, Prompt: "start", Kill: asked})
	if !killed.Killed {
		t.Fatalf("claude was not killed at its first turn: %s\n%s", killed, fake.Dump())
	}
	if b := p.baton(task); !b.Claimed {
		t.Fatalf("claude's start hook did not claim the baton before it was killed: %+v\n%s", b, fake.Dump())
	}
	hang.Store(false)
	close(release)
	next := mustRun(t, claude, fake, agenttest.Run{Dir: p.dir, Prompt: "go on"})
	s := p.sessionOf(agenttest.Claude, next.SessionID)
	if s.ClaimedHandoff == nil || s.ClaimedHandoff.ID != task {
		t.Fatalf("the next session %s claimed %+v, want baton %s", s.ID, s.ClaimedHandoff, task)
	}
	if !anyContains(mainTurns(fake, 0), "TASK-"+tok, "never acted on it") {
		t.Fatalf("the next session was not given the baton with the notice\n%s", fake.Dump())
	}
}
