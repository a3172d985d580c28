package agentconf_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/agentconf"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

func repo(t *testing.T) string {
	t.Helper()
	gittest.Isolate(t)
	return gittest.Init(t)
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	gittest.WriteFile(t, root, rel, []byte(content))
}

func read(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(root, rel string) bool {
	_, err := os.Stat(filepath.Join(root, rel))
	return err == nil
}

// snapshot is every file in the worktree (outside .git), for comparing
// whole trees before and after.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == ".git" {
				return filepath.SkipDir
			}
			out[rel+"/"] = ""
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = string(b)
		return nil
	})
	return out
}

func check(t *testing.T, root string, names ...string) map[string]agentconf.Status {
	t.Helper()
	sts, err := agentconf.Check(root, names, agentconf.Options{CodexHome: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]agentconf.Status{}
	for _, s := range sts {
		out[s.Agent] = s
	}
	return out
}

// Every agent: install writes files check calls installed, a second
// install changes nothing, remove leaves the worktree as it was.
func TestInstallCheckRemoveEveryAgent(t *testing.T) {
	root := repo(t)
	before := snapshot(t, root)
	all := agentconf.Names()
	if len(all) != 8 {
		t.Fatalf("agents = %v, want eight", all)
	}
	for name, st := range check(t, root, all...) {
		if st.State != agentconf.Missing {
			t.Errorf("%s before install: %s", name, st.State)
		}
	}
	rep, err := agentconf.Install(root, all)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rep.Agents {
		for _, f := range a.Files {
			if f.Action != agentconf.Created {
				t.Errorf("%s %s: %s, want created", a.Agent, f.Path, f.Action)
			}
		}
	}
	for name, st := range check(t, root, all...) {
		if st.State != agentconf.Installed {
			t.Errorf("%s after install: %s %+v", name, st.State, st.Files)
		}
	}
	installed := snapshot(t, root)
	rep, err = agentconf.Install(root, all)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed() {
		t.Errorf("second install changed something: %+v", rep)
	}
	if got := snapshot(t, root); !mapsEqual(got, installed) {
		t.Errorf("second install changed files")
	}
	rep, err = agentconf.Remove(root, all)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rep.Agents {
		for _, f := range a.Files {
			if f.Action != agentconf.Removed {
				t.Errorf("%s %s: %s, want removed", a.Agent, f.Path, f.Action)
			}
		}
	}
	if got := snapshot(t, root); !mapsEqual(got, before) {
		t.Errorf("after remove the worktree differs:\n got %v\nwant %v", keys(got), keys(before))
	}
	rep, err = agentconf.Remove(root, all)
	if err != nil || rep.Changed() {
		t.Errorf("second remove: %v changed=%v", err, rep.Changed())
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}

const userClaude = `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "model": "opus",
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "say done"}]}
    ],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    ]
  },
  "zeta": 1
}
`

// A user's own hooks and keys survive install and remove, in their order.
func TestMergeKeepsUserHooks(t *testing.T) {
	root := repo(t)
	write(t, root, ".claude/settings.json", userClaude)
	if _, err := agentconf.Install(root, []string{"claude-code"}); err != nil {
		t.Fatal(err)
	}
	got := read(t, root, ".claude/settings.json")
	for _, want := range []string{`"say done"`, `"./lint.sh"`, `"Bash(go test:*)"`, agentconf.Command("claude-code", "stop"), agentconf.Command("claude-code", "session-start"), `"startup|resume|clear|compact"`} {
		if !strings.Contains(got, want) {
			t.Errorf("settings lack %s:\n%s", want, got)
		}
	}
	// The user's keys keep their order; ours come after theirs.
	order := []string{`"permissions"`, `"model"`, `"hooks"`, `"Stop"`, `"say done"`, agentconf.Command("claude-code", "stop"), `"PreToolUse"`, `"SessionStart"`, `"zeta"`}
	last := -1
	for _, k := range order {
		i := strings.Index(got, k)
		if i <= last {
			t.Fatalf("%s out of order in:\n%s", k, got)
		}
		last = i
	}
	if st := check(t, root, "claude-code")["claude-code"]; st.State != agentconf.Installed {
		t.Errorf("check: %+v", st)
	}
	if _, err := agentconf.Remove(root, []string{"claude-code"}); err != nil {
		t.Fatal(err)
	}
	if !sameValue(t, read(t, root, ".claude/settings.json"), userClaude) {
		t.Errorf("remove did not give back the user's settings:\n%s", read(t, root, ".claude/settings.json"))
	}
}

func sameValue(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// A user hook sharing a group with ours keeps its group when ours goes.
func TestRemoveFromSharedGroup(t *testing.T) {
	root := repo(t)
	write(t, root, ".codex/hooks.json", `{"hooks":{"Stop":[{"matcher":"x","hooks":[{"type":"command","command":"mine"},{"type":"command","command":"git handoff hook agent codex stop || true"}]}]}}`)
	st := check(t, root, "codex")["codex"]
	if st.State != agentconf.Stale {
		t.Errorf("our command inside a user's group: %s, want stale", st.State)
	}
	if _, err := agentconf.Remove(root, []string{"codex"}); err != nil {
		t.Fatal(err)
	}
	want := `{"hooks":{"Stop":[{"matcher":"x","hooks":[{"type":"command","command":"mine"}]}]}}`
	if got := read(t, root, ".codex/hooks.json"); !sameValue(t, got, want) {
		t.Errorf("got %s, want %s", got, want)
	}
}

// Malformed JSON: a clear error, and no file changes, for any agent in
// the same call.
func TestMalformedJSONUntouched(t *testing.T) {
	for _, tc := range []struct{ agent, path, content string }{
		{"claude-code", ".claude/settings.json", `{"hooks": {`},
		{"gemini", ".gemini/settings.json", `{"hooks": []}`},
		{"copilot", ".github/hooks/git-handoff.json", `[1,2]`},
		{"cursor", ".cursor/hooks.json", `{"version":1,"hooks":{"stop":{}}}`},
		{"codex", ".codex/hooks.json", `{} {}`},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			root := repo(t)
			write(t, root, tc.path, tc.content)
			before := snapshot(t, root)
			_, err := agentconf.Install(root, []string{"aider", tc.agent})
			if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), "left as it is") {
				t.Errorf("install: %v", err)
			}
			if _, err := agentconf.Remove(root, []string{tc.agent}); err == nil {
				t.Errorf("remove of a malformed file succeeded")
			}
			if got := snapshot(t, root); !mapsEqual(got, before) {
				t.Errorf("files changed: %v", keys(got))
			}
			if st := check(t, root, tc.agent)[tc.agent]; st.State != agentconf.Unreadable {
				t.Errorf("check: %s", st.State)
			}
		})
	}
}

// An entry of ours with another command is stale; install puts it right
// once, in place of the old one.
func TestStaleAndPartial(t *testing.T) {
	root := repo(t)
	write(t, root, ".cursor/hooks.json", `{"version":1,"hooks":{"stop":[{"command":"git handoff hook agent cursor stop"}]}}`)
	st := check(t, root, "cursor")["cursor"]
	if st.State != agentconf.Stale {
		t.Errorf("missing || true: %s, want stale", st.State)
	}
	rep, err := agentconf.Install(root, []string{"cursor"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Agents[0].Files[0].Action != agentconf.Updated {
		t.Errorf("action %s", rep.Agents[0].Files[0].Action)
	}
	got := read(t, root, ".cursor/hooks.json")
	if strings.Count(got, agentconf.Marker) != 4 || strings.Count(got, agentconf.Command("cursor", "stop")) != 1 {
		t.Errorf("after install:\n%s", got)
	}
	os.Remove(filepath.Join(root, ".cursor/rules/git-handoff.mdc"))
	if st := check(t, root, "cursor")["cursor"]; st.State != agentconf.Partial {
		t.Errorf("rule file gone: %s, want partial", st.State)
	}
}

// Instruction sections sit between markers, leave the user's text alone
// and go cleanly.
func TestInstructionSection(t *testing.T) {
	root := repo(t)
	user := "# Our rules\n\nUse tabs.\n"
	write(t, root, ".github/copilot-instructions.md", user)
	if _, err := agentconf.Install(root, []string{"copilot"}); err != nil {
		t.Fatal(err)
	}
	got := read(t, root, ".github/copilot-instructions.md")
	if !strings.HasPrefix(got, user) || !strings.Contains(got, "git handoff start") || !strings.Contains(got, "git-handoff:end") {
		t.Errorf("instructions:\n%s", got)
	}
	// The user adds text after our section; remove keeps it.
	write(t, root, ".github/copilot-instructions.md", got+"\nMore rules.\n")
	if _, err := agentconf.Remove(root, []string{"copilot"}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, ".github/copilot-instructions.md"); got != user+"\nMore rules.\n" {
		t.Errorf("after remove: %q", got)
	}
	if exists(root, ".github/hooks") {
		t.Errorf(".github/hooks left behind")
	}
	write(t, root, ".goosehints", "x\n<!-- git-handoff:begin (written by git handoff init --agent; removed by --remove) -->\nno end\n")
	if _, err := agentconf.Install(root, []string{"goose"}); err == nil {
		t.Errorf("unterminated section accepted")
	}
}

// A file we own by name but the user wrote is never overwritten.
func TestOwnedFileOfSomeoneElse(t *testing.T) {
	root := repo(t)
	write(t, root, ".opencode/plugins/git-handoff.js", "export const Mine = async () => ({})\n")
	if _, err := agentconf.Install(root, []string{"opencode"}); err == nil {
		t.Fatal("overwrote the user's plugin")
	}
	if _, err := agentconf.Remove(root, []string{"opencode"}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, ".opencode/plugins/git-handoff.js"); !strings.Contains(got, "Mine") {
		t.Errorf("remove took the user's plugin")
	}
}

func TestAiderConfig(t *testing.T) {
	root := repo(t)
	user := "model: sonnet\nauto-commits: false\n"
	write(t, root, ".aider.conf.yml", user)
	if _, err := agentconf.Install(root, []string{"aider"}); err != nil {
		t.Fatal(err)
	}
	got := read(t, root, ".aider.conf.yml")
	if !strings.HasPrefix(got, user) || !strings.Contains(got, "read:\n  - .aider.git-handoff.md\n") {
		t.Errorf("conf:\n%s", got)
	}
	if st := check(t, root, "aider")["aider"]; st.State != agentconf.Installed {
		t.Errorf("check %+v", st)
	}
	if _, err := agentconf.Remove(root, []string{"aider"}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, ".aider.conf.yml"); got != user {
		t.Errorf("after remove %q", got)
	}

	// A read: list of the user's own is not edited: a notice says what to add.
	user = "read:\n  - CONVENTIONS.md\n"
	write(t, root, ".aider.conf.yml", user)
	rep, err := agentconf.Install(root, []string{"aider"})
	if err != nil {
		t.Fatal(err)
	}
	if read(t, root, ".aider.conf.yml") != user || len(rep.Agents[0].Notices) != 1 || !strings.Contains(rep.Agents[0].Notices[0], ".aider.git-handoff.md") {
		t.Errorf("notices %v, conf %q", rep.Agents[0].Notices, read(t, root, ".aider.conf.yml"))
	}
	if st := check(t, root, "aider")["aider"]; st.State != agentconf.Partial {
		t.Errorf("check %s, want partial", st.State)
	}
	// Once the user lists it, aider is installed.
	write(t, root, ".aider.conf.yml", "read:\n  - CONVENTIONS.md\n  - .aider.git-handoff.md\n")
	if st := check(t, root, "aider")["aider"]; st.State != agentconf.Installed {
		t.Errorf("check %s, want installed", st.State)
	}
}

// Codex ignores project hooks in a linked worktree and untrusted hooks:
// check says so, with the remedy.
func TestCodexProblems(t *testing.T) {
	root := repo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Run(t, root, "worktree", "add", "-q", "-b", "side", wt)
	codexHome := t.TempDir()
	for _, dir := range []string{root, wt} {
		if _, err := agentconf.Install(dir, []string{"codex"}); err != nil {
			t.Fatal(err)
		}
	}
	st := func(dir string) agentconf.Status {
		sts, err := agentconf.Check(dir, []string{"codex"}, agentconf.Options{CodexHome: codexHome})
		if err != nil {
			t.Fatal(err)
		}
		return sts[0]
	}
	linked := st(wt)
	if linked.State != agentconf.Installed || linked.OK() || !strings.Contains(problems(linked), "linked git worktree") || !strings.Contains(problems(linked), "--dangerously-bypass-hook-trust") {
		t.Errorf("linked worktree: %+v", linked)
	}
	main := st(root)
	if strings.Contains(problems(main), "linked") || !strings.Contains(problems(main), "no trust is recorded") {
		t.Errorf("main worktree: %+v", main)
	}
	// Trust recorded the way Codex writes it.
	path, _ := filepath.EvalSymlinks(filepath.Join(root, ".codex/hooks.json"))
	toml := "model = \"x\"\n\n[hooks.state.\"" + path + ":session_start:0:0\"]\ntrusted_hash = \"sha256:00\"\n\n[hooks.state.\"" + path + ":pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:44\"\n\n[hooks.state.\"" + path + ":stop:0:0\"]\ntrusted_hash = \"sha256:11\"\n\n[hooks.state.\"" + path + ":pre_compact:0:0\"]\ntrusted_hash = \"sha256:33\"\n\n[hooks.state.\"" + path + ":session_end:0:0\"]\ntrusted_hash = \"sha256:22\"\n"
	write(t, codexHome, "config.toml", toml)
	if main := st(root); !main.OK() {
		t.Errorf("trusted: %+v", main)
	}
}

func problems(s agentconf.Status) string {
	var b strings.Builder
	for _, p := range s.Problems {
		b.WriteString(p.Problem + " / " + p.Remedy + "\n")
	}
	return b.String()
}

func TestGeminiHooksDisabled(t *testing.T) {
	root := repo(t)
	write(t, root, ".gemini/settings.json", `{"hooksConfig":{"enabled":false}}`)
	if _, err := agentconf.Install(root, []string{"gemini"}); err != nil {
		t.Fatal(err)
	}
	st := check(t, root, "gemini")["gemini"]
	if st.State != agentconf.Installed || !strings.Contains(problems(st), "hooksConfig.enabled") {
		t.Errorf("%+v", st)
	}
	if !strings.Contains(read(t, root, ".gemini/settings.json"), `"enabled": false`) {
		t.Errorf("the user's choice was overridden")
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{[]string{"claude"}, []string{"claude-code"}},
		{[]string{"codex,gemini-cli", "claude-code"}, []string{"claude-code", "codex", "gemini"}},
		{[]string{"all"}, agentconf.Names()},
		{[]string{"Cursor-Agent, aider"}, []string{"cursor", "aider"}},
	} {
		got, err := agentconf.Resolve(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Resolve(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range [][]string{{"vim"}, {"shell"}, {""}, {"codex,nope"}} {
		_, err := agentconf.Resolve(bad)
		if !errors.Is(err, agentconf.ErrUnknownAgent) || !strings.Contains(err.Error(), "claude-code, codex") {
			t.Errorf("Resolve(%q): %v", bad, err)
		}
	}
}

// RemoveMember takes one member out, anywhere down a path of objects, and
// leaves the others in their order; a path that is not there changes
// nothing.
func TestRemoveMember(t *testing.T) {
	doc := []byte(`{"z": 1, "enabledPlugins": {"b@b": true, "git-handoff@git-handoff": false, "a@a": true}, "m": [1]}`)
	out, removed, err := agentconf.RemoveMember(doc, "enabledPlugins", "git-handoff@git-handoff")
	want := "{\n  \"z\": 1,\n  \"enabledPlugins\": {\n    \"b@b\": true,\n    \"a@a\": true\n  },\n  \"m\": [\n    1\n  ]\n}\n"
	if err != nil || !removed || string(out) != want {
		t.Errorf("RemoveMember = %q, %v, %v; want %q", out, removed, err, want)
	}
	for _, path := range [][]string{{"enabledPlugins", "nope"}, {"nope", "x"}, {"z", "x"}, {}} {
		if out, removed, err := agentconf.RemoveMember(doc, path...); err != nil || removed || string(out) != string(doc) {
			t.Errorf("RemoveMember %q = %q, %v, %v; want the document unchanged", path, out, removed, err)
		}
	}
	if _, _, err := agentconf.RemoveMember([]byte("[1]"), "x"); err == nil {
		t.Error("a document that is not an object: no error")
	}
}

// The installed command runs git-handoff itself when the shell finds it on
// PATH, through `git handoff` when only git finds it (in git's exec-path
// here), and fails nothing when neither does. A script stands in for
// git-handoff, noting the arguments it was run with; the shell and git
// are the real ones.
func TestCommandFindsGitHandoff(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	gitOnly := t.TempDir() // a PATH with git and nothing else
	if err := os.Symlink(git, filepath.Join(gitOnly, "git")); err != nil {
		t.Fatal(err)
	}
	stub := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + log + "\n"
	if err := os.WriteFile(filepath.Join(stub, "git-handoff"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := agentconf.Command("claude-code", agentconf.EventStop)
	for _, c := range []struct {
		name string
		env  []string
		ran  bool
	}{
		{"on PATH", []string{"PATH=" + stub + string(os.PathListSeparator) + gitOnly}, true},
		{"only where git looks", []string{"PATH=" + gitOnly, "GIT_EXEC_PATH=" + stub}, true},
		{"nowhere", []string{"PATH=" + gitOnly}, false},
	} {
		os.Remove(log)
		sh := exec.CommandContext(ctx, "/bin/sh", "-c", cmd)
		sh.Env = append([]string{"HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}, c.env...)
		sh.Dir = t.TempDir()
		out, err := sh.CombinedOutput()
		if err != nil {
			t.Errorf("%s: %q failed: %v\n%s", c.name, cmd, err, out)
		}
		got, _ := os.ReadFile(log)
		want := ""
		if c.ran {
			want = "hook agent claude-code stop\n"
		}
		if string(got) != want {
			t.Errorf("%s: git-handoff ran with %q, want %q (output %s)", c.name, got, want, out)
		}
	}
}
