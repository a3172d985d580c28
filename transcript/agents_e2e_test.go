package transcript_test

// The readers against the agents' own released CLIs (internal/agenttest)
// run headless against a scripted fake model (internal/fakemodel): one
// session each, in which the model runs a command that works and one that
// fails, answers, is asked by a stop hook for a baton (git-handoff's own
// words), and answers again. The transcript is found where the stop hook
// input says it is, and where HARNESSES.md says each agent keeps it.
//
// go test ./transcript -run TestAgents -update rewrites testdata/<agent>.jsonl
// from these runs (paths replaced, see sanitize), with the token FIXTURE.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/<agent>.jsonl from the agents' real transcripts")

// hookEvents are each agent's names for session start, end of turn and
// session end (Copilot's as git-handoff's agentconf installs them), and
// the decision that makes its stop hook block.
var hookEvents = map[string][4]string{
	agenttest.Claude:  {"SessionStart", "Stop", "SessionEnd", "block"},
	agenttest.Codex:   {"SessionStart", "Stop", "SessionEnd", "block"},
	agenttest.Gemini:  {"SessionStart", "AfterAgent", "SessionEnd", "deny"},
	agenttest.Copilot: {"sessionStart", "agentStop", "sessionEnd", "block"},
}

// layout is where HARNESSES.md says each agent keeps a session's
// transcript: a pattern of its path under HOME, given the session id.
var layout = map[string]func(id string) string{
	agenttest.Claude: func(id string) string { return `^\.claude/projects/[^/]+/` + regexp.QuoteMeta(id) + `\.jsonl$` },
	agenttest.Codex: func(id string) string {
		return `^\.codex/sessions/\d{4}/\d\d/\d\d/rollout-[^/]*-` + regexp.QuoteMeta(id) + `\.jsonl$`
	},
	// Gemini CLI names the file by the id's first 8 characters.
	agenttest.Gemini: func(id string) string {
		return `^\.gemini/tmp/[^/]+/chats/session-[^/]*-` + regexp.QuoteMeta(id[:min(8, len(id))]) + `\.jsonl$`
	},
	agenttest.Copilot: func(id string) string { return `^\.copilot/session-state/` + regexp.QuoteMeta(id) + `/events\.jsonl$` },
}

const inputSep = "--- end of hook input ---"

// hookScript writes an executable script into dir that appends its input
// to <name>.in and then runs body.
func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name+".sh")
	script := "#!/bin/sh\ninput=$(cat)\nprintf '%s\\n%s\\n' \"$input\" '" + inputSep + "' >> '" + filepath.Join(dir, name+".in") + "'\n" + body + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// hookInputs reads the inputs a hookScript was given, oldest first.
func hookInputs(t *testing.T, dir, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name+".in"))
	if err != nil {
		return nil
	}
	var out []map[string]any
	for _, chunk := range strings.Split(string(b), inputSep+"\n") {
		if strings.TrimSpace(chunk) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(chunk), &m); err != nil {
			t.Errorf("%s hook input is not JSON: %v\n%s", name, err, chunk)
			continue
		}
		out = append(out, m)
	}
	return out
}

// transcriptPath is the path a hook input names: transcript_path, or
// transcriptPath in Copilot's own hook events.
func transcriptPath(in map[string]any) string {
	if p, ok := in["transcript_path"].(string); ok {
		return p
	}
	p, _ := in["transcriptPath"].(string)
	return p
}

func writeHooks(t *testing.T, a *agenttest.Agent, repo string, hooks map[string]string) {
	t.Helper()
	conf := map[string]any{}
	var v any = map[string]any{"hooks": conf}
	for event, cmd := range hooks {
		if a.Name == agenttest.Copilot {
			conf[event] = []any{map[string]any{"type": "command", "bash": cmd, "timeoutSec": 30}}
		} else {
			conf[event] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
		}
	}
	path := map[string]string{
		agenttest.Claude:  ".claude/settings.json",
		agenttest.Codex:   ".codex/hooks.json",
		agenttest.Gemini:  ".gemini/settings.json",
		agenttest.Copilot: ".github/hooks/test.json",
	}[a.Name]
	if a.Name == agenttest.Copilot {
		v = map[string]any{"version": 1, "hooks": conf}
	}
	if err := a.WriteJSON(filepath.Join(repo, path), v); err != nil {
		t.Fatal(err)
	}
}

func randomToken() string {
	b := make([]byte, 6)
	rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

func TestAgents(t *testing.T) {
	for _, agent := range []string{agenttest.Claude, agenttest.Codex, agenttest.Gemini, agenttest.Copilot} {
		t.Run(agent, func(t *testing.T) {
			gittest.Isolate(t)
			repo := gittest.Init(t)
			hooks := t.TempDir()
			s := session{tok: randomToken()}
			if *update {
				s.tok = "FIXTURE"
			}
			ev := hookEvents[agent]
			start := hookScript(t, hooks, "start", `printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}\n' '`+s.injected()+`'`)
			// The stop hook blocks once, and keeps the transcript as it
			// was then: the reply must be in it by the time the hook runs.
			blocked := filepath.Join(hooks, "blocked")
			stop := hookScript(t, hooks, "stop", `[ -e '`+blocked+`' ] && exit 0
: > '`+blocked+`'
path=$(printf '%s' "$input" | sed -n 's/.*"transcript_\{0,1\}[Pp]ath" *: *"\([^"]*\)".*/\1/p')
cp "$path" '`+filepath.Join(hooks, "at-stop.jsonl")+`'
printf '{"decision":"%s","reason":"%s"}\n' '`+ev[3]+`' '`+s.stopReason()+`'`)
			end := hookScript(t, hooks, "end", "")
			fake := fakemodel.Start(t, s.model)
			a := agenttest.New(t, agent, fake)
			writeHooks(t, a, repo, map[string]string{ev[0]: start, ev[1]: stop, ev[2]: end})
			timeout := 2 * time.Minute
			if agent == agenttest.Copilot {
				// It unpacks itself into its fresh HOME first.
				timeout = 6 * time.Minute
			}
			res := a.Run(agenttest.Run{Dir: repo, Prompt: s.prompt(), Timeout: timeout})
			if res.Code != 0 {
				t.Fatalf("%s\nrequests:\n%s", res, fake.Dump())
			}
			stops := hookInputs(t, hooks, "stop")
			if len(stops) != 2 {
				t.Fatalf("the stop hook ran %d times, want 2 (block, then pass)\n%s\nrequests:\n%s", len(stops), res, fake.Dump())
			}
			checkMachinery(t, agent, s, hooks, res, fake)
			path := transcriptPath(stops[0])
			want := layout[agent](res.SessionID)
			if rel, err := filepath.Rel(a.Home, path); err != nil || res.SessionID == "" || !regexp.MustCompile(want).MatchString(rel) {
				t.Errorf("the stop hook names transcript %q, not where HARNESSES.md says (%s under HOME %s)", path, want, a.Home)
			}
			if p := transcriptPath(stops[1]); p != path {
				t.Errorf("the second stop names transcript %q, the first %q", p, path)
			}
			ends := hookInputs(t, hooks, "end")
			if len(ends) != 1 {
				t.Errorf("the session end hook ran %d times, want 1", len(ends))
			}
			for _, in := range ends {
				if agent == agenttest.Copilot {
					// Its sessionEnd names no transcript: Locate finds it.
					if p := transcriptPath(in); p != "" {
						t.Errorf("copilot's sessionEnd names transcript %q now: Locate is not needed for it", p)
					}
					id, _ := in["sessionId"].(string)
					t.Setenv("HOME", a.Home)
					t.Setenv("COPILOT_HOME", "")
					if p, err := transcript.Locate(agent, id); err != nil || p != path {
						t.Errorf("Locate(%q, %q) = %q, %v; want %q (session end input %v)", agent, id, p, err, path, in)
					}
				} else if p := transcriptPath(in); p != path {
					t.Errorf("the session end hook names transcript %q, the stop hook %q", p, path)
				}
			}

			// At the first stop, the first answer is the last reply. Claude
			// Code and Copilot do not always have it written when their
			// stop hooks run (each seen under make test's load: the reply
			// before it was the last one there). So the Stop workflow takes
			// Claude's last_assistant_message from the hook's input, and
			// for Copilot, whose stop gives none, the session's end reads
			// the transcript once more (handoff's finalSummary).
			// A transcript that lags may also hold no reply yet, or not
			// exist for the hook to copy (both seen for Copilot under
			// load); s.check reads the whole transcript at the end.
			got, err := transcript.LastReply(agent, filepath.Join(hooks, "at-stop.jsonl"))
			lags := agent == "claude-code" || agent == agenttest.Copilot
			if lags && errors.Is(err, fs.ErrNotExist) {
				got, err = "", nil
			}
			if err != nil || got != s.firstReply() && !lags {
				t.Errorf("LastReply of the transcript at the stop hook = %q, %v; want %q", got, err, s.firstReply())
			}
			s.check(t, agent, path)

			if *update {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				b = sanitize(b, a.Home, repo, hooks)
				if err := os.WriteFile(filepath.Join("testdata", agent+".jsonl"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// checkMachinery holds the run to what every test that drives these agents
// needs of them (internal/agenttest, whose TestOneRunShellAndHooks started
// each agent once more for it, Copilot's start 15 s and more): the prompt
// reached the model; the shell commands it asked for ran and their output
// went back to it (ls's complaint is in no command line); the start hook
// ran, and its context reached a main-loop request but Copilot's, which
// runs the hook and ignores what it prints (if that ever changes, the
// catalogue can say Copilot injects); and the stop hook that blocked once
// made the agent go on with its reason as the last user message of
// exactly one request.
func checkMachinery(t *testing.T, agent string, s session, hooks string, res agenttest.Result, fake *fakemodel.Server) {
	t.Helper()
	if len(fake.Find(s.prompt())) == 0 {
		t.Errorf("the prompt reached no request\nrequests:\n%s", fake.Dump())
	}
	if !fake.SawToolOutput("No such file or directory") {
		t.Errorf("the model never saw the failing command's output\nrequests:\n%s", fake.Dump())
	}
	if len(hookInputs(t, hooks, "start")) == 0 {
		t.Errorf("the start hook never ran\n%s", res)
	}
	injected := "S-" + s.tok + " started for this session"
	var hit bool
	for _, r := range fake.Find(injected) {
		hit = hit || r.OffersShell()
	}
	if want := agent != agenttest.Copilot; hit != want {
		t.Errorf("the start hook's context reached a main-loop request: %v, want %v\nrequests:\n%s", hit, want, fake.Dump())
	}
	var withReason int
	for _, r := range fake.Requests() {
		if r.OffersShell() && strings.Contains(r.LastUser, s.stopReason()) {
			withReason++
		}
	}
	if withReason != 1 {
		t.Errorf("%d main-loop requests carry the stop reason in the last user message, want 1\nrequests:\n%s", withReason, fake.Dump())
	}
}

// sanitize replaces the test's temporary paths in a transcript with
// stable ones (and in the form Claude Code names a project's folder),
// and the API key the agents were given.
func sanitize(b []byte, home, repo, hooks string) []byte {
	const (
		fakeHome  = "/home/dev"
		fakeRepo  = "/home/dev/src/project"
		fakeHooks = "/home/dev/hooks"
	)
	var pairs []string
	for _, p := range [][2]string{{repo, fakeRepo}, {hooks, fakeHooks}, {home, fakeHome}} {
		pairs = append(pairs, p[0], p[1], claudeDir(p[0]), claudeDir(p[1]))
	}
	pairs = append(pairs, agenttest.APIKey, "sk-test")
	b = []byte(strings.NewReplacer(pairs...).Replace(string(b)))
	// What is left of the temporary root (another test directory).
	root := filepath.Dir(filepath.Dir(repo))
	return bytes.ReplaceAll(b, []byte(root), []byte("/tmp/test"))
}

// claudeDir is a path as Claude Code names its project folder: every
// character but letters and digits as "-".
func claudeDir(p string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(p, "-")
}
