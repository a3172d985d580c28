package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/tmuxrt/tmuxrttest"
)

// TestTmuxContinueInPlace: a session whose agent (a stand-in claude) runs
// under tmux. The recorded StopFailure payload, with handoff.fallback
// codex, continues it in the same pane at once: the stand-in codex starts
// there with the brief (the reason first) as its argument. `continue
// --undo`, before codex worked, brings claude back in the pane, and `continue
// --in codex` by hand takes the same way. (In tests the commands run their
// work in their own process; the binary detaches the hook's continuation,
// which stopping the agent would otherwise end.)
func TestTmuxContinueInPlace(t *testing.T) {
	e := newTmuxEnv(t)
	// The stand-ins exit at once on SIGTERM.
	if err := os.WriteFile(filepath.Join(e.hold, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, name, before := e.launch("s-tc", "claude")
	e.handoff("session", "summary", "s-tc", "The parser handles nested lists; error messages are next.")
	e.must("git", "config", "handoff.fallback", "gemini codex")

	raw, err := os.ReadFile(stopFailurePayload)
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	payload["cwd"] = e.repo
	in, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), continueHookTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git-handoff", "hook", "agent", "claude-code", "stop-failure")
	cmd.Dir, cmd.Env, cmd.Stdin = e.repo, e.env, strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hook: %v", err)
	}
	if !strings.Contains(string(out), "Session s-tc continues in codex in tmux") {
		t.Fatalf("the hook said %s", out)
	}
	p, screen := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool {
		return ok && !p.Dead && strings.Contains(s, "stand-in codex pid")
	})
	if p.PID == before.PID {
		t.Fatalf("the pane still runs pid %d", p.PID)
	}
	for _, w := range []string{"You take over from another agent: claude-code stopped: usage limit", "error messages are next"} {
		if !strings.Contains(screen, w) {
			t.Fatalf("codex's first prompt lacks %q:\n%s", w, screen)
		}
	}
	if s := e.ls()["s-tc"]; s.Harness != "codex" || s.Status != "active" || s.Runtime == nil || s.Runtime.State != "live" {
		t.Fatalf("session after the continuation: %+v (runtime %+v)", s, s.Runtime)
	}
	if show := e.handoff("session", "show", "s-tc"); strings.Contains(show, "start     ") {
		t.Errorf("session show names a command to start an agent that runs:\n%s", show)
	}

	e.handoff("continue", "--undo", "--session", "s-tc")
	tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool {
		return ok && !p.Dead && strings.Contains(s, "stand-in claude pid")
	})
	if s := e.ls()["s-tc"]; s.Harness != "claude-code" {
		t.Fatalf("after the undo the session runs %s", s.Harness)
	}

	e.handoff("continue", "--in", "codex", "--session", "s-tc")
	tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool {
		return ok && !p.Dead && strings.Contains(s, "stand-in codex pid") && strings.Contains(s, "continued by hand from claude-code")
	})
}
