package plugin

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/agentconf"
)

func gone(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there: %v", p, err)
	}
}

func there(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err != nil {
		t.Errorf("%s is gone: %v", p, err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Cursor's copy and the written files go; a second uninstall finds
// nothing and says so.
func TestUninstallCursor(t *testing.T) {
	e, _ := testEnv(t)
	if _, err := Install(ctx(t), "cursor", Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(e.Home, ".cursor", "plugins", "local", Name)
	local := filepath.Join(e.Home, ".cursor", "plugins", "local", "someone-else")
	write(t, filepath.Join(local, ".cursor-plugin", "plugin.json"), `{"name":"someone-else"}`)
	res, err := Uninstall(ctx(t), "cursor", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.DataHome, "git-handoff", "plugins", "cursor")
	if !res.Ran || res.NotInstalled || !slices.Equal(res.Removed, []string{to, dir}) || len(res.Notices) != 0 {
		t.Fatalf("result %+v", res)
	}
	gone(t, to)
	gone(t, dir)
	there(t, local)

	again, err := Uninstall(ctx(t), "cursor", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Ran || !again.NotInstalled || len(again.Removed) != 0 {
		t.Errorf("second uninstall: %+v", again)
	}
	for _, st := range again.Steps {
		if !st.Skipped {
			t.Errorf("second uninstall did not skip %s", st)
		}
	}
}

// Cursor's directory is removed only when it is the plugin's, of this
// version or another; not when it is someone else's plugin, holds a file
// of the user's, or is a link.
func TestUninstallCursorKeepsWhatIsNotOurs(t *testing.T) {
	to := func(e Env) string { return filepath.Join(e.Home, ".cursor", "plugins", "local", Name) }
	for name, setup := range map[string]func(t *testing.T, e Env){
		"another plugin": func(t *testing.T, e Env) {
			write(t, filepath.Join(to(e), ".cursor-plugin", "plugin.json"), `{"name":"not-git-handoff"}`)
			write(t, filepath.Join(to(e), "hooks", "hooks.json"), `{}`)
		},
		"no manifest": func(t *testing.T, e Env) {
			write(t, filepath.Join(to(e), "notes.txt"), "mine\n")
		},
		"a file of the user's": func(t *testing.T, e Env) {
			if _, err := Install(ctx(t), "cursor", Options{Env: e}); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(to(e), "rules", "mine.mdc"), "my rule\n")
		},
		"a link": func(t *testing.T, e Env) {
			target := filepath.Join(e.Home, "checkout")
			files, _ := Embedded("cursor")
			if err := writeFiles(target, files); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(to(e)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, to(e)); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			e, _ := testEnv(t)
			setup(t, e)
			res, err := Uninstall(ctx(t), "cursor", Options{Env: e})
			if err != nil {
				t.Fatal(err)
			}
			there(t, to(e))
			if slices.Contains(res.Removed, to(e)) || len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "kept "+to(e)) {
				t.Errorf("result %+v", res)
			}
			if !res.Steps[0].Skipped {
				t.Errorf("the step removing %s is not skipped", to(e))
			}
		})
	}

	// Another version's copy (the manifest names the plugin, its files
	// are the plugin's, their content differs) is the plugin's.
	e, _ := testEnv(t)
	write(t, filepath.Join(to(e), ".cursor-plugin", "plugin.json"), `{"name":"git-handoff","version":"0.9.0"}`)
	write(t, filepath.Join(to(e), "hooks", "hooks.json"), `{"hooks":{}}`)
	res, err := Uninstall(ctx(t), "cursor", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	gone(t, to(e))
	if !slices.Equal(res.Removed, []string{to(e)}) || res.NotInstalled {
		t.Errorf("result %+v", res)
	}
}

// OpenCode's module goes, of this version or another; the user's own
// modules beside it stay, and so does a module of the same name that is
// not ours.
func TestUninstallOpenCode(t *testing.T) {
	e, _ := testEnv(t)
	plugins := filepath.Join(e.ConfigHome, "opencode", "plugins")
	mine := filepath.Join(plugins, "mine.js")
	write(t, mine, "export const Mine = async () => ({})\n")
	if _, err := Install(ctx(t), "opencode", Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(plugins, "git-handoff.js")
	there(t, module)
	res, err := Uninstall(ctx(t), "opencode", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.DataHome, "git-handoff", "plugins", "opencode")
	if !slices.Equal(res.Removed, []string{module, dir}) || res.NotInstalled {
		t.Fatalf("result %+v", res)
	}
	gone(t, module)
	gone(t, dir)
	there(t, mine)
	there(t, plugins)

	again, err := Uninstall(ctx(t), "opencode", Options{Env: e})
	if err != nil || !again.NotInstalled || len(again.Removed) != 0 {
		t.Errorf("second uninstall: %+v, %v", again, err)
	}
	there(t, mine)

	// Another version of the module: it begins with the marker.
	write(t, module, opencodeMarker+" v0\nexport const Old = async () => ({})\n")
	if res, err := Uninstall(ctx(t), "opencode", Options{Env: e}); err != nil || !slices.Equal(res.Removed, []string{module}) {
		t.Errorf("another version: %+v, %v", res, err)
	}
	gone(t, module)

	// A module of the user's that happens to have the name.
	write(t, module, "// my own git-handoff helper\nexport const Mine = async () => ({})\n")
	res, err = Uninstall(ctx(t), "opencode", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	there(t, module)
	if len(res.Removed) != 0 || len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "kept "+module) {
		t.Errorf("a module not ours: %+v", res)
	}
}

// The marker recognising OpenCode's module is agentconf's, and begins the
// module the binary carries.
func TestOpenCodeMarker(t *testing.T) {
	files, err := Embedded("opencode")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(agentconf.OpenCodePlugin(), opencodeMarker) {
		t.Errorf("agentconf's OpenCode module does not begin with %q", opencodeMarker)
	}
	for _, f := range files {
		if !strings.HasPrefix(string(f.Data), opencodeMarker) {
			t.Errorf("%s does not begin with %q", f.Path, opencodeMarker)
		}
	}
}

// Without the agent's CLI on PATH, or with NoRun, nothing is run or
// deleted: the steps are the commands to run, the written files last.
func TestUninstallPrints(t *testing.T) {
	e, log := testEnv(t)
	if _, err := Install(ctx(t), "claude", Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.DataHome, "git-handoff", "plugins", "claude-code")
	res, err := Uninstall(ctx(t), "claude", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran || res.Missing != "claude" || len(res.Removed) != 0 || len(calls(t, log)) != 0 {
		t.Fatalf("result %+v, calls %q", res, calls(t, log))
	}
	there(t, dir)
	var got []string
	for _, st := range res.Steps {
		got = append(got, st.String())
	}
	want := []string{
		"claude plugin uninstall git-handoff@git-handoff",
		"claude plugin marketplace remove git-handoff",
		"rm -rf " + dir,
	}
	if !slices.Equal(got, want) {
		t.Errorf("steps %q, want %q", got, want)
	}

	e, log = testEnv(t, "gemini")
	res, err = Uninstall(ctx(t), "gemini", Options{Env: e, NoRun: true})
	if err != nil || res.Ran || len(calls(t, log)) != 0 {
		t.Fatalf("NoRun: %+v, %v, calls %q", res, err, calls(t, log))
	}
	if got := res.Steps[0].String(); got != "gemini extensions uninstall git-handoff" {
		t.Errorf("step %q", got)
	}
	// Nothing written: the removal of the written files is skipped.
	if !res.Steps[1].Skipped {
		t.Errorf("the removal of a directory not there is not skipped: %+v", res.Steps[1])
	}

	e, _ = testEnv(t)
	if _, err := Install(ctx(t), "cursor", Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(e.Home, ".cursor", "plugins", "local", Name)
	res, err = Uninstall(ctx(t), "cursor", Options{Env: e, NoRun: true})
	if err != nil || res.Ran || len(res.Removed) != 0 || res.Steps[0].String() != "rm -rf "+to {
		t.Fatalf("cursor NoRun: %+v, %v", res, err)
	}
	there(t, to)
}

// fakeLister puts a fake claude on PATH whose list commands print the
// JSON the real one does, listing the plugin and its marketplace when
// listed (the marketplaces on stderr, as Gemini CLI prints its list), and
// which logs every call.
func fakeLister(t *testing.T, listed bool) (Env, string) {
	t.Helper()
	e, log := testEnv(t)
	bin := t.TempDir()
	plugins, markets := "[]", "[]"
	if listed {
		plugins = `[{"id":"other@elsewhere","scope":"user"},{"id":"git-handoff@git-handoff","scope":"user","enabled":true}]`
		markets = `[{"name":"git-handoff","source":"directory"}]`
	}
	script := "#!/bin/sh\necho \"claude $*\" >> " + log + "\n" +
		"[ -z \"$FAIL_CLI\" ] || { echo broken >&2; exit 3; }\n" +
		"case \"$*\" in\n" +
		"'plugin list --json') echo 'a warning [first]'; echo '" + plugins + "' ;;\n" +
		"'plugin marketplace list --json') echo '" + markets + "' >&2 ;;\n" +
		"*) echo did \"$*\" ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e.LookPath = func(name string) (string, error) {
		if name != "claude" {
			return "", os.ErrNotExist
		}
		return filepath.Join(bin, name), nil
	}
	return e, log
}

// Each uninstall command runs only when the agent's list command lists
// what it removes; a failing command is an error naming it.
func TestUninstallAsksTheAgentsList(t *testing.T) {
	e, log := fakeLister(t, true)
	if _, err := Install(ctx(t), "claude", Options{Env: e}); err != nil {
		t.Fatal(err)
	}
	before := len(calls(t, log))
	res, err := Uninstall(ctx(t), "claude", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"claude plugin list --json",
		"claude plugin uninstall git-handoff@git-handoff",
		"claude plugin marketplace list --json",
		"claude plugin marketplace remove git-handoff",
	}
	if got := calls(t, log)[before:]; !slices.Equal(got, want) {
		t.Errorf("ran %q, want %q", got, want)
	}
	dir := filepath.Join(e.DataHome, "git-handoff", "plugins", "claude-code")
	if !res.Ran || res.NotInstalled || !slices.Equal(res.Removed, []string{dir}) || !strings.Contains(res.Steps[0].Output, "did plugin uninstall") {
		t.Errorf("result %+v", res)
	}
	gone(t, dir)

	e, log = fakeLister(t, false)
	res, err = Uninstall(ctx(t), "claude", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"claude plugin list --json", "claude plugin marketplace list --json"}
	if got := calls(t, log); !slices.Equal(got, want) {
		t.Errorf("with nothing listed ran %q, want %q", got, want)
	}
	if !res.Ran || !res.NotInstalled {
		t.Errorf("result %+v", res)
	}

	e, _ = fakeLister(t, true)
	t.Setenv("FAIL_CLI", "1")
	res, err = Uninstall(ctx(t), "claude", Options{Env: e})
	if err == nil || !strings.Contains(err.Error(), "`claude plugin list --json`") || !strings.Contains(err.Error(), "broken") || res.Ran {
		t.Errorf("a failing list command: %+v, %v", res, err)
	}
}

// A list command must print the list: output of another shape is an
// error, not "nothing installed".
func TestListedNeedsJSON(t *testing.T) {
	l := &listed{in: "installed", match: fieldIs("pluginId", "git-handoff@git-handoff")}
	for _, out := range []string{"", "not json\n", "[]\n", `{"other":[]}`} {
		if _, err := l.items([]byte(out)); err == nil {
			t.Errorf("%q: no error", out)
		}
	}
	items, err := l.items([]byte("WARNING: {x}\n{\"installed\":[{\"pluginId\":\"git-handoff@git-handoff\"}]}\n"))
	if err != nil || len(items) != 1 || !l.match(items[0]) {
		t.Errorf("items %v, %v", items, err)
	}
}

// fakeCLI puts a fake agent CLI named name on e's PATH that logs each call
// with the directory it ran in, and answers each command in answers (its
// arguments joined by spaces) with the text given, else "did <args>".
func fakeCLI(t *testing.T, e *Env, name string, answers map[string]string) string {
	t.Helper()
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "calls")
	script := "#!/bin/sh\necho \"" + name + " $* in $(pwd)\" >> " + log + "\ncase \"$*\" in\n"
	for args, out := range answers {
		script += "'" + args + "') cat <<'EOF'\n" + out + "\nEOF\n;;\n"
	}
	script += "*) echo did \"$*\" ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e.LookPath = func(n string) (string, error) {
		if n != name {
			return "", os.ErrNotExist
		}
		return filepath.Join(bin, n), nil
	}
	return log
}

// Claude Code lists an install per scope: the user's is uninstalled here,
// a project's (or local) one in its project with its --scope, and one of
// a project that is gone is skipped, saying so.
func TestUninstallClaudeEveryScope(t *testing.T) {
	e, _ := testEnv(t)
	project := t.TempDir()
	missing := filepath.Join(t.TempDir(), "removed-project")
	log := fakeCLI(t, &e, "claude", map[string]string{
		"plugin list --json": `[{"id":"git-handoff@git-handoff","scope":"user"},` +
			`{"id":"git-handoff@git-handoff","scope":"project","projectPath":"` + project + `"},` +
			`{"id":"git-handoff@git-handoff","scope":"local","projectPath":"` + missing + `"},` +
			`{"id":"other@elsewhere","scope":"project","projectPath":"` + project + `"}]`,
		"plugin marketplace list --json": `[{"name":"git-handoff"}]`,
	})
	here, _ := os.Getwd()
	res, err := Uninstall(ctx(t), "claude", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"claude plugin list --json in " + here,
		"claude plugin uninstall git-handoff@git-handoff in " + here,
		"claude plugin uninstall git-handoff@git-handoff --scope project in " + project,
		"claude plugin marketplace list --json in " + here,
		"claude plugin marketplace remove git-handoff in " + here,
	}
	if got := calls(t, log); !slices.Equal(got, want) {
		t.Errorf("ran\n%q\nwant\n%q", got, want)
	}
	var steps []string
	for _, st := range res.Steps {
		if !st.Skipped {
			steps = append(steps, st.String())
		}
	}
	dir := filepath.Join(e.DataHome, "git-handoff", "plugins", "claude-code")
	wantSteps := []string{
		"claude plugin uninstall git-handoff@git-handoff",
		"(cd " + project + " && claude plugin uninstall git-handoff@git-handoff --scope project)",
		"claude plugin marketplace remove git-handoff",
	}
	if !slices.Equal(steps, wantSteps) || !res.Ran || res.NotInstalled {
		t.Errorf("steps run %q, want %q (result %+v)", steps, wantSteps, res)
	}
	if len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "local-scope install in "+missing+" was not uninstalled") {
		t.Errorf("notices %q", res.Notices)
	}
	gone(t, dir)
}

// Copilot's own uninstall leaves the plugin's key in settings.json's
// enabledPlugins: uninstall takes it out and nothing else; with nothing of
// the plugin left a second uninstall finds nothing, and --print says what
// to delete.
func TestUninstallCopilotSettingsEntry(t *testing.T) {
	e, _ := testEnv(t)
	e.CopilotHome = filepath.Join(e.Home, ".copilot")
	settings := filepath.Join(e.CopilotHome, "settings.json")
	write(t, settings, `{"model": "x", "enabledPlugins": {"mine@market": true, "git-handoff@git-handoff": false}, "extraKnownMarketplaces": {}}`)
	log := fakeCLI(t, &e, "copilot", map[string]string{
		"plugin list --json":             `[]`,
		"plugin marketplace list --json": `[]`,
	})
	printed, err := Uninstall(ctx(t), "copilot", Options{Env: e, NoRun: true})
	if err != nil {
		t.Fatal(err)
	}
	wantLine := "# in " + settings + `, delete "enabledPlugins" > "git-handoff@git-handoff"`
	if st := printed.Steps[2]; st.Skipped || st.String() != wantLine {
		t.Errorf("--print step %q (skipped %v), want %q", st.String(), st.Skipped, wantLine)
	}
	res, err := Uninstall(ctx(t), "copilot", Options{Env: e})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Ran || res.NotInstalled {
		t.Errorf("result %+v", res)
	}
	b, _ := os.ReadFile(settings)
	want := "{\n  \"model\": \"x\",\n  \"enabledPlugins\": {\n    \"mine@market\": true\n  },\n  \"extraKnownMarketplaces\": {}\n}\n"
	if string(b) != want {
		t.Errorf("settings.json:\n%s\nwant\n%s", b, want)
	}
	again, err := Uninstall(ctx(t), "copilot", Options{Env: e})
	if err != nil || !again.NotInstalled {
		t.Errorf("second uninstall: %+v, %v", again, err)
	}
	if got := calls(t, log); len(got) != 4 {
		t.Errorf("ran %q, want the two list commands twice", got)
	}
}
