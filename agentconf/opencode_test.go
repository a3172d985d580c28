package agentconf_test

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/agentconf"
	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

// findTool finds an agent CLI or node where .ci/run installs them
// (agenttest.ToolsDir), then on PATH. Missing, the test skips,
// unless CI_REQUIRE_TOOLS is set: then it fails.
func findTool(t *testing.T, name string) string {
	t.Helper()
	agenttest.SkipUnderRace(t)
	p := filepath.Join(agenttest.ToolsDir(), name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	msg := name + " is not installed in " + agenttest.ToolsDir() + " nor on PATH"
	if os.Getenv("CI_REQUIRE_TOOLS") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// recorder is a git-handoff on PATH that records each call (argv, stdin)
// and answers as the contract says agenthook does: session-start with
// additionalContext, stop with a block while $HOOK_BLOCK is set. It stands
// in for `git handoff hook agent`, whose implementation is not part of
// this package; the plugin's side of the contract is what is under test.
const recorder = `#!/bin/sh
in=$(cat)
printf '%s %s\n' "$*" "$in" >> "$HOOKLOG"
case "$4" in
session-start) printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"BRIEF for %s"}}\n' "$4" ;;
stop) case "$in" in *'"stop_hook_active":false'*) [ -n "$HOOK_BLOCK" ] && printf '{"decision":"block","reason":"leave a baton"}\n' ;; esac ;;
esac
exit 0
`

func recorderBin(t *testing.T) (bin, log string) {
	t.Helper()
	bin = t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git-handoff"), []byte(recorder), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, filepath.Join(t.TempDir(), "hook.log")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The real opencode loads the installed plugin from .opencode/plugins/ and
// the plugin runs session-start, with the contract's stdin, when a session
// is created; with no git-handoff at all opencode works on (fail open).
// No model is needed: `opencode serve` creates sessions over its HTTP API.
func TestOpenCodeLoadsPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("starts opencode twice (about a minute each here)")
	}
	oc := findTool(t, "opencode")
	gittest.Isolate(t) // t.Setenv: before the parallel subtests
	for _, withHandoff := range []bool{true, false} {
		t.Run("git-handoff="+strconv.FormatBool(withHandoff), func(t *testing.T) {
			t.Parallel()
			root := gittest.Init(t)
			if _, err := agentconf.Install(root, []string{"opencode"}); err != nil {
				t.Fatal(err)
			}
			bin, log := recorderBin(t)
			path := os.Getenv("PATH")
			if withHandoff {
				path = bin + string(os.PathListSeparator) + path
			}
			home := t.TempDir()
			agenttest.SeedOpenCode(t, filepath.Join(home, ".config", "opencode"), filepath.Join(root, ".opencode"))
			port := freePort(t)
			cmd := exec.Command(oc, "serve", "--port", strconv.Itoa(port), "--print-logs")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "PATH="+path, "HOME="+home, "HOOKLOG="+log,
				"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local/share"),
				"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local/state"))
			cmd.Env = append(cmd.Env, agenttest.OpenCodeEnv()...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				cmd.Wait()
			})
			// A loaded machine (make test runs two packages at once) took
			// over three minutes for opencode's first session, npm
			// installing its plugin SDK (SeedOpenCode spares that). A
			// bound on how long a server that never comes up is waited
			// for, not a timing claim.
			base := "http://127.0.0.1:" + strconv.Itoa(port)
			if err := agenttest.OpenCodeServeReady(base, root, 360*time.Second); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			client := &http.Client{Timeout: 150 * time.Second}
			url := base + "/session?directory=" + root
			resp, err := client.Post(url, "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatalf("creating a session: %v\n%s", err, out.String())
			}
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("creating a session: %s %s\n%s", resp.Status, b.String(), out.String())
			}
			id := ""
			if i := strings.Index(b.String(), `"id":"ses_`); i >= 0 {
				id = b.String()[i+6 : i+6+strings.Index(b.String()[i+6:], `"`)]
			}
			if id == "" {
				t.Fatalf("opencode serve created no session: %s\n%s", b.String(), out.String())
			}
			if !withHandoff {
				// Fail open: a second session after the failed hook is still made.
				resp, err := client.Post(url, "application/json", strings.NewReader("{}"))
				if err != nil || resp.StatusCode != 200 {
					t.Fatalf("after a failed hook opencode no longer creates sessions: %v", err)
				}
				resp.Body.Close()
				return
			}
			want := "hook agent opencode session-start " + `{"session_id":"` + id + `","cwd":"` + root + `","source":"startup"}`
			var got []byte
			for deadline := time.Now().Add(120 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if got, _ = os.ReadFile(log); bytes.Contains(got, []byte(want)) {
					break
				}
			}
			if !bytes.Contains(got, []byte(want)) {
				t.Fatalf("hook calls:\n%s\nwant %s\nopencode:\n%s", got, want, out.String())
			}
			// Once per session.
			if n := bytes.Count(got, []byte(`session-start {"session_id":"`+id+`"`)); n != 1 {
				t.Errorf("session-start ran %d times for %s:\n%s", n, id, got)
			}
		})
	}
}

// driver runs the installed plugin under node with the calls opencode
// makes (events, the system transform) and a client that records
// session.promptAsync, and prints what happened as JSON.
const driver = `
const { GitHandoff } = await import(process.argv[2])
const prompts = []
const client = { session: { promptAsync: async (req) => { prompts.push(req) } } }
const hooks = await GitHandoff({ client, directory: process.argv[3], worktree: process.argv[3] })
const system = async (id) => { const out = { system: ["base"] }; await hooks["experimental.chat.system.transform"]({ sessionID: id, model: {} }, out); return out.system }
const ev = (type, properties) => hooks.event({ event: { type, properties } })
const r = {}
await ev("session.created", { sessionID: "ses_a", info: { id: "ses_a" } })
r.first = await system("ses_a")
r.second = await system("ses_a")
await ev("session.idle", { sessionID: "ses_a" })
r.promptsAfterBlock = prompts.length
r.prompt = prompts[0]
await system("ses_a")
await ev("session.idle", { sessionID: "ses_a" })
await ev("session.idle", { sessionID: "ses_a" })
r.promptsAfterAgain = prompts.length
r.resumed = await system("ses_b")
await ev("session.created", { sessionID: "ses_c", info: { id: "ses_c", parentID: "ses_a" } })
r.child = await system("ses_c")
await ev("session.compacted", { sessionID: "ses_a" })
console.log(JSON.stringify(r))
`

func TestOpenCodePluginProtocol(t *testing.T) {
	node := findTool(t, "node")
	root := repo(t)
	if _, err := agentconf.Install(root, []string{"opencode"}); err != nil {
		t.Fatal(err)
	}
	bin, log := recorderBin(t)
	script := filepath.Join(t.TempDir(), "driver.mjs")
	os.WriteFile(script, []byte(driver), 0o644)
	cmd := exec.Command(node, script, filepath.Join(root, ".opencode/plugins/git-handoff.js"), root)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOOKLOG="+log, "HOOK_BLOCK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var r struct {
		First, Second, Resumed, Child        []string
		PromptsAfterBlock, PromptsAfterAgain int
		Prompt                               any
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	brief := []string{"base", "BRIEF for session-start"}
	if !slices.Equal(r.First, brief) || !slices.Equal(r.Second, brief) || !slices.Equal(r.Resumed, brief) {
		t.Errorf("system prompts: first %q second %q resumed %q", r.First, r.Second, r.Resumed)
	}
	if !slices.Equal(r.Child, []string{"base"}) {
		t.Errorf("a sub-agent's session got %q", r.Child)
	}
	if r.PromptsAfterBlock != 1 || r.PromptsAfterAgain != 1 {
		t.Errorf("prompts after the block %d, after the next idle %d; want 1, 1", r.PromptsAfterBlock, r.PromptsAfterAgain)
	}
	if p, _ := json.Marshal(r.Prompt); string(p) != `{"body":{"parts":[{"text":"leave a baton","type":"text"}]},"path":{"id":"ses_a"}}` {
		t.Errorf("prompt %s", p)
	}
	calls, _ := os.ReadFile(log)
	want := []string{
		`hook agent opencode session-start {"session_id":"ses_a","cwd":"` + root + `","source":"startup"}`,
		`hook agent opencode stop {"session_id":"ses_a","cwd":"` + root + `","stop_hook_active":false}`,
		`hook agent opencode stop {"session_id":"ses_a","cwd":"` + root + `","stop_hook_active":true}`,
		`hook agent opencode session-start {"session_id":"ses_b","cwd":"` + root + `","source":"resume"}`,
		`hook agent opencode session-start {"session_id":"ses_a","cwd":"` + root + `","source":"compact"}`,
	}
	if got := strings.Split(strings.TrimSpace(string(calls)), "\n"); !slices.Equal(got, want) {
		t.Errorf("hook calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
