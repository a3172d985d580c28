// Package agenttest runs the coding agents' real released CLIs headless in
// tests, against a fakemodel server, each run with a HOME of its own.
//
// The pinned CLIs are installed by scripts/agent-tools.sh (called by
// .ci/run and `make test`) into $GIT_HANDOFF_CI_TOOLS (default: the user's
// cache directory, git-handoff/ci-tools); GIT_HANDOFF_AGENT_BIN names a
// directory holding the binaries instead. A missing CLI skips the test,
// unless CI_REQUIRE_TOOLS=1, when it fails it.
package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

// The agents this package drives, by their harness catalogue names.
const (
	Claude   = "claude-code"
	Codex    = "codex"
	Gemini   = "gemini"
	Copilot  = "copilot"
	OpenCode = "opencode"
)

// binaries are the executables each agent's npm package puts in .bin.
var binaries = map[string]string{Claude: "claude", Codex: "codex", Gemini: "gemini", Copilot: "copilot", OpenCode: "opencode"}

// APIKey is the key every agent is given; the fake accepts anything, and
// Claude Code must have approved it (see writeClaudeState).
const APIKey = "sk-test-git-handoff"

// DefaultTimeout bounds one agent run; the process group is killed after it.
const DefaultTimeout = 90 * time.Second

// ToolsDir is the directory holding the agents' executables.
func ToolsDir() string { return toolsDir }

// toolsDir is resolved when the test binary starts: tests point HOME (and
// with it the user's cache directory) at temporary directories.
var toolsDir = func() string {
	if d := os.Getenv("GIT_HANDOFF_AGENT_BIN"); d != "" {
		return d
	}
	dir := os.Getenv("GIT_HANDOFF_CI_TOOLS")
	if dir == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(cache, "git-handoff", "ci-tools")
		}
	}
	return filepath.Join(dir, "node_modules", ".bin")
}()

// OpenCodeEnv is what every test that starts opencode adds to its
// environment: no model list, update, share or LSP download from the
// network, and the npm cache kept beside the tools (its home is a fresh
// temporary directory each run). opencode npm-installs its plugin package
// into its config directory and each project's .opencode on every start;
// from an empty cache that took a minute or more a start, and under load
// more than a test's deadline.
func OpenCodeEnv() []string {
	return []string{
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"npm_config_cache=" + filepath.Join(toolsDir, "..", "..", "npm-cache"),
		"npm_config_prefer_offline=true", "npm_config_audit=false", "npm_config_fund=false",
	}
}

// SkipUnderRace skips a test that drives an agent's CLI in a -race build:
// the agents' runs dominate it and the race detector watches only our
// process; `make test` runs these tests, `make race` everything else.
func SkipUnderRace(t testing.TB) {
	t.Helper()
	if raceBuild {
		t.Skip("drives an agent's CLI: run by make test, not under -race")
	}
}

// Find returns the path of an agent's executable, skipping the test (or,
// with CI_REQUIRE_TOOLS=1, failing it) when it is not installed.
func Find(t testing.TB, agent string) string {
	t.Helper()
	SkipUnderRace(t)
	name, ok := binaries[agent]
	if !ok {
		t.Fatalf("agenttest: unknown agent %q", agent)
	}
	p := filepath.Join(ToolsDir(), name)
	if _, err := os.Stat(p); err != nil {
		gittest.Missing(t, fmt.Sprintf("%s in %s (%v)", name, ToolsDir(), err), "scripts/agent-tools.sh installs it")
	}
	return p
}

// Agent is one agent CLI set up against a fake model, with a HOME of its
// own. Runs of one Agent share that HOME, so a later run can resume an
// earlier run's session.
type Agent struct {
	Name string // Claude, Codex or Gemini
	Bin  string // its executable
	Home string // HOME for every run (CODEX_HOME is Home/.codex)
	Fake *fakemodel.Server
	// Env is added to every run's environment (after the agent's own).
	Env []string
	// Path is put before PATH in every run (e.g. a built git-handoff).
	Path []string

	t testing.TB
}

// New sets up agent against fake: a fresh HOME with the user-level
// configuration the agent needs to talk to the fake without a login, a
// prompt or an update check.
func New(t testing.TB, agent string, fake *fakemodel.Server) *Agent {
	t.Helper()
	a := &Agent{Name: agent, Bin: Find(t, agent), Home: t.TempDir(), Fake: fake, t: t}
	var err error
	switch agent {
	case Claude:
		err = a.updateClaudeState("")
	case Codex:
		err = a.writeCodexConfig()
	case Gemini:
		err = a.writeGeminiSettings()
	case OpenCode:
		SeedOpenCode(t, filepath.Join(a.Home, ".config", "opencode"))
	case Copilot:
		seedCopilot(t, a.Home)
	}
	if err != nil {
		t.Fatalf("agenttest: configuring %s: %v", agent, err)
	}
	return a
}

// CodexHome is the CODEX_HOME every codex run gets.
func (a *Agent) CodexHome() string { return filepath.Join(a.Home, ".codex") }

// Run is one headless run of the agent.
type Run struct {
	Dir    string // working directory (required)
	Prompt string
	// Resume is a session id to continue (claude -p --resume, codex exec
	// resume, gemini --resume).
	Resume string
	// Model, if set, is passed as --model.
	Model   string
	Args    []string // extra options, before the prompt
	Env     []string // extra environment for this run only
	Timeout time.Duration
	// Kill, when it closes, kills the agent's process group as a crash
	// would (Result.Killed): a test that means to kill it at some point
	// of its run closes Kill then, rather than waiting out a Timeout.
	Kill <-chan struct{}
	// Untrusted runs Codex as a user would in a folder it was never told
	// to trust: the project is not marked trusted and hook trust is not
	// bypassed (Args may pass what a launch adds).
	Untrusted bool
}

// Result is what a run left.
type Result struct {
	Stdout, Stderr string
	Code           int  // exit code; -1 when killed
	TimedOut       bool // the timeout killed it
	Killed         bool // Run.Kill closed and killed it
	// SessionID is the agent's own session id, read from its JSON output
	// (claude's session_id, codex's thread.started thread_id, gemini's
	// session_id, copilot's result sessionId, opencode's events' sessionID);
	// empty when it printed none.
	SessionID string
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d (timed out %v), session %q\nstdout:\n%s\nstderr:\n%s", r.Code, r.TimedOut, r.SessionID, r.Stdout, r.Stderr)
}

// Args returns the command line (without the executable) for run.
func (a *Agent) Args(run Run) []string {
	var args []string
	switch a.Name {
	case Claude:
		// --allowedTools Bash lets the model's shell writes run in -p mode;
		// the prompt follows "--" because --allowedTools takes a list.
		args = []string{"-p", "--output-format", "json", "--allowedTools", "Bash"}
		if run.Resume != "" {
			args = append(args, "--resume", run.Resume)
		}
		if run.Model != "" {
			args = append(args, "--model", run.Model)
		}
		args = append(args, run.Args...)
		args = append(args, "--", run.Prompt)
	case Codex:
		args = []string{"exec"}
		if run.Resume != "" {
			args = append(args, "resume")
		}
		// Hook trust is bypassed for this invocation only: the tests'
		// hooks are new each time, and trust persisted by hash would be
		// a second thing to keep in step.
		args = append(args, "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox")
		if !run.Untrusted {
			args = append(args, "--dangerously-bypass-hook-trust")
		}
		if run.Model != "" {
			args = append(args, "--model", run.Model)
		}
		args = append(args, run.Args...)
		if run.Resume != "" {
			args = append(args, run.Resume)
		}
		args = append(args, "--", run.Prompt)
	case Gemini:
		// --yolo: headless gemini offers the shell tool only when every
		// action is approved in advance.
		args = []string{"--yolo", "--output-format", "json"}
		if run.Resume != "" {
			args = append(args, "--resume", run.Resume)
		}
		if run.Model != "" {
			args = append(args, "--model", run.Model)
		}
		args = append(args, run.Args...)
		args = append(args, "--prompt", run.Prompt)
	case OpenCode:
		args = []string{"run", "--format", "json", "--auto"}
		if run.Resume != "" {
			args = append(args, "--session", run.Resume)
		}
		model := run.Model
		if model == "" {
			model = "anthropic/claude-sonnet-4-5"
		}
		args = append(args, "--model", model)
		args = append(args, run.Args...)
		args = append(args, "--", run.Prompt)
	case Copilot:
		// --allow-all: tools, paths and URLs without asking (-p cannot
		// ask); JSON lines carry the session id.
		args = []string{"--allow-all", "--no-auto-update", "--output-format", "json", "--no-ask-user"}
		if run.Resume != "" {
			args = append(args, "--resume="+run.Resume)
		} else {
			// The repository's configuration (its .github/hooks) loads
			// only in a trusted folder; this trusts it for one new
			// prompt-mode session without saving anything.
			args = append(args, "--trust-folder")
		}
		if run.Model != "" {
			args = append(args, "--model", run.Model)
		}
		args = append(args, run.Args...)
		args = append(args, "--prompt", run.Prompt)
	}
	return args
}

// Environ returns the environment for a run in dir: the test's own, less
// anything that would point the agent elsewhere, plus the fake's address.
func (a *Agent) Environ(extra ...string) []string {
	var env []string
	for _, kv := range gittest.Env(a.Home) {
		k, _, _ := strings.Cut(kv, "=")
		if dropVar(k) {
			continue
		}
		env = append(env, kv)
	}
	path := os.Getenv("PATH")
	if len(a.Path) > 0 {
		path = strings.Join(a.Path, string(os.PathListSeparator)) + string(os.PathListSeparator) + path
	}
	env = append(env,
		"PATH="+path,
		"XDG_CONFIG_HOME="+filepath.Join(a.Home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(a.Home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(a.Home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(a.Home, ".local", "state"),
		"NO_COLOR=1",
	)
	switch a.Name {
	case Claude:
		env = append(env,
			"ANTHROPIC_BASE_URL="+a.Fake.URL,
			"ANTHROPIC_API_KEY="+APIKey,
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		)
	case Codex:
		env = append(env, "CODEX_HOME="+a.CodexHome(), "FAKE_OPENAI_KEY="+APIKey)
	case OpenCode:
		// Its anthropic provider pointed at the fake; no model list from
		// the network, no updates, no sharing.
		env = append(env,
			"ANTHROPIC_BASE_URL="+a.Fake.URL+"/v1",
			"ANTHROPIC_API_KEY="+APIKey,
		)
		env = append(env, OpenCodeEnv()...)
	case Copilot:
		// Its own-provider mode: no GitHub account, the fake speaking
		// Anthropic's Messages API.
		env = append(env,
			"COPILOT_PROVIDER_BASE_URL="+a.Fake.URL,
			"COPILOT_PROVIDER_TYPE=anthropic",
			"COPILOT_PROVIDER_API_KEY="+APIKey,
			"COPILOT_MODEL=claude-sonnet-4.5",
		)
	case Gemini:
		// GEMINI_CLI_NO_RELAUNCH: Gemini CLI starts a second node with a
		// larger heap and this variable set, which then does all the
		// work; set here, the first one does it, and each start costs
		// one node's start (1.3 of 3 CPU seconds here), not two.
		env = append(env,
			"GEMINI_API_KEY="+APIKey,
			"GOOGLE_GEMINI_BASE_URL="+a.Fake.URL,
			"GEMINI_CLI_TRUST_WORKSPACE=true",
			"GEMINI_CLI_NO_RELAUNCH=true",
		)
	}
	env = append(env, a.Env...)
	return append(env, extra...)
}

// dropVar says whether an inherited variable could reach a real service,
// a real account or the developer's own agent configuration.
func dropVar(k string) bool {
	for _, p := range []string{"ANTHROPIC_", "CLAUDE", "CODEX_", "OPENAI_", "GEMINI_", "GOOGLE_", "COPILOT_", "OPENCODE", "XDG_", "AI_AGENT", "GIT_HANDOFF_"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return k == "PATH" || k == "NO_COLOR" || k == "PWD"
}

// Trust marks dir trusted for the agent, as Run does before each run: for
// a test that starts the agent itself (in a terminal, under tmux), where
// a trust dialog would wait for a key. Only Claude Code and Codex ask.
func (a *Agent) Trust(dir string) {
	a.t.Helper()
	var err error
	switch a.Name {
	case Claude:
		err = a.updateClaudeState(dir)
	case Codex:
		err = a.trustCodexProject(dir)
	}
	if err != nil {
		a.t.Fatalf("agenttest: trusting %s for %s: %v", dir, a.Name, err)
	}
}

// Run runs the agent once and returns what it left. A run that times out
// is an error of the test; its output is still returned.
func (a *Agent) Run(run Run) Result {
	a.t.Helper()
	if run.Dir == "" {
		a.t.Fatal("agenttest: Run needs a Dir")
	}
	if a.Name == Claude {
		// Hooks, and the project's settings, apply only in folders whose
		// trust dialog was accepted.
		if err := a.updateClaudeState(run.Dir); err != nil {
			a.t.Fatalf("agenttest: trusting %s for claude: %v", run.Dir, err)
		}
	}
	if a.Name == OpenCode {
		// The project's plugin directory, which init --agent made.
		if fi, err := os.Stat(filepath.Join(run.Dir, ".opencode")); err == nil && fi.IsDir() {
			SeedOpenCode(a.t, filepath.Join(run.Dir, ".opencode"))
		}
	}
	if a.Name == Codex && !run.Untrusted {
		if err := a.trustCodexProject(run.Dir); err != nil {
			a.t.Fatalf("agenttest: trusting %s for codex: %v", run.Dir, err)
		}
	}
	timeout := run.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
		if a.Name == Copilot {
			// Copilot unpacks itself into each fresh HOME before its
			// first request (unless seedCopilot could spare it): 40 s
			// of a 90 s budget under make test's load, once past it.
			timeout = 4 * DefaultTimeout
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	killed := make(chan bool, 1)
	if run.Kill != nil {
		kctx, kcancel := context.WithCancel(ctx)
		defer kcancel()
		go func() {
			select {
			case <-run.Kill:
				killed <- true
				kcancel()
			case <-kctx.Done():
				killed <- false
			}
		}()
		ctx = kctx
	}
	cmd := exec.CommandContext(ctx, a.Bin, a.Args(run)...)
	cmd.Dir = run.Dir
	// PWD too: opencode takes its directory from PWD, not from getcwd,
	// and would work in the test's own directory.
	cmd.Env = a.Environ(append([]string{"PWD=" + run.Dir}, run.Env...)...)
	// Its own process group, so a timeout kills the agent's children
	// (shells, hooks, node helpers) too, and a stdin that is at its end.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	// Children that outlived a clean exit go too.
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res := Result{Stdout: out.String(), Stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	default:
		res.Code = -1
		res.Stderr += "\nagenttest: " + err.Error()
	}
	if run.Kill != nil && ctx.Err() != nil {
		res.Killed = <-killed
	}
	if ctx.Err() != nil && !res.Killed {
		res.TimedOut = true
	}
	if res.TimedOut {
		a.t.Errorf("agenttest: %s timed out after %v\n%s\nrequests:\n%s", a.Name, timeout, res, a.Fake.Dump())
	}
	res.SessionID = sessionID(a.Name, res.Stdout)
	// What the run's end hook left to a detached process is done before
	// the test reads the repository, or removes it.
	WaitHandovers(a.t, run.Dir)
	return res
}

// sessionID reads the agent's session id from its JSON output.
func sessionID(agent, stdout string) string {
	switch agent {
	case Claude, Gemini:
		// One JSON object (claude may print warnings before it: take the
		// last line that parses).
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		var v struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(stdout)), &v) == nil && v.SessionID != "" {
			return v.SessionID
		}
		for i := len(lines) - 1; i >= 0; i-- {
			if json.Unmarshal([]byte(lines[i]), &v) == nil && v.SessionID != "" {
				return v.SessionID
			}
		}
	case OpenCode:
		for _, line := range strings.Split(stdout, "\n") {
			var ev struct {
				SessionID string `json:"sessionID"`
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.SessionID != "" {
				return ev.SessionID
			}
		}
	case Copilot:
		for _, line := range strings.Split(stdout, "\n") {
			var ev struct {
				Type      string `json:"type"`
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "result" && ev.SessionID != "" {
				return ev.SessionID
			}
		}
	case Codex:
		for _, line := range strings.Split(stdout, "\n") {
			var ev struct {
				Type     string `json:"type"`
				ThreadID string `json:"thread_id"`
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "thread.started" {
				return ev.ThreadID
			}
		}
	}
	return ""
}
