package agenthook_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/tmuxrt/tmuxrttest"
)

// continueE2EDeadline bounds the whole test: every wait below stops there.
const continueE2EDeadline = 3 * time.Minute

// failureLog keeps the moments the test measures between: the 429 and
// the next agent's first request, as the fake saw them.
type failureLog struct {
	mu      sync.Mutex
	limited time.Time // the first 429
	limits  int       // 429s answered
	nextAt  time.Time // the next agent's first request with the brief
}

// continueTarget is an agent a session goes on in after Claude Code's
// usage limit, and what the test needs to drive it.
type continueTarget struct {
	name string        // its harness name, handoff.fallback's value
	api  fakemodel.API // the protocol its requests come in on
	// setUp makes the agent ready to run in the project against fake,
	// under Claude Code's HOME (the tmux server's, which the pane keeps),
	// and returns the environment it needs beside Claude Code's.
	setUp func(t *testing.T, p *project, claude *agenttest.Agent, fake *fakemodel.Server) []string
}

// TestClaudeUsageLimitContinuesInCodex: Claude Code, launched under tmux
// with `session launch --tmux`, answers its first turn; its second turn
// meets the Messages API's usage-limit answer (429, rate_limit_error, the
// unified limit rejected), so Claude Code's StopFailure hook reports it.
// With handoff.fallback codex the session goes on in the real Codex CLI in
// the same pane and worktree, whose first request carries the brief with
// the reason and Claude's last message, once; the time from the 429 to
// Codex's first request is logged.
func TestClaudeUsageLimitContinuesInCodex(t *testing.T) {
	continueAfterClaudeLimit(t, continueTarget{
		name: agenttest.Codex,
		api:  fakemodel.OpenAI,
		setUp: func(t *testing.T, p *project, _ *agenttest.Agent, fake *fakemodel.Server) []string {
			codex := p.agentFor(agenttest.Codex, fake)
			codex.Trust(p.dir)
			return []string{"CODEX_HOME=" + codex.CodexHome(), "FAKE_OPENAI_KEY=" + agenttest.APIKey}
		},
	})
}

// TestClaudeUsageLimitContinuesInGemini: the same with handoff.fallback
// gemini: the session goes on in the real Gemini CLI, interactive in the
// pane (--prompt-interactive with the brief).
func TestClaudeUsageLimitContinuesInGemini(t *testing.T) {
	continueAfterClaudeLimit(t, continueTarget{
		name: agenttest.Gemini,
		api:  fakemodel.Gemini,
		setUp: func(t *testing.T, p *project, claude *agenttest.Agent, fake *fakemodel.Server) []string {
			// Gemini CLI reads its user settings (API-key auth, hooks on,
			// no update check) from the HOME it shares with Claude Code.
			if err := claude.WriteJSON(filepath.Join(claude.Home, ".gemini", "settings.json"), agenttest.GeminiUserSettings()); err != nil {
				t.Fatal(err)
			}
			// The variables agenttest points Gemini CLI at the fake with
			// (its key, base URL, and the workspace trusted, where an
			// interactive start would ask).
			var env []string
			for _, kv := range agenttest.New(t, agenttest.Gemini, fake).Environ() {
				if strings.HasPrefix(kv, "GEMINI_") || strings.HasPrefix(kv, "GOOGLE_") {
					env = append(env, kv)
				}
			}
			return env
		},
	})
}

// continueAfterClaudeLimit runs Claude Code into its usage limit under
// tmux with handoff.fallback next.name and checks the session goes on in
// next, once, in the same pane and worktree, with the brief.
func continueAfterClaudeLimit(t *testing.T, next continueTarget) {
	agenttest.Find(t, agenttest.Claude)
	agenttest.Find(t, next.name)
	deadline := time.Now().Add(continueE2EDeadline)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()

	p := newProject(t, agenttest.Claude, next.name)
	tok := tokenE2E()
	last := "LAST-" + tok + ": nested lists parse now; the error messages are next."
	goOn := "GO-ON-" + tok
	const reasonHead = "claude-code stopped: usage limit"
	const takeOver = "You take over from another agent"

	var fl failureLog
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		if !r.OffersShell() {
			return fakemodel.Say("a title")
		}
		if r.API == next.api {
			fl.mu.Lock()
			if strings.Contains(r.Text, takeOver) && fl.nextAt.IsZero() {
				fl.nextAt = r.At
			}
			fl.mu.Unlock()
			return fakemodel.Say(next.name + " on it " + tok)
		}
		if strings.Contains(r.LastUser, goOn) {
			fl.mu.Lock()
			if fl.limited.IsZero() {
				fl.limited = r.At
			}
			fl.limits++
			fl.mu.Unlock()
			return fakemodel.UsageLimit(time.Now().Add(3 * time.Hour))
		}
		return fakemodel.Say(last)
	})
	claude := p.agentFor(agenttest.Claude, fake)
	// The agents' programs on PATH, where the launch and the continuation
	// look for them.
	claude.Path = append(claude.Path, agenttest.ToolsDir())
	claude.Trust(p.dir)
	nextEnv := next.setUp(t, p, claude, fake)

	// What Claude Code gives its StopFailure hook, copied by a user-level
	// hook beside the project's.
	recorded := filepath.Join(t.TempDir(), "stop-failure.json")
	settings := map[string]any{"hooks": map[string]any{"StopFailure": []any{map[string]any{
		"hooks": []any{map[string]any{"type": "command", "command": "cat > " + recorded}},
	}}}}
	if err := claude.WriteJSON(filepath.Join(claude.Home, ".claude", "settings.json"), settings); err != nil {
		t.Fatal(err)
	}

	// After every directory the agents use, so that its server (and the
	// agents in it) is gone before they are removed.
	socket := tmuxrttest.Socket(t)

	gittest.Run(t, p.dir, "config", "handoff.fallback", next.name)
	const id = "s-limit"
	p.handoff("start", "--session", id, "--harness", "claude-code", "--objective", "OBJ-"+tok+": parse nested lists")

	// One environment for the tmux server, whose panes inherit it: Claude
	// Code's and the next agent's, each pointed at the fake. Claude Code's retries
	// are left as a user has them: the 429's retry-after, hours away,
	// makes it give up at once (without one it retried ten times, for
	// minutes, before StopFailure).
	env := claude.Environ(append(nextEnv, "PWD="+p.dir, tmuxrt.SocketEnv+"="+socket)...)
	handoffEnv := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, filepath.Join(p.bin, "git-handoff"), args...)
		cmd.Dir, cmd.Env = p.dir, env
		out, err := cmd.Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			t.Fatalf("git handoff %s: %v\n%s%s", strings.Join(args, " "), err, out, msg)
		}
		return string(out)
	}
	var launched struct {
		Runtime struct {
			Name   string `json:"name"`
			Socket string `json:"socket"`
		} `json:"runtime"`
		Launch struct {
			Argv []string `json:"argv"`
		} `json:"launch"`
	}
	p.decode(handoffEnv("session", "launch", id, "--tmux", "--json"), &launched)
	t.Logf("launched %q in tmux session %s", launched.Launch.Argv, launched.Runtime.Name)
	srv := tmuxrt.Server{Path: launched.Runtime.Socket}
	name := launched.Runtime.Name
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, "tmux", append([]string{"-S", srv.Path}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	screen := func() string {
		b, err := srv.Capture(ctx, name, 200)
		if err != nil {
			return err.Error()
		}
		return string(b)
	}
	// wait polls ok for at most bound, and no longer than the test's
	// deadline.
	wait := func(what string, bound time.Duration, ok func() bool) {
		t.Helper()
		end := time.Now().Add(bound)
		if end.After(deadline) {
			end = deadline
		}
		for !ok() {
			if time.Now().After(end) {
				t.Fatalf("never %s\nscreen:\n%s\nsession:\n%s\nrequests:\n%s", what, screen(), p.handoff("session", "show", id), fake.Dump())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	t0 := time.Now()

	// The first turn: the brief in, the last message out; the Stop hook
	// keeps it as the session's summary.
	wait("did Claude Code's first turn end", time.Minute, func() bool {
		var out struct {
			Summary string `json:"summary"`
		}
		p.decode(p.handoff("session", "show", id, "--json"), &out)
		return strings.Contains(out.Summary, "LAST-"+tok)
	})
	before, ok, err := srv.Pane(ctx, name)
	if err != nil || !ok {
		t.Fatalf("no pane for %s: %v", name, err)
	}
	t.Logf("claude's first turn ended after %v (pane %s, pid %d)", time.Since(t0).Round(time.Millisecond), before.ID, before.PID)

	// The second turn, typed into the pane, meets the usage limit.
	tmux("send-keys", "-t", "="+name+":", "-l", "go on, "+goOn)
	time.Sleep(300 * time.Millisecond) // the TUI takes pasted text before Enter
	tmux("send-keys", "-t", "="+name+":", "Enter")
	// swapped: when the pane first ran another program than Claude Code
	// (to the wait's 100ms), which parts git-handoff's time from the
	// next agent's own start-up.
	var swapped time.Time
	wait("did "+next.name+" send its first request", time.Minute, func() bool {
		if swapped.IsZero() {
			if pane, ok, err := srv.Pane(ctx, name); err == nil && ok && pane.PID != before.PID {
				swapped = time.Now()
			}
		}
		fl.mu.Lock()
		defer fl.mu.Unlock()
		return !fl.nextAt.IsZero()
	})
	fl.mu.Lock()
	took := fl.nextAt.Sub(fl.limited)
	limited, limits := fl.limited, fl.limits
	fl.mu.Unlock()
	t.Logf("from the 429 to %s's first request: %v (%d 429s answered)", next.name, took.Round(time.Millisecond), limits)
	if limited.IsZero() || took > 60*time.Second {
		t.Errorf("%s's first request came %v after the 429 (at %v), want well under a minute (the goal is 10s)", next.name, took, limited)
	}
	if raw, err := os.ReadFile(recorded); err != nil {
		t.Errorf("Claude Code ran no StopFailure hook: %v", err)
	} else {
		t.Logf("StopFailure payload: %s", raw)
		var in struct {
			Event   string `json:"hook_event_name"`
			Error   string `json:"error"`
			Message string `json:"last_assistant_message"`
		}
		if err := json.Unmarshal(raw, &in); err != nil || in.Event != "StopFailure" || in.Error != "rate_limit" || !strings.Contains(in.Message, "429") {
			t.Errorf("the StopFailure payload (%v) is not the rate limit's", err)
		}
	}
	mid, _, err := srv.Pane(ctx, name)
	if err != nil {
		t.Fatal(err)
	}

	// The next agent answered; nothing more may start after it: give a second
	// continuation the time the first one took, and more.
	time.Sleep(took + 3*time.Second)
	var turns []*fakemodel.Request
	for _, r := range fake.Requests() {
		if r.API == next.api && r.OffersShell() {
			turns = append(turns, r)
		}
	}
	if len(turns) != 1 {
		t.Fatalf("%s made %d requests of its main loop, want 1 (its first prompt, answered with text)\n%s", next.name, len(turns), fake.Dump())
	}
	first := turns[0]
	for _, want := range []string{reasonHead, "LAST-" + tok, "OBJ-" + tok} {
		if !strings.Contains(first.LastUser, want) {
			t.Errorf("%s's first prompt lacks %q:\n%s", next.name, want, first.LastUser)
		}
	}
	if n := strings.Count(first.Text, takeOver); n != 1 {
		t.Errorf("%s's first request holds the brief %d times, want 1:\n%s", next.name, n, first.Text)
	}
	realDir, _ := filepath.EvalSymlinks(p.dir)
	if !first.Contains(p.dir) && !first.Contains(realDir) {
		t.Errorf("%s's first request names no cwd %s:\n%s", next.name, p.dir, first.Text)
	}

	// The same pane, now the next agent's, in the worktree.
	after, ok, err := srv.Pane(ctx, name)
	if err != nil || !ok || after.Dead {
		t.Fatalf("pane after the continuation: %+v found %v: %v\n%s", after, ok, err, screen())
	}
	if after.ID != before.ID || after.PID == before.PID || after.PID != mid.PID {
		t.Errorf("pane %s: pid %d under claude, %d at %s's first request, %d now: want the same pane, with one program after claude's", after.ID, before.PID, mid.PID, next.name, after.PID)
	}
	if cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(after.PID) + "/cmdline"); err == nil && !strings.Contains(string(cmdline), next.name) {
		t.Errorf("the pane runs %q, not %s", strings.ReplaceAll(string(cmdline), "\x00", " "), next.name)
	}
	if cwd := tmux("display-message", "-p", "-t", "="+name+":", "#{pane_current_path}"); cwd != p.dir && cwd != realDir {
		t.Errorf("the pane works in %s, want %s", cwd, p.dir)
	}

	var s struct {
		Harness   string `json:"harness"`
		Continued *struct {
			From string    `json:"from"`
			To   string    `json:"to"`
			Why  string    `json:"why"`
			Auto bool      `json:"auto"`
			At   time.Time `json:"at"`
		} `json:"continued"`
	}
	p.decode(p.handoff("session", "show", id, "--json"), &s)
	if s.Harness != next.name || s.Continued == nil || s.Continued.From != agenttest.Claude || !s.Continued.Auto || !strings.HasPrefix(s.Continued.Why, reasonHead) {
		t.Fatalf("session %s after the limit: harness %q, continued %+v", id, s.Harness, s.Continued)
	}
	// Where the time went: Claude Code and the hook up to the record, then
	// stopping Claude Code, then the next agent's own start-up.
	t.Logf("429 → continuation recorded %v → %s in the pane %v → its first request %v",
		s.Continued.At.Sub(limited).Round(time.Millisecond), next.name,
		swapped.Sub(s.Continued.At).Round(time.Millisecond), first.At.Sub(swapped).Round(time.Millisecond))
	logged := p.handoff("log", "--json")
	if n := strings.Count(logged, `"kind":"continued"`) + strings.Count(logged, `"kind": "continued"`); n != 1 {
		t.Errorf("log has %d continuations, want 1:\n%s", n, logged)
	}
	if n := len(p.sessions()); n != 1 {
		t.Errorf("%d sessions, want 1: %+v", n, p.sessions())
	}
	agenttest.WaitHandovers(t, p.dir)
}
