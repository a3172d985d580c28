package agenthook_test

// End-to-end proofs of the agent hooks with the agents' own released CLIs
// (internal/agenttest) against a scripted fake model (internal/fakemodel):
// `git handoff init --agent` installs the hooks in a temporary repository,
// a baton is left with `git handoff end`, and the agent runs headless with
// the git-handoff built from this tree first on its PATH. What reached the
// model is read from the fake's requests; what happened to batons and
// sessions from `git handoff … --json`.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	agenttest.RemoveHandoffBin()
	os.Exit(code)
}

func tokenE2E() string {
	b := make([]byte, 5)
	rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

// project is a repository with the agents' hooks installed.
type project struct {
	t    *testing.T
	dir  string
	bin  string
	home string // HOME for the test's own git-handoff commands
}

// newProject makes a repository, configures its identity in the repository
// itself (every agent runs with a HOME of its own, so the owner must not
// come from a user-level file), and runs init --agent with no remote.
func newProject(t *testing.T, agents ...string) *project {
	t.Helper()
	home := gittest.Isolate(t)
	p := &project{t: t, dir: gittest.Init(t), bin: agenttest.HandoffBin(t), home: home}
	gittest.Run(t, p.dir, "config", "user.name", "Test Dev")
	gittest.Run(t, p.dir, "config", "user.email", "dev@example.com")
	args := []string{"init"}
	for _, a := range agents {
		args = append(args, "--agent", a)
	}
	p.handoff(args...)
	return p
}

// handoffIn runs the built git-handoff in dir as the test's own user (no
// agent's variables, so nothing is detected as an agent) and returns its
// stdout.
func (p *project) handoffIn(dir string, args ...string) string {
	p.t.Helper()
	cmd := exec.Command(filepath.Join(p.bin, "git-handoff"), args...)
	cmd.Dir = dir
	var env []string
	for _, kv := range gittest.Env(p.home) {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || agentVar(k) {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "PATH="+p.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		p.t.Fatalf("git handoff %s: %v\n%s%s", strings.Join(args, " "), err, out, msg)
	}
	return string(out)
}

// agentVar says whether a variable would name an agent, or a session, to
// git-handoff.
func agentVar(k string) bool {
	for _, prefix := range []string{"GIT_HANDOFF_", "CLAUDE", "AI_AGENT", "CODEX_", "GEMINI_", "COPILOT_", "OPENCODE", "CURSOR_", "GOOSE_"} {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// handoff runs the built git-handoff in the project's directory.
func (p *project) handoff(args ...string) string {
	p.t.Helper()
	return p.handoffIn(p.dir, args...)
}

type batonJSON struct {
	ID               string   `json:"id"`
	NextSteps        []string `json:"nextSteps"`
	Harness          string   `json:"harness"`
	SessionID        string   `json:"sessionId"`
	Claimed          bool     `json:"claimed"`
	ClaimedBySession string   `json:"claimedBySession"`
	// Auto: git-handoff wrote it for a session that left none.
	Auto *struct {
		Session string `json:"session"`
		Summary string `json:"summary"`
		Task    string `json:"task"`
	} `json:"auto"`
}

type sessionJSON struct {
	ID      string `json:"id"`
	Harness string `json:"harness"`
	Status  string `json:"status"`
	Summary string `json:"summary"`
	// ClaimedHandoff is the baton the session claimed, as claimed.
	ClaimedHandoff *batonJSON `json:"claimedHandoff"`
	Launched       map[string]struct {
		NativeID string `json:"nativeId"`
	} `json:"launched"`
}

// leave leaves a baton with one next step and returns its id.
func (p *project) leave(next string) string {
	p.t.Helper()
	var out struct {
		Handoff batonJSON `json:"handoff"`
	}
	p.decode(p.handoff("end", "--next", next, "--json"), &out)
	return out.Handoff.ID
}

func (p *project) decode(s string, v any) {
	p.t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		p.t.Fatalf("decoding %q: %v", s, err)
	}
}

// batons are every baton of the repository, claimed ones too.
func (p *project) batons() []batonJSON {
	p.t.Helper()
	var out struct {
		Handoffs []batonJSON `json:"handoffs"`
	}
	p.decode(p.handoff("list", "--all", "--json"), &out)
	return out.Handoffs
}

func (p *project) baton(id string) batonJSON {
	p.t.Helper()
	for _, b := range p.batons() {
		if b.ID == id {
			return b
		}
	}
	p.t.Fatalf("no baton %s in `list --all`", id)
	return batonJSON{}
}

// batonWith finds the one baton whose next steps hold text.
func (p *project) batonWith(text string) (batonJSON, bool) {
	p.t.Helper()
	var found []batonJSON
	for _, b := range p.batons() {
		if strings.Contains(strings.Join(b.NextSteps, "\n"), text) {
			found = append(found, b)
		}
	}
	if len(found) > 1 {
		p.t.Errorf("%d batons hold %q, want at most 1: %+v", len(found), text, found)
	}
	if len(found) == 0 {
		return batonJSON{}, false
	}
	return found[0], true
}

// sessions are every session of the repository, ended ones too.
func (p *project) sessions() []sessionJSON {
	p.t.Helper()
	var out struct {
		Sessions []sessionJSON `json:"sessions"`
	}
	p.decode(p.handoff("session", "ls", "--all", "--json"), &out)
	return out.Sessions
}

// sessionOf finds the one session the agent's own id names.
func (p *project) sessionOf(harnessName, nativeID string) sessionJSON {
	p.t.Helper()
	var found []sessionJSON
	for _, s := range p.sessions() {
		if s.Launched[harnessName].NativeID == nativeID {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		p.t.Fatalf("%d sessions with %s native id %q, want 1: %+v", len(found), harnessName, nativeID, p.sessions())
	}
	return found[0]
}

// agentFor sets an agent up against fake with the built git-handoff first
// on its PATH.
func (p *project) agentFor(name string, fake *fakemodel.Server) *agenttest.Agent {
	a := agenttest.New(p.t, name, fake)
	a.Path = []string{p.bin}
	// Codex runs shell commands in a login shell, whose /etc/profile
	// sets PATH afresh (as root on Debian): the user's profile puts
	// git-handoff back, as an installed one would be found.
	profile := "PATH=" + p.bin + ":$PATH\nexport PATH\n"
	if err := os.WriteFile(filepath.Join(a.Home, ".bash_profile"), []byte(profile), 0o644); err != nil {
		p.t.Fatal(err)
	}
	return a
}

func mustRun(t *testing.T, a *agenttest.Agent, fake *fakemodel.Server, run agenttest.Run) agenttest.Result {
	t.Helper()
	res := a.Run(run)
	if res.Code != 0 || res.SessionID == "" {
		t.Fatalf("%s run: %s\nrequests:\n%s", a.Name, res, fake.Dump())
	}
	return res
}

// stopMarker is in the Stop hook's reason and nowhere else the model sees.
const stopMarker = "changed the repository but left no baton"

// mainTurns are the requests of the agent's main loop from index from on.
func mainTurns(fake *fakemodel.Server, from int) []*fakemodel.Request {
	var out []*fakemodel.Request
	for _, r := range fake.Requests()[from:] {
		if r.OffersShell() {
			out = append(out, r)
		}
	}
	return out
}

func anyContains(reqs []*fakemodel.Request, texts ...string) bool {
	for _, r := range reqs {
		all := true
		for _, s := range texts {
			all = all && r.Contains(s)
		}
		if all {
			return true
		}
	}
	return false
}

// nudges counts the requests whose last user message is the stop reason:
// each is one Stop hook that blocked.
func nudges(fake *fakemodel.Server) int {
	n := 0
	for _, r := range fake.Requests() {
		if strings.Contains(r.LastUser, stopMarker) {
			n++
		}
	}
	return n
}

// The chain: Claude Code, then Codex, then Gemini CLI, then Claude Code
// again, in one repository. Each agent is given the baton the one before it
// left (behaviour 1), claims it once in a session of its own harness and
// native id (2), changes a file and leaves the next baton through its shell
// tool, attributed to its session (3), which the next agent receives (4);
// having left one, it is never asked for one at Stop (6).
func TestAgentsChainBatons(t *testing.T) {
	chain := []string{agenttest.Claude, agenttest.Codex, agenttest.Gemini, agenttest.Claude}
	for _, a := range chain {
		agenttest.Find(t, a)
	}
	p := newProject(t, agenttest.Claude, agenttest.Codex, agenttest.Gemini)
	tok := tokenE2E()
	step := func(i int) string { return "STEP-" + string(rune('A'+i)) + "-" + tok }
	prev := p.leave("start with " + step(0))
	for i, name := range chain {
		t.Logf("%d: %s given %s", i, name, step(i))
		want, next := step(i), step(i+1)
		shell := "echo " + next + " > work-" + next + ".txt && git handoff end --next \"go on with " + next + "\""
		fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
			if !r.OffersShell() {
				return fakemodel.Say("a title")
			}
			if len(r.ToolResults) == 0 && r.Contains(want) {
				rep, _ := r.Shell(shell)
				return rep
			}
			return fakemodel.Say("done")
		})
		a := p.agentFor(name, fake)
		t0 := time.Now()
		res := mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "carry on"})
		t.Logf("%s ran %v, %d requests", name, time.Since(t0).Round(time.Millisecond), len(fake.Requests()))

		if !anyContains(mainTurns(fake, 0), want) {
			t.Errorf("%s: the brief with %s reached no request\n%s", name, want, fake.Dump())
		}
		s := p.sessionOf(name, res.SessionID)
		if s.Harness != name {
			t.Errorf("%s: session %s has harness %q", name, s.ID, s.Harness)
		}
		if s.ClaimedHandoff == nil || s.ClaimedHandoff.ID != prev {
			t.Errorf("%s: session %s claimed %+v, want baton %s", name, s.ID, s.ClaimedHandoff, prev)
		}
		left, ok := p.batonWith(next)
		if !ok {
			t.Fatalf("%s: no baton with %s was left\n%s\nrequests:\n%s", name, next, res, fake.Dump())
		}
		if left.SessionID != s.ID || left.Harness != name {
			t.Errorf("%s: the baton it left is of session %q, harness %q; want %s, %s", name, left.SessionID, left.Harness, s.ID, name)
		}
		if _, err := os.Stat(filepath.Join(p.dir, "work-"+next+".txt")); err != nil {
			t.Errorf("%s: the shell command did not run: %v", name, err)
		}
		if n := nudges(fake); n != 0 {
			t.Errorf("%s: asked for a baton at Stop %d times, though it left one\n%s", name, n, fake.Dump())
		}
		prev = left.ID
	}
	// One session per run, each of which claimed a different baton.
	claimed := map[string]string{}
	for _, s := range p.sessions() {
		if s.ClaimedHandoff == nil {
			t.Errorf("session %s (%s) claimed nothing", s.ID, s.Harness)
			continue
		}
		if other, dup := claimed[s.ClaimedHandoff.ID]; dup {
			t.Errorf("baton %s was claimed by %s and %s", s.ClaimedHandoff.ID, other, s.ID)
		}
		claimed[s.ClaimedHandoff.ID] = s.ID
	}
	if len(claimed) != len(chain) {
		t.Errorf("%d batons claimed, want %d: %+v", len(claimed), len(chain), p.sessions())
	}
}

// continuing is the header of the context a session that goes on is given.
func continuing(sessionID, source string) string {
	return "continuing git-handoff session " + sessionID + " (" + source + ")"
}

// checkOneClaim fails unless the project has one session, s, which still
// holds baton id as the one it claimed, and the baton is claimed by it.
func (p *project) checkOneClaim(s sessionJSON, id, when string) {
	p.t.Helper()
	all := p.sessions()
	if len(all) != 1 || all[0].ID != s.ID {
		p.t.Errorf("%s: sessions %+v, want only %s", when, all, s.ID)
	}
	for _, got := range all {
		if got.ClaimedHandoff == nil || got.ClaimedHandoff.ID != id {
			p.t.Errorf("%s: session %s holds claimed baton %+v, want %s", when, got.ID, got.ClaimedHandoff, id)
		}
	}
	if b := p.baton(id); !b.Claimed || b.ClaimedBySession != s.ID {
		p.t.Errorf("%s: baton %s claimed %v by %q, want by %s", when, id, b.Claimed, b.ClaimedBySession, s.ID)
	}
}

// Resume, and compaction where the agent compacts headless, give the
// session the baton it claimed again, with nothing claimed a second time
// (behaviour 5).
func TestAgentsResumeAndCompactRedeliver(t *testing.T) {
	for _, name := range []string{agenttest.Claude, agenttest.Codex, agenttest.Gemini} {
		t.Run(name, func(t *testing.T) {
			p := newProject(t, name)
			tok := tokenE2E()
			next := "NEXT-R-" + tok
			id := p.leave("look at " + next)
			// compacting: the next main turn answers with a shell call
			// reporting a prompt over Codex's compaction limit.
			var compacting bool
			fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
				if !r.OffersShell() {
					return fakemodel.Say("summary of the work " + tok)
				}
				if compacting {
					compacting = false
					rep, _ := r.Shell("echo one")
					rep.InputTokens = 200000
					return rep
				}
				return fakemodel.Say("hello " + tok)
			})
			a := p.agentFor(name, fake)
			first := mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "first prompt"})
			if !anyContains(mainTurns(fake, 0), next) {
				t.Fatalf("the brief with %s reached no request\n%s", next, fake.Dump())
			}
			s := p.sessionOf(name, first.SessionID)
			p.checkOneClaim(s, id, "after the first run")

			before := len(fake.Requests())
			resumed := mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "second prompt " + tok, Resume: first.SessionID})
			if !anyContains(mainTurns(fake, before), continuing(s.ID, "resume"), next, "second prompt "+tok) {
				t.Errorf("no request of the resumed run holds the claimed baton given again on resume\n%s", fake.Dump())
			}
			if resumed.SessionID != first.SessionID {
				t.Errorf("resumed as %q, want %q", resumed.SessionID, first.SessionID)
			}
			p.checkOneClaim(s, id, "after resume")

			switch name {
			case agenttest.Claude:
				// /compact in -p mode on the resumed conversation fires
				// SessionStart source compact; its context is in the next
				// turn.
				mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "/compact", Resume: first.SessionID})
				before = len(fake.Requests())
				mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "after compact " + tok, Resume: first.SessionID})
				if !anyContains(mainTurns(fake, before), continuing(s.ID, "compact"), next, "after compact "+tok) {
					t.Errorf("no request after /compact holds the claimed baton given again\n%s", fake.Dump())
				}
			case agenttest.Codex:
				// Codex compacts within a turn, by the token count.
				compacting = true
				before = len(fake.Requests())
				mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "third prompt " + tok, Resume: first.SessionID,
					Args: []string{"-c", "model_auto_compact_token_limit=50000"}})
				reqs := fake.Requests()[before:]
				summary := -1
				for i, r := range reqs {
					if !r.OffersShell() {
						summary = i
					}
				}
				if summary < 0 {
					t.Fatalf("codex did not compact\n%s", fake.Dump())
				}
				if !anyContains(reqs[summary+1:], continuing(s.ID, "compact"), next, "summary of the work "+tok) {
					t.Errorf("no request after the compaction holds the claimed baton given again\n%s", fake.Dump())
				}
			}
			p.checkOneClaim(s, id, "at the end")
		})
	}
}

// The Stop hook asks a session that changed a file and left no baton for
// one, once: the reason is the next request's last user message, and
// neither the stop after it nor a later turn's is blocked (behaviour 6).
func TestAgentsStopNudgesOnce(t *testing.T) {
	for _, name := range []string{agenttest.Claude, agenttest.Codex, agenttest.Gemini} {
		t.Run(name, func(t *testing.T) {
			p := newProject(t, name)
			tok := tokenE2E()
			fake := fakemodel.Start(t, workWithoutBaton(tok))
			a := p.agentFor(name, fake)
			first := mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "make work"})
			if _, err := os.Stat(filepath.Join(p.dir, "made.txt")); err != nil {
				t.Fatalf("the shell command did not run: %v\n%s", err, fake.Dump())
			}
			s := p.sessionOf(name, first.SessionID)
			if n := nudges(fake); n != 1 {
				t.Fatalf("%d requests carry the stop reason, want 1\n%s", n, fake.Dump())
			}
			for _, r := range fake.Requests() {
				if strings.Contains(r.LastUser, stopMarker) && !(strings.Contains(r.LastUser, "git handoff end --next") && strings.Contains(r.LastUser, s.ID)) {
					t.Errorf("the stop reason does not say how to leave a baton for %s: %q", s.ID, r.LastUser)
				}
			}
			mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "anything else " + tok, Resume: first.SessionID})
			if n := nudges(fake); n != 1 {
				t.Errorf("after a later turn %d requests carry the stop reason, want 1\n%s", n, fake.Dump())
			}
			if _, ok := p.batonWith(tok); ok {
				t.Errorf("a baton was left, though the model never asked for one")
			}
		})
	}
}

// Copilot CLI ignores what its sessionStart hook prints, so init's section
// in .github/copilot-instructions.md asks the agent to run `git handoff
// start`: the instruction reaches the model, the brief comes back as the
// shell tool's output, the session is Copilot's (its shell tool sets
// COPILOT_CLI and COPILOT_AGENT_SESSION_ID), and agentStop asks for a baton
// once after work.
func TestCopilotStartsThroughInstructions(t *testing.T) {
	p := newProject(t, agenttest.Copilot)
	tok := tokenE2E()
	next := "NEXT-C-" + tok
	id := p.leave("look at " + next)
	const instruction = "before any other work, run `git handoff start`"
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case !r.OffersShell():
			return fakemodel.Say("a title")
		case strings.Contains(r.LastUser, stopMarker):
			return fakemodel.Say("not leaving one " + tok)
		case len(r.ToolResults) == 0 && r.Contains(instruction):
			rep, _ := r.Shell("git handoff start")
			return rep
		case len(r.ToolResults) == 1:
			rep, _ := r.Shell("echo " + tok + " > made.txt")
			return rep
		}
		return fakemodel.Say("done " + tok)
	})
	a := p.agentFor(agenttest.Copilot, fake)
	first := mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "carry on"})
	if !anyContains(mainTurns(fake, 0), instruction) {
		t.Fatalf("the instruction file reached no request\n%s", fake.Dump())
	}
	if !fake.SawToolOutput(next) {
		t.Fatalf("the brief with %s came back in no tool output\n%s\n%s", next, first, fake.Dump())
	}
	if _, err := os.Stat(filepath.Join(p.dir, "made.txt")); err != nil {
		t.Fatalf("the second shell command did not run: %v\n%s", err, fake.Dump())
	}
	all := p.sessions()
	if len(all) != 1 {
		t.Fatalf("sessions %+v, want one (the sessionStart hook starts none)", all)
	}
	s := all[0]
	if s.Harness != agenttest.Copilot || s.ClaimedHandoff == nil || s.ClaimedHandoff.ID != id {
		t.Errorf("session %s: harness %q, claimed %+v; want copilot, baton %s", s.ID, s.Harness, s.ClaimedHandoff, id)
	}
	if got := s.Launched[agenttest.Copilot].NativeID; got != first.SessionID {
		t.Errorf("session %s has copilot native id %q, want %q", s.ID, got, first.SessionID)
	}
	if n := nudges(fake); n != 1 {
		t.Fatalf("%d requests carry the stop reason, want 1\n%s", n, fake.Dump())
	}
	mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "anything else " + tok, Resume: first.SessionID})
	if n := nudges(fake); n != 1 {
		t.Errorf("after a later turn %d requests carry the stop reason, want 1\n%s", n, fake.Dump())
	}
}

// `session launch` starts Codex so that the hooks init installed run, even
// in a linked worktree of a project Codex was never told to trust, where
// it loads no project hooks at all: the plan's hook overrides and trust
// bypass, given to `codex exec`, make its SessionStart hook continue the
// launched session (its native id recorded, its brief in the context).
func TestCodexLaunchRunsHooksInAnUntrustedLinkedWorktree(t *testing.T) {
	p := newProject(t, agenttest.Codex)
	gittest.Run(t, p.dir, "add", "-A")
	gittest.Run(t, p.dir, "commit", "-q", "-m", "codex hooks")
	wt := filepath.Join(filepath.Dir(p.dir), "linked")
	gittest.Run(t, p.dir, "worktree", "add", "-q", "-b", "feature", wt)
	tok := tokenE2E()
	next := "NEXT-L-" + tok
	id := func() string {
		var out struct {
			Handoff batonJSON `json:"handoff"`
		}
		p.decode(p.handoffIn(wt, "end", "--next", "look at "+next, "--json"), &out)
		return out.Handoff.ID
	}()
	var started struct {
		Session sessionJSON `json:"session"`
	}
	// A session of another agent, switched to Codex with a task.
	p.decode(p.handoffIn(wt, "start", "--harness", "claude-code", "--json"), &started)
	sid := started.Session.ID
	if sid == "" {
		t.Fatalf("start gave no session")
	}
	p.handoffIn(wt, "session", "switch", sid, "--harness", "codex", "--prompt", "the task "+tok)

	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply { return fakemodel.Say("on it " + tok) })
	a := p.agentFor(agenttest.Codex, fake)
	var plan struct {
		Argv []string `json:"argv"`
		Dir  string   `json:"dir"`
		Env  []string `json:"env"`
	}
	p.decode(p.handoffIn(wt, "session", "launch", sid, "--json"), &plan)
	t.Logf("plan: %q in %s with %q", plan.Argv, plan.Dir, plan.Env)
	// codex [-c hooks…]… --dangerously-bypass-hook-trust [--model M] PROMPT:
	// the same options, given to codex exec.
	if len(plan.Argv) < 2 || filepath.Base(plan.Argv[0]) != "codex" {
		t.Fatalf("plan argv %q is not a codex command", plan.Argv)
	}
	var args []string
	var bypass bool
	for i := 1; i < len(plan.Argv)-1; i++ {
		switch plan.Argv[i] {
		case "-c":
			args = append(args, "-c", plan.Argv[i+1])
			i++
		case "--dangerously-bypass-hook-trust":
			bypass = true
			args = append(args, plan.Argv[i])
		}
	}
	if !bypass || len(args) < 3 {
		t.Fatalf("the plan passes no hooks with the trust bypass: %q", plan.Argv)
	}
	prompt := plan.Argv[len(plan.Argv)-1]
	res := mustRun(t, a, fake, agenttest.Run{Dir: plan.Dir, Prompt: prompt, Args: args, Env: plan.Env, Untrusted: true})
	if !anyContains(mainTurns(fake, 0), "continuing git-handoff session "+sid, next) {
		t.Errorf("the SessionStart hook's context for session %s reached no request\n%s", sid, fake.Dump())
	}
	all := p.sessions()
	if len(all) != 1 || all[0].ID != sid {
		t.Fatalf("sessions %+v, want only %s", all, sid)
	}
	if got := all[0].Launched[agenttest.Codex].NativeID; got != res.SessionID {
		t.Errorf("session %s has codex native id %q, want %q (the hook did not see it)", sid, got, res.SessionID)
	}
	if all[0].ClaimedHandoff == nil || all[0].ClaimedHandoff.ID != id {
		t.Errorf("session %s holds claimed baton %+v, want %s", sid, all[0].ClaimedHandoff, id)
	}

	// Without the plan's options, codex in that worktree runs no hook.
	before := len(fake.Requests())
	mustRun(t, a, fake, agenttest.Run{Dir: wt, Prompt: "plain run " + tok, Untrusted: true})
	if anyContains(mainTurns(fake, before), "git-handoff session") {
		t.Errorf("codex ran the project's hooks in an untrusted linked worktree: the test proves nothing\n%s", fake.Dump())
	}
}

// OpenCode with init's plugin: the brief reaches the model in the system
// prompt of a session `opencode run` makes, the session is opencode's with
// its own id, and, in `opencode serve` (the TUI's server, where a session
// outlives its turn), after work without a baton the idle session is asked
// for one, once. `opencode run` exits at the first idle, before the
// plugin's follow-up prompt could run.
func TestOpenCodePluginBriefAndStop(t *testing.T) {
	p := newProject(t, agenttest.OpenCode)
	tok := tokenE2E()
	next := "NEXT-O-" + tok
	id := p.leave("look at " + next)
	fake := fakemodel.Start(t, workWithoutBaton(tok))
	a := p.agentFor(agenttest.OpenCode, fake)
	res := mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "say hello", Timeout: 3 * agenttest.DefaultTimeout})
	inSystem := func(from int, text string) bool {
		for _, r := range mainTurns(fake, from) {
			var body struct {
				System any `json:"system"`
			}
			json.Unmarshal(r.Body, &body)
			sys, _ := json.Marshal(body.System)
			if strings.Contains(string(sys), text) {
				return true
			}
		}
		return false
	}
	if !inSystem(0, next) {
		t.Errorf("the brief with %s is in no request's system prompt\n%s", next, fake.Dump())
	}
	s := p.sessionOf(agenttest.OpenCode, res.SessionID)
	if s.Harness != agenttest.OpenCode || s.ClaimedHandoff == nil || s.ClaimedHandoff.ID != id {
		t.Errorf("session %s: harness %q, claimed %+v; want opencode, baton %s", s.ID, s.Harness, s.ClaimedHandoff, id)
	}

	// The stop, in a server: a new opencode session (a second git-handoff
	// session, the baton already claimed) makes work in one turn.
	before := len(fake.Requests())
	t0 := time.Now()
	srv := startOpenCodeServer(t, a, p.dir)
	t.Logf("opencode serve up after %v", time.Since(t0))
	sid := srv.post(t, "/session", `{}`, "id")
	srv.post(t, "/session/"+sid+"/message", `{"parts":[{"type":"text","text":"make work"}],"model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}`, "")
	if _, err := os.Stat(filepath.Join(p.dir, "made.txt")); err != nil {
		t.Fatalf("the shell command did not run: %v\n%s", err, fake.Dump())
	}
	// The follow-up prompt is sent when the session goes idle, after the
	// message call returned: wait for its answer (a bound, not a timing
	// claim), then for anything a second stop would have sent.
	for deadline := time.Now().Add(120 * time.Second); nudges(fake) == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
	}
	t.Logf("served session %s:\n%s", sid, fake.Dump())
	if n := nudges(fake); n != 1 {
		t.Fatalf("%d requests carry the stop reason, want 1\n%s\n%s", n, fake.Dump(), srv.out.String())
	}
	srv.waitIdle(t, sid, fake)
	if n := nudges(fake); n != 1 {
		t.Errorf("%d requests carry the stop reason after the answer to it, want 1\n%s", n, fake.Dump())
	}
	srv.post(t, "/session/"+sid+"/message", `{"parts":[{"type":"text","text":"anything else"}],"model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}`, "")
	srv.waitIdle(t, sid, fake)
	if n := nudges(fake); n != 1 {
		t.Errorf("%d requests carry the stop reason after a later turn, want 1\n%s", n, fake.Dump())
	}
	if !inSystem(before, "git-handoff session") {
		t.Errorf("the served session was given no brief\n%s", fake.Dump())
	}
	if n := len(p.sessions()); n != 2 {
		t.Errorf("%d git-handoff sessions, want 2 (one per opencode session): %+v", n, p.sessions())
	}
	// Each stop keeps the model's last reply as the session's summary,
	// which the plugin reads from opencode (its event carries none).
	if s := p.sessionOf(agenttest.OpenCode, sid); s.Summary != "done "+tok {
		t.Errorf("the served session's summary = %q, want the model's last reply %q", s.Summary, "done "+tok)
	}
}

type openCodeServer struct {
	url string
	out *bytes.Buffer
}

// startOpenCodeServer runs `opencode serve` in dir with the agent's
// environment, until the test ends.
func startOpenCodeServer(t *testing.T, a *agenttest.Agent, dir string) *openCodeServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(a.Bin, "serve", "--port", strconv.Itoa(port), "--hostname", "127.0.0.1")
	cmd.Dir = dir
	cmd.Env = a.Environ("PWD=" + dir)
	srv := &openCodeServer{url: "http://127.0.0.1:" + strconv.Itoa(port), out: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = srv.out, srv.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	// Generous: under load (go test ./... with the other opencode tests)
	// it took over a minute.
	if err := agenttest.OpenCodeServeReady(srv.url, dir, 240*time.Second); err != nil {
		t.Fatalf("%v\n%s", err, srv.out.String())
	}
	return srv
}

// post sends body to path and returns the answer's field key ("" = none).
func (s *openCodeServer) post(t *testing.T, path, body, key string) string {
	t.Helper()
	client := &http.Client{Timeout: 3 * agenttest.DefaultTimeout}
	resp, err := client.Post(s.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v\n%s", path, err, s.out.String())
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %s %s\n%s", path, resp.Status, b.String(), s.out.String())
	}
	if key == "" {
		return ""
	}
	var v map[string]any
	if err := json.Unmarshal(b.Bytes(), &v); err != nil {
		t.Fatalf("POST %s: %v: %s", path, err, b.String())
	}
	got, _ := v[key].(string)
	return got
}

// waitIdle waits until the session's status says idle and the fake has
// seen no new request for a moment: the plugin's idle handler ran and
// whatever it sent was answered.
func (s *openCodeServer) waitIdle(t *testing.T, sid string, fake *fakemodel.Server) {
	t.Helper()
	last, quiet := -1, 0
	for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		n := len(fake.Requests())
		busy := true
		if resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(s.url + "/session/status"); err == nil {
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			resp.Body.Close()
			busy = strings.Contains(b.String(), sid)
		}
		if n == last && !busy {
			quiet++
			if quiet >= 8 {
				return
			}
		} else {
			quiet = 0
		}
		last = n
	}
	t.Fatalf("session %s never went quiet\n%s", sid, fake.Dump())
}

// workWithoutBaton is a model that, asked to "make work", writes a file
// through the shell tool, answers the Stop nudge without leaving a baton,
// and otherwise says it is done; tok marks its answers.
func workWithoutBaton(tok string) fakemodel.Script {
	return func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case !r.OffersShell():
			return fakemodel.Say("a title")
		case strings.Contains(r.LastUser, stopMarker):
			return fakemodel.Say("not leaving one " + tok)
		case strings.Contains(r.LastUser, "make work") && len(r.ToolResults) == 0:
			rep, _ := r.Shell("echo " + tok + " > made.txt")
			return rep
		}
		return fakemodel.Say("done " + tok)
	}
}
