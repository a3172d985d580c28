package plugin_test

// End-to-end proofs of the plugins with the agents' own released CLIs
// (internal/agenttest) against a scripted fake model (internal/fakemodel):
// `git handoff plugin install AGENT`, run by the git-handoff built from
// this tree, writes the plugin and installs it with the agent's own
// commands, offline, into a HOME of the test's; then a headless session in
// a fresh repository where neither `init` nor `init --agent` ever ran
// receives a waiting baton through the installed plugin's start hook, and
// the baton is claimed exactly once.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/plugin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	agenttest.RemoveHandoffBin()
	os.Exit(code)
}

func token() string {
	b := make([]byte, 5)
	rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

// handoff runs the built git-handoff in dir with env and returns its
// stdout; the command must end within a minute.
func handoff(t *testing.T, bin, dir string, env []string, args ...string) string {
	t.Helper()
	return handoffWithin(t, time.Minute, bin, dir, env, args...)
}

// handoffWithin is handoff with a deadline of its own.
func handoffWithin(t *testing.T, deadline time.Duration, bin, dir string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "git-handoff"), args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git handoff %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// userEnv is the environment of the test's own git-handoff commands: no
// agent's variables (nothing is detected as an agent), the built binary
// first on PATH.
func userEnv(home, bin string) []string {
	var env []string
	for _, kv := range gittest.Env(home) {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || agentVar(k) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func agentVar(k string) bool {
	for _, prefix := range []string{"GIT_HANDOFF_", "CLAUDE", "AI_AGENT", "CODEX_", "GEMINI_", "COPILOT_", "OPENCODE", "CURSOR_", "GOOSE_", "XDG_"} {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

type batonJSON struct {
	ID               string   `json:"id"`
	NextSteps        []string `json:"nextSteps"`
	Claimed          bool     `json:"claimed"`
	ClaimedBySession string   `json:"claimedBySession"`
}

type sessionJSON struct {
	ID             string     `json:"id"`
	Harness        string     `json:"harness"`
	ClaimedHandoff *batonJSON `json:"claimedHandoff"`
	Launched       map[string]struct {
		NativeID string `json:"nativeId"`
	} `json:"launched"`
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decoding %q: %v", s, err)
	}
}

// For each agent whose install commands work offline from a path (and
// OpenCode, whose install is a copy into its plugins directory): the
// plugin installs with `git handoff plugin install`, and a headless session
// in a repository without init receives the waiting baton through it,
// claiming it once; a second session is given nothing. Then, on the same
// install (but OpenCode's), the plugin works beside a team's `init
// --agent` (checkBesideInitAgent) and uninstalls (checkUninstall).
func TestPluginDeliversBaton(t *testing.T) {
	for _, agent := range []string{agenttest.Claude, agenttest.Codex, agenttest.Gemini, agenttest.OpenCode} {
		t.Run(agent, func(t *testing.T) {
			agenttest.Find(t, agent)
			bin := agenttest.HandoffBin(t)
			home := gittest.Isolate(t)
			dir := gittest.Init(t)
			gittest.Run(t, dir, "config", "user.name", "Test Dev")
			gittest.Run(t, dir, "config", "user.email", "dev@example.com")
			env := userEnv(home, bin)

			tok := token()
			next := "NEXT-PLUGIN-" + tok
			var left struct {
				Handoff batonJSON `json:"handoff"`
			}
			decode(t, handoff(t, bin, dir, env, "end", "--next", "look at "+next, "--json"), &left)

			fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
				if !r.OffersShell() {
					return fakemodel.Say("a title")
				}
				return fakemodel.Say("done " + tok)
			})
			a := agenttest.New(t, agent, fake)
			a.Path = []string{bin, agenttest.ToolsDir()}
			if agent == agenttest.Codex {
				// Codex runs its shell in a login shell whose profile
				// sets PATH afresh.
				profile := "PATH=" + bin + ":$PATH\nexport PATH\n"
				if err := os.WriteFile(filepath.Join(a.Home, ".bash_profile"), []byte(profile), 0o644); err != nil {
					t.Fatal(err)
				}
			}

			// The install, as the user would run it: the agent's CLI on
			// PATH, the agent's own HOME and XDG directories.
			var inst struct {
				Agent   string   `json:"agent"`
				Dir     string   `json:"dir"`
				Ran     bool     `json:"ran"`
				Trusted []string `json:"trusted"`
				Steps   []struct {
					Command []string `json:"command"`
				} `json:"steps"`
			}
			installDir := t.TempDir()
			decode(t, handoff(t, bin, installDir, a.Environ("PWD="+installDir), "plugin", "install", agent, "--json"), &inst)
			if !inst.Ran || inst.Agent != agent || len(inst.Steps) == 0 {
				t.Fatalf("plugin install: %+v, want the agent's own commands run", inst)
			}
			if agent == agenttest.Codex && len(inst.Trusted) != 5 {
				t.Errorf("plugin install codex trusted hooks %q, want the plugin's five", inst.Trusted)
			}
			if want := filepath.Join(a.Home, ".local", "share", "git-handoff", "plugins", agent); inst.Dir != want {
				t.Errorf("plugin written to %s, want %s", inst.Dir, want)
			}
			// Installing again (after an upgrade, say) goes through the
			// agent's own commands as well.
			var again struct {
				Ran bool `json:"ran"`
			}
			decode(t, handoff(t, bin, installDir, a.Environ("PWD="+installDir), "plugin", "install", agent, "--json"), &again)
			if !again.Ran {
				t.Fatalf("a second plugin install did not run the agent's commands")
			}
			if strings.TrimSpace(handoff(t, bin, installDir, a.Environ(), "plugin", "path", agent)) != inst.Dir {
				t.Errorf("plugin path does not name %s", inst.Dir)
			}

			// OpenCode npm-installs its plugin package at each start: the
			// deadline a loaded machine meets is longer.
			timeout := agenttest.DefaultTimeout
			if agent == agenttest.OpenCode {
				timeout *= 3
			}
			// Codex runs without --dangerously-bypass-hook-trust, in a
			// folder never trusted, as a user would: the plugin's hooks
			// run because install recorded the user's trust in them.
			untrusted := agent == agenttest.Codex
			if untrusted {
				var trusted struct {
					Trusted []string `json:"trusted"`
				}
				decode(t, handoff(t, bin, installDir, a.Environ("PWD="+installDir), "plugin", "install", agent, "--json"), &trusted)
				if len(trusted.Trusted) != 0 {
					t.Errorf("a third install trusted %q again: the trust recorded before was not found", trusted.Trusted)
				}
			}
			res := a.Run(agenttest.Run{Dir: dir, Prompt: "carry on", Timeout: timeout, Untrusted: untrusted})
			if res.Code != 0 || res.SessionID == "" {
				t.Fatalf("%s run: %s\nrequests:\n%s", agent, res, fake.Dump())
			}
			var reached bool
			for _, r := range fake.Requests() {
				reached = reached || (r.OffersShell() && r.Contains(next))
			}
			if !reached {
				t.Fatalf("the baton's %s reached no request through the plugin\n%s\n%s", next, res, fake.Dump())
			}
			// The plugin's MCP server started: its tools are offered
			// (Codex nests them in a namespace, mcp__git_handoff).
			var tools []string
			offered := false
			for _, r := range fake.Requests() {
				if r.OffersShell() {
					tools = r.Tools
					offered = offered || strings.Contains(string(r.Body), `"session_start"`) ||
						slices.ContainsFunc(r.Tools, func(n string) bool { return strings.Contains(n, "session_start") })
				}
			}
			if !offered && agent != agenttest.OpenCode { // OpenCode's plugin is a module: no MCP server
				t.Errorf("no tool of the plugin's MCP server (session_start) is offered: %q", tools)
			}
			for _, p := range []string{".claude", ".codex", ".gemini"} {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					t.Errorf("the repository has %s: the test meant a repository without init --agent", p)
				}
			}

			// A second, fresh session: the baton was claimed once, by
			// the first, and is given to nobody else. Only OpenCode's
			// plugin, a module of its own that runs git handoff itself,
			// is run twice for it: the others' plugins run the same hook
			// commands as init --agent, whose chain of real agents
			// (agenthook's TestAgentsChainBatons) gives each baton to
			// exactly one of Claude Code, Codex and Gemini CLI, and a
			// second run here cost each agent another start (issue 35:
			// CI in 20 minutes).
			if agent == agenttest.OpenCode {
				before := len(fake.Requests())
				second := a.Run(agenttest.Run{Dir: dir, Prompt: "something else", Timeout: timeout, Untrusted: untrusted})
				if second.Code != 0 {
					t.Fatalf("second %s run: %s", agent, second)
				}
				for _, r := range fake.Requests()[before:] {
					if r.Contains(next) {
						t.Errorf("the second session was given the baton again\n%s", fake.Dump())
						break
					}
				}
			}

			var batons struct {
				Handoffs []batonJSON `json:"handoffs"`
			}
			decode(t, handoff(t, bin, dir, env, "list", "--all", "--json"), &batons)
			var sessions struct {
				Sessions []sessionJSON `json:"sessions"`
			}
			decode(t, handoff(t, bin, dir, env, "session", "ls", "--all", "--json"), &sessions)
			var claimer *sessionJSON
			claims := 0
			for i, s := range sessions.Sessions {
				if s.ClaimedHandoff != nil && s.ClaimedHandoff.ID == left.Handoff.ID {
					claims++
					claimer = &sessions.Sessions[i]
				}
			}
			if claims != 1 || claimer == nil {
				t.Fatalf("baton %s claimed by %d sessions, want 1: %+v", left.Handoff.ID, claims, sessions.Sessions)
			}
			if claimer.Harness != agent || claimer.Launched[agent].NativeID != res.SessionID {
				t.Errorf("the claiming session %s is %q with native id %q; want %s's session %s", claimer.ID, claimer.Harness, claimer.Launched[agent].NativeID, agent, res.SessionID)
			}
			for _, b := range batons.Handoffs {
				if b.ID == left.Handoff.ID && (!b.Claimed || b.ClaimedBySession != claimer.ID) {
					t.Errorf("baton %s: claimed %v by %q, want by %s", b.ID, b.Claimed, b.ClaimedBySession, claimer.ID)
				}
			}

			// The rest of the plugin's life on the same install (each
			// was a test of its own, with an install of its own): beside
			// a team's init --agent, then uninstalled. OpenCode's plugin
			// is a copy, with no agent command to remove it.
			if agent == agenttest.OpenCode {
				return
			}
			checkBesideInitAgent(t, a, fake, bin, env)
			checkUninstall(t, a, fake, bin, installDir, inst.Dir, dir, env)
		})
	}
}

// Each plugin's hook commands, run as the agent would run them, exit 0:
// outside any repository they print nothing, and in a repository where
// `git handoff init` never ran the start hook works, answering with the
// brief (Copilot's says nothing: Copilot ignores it). A plugin is
// installed for every folder, most of which never heard of git-handoff.
func TestPluginHooksFailOpen(t *testing.T) {
	bin := agenttest.HandoffBin(t)
	home := gittest.Isolate(t)
	repo := gittest.Init(t)
	outside := t.TempDir()
	for _, agent := range plugin.Agents() {
		files, err := plugin.Embedded(agent)
		if err != nil {
			t.Fatal(err)
		}
		var cmds []string
		for _, f := range files {
			if f.Path == "hooks/hooks.json" {
				cmds = hookCommands(t, f.Data)
			}
		}
		if agent != "opencode" && len(cmds) == 0 {
			t.Fatalf("%s: no hook commands", agent)
		}
		for _, dir := range []string{outside, repo} {
			for _, c := range cmds {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				cmd := exec.CommandContext(ctx, "sh", "-c", c)
				cmd.Dir = dir
				cmd.Env = userEnv(home, bin)
				sid := "0b7c1f2e-8a4d-4c1b-9a57-3f1e2d4c5b6a"
				cmd.Stdin = strings.NewReader(`{"session_id":"` + sid + `","cwd":"` + dir + `","hook_event_name":"SessionStart","source":"startup"}`)
				out, err := cmd.Output()
				cancel()
				if err != nil {
					t.Errorf("%s in %s: %q failed: %v", agent, dir, c, err)
					continue
				}
				s := strings.TrimSpace(string(out))
				start := strings.Contains(c, " session-start ")
				switch {
				case dir == outside && s != "":
					t.Errorf("%s outside a repository: %q printed %q, want nothing", agent, c, s)
				case s != "" && !json.Valid([]byte(s)):
					t.Errorf("%s in %s: %q printed what is not JSON: %q", agent, dir, c, s)
				case dir == repo && start && agent != "copilot" && !strings.Contains(s, "No baton is waiting"):
					t.Errorf("%s in a repository without init: %q printed %q, want the brief", agent, c, s)
				}
			}
		}
	}
}

func hookCommands(t *testing.T, b []byte) []string {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Command string `json:"command"`
			Bash    string `json:"bash"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, es := range doc.Hooks {
		for _, e := range es {
			for _, c := range []string{e.Command, e.Bash} {
				if c != "" {
					out = append(out, c)
				}
			}
			for _, h := range e.Hooks {
				out = append(out, h.Command)
			}
		}
	}
	return out
}

// Copilot CLI installs its plugin from the marketplace under
// .github/plugin/ (`git handoff plugin install copilot`), and its hooks are
// Copilot's, not Claude Code's: its start hook claims nothing (Copilot
// ignores what it prints), the plugin's skill asks the agent to run `git
// handoff start`, and the brief comes back as that command's output, in a
// session recorded as Copilot's, claimed once. Then it uninstalls
// (checkUninstall).
func TestCopilotPluginStartsThroughSkill(t *testing.T) {
	agenttest.Find(t, agenttest.Copilot)
	bin := agenttest.HandoffBin(t)
	home := gittest.Isolate(t)
	dir := gittest.Init(t)
	gittest.Run(t, dir, "config", "user.name", "Test Dev")
	gittest.Run(t, dir, "config", "user.email", "dev@example.com")
	env := userEnv(home, bin)
	tok := token()
	next := "NEXT-COPILOT-" + tok
	var left struct {
		Handoff batonJSON `json:"handoff"`
	}
	decode(t, handoff(t, bin, dir, env, "end", "--next", "look at "+next, "--json"), &left)

	// The skill's description, which Copilot lists to the model.
	const skillLine = "run git handoff start to claim the baton"
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case !r.OffersShell():
			return fakemodel.Say("a title")
		case len(r.ToolResults) == 0 && r.Contains(skillLine):
			rep, _ := r.Shell("git handoff start")
			return rep
		}
		return fakemodel.Say("done " + tok)
	})
	a := agenttest.New(t, agenttest.Copilot, fake)
	a.Path = []string{bin, agenttest.ToolsDir()}
	installDir := t.TempDir()
	var inst struct {
		Ran bool   `json:"ran"`
		Dir string `json:"dir"`
	}
	decode(t, handoff(t, bin, installDir, a.Environ("PWD="+installDir), "plugin", "install", "copilot", "--json"), &inst)
	if !inst.Ran {
		t.Fatalf("plugin install copilot did not run copilot's own install")
	}
	res := a.Run(agenttest.Run{Dir: dir, Prompt: "carry on"})
	if res.Code != 0 || res.SessionID == "" {
		t.Fatalf("copilot run: %s\nrequests:\n%s", res, fake.Dump())
	}
	var offered bool
	for _, r := range fake.Requests() {
		offered = offered || (r.OffersShell() && r.Contains(skillLine))
	}
	if !offered {
		t.Fatalf("the plugin's skill reached no request\n%s", fake.Dump())
	}
	if !fake.SawToolOutput(next) {
		t.Fatalf("the brief with %s came back in no tool output\n%s\n%s", next, res, fake.Dump())
	}
	var sessions struct {
		Sessions []sessionJSON `json:"sessions"`
	}
	decode(t, handoff(t, bin, dir, env, "session", "ls", "--all", "--json"), &sessions)
	if len(sessions.Sessions) != 1 {
		t.Fatalf("sessions %+v, want one", sessions.Sessions)
	}
	s := sessions.Sessions[0]
	if s.Harness != agenttest.Copilot || s.ClaimedHandoff == nil || s.ClaimedHandoff.ID != left.Handoff.ID {
		t.Errorf("session %s: harness %q, claimed %+v; want copilot, baton %s", s.ID, s.Harness, s.ClaimedHandoff, left.Handoff.ID)
	}
	// And it uninstalls, on the same install.
	checkUninstall(t, a, fake, bin, installDir, inst.Dir, dir, env)
}

// checkBesideInitAgent: a team that committed `init --agent`'s
// configuration, and a member who also installed the plugin (a's HOME has
// it: TestPluginDeliversBaton installed it): both run the same hook
// commands. The session must still be one, claim the baton once and be
// given the brief once (Claude Code runs identical commands once; for the
// others the second start of the same agent session continues the first).
// It was TestPluginBesideInitAgent, which installed the plugin again.
func checkBesideInitAgent(t *testing.T, a *agenttest.Agent, fake *fakemodel.Server, bin string, env []string) {
	t.Helper()
	agent := a.Name
	dir := gittest.Init(t)
	gittest.Run(t, dir, "config", "user.name", "Test Dev")
	gittest.Run(t, dir, "config", "user.email", "dev@example.com")
	handoff(t, bin, dir, env, "init", "--agent", agent)
	next := "NEXT-BOTH-" + token()
	var left struct {
		Handoff batonJSON `json:"handoff"`
	}
	decode(t, handoff(t, bin, dir, env, "end", "--next", "look at "+next, "--json"), &left)

	before := len(fake.Requests())
	res := a.Run(agenttest.Run{Dir: dir, Prompt: "carry on"})
	if res.Code != 0 || res.SessionID == "" {
		t.Fatalf("%s run beside init --agent: %s\nrequests:\n%s", agent, res, fake.Dump())
	}
	var first *fakemodel.Request
	for _, r := range fake.Requests()[before:] {
		if r.OffersShell() {
			first = r
			break
		}
	}
	if first == nil {
		t.Fatalf("no main request beside init --agent\n%s", fake.Dump())
	}
	if n := strings.Count(first.Text, next); n != 1 {
		t.Errorf("beside init --agent, the first request holds the baton's step %d times, want once\n%s", n, first.Text)
	}
	var sessions struct {
		Sessions []sessionJSON `json:"sessions"`
	}
	decode(t, handoff(t, bin, dir, env, "session", "ls", "--all", "--json"), &sessions)
	if len(sessions.Sessions) != 1 {
		t.Fatalf("beside init --agent: %d sessions, want 1: %+v", len(sessions.Sessions), sessions.Sessions)
	}
	s := sessions.Sessions[0]
	if s.ClaimedHandoff == nil || s.ClaimedHandoff.ID != left.Handoff.ID || s.Launched[agent].NativeID != res.SessionID {
		t.Errorf("beside init --agent: session %+v, want %s's session %s holding baton %s", s, agent, res.SessionID, left.Handoff.ID)
	}
}
