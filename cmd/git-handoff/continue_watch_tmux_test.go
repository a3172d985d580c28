package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/tmuxrt/tmuxrttest"
)

// withBroken puts stand-ins that exit at once (tmuxrttest.Broken) first on
// the PATH of every process the test starts.
func (e *tmuxEnv) withBroken(names ...string) {
	dir := tmuxrttest.Broken(e.t, names...)
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "PATH=") {
			e.env[i] = "PATH=" + dir + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
}

// continuations counts the continuations that `log` shows and that
// stand: an automatic handoff "continued" and not "cancelled" after (a
// fallback that failed to start has its handoff withdrawn).
func (e *tmuxEnv) continuations() int {
	e.t.Helper()
	continued, cancelled := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(e.handoff("log"), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		switch f[2] {
		case "continued":
			continued[f[3]] = true
		case "cancelled":
			cancelled[f[3]] = true
		}
	}
	n := 0
	for id := range continued {
		if !cancelled[id] {
			n++
		}
	}
	return n
}

// watchLog is what the watchers said (handoff.WatchLog).
func (e *tmuxEnv) watchLog() string {
	b, _ := os.ReadFile(filepath.Join(e.repo, ".git", "handoff", "watch.log"))
	return string(b)
}

// logWatchOnFailure has a failed test show what the watchers decided, before
// the temporary directory holding their log goes.
func (e *tmuxEnv) logWatchOnFailure() {
	e.t.Cleanup(func() {
		if e.t.Failed() {
			e.t.Logf("watch.log:\n%s", e.watchLog())
		}
	})
}

// waitRuns waits, at most 20 seconds, until session id runs agent, no
// switch holding it.
func (e *tmuxEnv) waitRuns(id, agent string) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := e.ls()[id]
		if s.Harness == agent && s.Status == "active" && s.Switching == nil {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("session %s is %+v after 20s, want it active on %s", id, s, agent)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// holds checks, for d, that the pane keeps running pid.
func holds(t *testing.T, srv tmuxrt.Server, name string, pid int, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); tmuxrttest.Pause() {
		p, ok, err := srv.Pane(t.Context(), name)
		if err != nil || !ok || p.Dead || p.PID != pid {
			t.Fatalf("the pane changed: %+v (found %v, %v), want pid %d running", p, ok, err, pid)
		}
	}
}

// TestTmuxKilledAgentContinues: with handoff.fallback "gemini codex" and a
// gemini that cannot start, an agent killed under tmux is continued once:
// gemini is tried in its pane and fails (the session stays claude's, and
// the watch log says so), then codex starts in the same pane with the
// reason first in its brief, and stays; `log` shows one continuation.
func TestTmuxKilledAgentContinues(t *testing.T) {
	e := newTmuxEnv(t)
	e.logWatchOnFailure()
	e.withBroken("gemini")
	e.must("git", "config", "handoff.fallback", "gemini codex")
	srv, name, before := e.launch("s-kill", "claude")
	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p, screen := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool {
		return ok && !p.Dead && strings.Contains(s, "stand-in codex pid")
	})
	if p.ID != before.ID {
		t.Errorf("codex runs in pane %s, the agent ran in %s", p.ID, before.ID)
	}
	if !strings.Contains(screen, "You take over from another agent: claude-code exited (killed by signal 9) without ending the session") {
		t.Errorf("codex's brief lacks the reason:\n%s", screen)
	}
	e.waitRuns("s-kill", "codex")
	if log := e.watchLog(); !strings.Contains(log, "gemini did not take over: gemini exited at once (status 1)") {
		t.Errorf("the watch log does not say gemini failed to start:\n%s", log)
	}
	holds(t, srv, name, p.PID, 2*time.Second)
	if n := e.continuations(); n != 1 {
		t.Fatalf("log shows %d continuations, want 1:\n%s", n, e.handoff("log"))
	}
	// Without a fallback that can take over, an exit ends the session,
	// as it always did.
	e.must("git", "config", "handoff.fallback", "gemini")
	if err := syscall.Kill(p.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.waitStatus("s-kill", "ended")
}

// TestTmuxStalledAgentContinues: an agent whose pane does not change is
// left alone while handoff.stallAfter is unset, and continued in the
// fallback once it is set (2s); the agent that took over, waiting in turn,
// is not continued again.
func TestTmuxStalledAgentContinues(t *testing.T) {
	e := newTmuxEnv(t)
	e.logWatchOnFailure()
	e.must("git", "config", "handoff.fallback", "codex claude-code")
	srv, name, before := e.launch("s-stall", "claude")
	// Longer than a watcher's look without stallAfter, and than 2s.
	holds(t, srv, name, before.PID, 4*time.Second)
	e.must("git", "config", "handoff.stallAfter", "2s")
	p, screen := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool {
		return ok && !p.Dead && strings.Contains(s, "stand-in codex pid")
	})
	if p.ID != before.ID {
		t.Errorf("codex runs in pane %s, the agent ran in %s", p.ID, before.ID)
	}
	if !strings.Contains(screen, "claude-code waited for input for") {
		t.Errorf("codex's brief lacks the reason:\n%s", screen)
	}
	e.waitRuns("s-stall", "codex")
	holds(t, srv, name, p.PID, 4*time.Second)
	if n := e.continuations(); n != 1 {
		t.Fatalf("log shows %d continuations, want 1:\n%s", n, e.handoff("log"))
	}
}

// An agent stopped on purpose is not continued: `session terminate`, with
// a fallback configured, stops it and destroys its tmux session, and the
// pane-died hook that fires in between leaves it so.
func TestTmuxTerminatedAgentIsNotContinued(t *testing.T) {
	e := newTmuxEnv(t)
	e.logWatchOnFailure()
	if err := os.WriteFile(filepath.Join(e.hold, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.must("git", "config", "handoff.fallback", "codex")
	srv, name, _ := e.launch("s-term", "claude")
	e.handoff("session", "terminate", "s-term")
	// Longer than the hook's settling and a fallback's start.
	time.Sleep(3 * time.Second)
	if _, ok, err := srv.Pane(t.Context(), name); err != nil || ok {
		t.Fatalf("tmux session %s is there after terminate (%v)", name, err)
	}
	if s := e.ls()["s-term"]; s.Harness != "claude-code" || s.Status != "terminated" {
		t.Fatalf("session after terminate: %+v", s)
	}
	if n := e.continuations(); n != 0 {
		t.Fatalf("log shows %d continuations:\n%s", n, e.handoff("log"))
	}
}
