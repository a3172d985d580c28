package plugin

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// testEnv is an Env in temporary directories whose PATH holds only the
// named fake agent CLIs: shell scripts that append their arguments to a
// log, and fail when told to.
func testEnv(t *testing.T, clis ...string) (Env, string) {
	t.Helper()
	home := t.TempDir()
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "calls")
	for _, c := range clis {
		script := "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> " + log + "\n[ -z \"$FAIL_CLI\" ] || { echo broken >&2; exit 3; }\necho did \"$*\"\n"
		if err := os.WriteFile(filepath.Join(bin, c), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	look := func(name string) (string, error) {
		p := filepath.Join(bin, name)
		if _, err := os.Stat(p); err != nil {
			return "", exec.ErrNotFound
		}
		return p, nil
	}
	return Env{Home: home, DataHome: filepath.Join(home, "data"), ConfigHome: filepath.Join(home, "config"), LookPath: look}, log
}

func calls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// Install writes the binary's own files and runs the agent's commands, in
// order, with exactly these arguments; a second install replaces the
// directory, so a file the plugin no longer has is gone.
func TestInstallWritesAndRuns(t *testing.T) {
	e, log := testEnv(t, "claude")
	res, err := Install(ctx(t), "claude", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.DataHome, "git-handoff", "plugins", "claude-code")
	if res.Agent != "claude-code" || res.Dir != dir || !res.Ran || res.Missing != "" {
		t.Fatalf("result %+v", res)
	}
	want := []string{
		"claude plugin marketplace add " + dir,
		"claude plugin install git-handoff@git-handoff",
		"claude plugin update git-handoff@git-handoff",
	}
	if got := calls(t, log); !slices.Equal(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}
	if !strings.Contains(res.Steps[1].Output, "did plugin install") {
		t.Errorf("step output %q", res.Steps[1].Output)
	}
	files, _ := Embedded("claude-code")
	if same, err := dirHolds(dir, files); err != nil || !same {
		t.Fatalf("%s does not hold the plugin: %v", dir, err)
	}
	stray := filepath.Join(dir, "hooks", "old.json")
	if err := os.WriteFile(stray, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	infos, err := List(ctx(t), e)
	if err != nil {
		t.Fatal(err)
	}
	if infos[0].Agent != "claude-code" || infos[0].Written || !infos[0].Stale {
		t.Errorf("List with a stray file: %+v", infos[0])
	}
	if _, err := Install(ctx(t), "claude-code", Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file the plugin does not have survived a second install: %v", err)
	}
	if infos, _ := List(ctx(t), e); !infos[0].Written || infos[0].Stale {
		t.Errorf("List after install: %+v", infos[0])
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("install left temporary directories beside the plugin: %v", entries)
	}
}

// Without the agent's CLI on PATH, or with NoRun, the files are written
// and nothing runs; the steps say what to run.
func TestInstallPrintsWithoutCLI(t *testing.T) {
	e, log := testEnv(t)
	res, err := Install(ctx(t), "codex", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran || res.Missing != "codex" || len(calls(t, log)) != 0 {
		t.Fatalf("result %+v, calls %q", res, calls(t, log))
	}
	if got := res.Steps[0].String(); got != "codex plugin marketplace add "+res.Dir {
		t.Errorf("step %q", got)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, ".codex-plugin", "plugin.json")); err != nil {
		t.Errorf("plugin not written: %v", err)
	}
	if len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "type /hooks and trust git-handoff's hooks") {
		t.Errorf("notices %q: none says how to trust Codex's hooks", res.Notices)
	}

	e, log = testEnv(t, "gemini")
	res, err = Install(ctx(t), "gemini", Options{Env: e, NoRun: true})
	if err != nil || res.Ran || len(calls(t, log)) != 0 {
		t.Fatalf("NoRun: %+v, %v, calls %q", res, err, calls(t, log))
	}
	if got := res.Steps[0].String(); got != "gemini extensions install "+res.Dir+" --consent" {
		t.Errorf("step %q", got)
	}
}

// A failing command is an error naming it, its output kept.
func TestInstallReportsFailure(t *testing.T) {
	e, _ := testEnv(t, "codex")
	t.Setenv("FAIL_CLI", "1")
	res, err := Install(ctx(t), "codex", Options{Env: e})
	if err == nil || !strings.Contains(err.Error(), "codex plugin marketplace add") {
		t.Fatalf("error %v", err)
	}
	if res.Ran || !strings.Contains(res.Steps[0].Output, "broken") {
		t.Errorf("result %+v", res)
	}
}

// Gemini CLI refuses to install an extension twice: once installed, the
// step is its update.
func TestGeminiUpdatesWhenInstalled(t *testing.T) {
	e, log := testEnv(t, "gemini")
	if err := os.MkdirAll(filepath.Join(e.Home, ".gemini", "extensions", Name), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(ctx(t), "gemini", Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	if got := calls(t, log); !slices.Equal(got, []string{"gemini extensions update git-handoff"}) {
		t.Errorf("ran %q", got)
	}
}

// Cursor and OpenCode have no install command: the plugin is copied where
// each loads plugins from; OpenCode's directory keeps the user's other
// modules.
func TestInstallCopies(t *testing.T) {
	e, _ := testEnv(t)
	res, err := Install(ctx(t), "cursor", Options{Env: e})
	if err != nil || !res.Ran {
		t.Fatalf("%+v %v", res, err)
	}
	files, _ := Embedded("cursor")
	to := filepath.Join(e.Home, ".cursor", "plugins", "local", Name)
	if same, err := dirHolds(to, files); err != nil || !same {
		t.Errorf("%s does not hold the plugin: %v", to, err)
	}

	plugins := filepath.Join(e.ConfigHome, "opencode", "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(plugins, "mine.js")
	if err := os.WriteFile(mine, []byte("export const Mine = async () => ({})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Install(ctx(t), "opencode", Options{Env: e})
	if err != nil || !res.Ran {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the user's own module is gone: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(plugins, "git-handoff.js"))
	if err != nil || !strings.Contains(string(b), "git-handoff:opencode-plugin") {
		t.Errorf("OpenCode's module not installed: %v", err)
	}
	// The printed step does what Install did.
	if got := res.Steps[0].String(); got != "mkdir -p "+plugins+" && cp -R "+res.Dir+"/. "+plugins {
		t.Errorf("step %q", got)
	}
}

func TestUnknownAgent(t *testing.T) {
	e, _ := testEnv(t)
	for _, name := range []string{"goose", "aider", "nonsense"} {
		if _, err := Install(ctx(t), name, Options{Env: e}); err == nil {
			t.Errorf("%s: installed", name)
		}
		if _, err := Path(name, e); err == nil {
			t.Errorf("%s: has a path", name)
		}
	}
	if got, err := Resolve("claude"); err != nil || got != "claude-code" {
		t.Errorf("Resolve(claude) = %q, %v", got, err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"git-handoff@git-handoff": "git-handoff@git-handoff",
		"/a b/c":                  "'/a b/c'",
		"it's":                    `'it'\''s'`,
		"":                        "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// List says per agent whether the plugin is installed and where, as the
// agent's own list says (Claude Code: one place per scope), or as the
// copy install made shows (Cursor, OpenCode); an agent whose CLI is not on
// PATH is unknown, saying so.
func TestListSaysWhatIsInstalled(t *testing.T) {
	e, _ := testEnv(t)
	project := t.TempDir()
	fakeCLI(t, &e, "claude", map[string]string{
		"plugin list --json": `[{"id":"other@elsewhere","scope":"user"},{"id":"git-handoff@git-handoff","scope":"user"},` +
			`{"id":"git-handoff@git-handoff","scope":"project","projectPath":"` + project + `","enabled":false}]`,
	})
	if _, err := Install(ctx(t), "cursor", Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	infos, err := List(ctx(t), e)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Installed{}
	for _, in := range infos {
		got[in.Agent] = in.Installed
	}
	if c := got["claude-code"]; !c.Known || !slices.Equal(c.Where, []string{"user", "project " + project + " (disabled)"}) {
		t.Errorf("claude-code: %+v", c)
	}
	if c := got["cursor"]; !c.Known || !slices.Equal(c.Where, []string{filepath.Join(e.Home, ".cursor", "plugins", "local", Name)}) {
		t.Errorf("cursor: %+v", c)
	}
	if c := got["opencode"]; !c.Known || len(c.Where) != 0 {
		t.Errorf("opencode: %+v", c)
	}
	if c := got["codex"]; c.Known || c.Why != "codex is not on PATH" {
		t.Errorf("codex: %+v", c)
	}
}

// When codex is on PATH but its app-server cannot record the trust, the
// install stands and says exactly what the user must do.
func TestInstallCodexTrustFallsBack(t *testing.T) {
	e, log := testEnv(t, "codex")
	res, err := Install(ctx(t), "codex", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Ran || len(res.Trusted) != 0 {
		t.Errorf("result %+v", res)
	}
	if len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "could not be trusted") || !strings.Contains(res.Notices[0], "type /hooks") {
		t.Errorf("notices %q", res.Notices)
	}
	if got := calls(t, log); !slices.Contains(got, "codex app-server") {
		t.Errorf("ran %q: codex app-server was not asked", got)
	}
}
