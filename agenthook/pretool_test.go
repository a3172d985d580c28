package agenthook

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/agentconf"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

// leasedRepo is a repository in which session s-other (codex, of
// ann@example.com) holds path:src/lexer/** for ttl, taken in this clone.
func leasedRepo(t *testing.T, ttl time.Duration) string {
	t.Helper()
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	dir := gittest.Init(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	k, err := lease.ParseKey("path:src/lexer/**")
	if err != nil {
		t.Fatal(err)
	}
	_, err = lease.Take(ctx, st, lease.LocalBoard{St: st}, lease.TakeOptions{
		Keys: []lease.Key{k}, TTL: ttl, Note: "rewriting the scanner",
		Holder: lease.Holder{Session: "s-other", Owner: "ann@example.com", Agent: "codex"},
	}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// preTool runs the pre-tool hook of harnessName on in and returns what it
// answered; the recorder sees no workflow at all.
func preTool(t *testing.T, harnessName, in string) (string, string) {
	t.Helper()
	r := &recorder{}
	out, errOut := run(t, harnessName, EventPreToolUse, in, r)
	if len(r.calls) != 0 {
		t.Errorf("the pre-tool hook ran workflows %v", r.calls)
	}
	return out, errOut
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const scanReason = "src/lexer/scan.go is leased to codex session s-other of ann@example.com until "

// Each agent's write of a leased file is refused in the agent's own deny
// shape, the reason naming the file, the holder and what to do.
func TestPreToolUseDeniesInEachAgentsFormat(t *testing.T) {
	dir := leasedRepo(t, time.Hour)
	file := filepath.Join(dir, "src", "lexer", "scan.go")
	// A relative path is the agent's working directory's (which exists;
	// the file need not).
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	patch := "*** Begin Patch\n*** Update File: src/lexer/scan.go\n@@\n-a\n+b\n*** End Patch\n"
	copilotArgs, _ := json.Marshal(map[string]string{"path": file, "old_str": "a", "new_str": "b"})
	tests := []struct {
		harness, in string
		reason      func(map[string]any) string
	}{
		{"claude-code", `{"session_id":"` + uuid + `","cwd":` + jsonString(dir) + `,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":` + jsonString(file) + `,"content":"x"},"tool_use_id":"toolu_1"}`,
			claudeReason},
		{"claude-code", `{"session_id":"` + uuid + `","cwd":` + jsonString(filepath.Join(dir, "src")) + `,"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"lexer/scan.go","old_string":"a","new_string":"b"}}`,
			claudeReason},
		// Codex 0.171.0's keys for its freeform apply_patch, as its hook
		// received them in TestAgentsPreToolUseRefuseLeasedWrite.
		{"codex", `{"session_id":"` + uuid + `","turn_id":"1","transcript_path":"/nonexistent/rollout.jsonl","cwd":` + jsonString(dir) + `,"hook_event_name":"PreToolUse","model":"m","permission_mode":"bypassPermissions","tool_name":"apply_patch","tool_input":{"command":` + jsonString(patch) + `},"tool_use_id":"call_1"}`,
			claudeReason},
		{"gemini", `{"session_id":"` + uuid + `","cwd":` + jsonString(dir) + `,"hook_event_name":"BeforeTool","timestamp":"2026-12-06T10:00:00Z","tool_name":"replace","tool_input":{"file_path":` + jsonString(file) + `,"old_string":"a","new_string":"b"}}`,
			func(m map[string]any) string {
				if m["decision"] != "deny" {
					return ""
				}
				s, _ := m["reason"].(string)
				return s
			}},
		// As Copilot CLI 1.0.102 sent it (recorded), arguments an object.
		{"copilot", `{"sessionId":"` + uuid + `","timestamp":1796533357199,"cwd":` + jsonString(dir) + `,"toolName":"edit","toolArgs":` + string(copilotArgs) + `}`,
			copilotReason},
		// Its documentation's shape: arguments a string holding JSON.
		{"copilot", `{"timestamp":1765000000000,"cwd":` + jsonString(dir) + `,"toolName":"create","toolArgs":` + jsonString(string(copilotArgs)) + `}`,
			copilotReason},
		{"cursor", `{"conversation_id":"c1","hook_event_name":"preToolUse","workspace_roots":[` + jsonString(dir) + `],"tool_name":"Write","tool_input":{"file_path":` + jsonString(file) + `}}`,
			func(m map[string]any) string {
				if m["permission"] != "deny" || m["user_message"] != m["agent_message"] {
					return ""
				}
				s, _ := m["agent_message"].(string)
				return s
			}},
	}
	for _, tc := range tests {
		out, errOut := preTool(t, tc.harness, tc.in)
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Errorf("%s: answer %q (stderr %q): %v", tc.harness, out, errOut, err)
			continue
		}
		reason := tc.reason(m)
		if !strings.HasPrefix(reason, scanReason) || !strings.HasSuffix(reason, `(path:src/lexer/**: rewriting the scanner); take another task or ask`) {
			t.Errorf("%s: answer %s, want a deny whose reason starts %q", tc.harness, out, scanReason)
		}
		if !regexp.MustCompile(`until \d\d:\d\d `).MatchString(reason) {
			t.Errorf("%s: reason %q names no time", tc.harness, reason)
		}
	}
}

func copilotReason(m map[string]any) string {
	if m["permissionDecision"] != "deny" {
		return ""
	}
	s, _ := m["permissionDecisionReason"].(string)
	return s
}

func claudeReason(m map[string]any) string {
	h, _ := m["hookSpecificOutput"].(map[string]any)
	if h["hookEventName"] != "PreToolUse" || h["permissionDecision"] != "deny" {
		return ""
	}
	s, _ := h["permissionDecisionReason"].(string)
	return s
}

// What is not a write of another session's leased file goes ahead with
// nothing said: a free file, a read, a shell, the session's own lease, a
// file outside the repository, and input the hook cannot read.
func TestPreToolUseAllows(t *testing.T) {
	dir := leasedRepo(t, time.Hour)
	claude := func(tool, input string) string {
		return `{"session_id":"` + uuid + `","cwd":` + jsonString(dir) + `,"hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + input + `}`
	}
	leased := jsonString(filepath.Join(dir, "src", "lexer", "scan.go"))
	tests := []struct{ name, harness, in string }{
		{"free file", "claude-code", claude("Write", `{"file_path":`+jsonString(filepath.Join(dir, "src", "parser", "parse.go"))+`,"content":"x"}`)},
		{"a sibling of the leased directory", "claude-code", claude("Write", `{"file_path":`+jsonString(filepath.Join(dir, "src", "lexer.go"))+`}`)},
		{"read", "claude-code", claude("Read", `{"file_path":`+leased+`}`)},
		{"shell", "claude-code", claude("Bash", `{"command":"echo x > src/lexer/scan.go"}`)},
		{"outside the repository", "claude-code", claude("Write", `{"file_path":`+jsonString(filepath.Join(t.TempDir(), "src", "lexer", "scan.go"))+`}`)},
		{"copilot viewing", "copilot", `{"cwd":` + jsonString(dir) + `,"toolName":"str_replace_editor","toolArgs":{"command":"view","path":` + leased + `}}`},
		{"gemini reading", "gemini", `{"cwd":` + jsonString(dir) + `,"tool_name":"read_file","tool_input":{"file_path":` + leased + `}}`},
		{"not JSON", "claude-code", `{"tool_name":"Write","tool_input":`},
		{"arguments not an object", "claude-code", claude("Write", `["x"]`)},
		{"no input", "claude-code", ``},
	}
	for _, tc := range tests {
		if out, errOut := preTool(t, tc.harness, tc.in); out != "" {
			t.Errorf("%s: answered %q (stderr %q), want nothing", tc.name, out, errOut)
		}
	}
	// The holder itself writes freely.
	t.Setenv("GIT_HANDOFF_SESSION", "s-other")
	if out, _ := preTool(t, "claude-code", claude("Edit", `{"file_path":`+leased+`}`)); out != "" {
		t.Errorf("the holding session was answered %q", out)
	}
}

// A write outside any repository, or in one with no path lease, is
// allowed; so is one whose lease this clone has seen unchanged for its
// TTL (its holder stopped renewing).
func TestPreToolUseNoLeaseAndExpired(t *testing.T) {
	gittest.Isolate(t)
	plain := t.TempDir()
	repo := gittest.Init(t)
	for _, dir := range []string{plain, repo} {
		in := `{"cwd":` + jsonString(dir) + `,"tool_name":"Write","tool_input":{"file_path":` + jsonString(filepath.Join(dir, "a.go")) + `}}`
		if out, errOut := preTool(t, "claude-code", in); out != "" || errOut != "" {
			t.Errorf("%s: answered %q, said %q; want nothing at all", dir, out, errOut)
		}
	}
	dir := leasedRepo(t, lease.MinTTL)
	in := `{"cwd":` + jsonString(dir) + `,"tool_name":"Write","tool_input":{"file_path":"src/lexer/scan.go"}}`
	if out, _ := preTool(t, "claude-code", in); !strings.Contains(out, `"deny"`) {
		t.Fatalf("first sighting answered %q, want a deny", out)
	}
	time.Sleep(lease.MinTTL + 100*time.Millisecond)
	if out, _ := preTool(t, "claude-code", in); out != "" {
		t.Errorf("after its TTL unchanged answered %q, want nothing", out)
	}
}

// The matcher each agent's hook is installed with (agentconf) names
// exactly the tools this package reads as writes: a tool it misses is
// never checked, one it adds starts the hook for nothing.
func TestPreToolUseMatchersAreTheWriteTools(t *testing.T) {
	for name, p := range protocols {
		if p.writes == nil {
			continue
		}
		var want []string
		for tool := range p.writes {
			want = append(want, tool)
		}
		slices.Sort(want)
		b, err := agentconf.PluginHooks(name)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Hooks map[string][]map[string]any `json:"hooks"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		found := 0
		// The command as json.Marshal writes it inside the entry ("&" and
		// ">" escaped).
		cmd := strings.Trim(mustMarshal(t, agentconf.Command(name, EventPreToolUse)), `"`)
		for _, entries := range doc.Hooks {
			for _, e := range entries {
				if !strings.Contains(mustMarshal(t, e), cmd) {
					continue
				}
				found++
				m, _ := e["matcher"].(string)
				m = strings.TrimSuffix(strings.TrimPrefix(m, "^("), ")$")
				got = strings.Split(m, "|")
				slices.Sort(got)
			}
		}
		if found != 1 || !slices.Equal(got, want) {
			t.Errorf("%s: %d pre-tool entries, matcher %q; want one naming %q", name, found, got, want)
		}
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The reason is one line per file: several files of one call are each
// named.
func TestPreToolUseNamesEveryFile(t *testing.T) {
	dir := leasedRepo(t, time.Hour)
	patch := "*** Begin Patch\n*** Add File: src/lexer/new.go\n+x\n*** Update File: README.md\n*** Move to: src/lexer/readme.md\n*** Delete File: src/lexer/old.go\n*** End Patch\n"
	in := `{"session_id":"` + uuid + `","cwd":` + jsonString(dir) + `,"tool_name":"apply_patch","tool_input":{"command":` + jsonString(patch) + `}}`
	out, _ := preTool(t, "codex", in)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	lines := strings.Split(claudeReason(m), "\n")
	var files []string
	for _, l := range lines {
		f, _, _ := strings.Cut(l, " is leased to ")
		files = append(files, f)
	}
	if want := []string{"src/lexer/new.go", "src/lexer/readme.md", "src/lexer/old.go"}; !slices.Equal(files, want) {
		t.Errorf("reason names %q, want %q:\n%s", files, want, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "src")); err == nil {
		t.Errorf("the hook wrote into the worktree")
	}
}

// gitLog puts a git first on PATH that notes each run's subcommand before
// running the real one; the returned func gives those run since its last
// call.
func gitLog(t *testing.T) func() []string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >>" + shellQuote(log) + "\nexec " + shellQuote(real) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		b, _ := os.ReadFile(log)
		os.Remove(log)
		return strings.Fields(string(b))
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// What each write costs in git processes, and when the hook renews: with
// no lease ref it runs no git at all; with leases, the one listing, and
// the renewal (the recorder's, here) only once a lease of the calling
// session (GIT_HANDOFF_SESSION, else the worktree's binding) is past half
// its TTL, whatever the leases of others. A renewal's failure is said on
// stderr and changes no answer.
func TestPreToolUseRenewsOnlyWhenDue(t *testing.T) {
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "s-me")
	dir := gittest.Init(t)
	if f := gittest.Run(t, dir, "config", "--default", "files", "extensions.refStorage"); f != "files" {
		t.Skipf("a %s repository: the hook asks git there", f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ran := gitLog(t)
	r := &recorder{}
	write := func(file string) (string, string) {
		t.Helper()
		in := `{"session_id":"` + uuid + `","cwd":` + jsonString(dir) + `,"tool_name":"Write","tool_input":{"file_path":` + jsonString(filepath.Join(dir, file)) + `}}`
		return run(t, "claude-code", EventPreToolUse, in, r)
	}
	expect := func(what, file string, deny bool, renews int, git ...string) {
		t.Helper()
		r.calls, r.renew = nil, nil
		ran()
		out, errOut := write(file)
		if got := strings.Contains(out, `"deny"`); got != deny || !deny && out != "" {
			t.Errorf("%s: answered %q (stderr %q)", what, out, errOut)
		}
		if len(r.renew) != renews || len(r.calls) != renews {
			t.Errorf("%s: workflows %v, want %d renewals", what, r.calls, renews)
		}
		for _, o := range r.renew {
			if o != (handoff.AgentRenewOptions{Harness: "claude-code", NativeID: uuid}) {
				t.Errorf("%s: renewed for %+v", what, o)
			}
		}
		if got := ran(); !slices.Equal(got, git) {
			t.Errorf("%s: ran git %q, want %q", what, got, git)
		}
		if r.renewErr == nil && errOut != "" {
			t.Errorf("%s: said %q", what, errOut)
		}
	}
	expect("nothing leased", "src/a.go", false, 0)

	t0 := time.Now()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	take := func(session, key string) {
		t.Helper()
		k, _ := lease.ParseKey(key)
		if _, err := lease.Take(ctx, st, lease.LocalBoard{St: st}, lease.TakeOptions{Keys: []lease.Key{k}, TTL: 10 * time.Minute, Holder: lease.Holder{Session: session}}, func() time.Time { return t0 }); err != nil {
			t.Fatal(err)
		}
	}
	take("s-other", "path:src/lexer/**")
	expect("another's lease, not due", "src/a.go", false, 0, "for-each-ref")
	r.now = t0.Add(6 * time.Minute)
	expect("another's lease, due", "src/a.go", false, 0, "for-each-ref")
	take("s-me", "issue:7")
	r.now = t0.Add(4 * time.Minute)
	expect("mine, not due", "src/a.go", false, 0, "for-each-ref")
	r.now = t0.Add(6 * time.Minute)
	expect("mine, due", "src/a.go", false, 1, "for-each-ref")
	expect("mine, due, writing another's file", "src/lexer/scan.go", true, 1, "for-each-ref", "rev-parse")

	// The calling session is the worktree's binding when the environment
	// names none (and the agent's id is noted for none here).
	t.Setenv("GIT_HANDOFF_SESSION", "")
	expect("unbound", "src/a.go", false, 0, "for-each-ref")
	// The guard reads the binding from the files too (no symbolic-ref).
	expect("unbound, another's file", "src/lexer/scan.go", true, 0, "for-each-ref", "rev-parse")
	gittest.Run(t, dir, "symbolic-ref", refstore.WorktreeSession, refstore.SessionPrefix+"s-other")
	expect("bound to the holder, its file", "src/lexer/scan.go", false, 1, "for-each-ref", "rev-parse")
	gittest.Run(t, dir, "symbolic-ref", refstore.WorktreeSession, refstore.SessionPrefix+"s-me")
	expect("bound", "src/a.go", false, 1, "for-each-ref")
	gittest.Run(t, dir, "symbolic-ref", refstore.WorktreeSession, refstore.SessionPrefix+"s-third")
	expect("bound to a third session", "src/a.go", false, 0, "for-each-ref")
	t.Setenv("GIT_HANDOFF_SESSION", "s-me")

	// Packed, the leases are found all the same.
	gittest.Run(t, dir, "pack-refs", "--all")
	os.RemoveAll(filepath.Join(dir, ".git", "refs", "ao"))
	expect("packed, due", "src/a.go", false, 1, "for-each-ref")
	expect("packed, another's file", "src/lexer/scan.go", true, 1, "for-each-ref", "rev-parse")

	r.renewErr = errors.New("the arbiter is unreachable")
	for _, file := range []string{"src/a.go", "src/lexer/scan.go"} {
		r.calls, r.renew = nil, nil
		out, errOut := write(file)
		deny := strings.Contains(file, "lexer")
		if strings.Contains(out, `"deny"`) != deny || !deny && out != "" || !strings.Contains(errOut, "renewing this session's leases: the arbiter is unreachable") {
			t.Errorf("%s with a failing renewal: answered %q, said %q", file, out, errOut)
		}
	}
}

// In a reftable (made by the newest git, when there is one), whose refs no
// file shows, the hook asks git whether any lease is held, and renews as
// in files: the binding, which no file shows either, is asked of git only
// when a lease is due and nothing else names the caller.
func TestPreToolUseReftable(t *testing.T) {
	newest := os.Getenv(gittest.NewestGitEnv)
	if gits, _ := filepath.Glob("/root/.cache/git-handoff/git-*/bin/git"); newest == "" && len(gits) > 0 {
		newest = gits[len(gits)-1]
	}
	if newest == "" {
		t.Skip("no newer git (" + gittest.NewestGitEnv + ", or /root/.cache/git-handoff/git-*/bin/git) to make a reftable")
	}
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	t.Setenv("PATH", filepath.Dir(newest)+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := filepath.Join(t.TempDir(), "repo")
	gittest.Run(t, "", "init", "-q", "-b", "main", "--ref-format=reftable", dir)
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ran := gitLog(t)
	r := &recorder{}
	write := func(what, file string, renews int, git ...string) {
		t.Helper()
		r.calls, r.renew = nil, nil
		ran()
		in := `{"session_id":"` + uuid + `","cwd":` + jsonString(dir) + `,"tool_name":"Write","tool_input":{"file_path":` + jsonString(filepath.Join(dir, file)) + `}}`
		out, errOut := run(t, "claude-code", EventPreToolUse, in, r)
		if deny := strings.Contains(file, "lexer"); strings.Contains(out, `"deny"`) != deny || !deny && out != "" || errOut != "" {
			t.Errorf("%s: answered %q, said %q", what, out, errOut)
		}
		if len(r.renew) != renews {
			t.Errorf("%s: workflows %v, want %d renewals", what, r.calls, renews)
		}
		if got := ran(); !slices.Equal(got, git) {
			t.Errorf("%s: ran git %q, want %q", what, got, git)
		}
	}
	write("nothing leased", "src/a.go", 0, "for-each-ref")
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Now()
	for session, key := range map[string]string{"s-other": "path:src/lexer/**", "s-me": "issue:7"} {
		k, _ := lease.ParseKey(key)
		if _, err := lease.Take(ctx, st, lease.LocalBoard{St: st}, lease.TakeOptions{Keys: []lease.Key{k}, TTL: 10 * time.Minute, Holder: lease.Holder{Session: session}}, func() time.Time { return t0 }); err != nil {
			t.Fatal(err)
		}
	}
	r.now = t0.Add(time.Minute)
	write("nothing due", "src/a.go", 0, "for-each-ref")
	write("nothing due, another's file", "src/lexer/scan.go", 0, "for-each-ref", "rev-parse", "symbolic-ref")
	r.now = t0.Add(6 * time.Minute)
	write("due, unbound", "src/a.go", 0, "for-each-ref", "symbolic-ref")
	gittest.Run(t, dir, "symbolic-ref", refstore.WorktreeSession, refstore.SessionPrefix+"s-me")
	write("due, bound", "src/a.go", 1, "for-each-ref", "symbolic-ref")
	t.Setenv("GIT_HANDOFF_SESSION", "s-me")
	write("due, named by the environment", "src/a.go", 1, "for-each-ref")
}
