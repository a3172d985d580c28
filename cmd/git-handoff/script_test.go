package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

// TestMain lets the test binary stand in for git-handoff: testscript puts it
// on PATH under that name, so scripts run `git handoff …` through real git.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"git-handoff": func() {
			os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
		},
		"fakegithub": ghprtest.Main,
	})
}

// TestScripts runs testdata/script/*.txtar: each a scenario with real git in
// a fresh repository, opening with a comment on what it covers. (They ran
// twice, once per read path of the store, while the store had a reader of
// its own beside git's; it has only git's now.)
func TestScripts(t *testing.T) {
	if raceBuild {
		// Each script step is a single-goroutine process; the race
		// detector makes the suite take ten times as long and finds
		// nothing the concurrent tests (claim, sync, session, pr races)
		// would not. `make test` runs the scripts; `make race` the rest.
		t.Skip("scripts run without -race in make test")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Setup:               setupScript,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"cmpjson": cmpJSON},
		Condition:           scriptCondition,
		RequireExplicitExec: false,
	})
}

// scriptCondition knows [confighooks]: the git on PATH runs hooks from
// config (git 2.54 and later), read from `git version` so that a script can
// hold git-handoff's own probe (hooks.ConfigHooksSupported) to it.
func scriptCondition(cond string) (bool, error) {
	if cond != "confighooks" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	out, err := exec.Command("git", "version").Output()
	if err != nil {
		return false, err
	}
	var major, minor int
	if _, err := fmt.Sscanf(strings.TrimPrefix(strings.TrimSpace(string(out)), "git version "), "%d.%d", &major, &minor); err != nil {
		return false, fmt.Errorf("reading %q: %v", out, err)
	}
	return major > 2 || major == 2 && minor >= 54, nil
}

// setupScript gives every script its own HOME and git identity, a fixed
// clock for commits, and a repository at $WORK/repo on branch main with one
// commit, where the script starts.
func setupScript(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	gitconfig := "[user]\n\tname = Test Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n[gc]\n\tauto = 0\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL":   filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_DATE":     "2026-11-01T12:00:00Z",
		"GIT_COMMITTER_DATE":  "2026-11-01T12:00:00Z",
		"GIT_HANDOFF_NOW":     "2026-11-02T09:00:00Z",
		"GIT_TERMINAL_PROMPT": "0",
		"TZ":                  "UTC",
	} {
		env.Setenv(k, v)
	}
	// testscript passes on little of this process's environment: the
	// formats of make test-git's row must reach the scripts' git too.
	for _, kv := range gittest.MatrixEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env.Setenv(k, v)
	}
	return startFakeGitHub(env)
}

// Placeholders a golden file writes for what changes from run to run. The
// actual JSON has them put in before the comparison (see normalize); "<any>"
// in a golden file matches any value at all.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b[0-9a-f]{40}(?:[0-9a-f]{24})?\b`), "<oid>"}, // blob and commit ids, SHA-1 or SHA-256
	// a brief's recent commits, whose ids the pinned dates fix only
	// within one object format
	{regexp.MustCompile(`(?m)^- [0-9a-f]{10} `), "- <commit> "},
	{regexp.MustCompile(`\bh-[a-km-np-z2-9]{10}\b`), "<baton-id>"}, // baton.NewID("h")
	{regexp.MustCompile(`\bs-[a-km-np-z2-9]{10}\b`), "<session-id>"},
	{regexp.MustCompile(`\(pid [0-9]+\)`), "(pid <pid>)"},
	// ghpr stamps facts with the real clock, not GIT_HANDOFF_NOW
	{regexp.MustCompile(`fetched from GitHub at [0-9-]+ [0-9:]+ UTC`), "fetched from GitHub at <time>"},
}

// cmpJSON is `cmpjson FILE GOLDEN`: FILE (stdout, stderr or a file) must be
// one JSON value equal to GOLDEN's once the volatile parts of FILE are
// replaced by placeholders: the paths $WORK and $GITHUB_API_URL by those
// names, ids by <oid>, <baton-id>, <session-id>. Object keys must match
// exactly, so a field that appears, disappears or changes its type fails.
func cmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! cmpjson")
	}
	if len(args) != 2 {
		ts.Fatalf("usage: cmpjson FILE GOLDEN")
	}
	got := decodeJSON(ts, args[0], ts.ReadFile(args[0]))
	want := decodeJSON(ts, args[1], ts.ReadFile(args[1]))
	got = normalize(got, replacer(ts))
	if matchJSON(want, got) {
		return
	}
	g, w := pretty(got), pretty(want)
	if os.Getenv("CMPJSON_UPDATE") != "" && ts.Getenv("GIT_HANDOFF_READER") == "" {
		updateGolden(ts, args[1], g)
		return
	}
	ts.Logf("normalized %s:\n%s", args[0], g)
	ts.Fatalf("%s and %s differ:\n%s", args[0], args[1], diff.Diff(args[1], []byte(w), args[0], []byte(g)))
}

// updateGolden rewrites the golden file in the script's archive
// (CMPJSON_UPDATE=1 go test -run TestScripts): for writing a new
// golden file, to be read before it is committed.
func updateGolden(ts *testscript.TestScript, name, text string) {
	script := strings.TrimPrefix(filepath.Base(ts.Getenv("WORK")), "script-")
	path := filepath.Join("testdata", "script", script+".txtar")
	a, err := txtar.ParseFile(path)
	if err != nil {
		ts.Fatalf("updating %s: %v", name, err)
	}
	if rel, err := filepath.Rel(ts.Getenv("WORK"), ts.MkAbs(name)); err == nil {
		name = filepath.ToSlash(rel)
	}
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = []byte(text)
			if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
				ts.Fatalf("updating %s: %v", name, err)
			}
			return
		}
	}
	ts.Fatalf("updating %s: no such file in %s", name, path)
}

func decodeJSON(ts *testscript.TestScript, name, text string) any {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		ts.Fatalf("%s is not JSON: %v", name, err)
	}
	if dec.More() {
		ts.Fatalf("%s holds more than one JSON value", name)
	}
	return v
}

// replacer turns the script's own paths and URLs into their names, longest
// first so that $WORK/home does not become a half-replaced path.
func replacer(ts *testscript.TestScript) func(string) string {
	type pair struct{ from, to string }
	var ps []pair
	for _, k := range []string{"WORK", "GITHUB_API_URL"} {
		if v := ts.Getenv(k); v != "" {
			ps = append(ps, pair{v, "$" + k})
			if real, err := filepath.EvalSymlinks(v); err == nil && real != v {
				ps = append(ps, pair{real, "$" + k})
			}
		}
	}
	sort.Slice(ps, func(i, j int) bool { return len(ps[i].from) > len(ps[j].from) })
	host, _ := os.Hostname()
	return func(s string) string {
		if host != "" && s == host {
			return "<host>" // sessions record where they ran
		}
		for _, p := range ps {
			s = strings.ReplaceAll(s, p.from, p.to)
		}
		for _, v := range volatile {
			s = v.re.ReplaceAllString(s, v.with)
		}
		return s
	}
}

func normalize(v any, fix func(string) string) any {
	switch x := v.(type) {
	case string:
		return fix(x)
	case []any:
		for i := range x {
			x[i] = normalize(x[i], fix)
		}
	case map[string]any:
		for k := range x {
			x[k] = normalize(x[k], fix)
		}
	}
	return v
}

// matchJSON reports whether got is want, "<any>" in want matching anything.
func matchJSON(want, got any) bool {
	if s, ok := want.(string); ok && s == "<any>" {
		return true
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !matchJSON(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !matchJSON(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}

func pretty(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return buf.String()
}
