package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// cliRun runs the command line in the working directory, with a deadline a
// loaded machine meets.
func cliRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code = run(ctx, append([]string{"git-handoff"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// leafCommands walks the app's command tree: every command a user runs,
// by path.
func leafCommands() map[string]*cli.Command {
	app := newApp(newDeps(strings.NewReader(""), io.Discard, io.Discard))
	out := map[string]*cli.Command{}
	var walk func(cs []*cli.Command, parent string)
	walk = func(cs []*cli.Command, parent string) {
		for _, c := range cs {
			path := strings.TrimSpace(parent + " " + c.Name)
			if hasSubcommands(c) {
				walk(c.Subcommands, path)
				continue
			}
			out[path] = c
		}
	}
	walk(app.Commands, "")
	return out
}

// A mistyped option or command is named as the user typed it, in git's
// style, with the one probably meant; never the flag package's
// single-dash wording.
func TestDidYouMean(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args      []string
		msg, hint string
	}{
		{[]string{"end", "--nxt", "x"}, "error: unknown option `--nxt`, did you mean `--next`?\n", "hint: see 'git handoff end --help'\n"},
		{[]string{"start", "--max-byte", "900"}, "error: unknown option `--max-byte`, did you mean `--max-bytes`?\n", "hint: see 'git handoff start --help'\n"},
		{[]string{"strat"}, "error: unknown command `strat`, did you mean `start`?\n", "hint: see 'git handoff --help'\n"},
		{[]string{"session", "lss"}, "error: unknown command `session lss`, did you mean `session ls`?\n", "hint: see 'git handoff session --help'\n"},
		{[]string{"sesion", "ls"}, "error: unknown command `sesion`, did you mean `session`?\n", "hint: see 'git handoff --help'\n"},
		{[]string{"xyzzy"}, "error: unknown command `xyzzy`\n", "hint: see 'git handoff --help'\n"},
		{[]string{"list", "--qqqq"}, "error: unknown option `--qqqq`\n", "hint: see 'git handoff list --help'\n"},
		{[]string{"brief", "--max-bytes"}, "error: option `--max-bytes` needs a value\n", ""},
		{[]string{"brief", "--max-bytes", "lots"}, "error: invalid value \"lots\" for option `--max-bytes`", ""},
	} {
		_, stderr, code := cliRun(t, tc.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitUsage)
		}
		if !strings.HasPrefix(stderr, tc.msg) || !strings.Contains(stderr, tc.hint) {
			t.Errorf("%v: stderr\n%s\nwant %q then %q", tc.args, stderr, tc.msg, tc.hint)
		}
		if strings.Contains(stderr, "flag provided") || strings.Contains(stderr, "git-handoff") {
			t.Errorf("%v: stderr has Go's wording or the binary's name:\n%s", tc.args, stderr)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"strat", "start", 1}, {"nxt", "next", 1}, {"", "ab", 2}, {"abc", "abc", 0}, {"ab", "ba", 1}, {"kitten", "sitting", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// Every command refuses an argument more than its synopsis takes, naming
// it, before it reads or changes anything; and one too few.
func TestExtraArgumentsRefused(t *testing.T) {
	t.Chdir(t.TempDir()) // no repository: a command that got past the check would fail otherwise
	for path, c := range leafCommands() {
		lo, hi := arity(c.ArgsUsage)
		if hi >= 0 {
			args := strings.Fields(path)
			for i := 0; i < hi; i++ {
				args = append(args, "arg")
			}
			args = append(args, "extra-one")
			_, stderr, code := cliRun(t, args...)
			if code != exitUsage || !strings.Contains(stderr, `"extra-one"`) {
				t.Errorf("%s: exit %d, stderr %q; want a usage error naming \"extra-one\"", strings.Join(args, " "), code, stderr)
			}
		}
		if lo > 0 {
			_, stderr, code := cliRun(t, strings.Fields(path)...)
			if code != exitUsage || !strings.Contains(stderr, "needs "+c.ArgsUsage) {
				t.Errorf("%s with no arguments: exit %d, stderr %q", path, code, stderr)
			}
		}
	}
}

func TestArity(t *testing.T) {
	for _, tc := range []struct {
		usage  string
		lo, hi int
	}{
		{"", 0, 0}, {"ID", 1, 1}, {"[ID]", 0, 1}, {"[ID] TEXT", 1, 2}, {"NAME [ARGS...]", 1, -1}, {"[TEXT...]", 0, -1}, {"NUMBER|URL", 1, 1},
	} {
		if lo, hi := arity(tc.usage); lo != tc.lo || hi != tc.hi {
			t.Errorf("arity(%q) = %d, %d; want %d, %d", tc.usage, lo, hi, tc.lo, tc.hi)
		}
	}
}

// Every numeric flag has a check, and the checks refuse what the issue
// found accepted: a brief too small to say anything, a negative budget.
func TestNumericFlagsValidated(t *testing.T) {
	for path, c := range leafCommands() {
		for _, f := range c.Flags {
			checked := true
			switch f := f.(type) {
			case *cli.IntFlag:
				checked = f.Action != nil
			case *cli.DurationFlag:
				checked = f.Action != nil
			case *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.Float64Flag, *cli.IntSliceFlag:
				checked = false // none yet: give it an Action and a case here
			}
			if !checked {
				t.Errorf("%s --%s: a numeric flag without a check (Action)", path, f.Names()[0])
			}
		}
	}
	gittest.Isolate(t)
	t.Chdir(gittest.Init(t))
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"start", "--max-bytes", "10"}, "--max-bytes 10 is too small: it takes at least 256"},
		{[]string{"start", "--max-bytes", "0", "--json"}, "--max-bytes 0 is too small"},
		{[]string{"brief", "--max-bytes", "-5"}, "--max-bytes -5 is too small"},
		{[]string{"log", "-n", "0"}, "--limit 0 is too small: it takes at least 1"},
		{[]string{"session", "switch", "s-x", "--harness", "codex", "--stop-timeout", "-1s"}, "--stop-timeout -1s: give a duration above zero"},
		{[]string{"session", "replace", "s-x", "--stop-timeout", "0s"}, "--stop-timeout 0s: give a duration above zero"},
	} {
		stdout, stderr, code := cliRun(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.msg) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a usage error with %q", tc.args, code, stdout, stderr, tc.msg)
		}
	}
	// refused before anything was written: no session started
	if out := gittest.Run(t, ".", "for-each-ref", "refs/ao/"); out != "" {
		t.Errorf("a refused start wrote refs:\n%s", out)
	}
}

// `end --failed "tried a, b, and c"` is one failed approach, as the MCP
// tool takes it; repeating a flag gives one more item.
func TestProseKeepsCommas(t *testing.T) {
	gittest.Isolate(t)
	t.Chdir(gittest.Init(t))
	stdout, stderr, code := cliRun(t, "end", "--next", "parse a, then b", "--next", "test it", "--failed", "tried a, b, and c", "--question", "why, though?", "--json")
	if code != 0 {
		t.Fatalf("end: exit %d\n%s", code, stderr)
	}
	var got struct {
		Handoff struct {
			NextSteps        []string `json:"nextSteps"`
			FailedApproaches []string `json:"failedApproaches"`
			OpenQuestions    []string `json:"openQuestions"`
		} `json:"handoff"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	h := got.Handoff
	if strings.Join(h.NextSteps, "|") != "parse a, then b|test it" || len(h.FailedApproaches) != 1 || h.FailedApproaches[0] != "tried a, b, and c" ||
		len(h.OpenQuestions) != 1 || h.OpenQuestions[0] != "why, though?" {
		t.Errorf("stored %+v\n%s", h, stdout)
	}
	help, _, _ := cliRun(t, "end", "--help")
	if !strings.Contains(help, "repeat the flag for more") || !strings.Contains(help, "commas and all") {
		t.Errorf("end --help does not say how to give more items:\n%s", help)
	}
}

// `end` with no baton flags ends the session and writes no baton; a flag
// present but empty is refused.
func TestEndWithoutBaton(t *testing.T) {
	gittest.Isolate(t)
	t.Chdir(gittest.Init(t))
	if _, stderr, code := cliRun(t, "start", "--session", "s-1"); code != 0 {
		t.Fatalf("start: exit %d\n%s", code, stderr)
	}
	_, stderr, code := cliRun(t, "end", "--next", "")
	if code != exitUsage || !strings.Contains(stderr, "at least one non-empty next step") {
		t.Errorf("end --next \"\": exit %d\n%s", code, stderr)
	}
	_, stderr, code = cliRun(t, "end")
	if code != 0 || !strings.Contains(stderr, "ended session s-1; no baton left") {
		t.Fatalf("end: exit %d\n%s", code, stderr)
	}
	if out := gittest.Run(t, ".", "for-each-ref", "--format=%(refname)", "refs/ao/handoffs/"); out != "" {
		t.Errorf("end without baton flags wrote a baton: %s", out)
	}
	stdout, _, _ := cliRun(t, "session", "show", "s-1", "--json")
	if !strings.Contains(stdout, `"status": "ended"`) {
		t.Errorf("the session did not end:\n%s", stdout)
	}
	// nothing bound any more: a second end has nothing to end, and says so
	stdout, stderr, code = cliRun(t, "end", "--json")
	if code != 0 || !strings.Contains(stdout, `"handoff": null`) {
		t.Errorf("end --json with nothing to end: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// Nothing waiting is an answer: show and cancel exit 0 and say
// "handoff": null under --json; dismiss of an id that names nothing is
// not found (6).
func TestNothingToDo(t *testing.T) {
	gittest.Isolate(t)
	t.Chdir(gittest.Init(t))
	for _, args := range [][]string{{"show", "--json"}, {"cancel", "--json"}} {
		stdout, stderr, code := cliRun(t, args...)
		var got map[string]any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != 0 {
			t.Errorf("%v: exit %d, %v\n%s%s", args, code, err, stdout, stderr)
			continue
		}
		if h, ok := got["handoff"]; !ok || h != nil {
			t.Errorf("%v: \"handoff\" is %v, want null\n%s", args, h, stdout)
		}
	}
	stdout, stderr, code := cliRun(t, "show")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "no baton is waiting for dev@example.com") {
		t.Errorf("show: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, _, code := cliRun(t, "dismiss", "h-nosuchbaton"); code != exitNotFound {
		t.Errorf("dismiss of no baton: exit %d, want %d", code, exitNotFound)
	}
}

func TestVersionCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, args := range [][]string{{"--version"}, {"version"}} {
		stdout, stderr, code := cliRun(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "git handoff version ") || stderr != "" {
			t.Errorf("%v: exit %d, %q, %q", args, code, stdout, stderr)
		}
	}
	for _, args := range [][]string{{"--version", "x"}, {"version", "x"}} {
		_, stderr, code := cliRun(t, args...)
		if code != exitUsage || !strings.Contains(stderr, `"x"`) || strings.Contains(stderr, "flag provided") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	info := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"},
	}}
	if got := versionOf(info); got != "v1.2.3 (0123456789ab, modified)" {
		t.Errorf("versionOf = %q", got)
	}
	if got := versionOf(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); got != "(devel)" {
		t.Errorf("versionOf without vcs = %q", got)
	}
	// A release build sets version (make dist: -X main.version=TAG), and
	// --version prints it as it is. scripts/dist-check.sh checks the same
	// of a real release binary.
	defer func(v string) { version = v }(version)
	version = "v1.2.3-rc.1"
	if stdout, _, code := cliRun(t, "--version"); code != 0 || stdout != "git handoff version v1.2.3-rc.1\n" {
		t.Errorf("--version with the release's version: exit %d, %q", code, stdout)
	}
}

// --help writes options as they are typed, with no "(default: false)".
func TestHelpFlags(t *testing.T) {
	t.Chdir(t.TempDir())
	stdout, _, code := cliRun(t, "start", "--help")
	if code != 0 {
		t.Fatalf("start --help: exit %d", code)
	}
	for _, want := range []string{"--max-bytes N", "git handoff start [--session ID]", "(default: 8192)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("start --help lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "(default: false)") || strings.Contains(stdout, "value") {
		t.Errorf("start --help:\n%s", stdout)
	}
}
