package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// stopFailurePayload is what Claude Code 2.1.197 gave its StopFailure hook,
// recorded from the released CLI: `claude -p hello` against a local model
// server answering every request with HTTP 429 (rate_limit_error), with
// CLAUDE_CODE_MAX_RETRIES=0 and a StopFailure hook that copied its input to
// a file. Only its cwd is pointed at the test's repository.
const stopFailurePayload = "testdata/agents/claude-code-2.1.197-stop-failure-rate-limit.json"

// continueHookTimeout bounds every process the test starts.
const continueHookTimeout = 2 * time.Minute

// TestStopFailureHookContinuesInTheFallback feeds the recorded payload to
// `git handoff hook agent claude-code stop-failure` in a repository whose
// session runs Claude Code outside tmux, with handoff.fallback naming an
// agent that is not installed and one that is: the session continues in
// the installed one, the hook tells the user the one command that starts
// it, `session show` says it too, and `log` has one continuation. The same
// report again (a second watcher) continues nothing more.
func TestStopFailureHookContinuesInTheFallback(t *testing.T) {
	self, err := exec.LookPath("git-handoff")
	if err != nil {
		t.Skip("git-handoff is not on PATH (TestMain puts the test binary there)")
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	home, repo, bin := filepath.Join(dir, "home"), filepath.Join(dir, "repo"), filepath.Join(dir, "bin")
	for _, d := range []string{home, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// codex is installed (a program of that name on PATH); gemini is not.
	if err := os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = Limited\n\temail = limited@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{bin, filepath.Dir(gitBin), filepath.Dir(self)}, string(os.PathListSeparator))
	env := append(refstore.CleanEnv(os.Environ()), "HOME="+home, "GIT_CONFIG_GLOBAL="+cfg, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_HANDOFF_SESSION=", "PATH="+path, "TMUX=", "GIT_HANDOFF_TMUX_SOCKET=")
	run := func(stdin []byte, args ...string) (string, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), continueHookTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir, cmd.Env = repo, env
		if args[0] == "git" && len(args) > 1 && args[1] == "init" {
			cmd.Dir = dir
		}
		var out, errb bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	run(nil, "git", "init", "-q", "repo")
	run(nil, "git", "commit", "-q", "--allow-empty", "-m", "first")
	run(nil, "git", "handoff", "start", "--session", "s-limit", "--harness", "claude-code")
	run(nil, "git", "handoff", "session", "summary", "s-limit", "The lexer skips block comments; nested ones are next.")
	run(nil, "git", "config", "handoff.fallback", "gemini codex")

	raw, err := os.ReadFile(stopFailurePayload)
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(raw, &payload); err != nil {
		t.Fatal(err)
	}
	payload["cwd"] = repo
	in, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}

	out, stderr := run(in, "git", "handoff", "hook", "agent", "claude-code", "stop-failure")
	var answer struct {
		SystemMessage string `json:"systemMessage"`
	}
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		t.Fatalf("the hook's answer %q: %v (stderr %s)", out, err, stderr)
	}
	want := "git-handoff: claude-code stopped: usage limit. Session s-limit continues in codex: start it with `git handoff session launch s-limit --exec`."
	if answer.SystemMessage != want {
		t.Fatalf("the hook said %q, want %q (stderr %s)", answer.SystemMessage, want, stderr)
	}
	if !strings.Contains(stderr, "gemini: not installed") {
		t.Errorf("the hook's log does not say gemini was passed over: %s", stderr)
	}

	show, _ := run(nil, "git", "handoff", "session", "show", "s-limit")
	for _, w := range []string{"agent     codex", "continued claude-code → codex by itself", "claude-code stopped: usage limit", "start     git handoff session launch s-limit --exec"} {
		if !strings.Contains(show, w) {
			t.Fatalf("session show lacks %q:\n%s", w, show)
		}
	}
	launch, _ := run(nil, "git", "handoff", "session", "launch", "s-limit")
	for _, w := range []string{"codex", "You take over from another agent: claude-code stopped: usage limit", "nested ones are next"} {
		if !strings.Contains(launch, w) {
			t.Fatalf("the launch the user is told to run lacks %q:\n%s", w, launch)
		}
	}

	again, _ := run(in, "git", "handoff", "hook", "agent", "claude-code", "stop-failure")
	if !strings.Contains(again, "session s-limit continues in codex already") {
		t.Fatalf("the same report again: %q", again)
	}
	logged, _ := run(nil, "git", "handoff", "log", "--json")
	if n := strings.Count(logged, `"kind":"continued"`) + strings.Count(logged, `"kind": "continued"`); n != 1 {
		t.Fatalf("log has %d continuations, want 1:\n%s", n, logged)
	}
}
