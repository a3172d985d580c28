package agenttest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

// The proofs that the machinery drives the real CLIs: each agent runs a
// shell command the fake model asks for, a SessionStart hook's text
// reaches the model, and a Stop hook that blocks makes the agent go on
// with the hook's reason, all in one run (TestOneRunShellAndHooks). The
// hooks are small shell scripts standing in for `git handoff hook agent …`.

var agents = []string{Claude, Codex, Gemini, Copilot, OpenCode}

// hookAgents run shell commands as hooks; OpenCode has JavaScript plugins
// instead, which the real hook's own tests exercise.
var hookAgents = []string{Claude, Codex, Gemini, Copilot}

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

// writeHooks writes the project-level hook configuration for agent in
// repo: event name → command.
func writeHooks(t *testing.T, a *Agent, repo string, hooks map[string]string) {
	t.Helper()
	conf := map[string]any{}
	for event, cmd := range hooks {
		conf[event] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	}
	var path string
	var v any = map[string]any{"hooks": conf}
	if a.Name == Copilot {
		// Copilot's own format: flat lists of commands per event.
		for event, cmd := range hooks {
			conf[event] = []any{map[string]any{"type": "command", "bash": cmd, "timeoutSec": 30}}
		}
		v = map[string]any{"version": 1, "hooks": conf}
	}
	switch a.Name {
	case Claude:
		path = filepath.Join(repo, ".claude", "settings.json")
	case Codex:
		path = filepath.Join(repo, ".codex", "hooks.json")
	case Gemini:
		path = filepath.Join(repo, ".gemini", "settings.json")
	case Copilot:
		path = filepath.Join(repo, ".github", "hooks", "test.json")
	}
	if err := a.WriteJSON(path, v); err != nil {
		t.Fatal(err)
	}
}

// stopEvent is each agent's name for the end-of-turn hook, and the
// decision that makes it go on.
var stopEvent = map[string][2]string{
	Claude:  {"Stop", "block"},
	Codex:   {"Stop", "block"},
	Gemini:  {"AfterAgent", "deny"},
	Copilot: {"agentStop", "block"},
}

// startEvent is each agent's name for the session-start hook.
var startEvent = map[string]string{Claude: "SessionStart", Codex: "SessionStart", Gemini: "SessionStart", Copilot: "sessionStart"}

// TestOneRunShellAndHooks: one run of each agent proves what the
// machinery needs of it (three runs each before, TestShellCommandRuns,
// TestSessionStartHookReachesModel and TestStopHookBlockContinues: an
// agent's start is most of a run's cost, Copilot's 15 s and more). It runs
// a shell command the fake model asks for and sends its output back; a
// SessionStart hook runs and its text reaches the model (Copilot runs the
// hook but ignores what it prints); a Stop hook that blocks once makes the
// agent go on with the hook's reason, and runs again when it stops. OpenCode
// has JavaScript plugins, not shell hooks: its run proves the shell (the
// real hook's own tests exercise its plugin).
func TestOneRunShellAndHooks(t *testing.T) {
	for _, agent := range agents {
		t.Run(agent, func(t *testing.T) {
			gittest.Isolate(t)
			repo := gittest.Init(t)
			hooksDir := t.TempDir()
			tok := token(t)
			// The output names the token in a form the command line does
			// not contain, so finding it in a tool result proves the
			// command ran and its output was sent back.
			cmd := "printf '%s\\n' " + tok + " > marker.txt && printf 'ran-%s\\n' " + tok
			startText := "START-CONTEXT-" + tok
			reason := "STOP-REASON-" + tok
			hooked := slices.Contains(hookAgents, agent)
			fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
				switch {
				case !mainTurn(r):
					return fakemodel.Say("a title")
				case strings.Contains(r.LastUser, reason):
					return fakemodel.Say("going on as the hook asked")
				case len(r.ToolResults) == 0:
					rep, _ := r.Shell(cmd)
					return rep
				}
				return fakemodel.Say("done")
			})
			a := New(t, agent, fake)
			if hooked {
				ev := stopEvent[agent]
				start := hookScript(t, hooksDir, "start",
					`printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}\n' '`+startText+`'`)
				// Blocks once: a second stop passes, whatever the agent
				// says about stop_hook_active, so the run ends either way.
				once := filepath.Join(hooksDir, "blocked")
				stop := hookScript(t, hooksDir, "stop",
					`[ -e '`+once+`' ] && exit 0
: > '`+once+`'
printf '{"decision":"`+ev[1]+`","reason":"%s"}\n' '`+reason+`'`)
				writeHooks(t, a, repo, map[string]string{startEvent[agent]: start, ev[0]: stop})
			}
			res := a.Run(Run{Dir: repo, Prompt: "write the marker"})
			if res.Code != 0 {
				t.Fatalf("%s\nrequests:\n%s", res, fake.Dump())
			}
			t.Logf("session %s; %d requests", res.SessionID, len(fake.Requests()))

			// The shell command.
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
			if !hooked {
				return
			}

			// The SessionStart hook.
			in, _ := os.ReadFile(filepath.Join(hooksDir, "start.in"))
			t.Logf("SessionStart input: %s", in)
			if len(in) == 0 {
				t.Errorf("the SessionStart hook never ran\n%s", res)
			}
			var hit bool
			for _, r := range fake.Find(startText) {
				if mainTurn(r) {
					hit = true
				}
			}
			// Copilot CLI runs sessionStart hooks but ignores what they
			// print: the context must not arrive (if it ever does, the
			// catalogue can say Copilot injects).
			if want := agent != Copilot; hit != want {
				t.Errorf("the start hook's context reached a main-loop request: %v, want %v\nrequests:\n%s", hit, want, fake.Dump())
			}

			// The Stop hook.
			ev := stopEvent[agent]
			in, _ = os.ReadFile(filepath.Join(hooksDir, "stop.in"))
			t.Logf("%s input: %s", ev[0], in)
			var turns, withReason int
			for _, r := range fake.Requests() {
				if !mainTurn(r) {
					continue
				}
				turns++
				if strings.Contains(r.LastUser, reason) {
					withReason++
				}
			}
			if withReason != 1 {
				t.Errorf("%d main-loop requests carry the stop reason in the last user message, want 1 (of %d turns)\nrequests:\n%s", withReason, turns, fake.Dump())
			}
			if n := strings.Count(string(in), callSep); n != 2 {
				t.Errorf("the stop hook ran %d times, want 2 (block, then pass)\n%s", n, in)
			}
		})
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
