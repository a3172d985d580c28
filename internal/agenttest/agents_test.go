package agenttest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

// The proofs that the machinery drives the real CLIs. That Claude Code,
// Codex, Gemini CLI and Copilot CLI run a shell command the fake model
// asks for and send its output back, run a SessionStart hook whose text
// reaches the model (Copilot runs it and ignores what it prints), and go
// on with a blocking Stop hook's reason is proved by transcript's
// TestAgents, whose one run of each does all of that for the transcript's
// sake (checkMachinery there; this package's TestOneRunShellAndHooks
// started each of them once more for the same proofs, Copilot's start 15 s
// and more). OpenCode, which has JavaScript plugins, not shell hooks, and
// no transcript of that kind, proves the shell here (TestOpenCodeRunsShell).
// The hooks in the tests below are small shell scripts standing in for `git
// handoff hook agent …`.

func token(t *testing.T) string {
	b := make([]byte, 6)
	rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

func mainTurn(r *fakemodel.Request) bool { return r.OffersShell() }

// hookScript writes an executable shell script into dir and returns its
// path. It appends its stdin (the agent's hook input, also in $input for
// body) to <name>.in, each call's followed by a line callSep.
const callSep = "--- end of hook input ---"

func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name+".sh")
	script := "#!/bin/sh\ninput=$(cat)\nprintf '%s\\n%s\\n' \"$input\" '" + callSep + "' >> '" + filepath.Join(dir, name+".in") + "'\n" + body + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeHooks writes the project-level hook configuration for agent (Claude
// Code, Codex or Gemini CLI) in repo: event name → command.
func writeHooks(t *testing.T, a *Agent, repo string, hooks map[string]string) {
	t.Helper()
	conf := map[string]any{}
	for event, cmd := range hooks {
		conf[event] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	}
	var path string
	switch a.Name {
	case Claude:
		path = filepath.Join(repo, ".claude", "settings.json")
	case Codex:
		path = filepath.Join(repo, ".codex", "hooks.json")
	case Gemini:
		path = filepath.Join(repo, ".gemini", "settings.json")
	default:
		t.Fatalf("writeHooks: no hook file for %s here", a.Name)
	}
	if err := a.WriteJSON(path, map[string]any{"hooks": conf}); err != nil {
		t.Fatal(err)
	}
}

// TestOpenCodeRunsShell: `opencode run` runs a shell command the fake
// model asks for and sends its output back, reports its session id, and
// the prompt reaches the model.
func TestOpenCodeRunsShell(t *testing.T) {
	gittest.Isolate(t)
	repo := gittest.Init(t)
	tok := token(t)
	// The output names the token in a form the command line does not
	// contain, so finding it in a tool result proves the command ran and
	// its output was sent back.
	cmd := "printf '%s\\n' " + tok + " > marker.txt && printf 'ran-%s\\n' " + tok
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case !mainTurn(r):
			return fakemodel.Say("a title")
		case len(r.ToolResults) == 0:
			rep, _ := r.Shell(cmd)
			return rep
		}
		return fakemodel.Say("done")
	})
	a := New(t, OpenCode, fake)
	res := a.Run(Run{Dir: repo, Prompt: "write the marker"})
	if res.Code != 0 {
		t.Fatalf("%s\nrequests:\n%s", res, fake.Dump())
	}
	t.Logf("session %s; %d requests", res.SessionID, len(fake.Requests()))
	b, err := os.ReadFile(filepath.Join(repo, "marker.txt"))
	if err != nil || strings.TrimSpace(string(b)) != tok {
		t.Errorf("marker file: %q, %v; want %q\n%s", b, err, tok, res)
	}
	if !fake.SawToolOutput("ran-" + tok) {
		t.Errorf("the model never saw the command's output\nrequests:\n%s", fake.Dump())
	}
	if len(fake.Find("write the marker")) == 0 {
		t.Errorf("the prompt reached no request\nrequests:\n%s", fake.Dump())
	}
	if res.SessionID == "" {
		t.Errorf("no session id in the output\n%s", res)
	}
}

// startHookEchoingSource is a SessionStart hook whose context names the
// source the agent gave it: CTX-<source>-<tok>.
func startHookEchoingSource(t *testing.T, dir, tok string) string {
	return hookScript(t, dir, "start",
		`src=$(printf '%s' "$input" | sed -n 's/.*"source" *: *"\([a-z]*\)".*/\1/p')
printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"CTX-%s-%s"}}\n' "$src" '`+tok+`'`)
}

// mainTurnsWith counts the main-loop requests whose conversation holds
// every one of texts.
func mainTurnsWith(fake *fakemodel.Server, texts ...string) int {
	n := 0
	for _, r := range fake.Requests() {
		if !mainTurn(r) {
			continue
		}
		all := true
		for _, s := range texts {
			all = all && r.Contains(s)
		}
		if all {
			n++
		}
	}
	return n
}

func TestResumeFiresSessionStart(t *testing.T) {
	// Copilot's start hook injects nothing, so there is nothing to see.
	for _, agent := range []string{Claude, Codex, Gemini} {
		t.Run(agent, func(t *testing.T) {
			gittest.Isolate(t)
			repo := gittest.Init(t)
			hooksDir := t.TempDir()
			tok := token(t)
			fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
				if strings.Contains(r.LastUser, "first prompt") {
					return fakemodel.Say("first reply " + tok)
				}
				return fakemodel.Say("hello")
			})
			a := New(t, agent, fake)
			writeHooks(t, a, repo, map[string]string{"SessionStart": startHookEchoingSource(t, hooksDir, tok)})
			t0 := time.Now()
			first := a.Run(Run{Dir: repo, Prompt: "first prompt " + tok})
			if first.Code != 0 || first.SessionID == "" {
				t.Fatalf("first run: %s", first)
			}
			t.Logf("first run: %v", time.Since(t0))
			t0 = time.Now()
			second := a.Run(Run{Dir: repo, Prompt: "second prompt " + tok, Resume: first.SessionID})
			if second.Code != 0 {
				t.Fatalf("resumed run: %s\nrequests:\n%s", second, fake.Dump())
			}
			t.Logf("resumed run: %v\n%s", time.Since(t0), fake.Dump())
			in, _ := os.ReadFile(filepath.Join(hooksDir, "start.in"))
			t.Logf("SessionStart inputs:\n%s", in)
			if second.SessionID != first.SessionID {
				t.Errorf("resumed session id %q, want %q", second.SessionID, first.SessionID)
			}
			// The resumed turn carries the old conversation and the hook's
			// resume context.
			if n := mainTurnsWith(fake, "first reply "+tok, "second prompt "+tok); n == 0 {
				t.Errorf("no request of the resumed run holds the first run's answer\nrequests:\n%s", fake.Dump())
			}
			// Gemini CLI 0.61 puts a SessionStart hook's context in front of
			// the -p prompt, and on resume drops every user message that
			// starts with <hook_context>: the first prompt is gone from the
			// resumed history (its answer stays).
			wantFirst := agent != Gemini
			if got := mainTurnsWith(fake, "first prompt "+tok, "second prompt "+tok) > 0; got != wantFirst {
				t.Errorf("resumed history holds the first prompt: %v, want %v\nrequests:\n%s", got, wantFirst, fake.Dump())
			}
			if n := mainTurnsWith(fake, "second prompt "+tok, "CTX-resume-"+tok); n == 0 {
				t.Errorf("the resume hook's context reached no request of the resumed run\nrequests:\n%s", fake.Dump())
			}
		})
	}
}

// Claude Code's /compact works in -p mode on a resumed session: it asks
// the model for a summary, fires SessionStart with source "compact", and
// the next turn carries the hook's context.
func TestClaudeCompact(t *testing.T) {
	gittest.Isolate(t)
	repo := gittest.Init(t)
	hooksDir := t.TempDir()
	tok := token(t)
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		if mainTurn(r) && strings.Contains(r.LastUser, "first prompt") && len(r.ToolResults) == 0 {
			rep, _ := r.Shell("echo one")
			return rep
		}
		return fakemodel.Say("summary or hello " + tok)
	})
	a := New(t, Claude, fake)
	writeHooks(t, a, repo, map[string]string{"SessionStart": startHookEchoingSource(t, hooksDir, tok)})
	first := a.Run(Run{Dir: repo, Prompt: "first prompt " + tok})
	if first.Code != 0 || first.SessionID == "" {
		t.Fatalf("first run: %s", first)
	}
	before := len(fake.Requests())
	compact := a.Run(Run{Dir: repo, Prompt: "/compact", Resume: first.SessionID})
	if compact.Code != 0 {
		t.Fatalf("compact run: %s", compact)
	}
	in, _ := os.ReadFile(filepath.Join(hooksDir, "start.in"))
	if !strings.Contains(string(in), `"source":"compact"`) {
		t.Errorf("no SessionStart with source compact:\n%s", in)
	}
	compacted := fake.Requests()[before:]
	if len(compacted) == 0 || !mainTurn(compacted[len(compacted)-1]) {
		t.Errorf("/compact asked the model for no summary\n%s", fake.Dump())
	}
	before = len(fake.Requests())
	after := a.Run(Run{Dir: repo, Prompt: "after compact " + tok, Resume: first.SessionID})
	if after.Code != 0 {
		t.Fatalf("run after compact: %s", after)
	}
	var hit bool
	for _, r := range fake.Requests()[before:] {
		hit = hit || (r.Contains("CTX-compact-"+tok) && r.Contains("after compact "+tok))
	}
	if !hit {
		t.Errorf("the compact hook's context is in no request of the next turn\n%s", fake.Dump())
	}
	for _, r := range fake.Requests() {
		t.Logf("%s compact-ctx=%v resume-ctx=%v last user=%.80q", r.Path, r.Contains("CTX-compact-"+tok), r.Contains("CTX-resume-"+tok), r.LastUser)
	}
	t.Logf("SessionStart inputs:\n%s", in)
}

// Codex compacts by token count: with a low model_auto_compact_token_limit
// and an answer that reports a large prompt, `codex exec` compacts within
// the turn (a summary request without tools), fires SessionStart with
// source "compact", and the turn goes on with the hook's context.
func TestCodexCompact(t *testing.T) {
	gittest.Isolate(t)
	repo := gittest.Init(t)
	hooksDir := t.TempDir()
	tok := token(t)
	asked := false
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		if !r.OffersShell() {
			return fakemodel.Say("summary " + tok)
		}
		if !asked {
			asked = true
			rep, _ := r.Shell("echo one")
			rep.InputTokens = 200000
			return rep
		}
		return fakemodel.Say("done")
	})
	a := New(t, Codex, fake)
	writeHooks(t, a, repo, map[string]string{"SessionStart": startHookEchoingSource(t, hooksDir, tok)})
	res := a.Run(Run{Dir: repo, Prompt: "first prompt " + tok, Args: []string{"-c", "model_auto_compact_token_limit=50000"}})
	if res.Code != 0 {
		t.Fatalf("%s\nrequests:\n%s", res, fake.Dump())
	}
	in, _ := os.ReadFile(filepath.Join(hooksDir, "start.in"))
	if !strings.Contains(string(in), `"source":"compact"`) {
		t.Errorf("no SessionStart with source compact:\n%s", in)
	}
	var summaries, after int
	for _, r := range fake.Requests() {
		if !r.OffersShell() {
			summaries++
		} else if r.Contains("CTX-compact-"+tok) && r.Contains("summary "+tok) {
			after++
		}
	}
	if summaries != 1 || after == 0 {
		t.Errorf("%d summary requests (want 1), %d turns after it with the compact context (want some)\n%s", summaries, after, fake.Dump())
	}
}
