package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// panicWriter stands in for a bug anywhere below run: the first write
// panics, as a nil dereference in a renderer would.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("boom from a writer") }

// A panic exits 1 with "this is a bug" and the stack, not the runtime's
// exit 2 that means wrong usage.
func TestRunRecoversPanic(t *testing.T) {
	var stderr strings.Builder
	code := run(context.Background(), []string{"git-handoff", "--help"}, strings.NewReader(""), panicWriter{}, &stderr)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	out := stderr.String()
	for _, want := range []string{"error: this is a bug in git-handoff: ", "boom from a writer", "goroutine ", "panicWriter"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}

// A usage hint names the whole command, so the help it points at exists
// (urfave/cli's FullName gave "claim" for `pr claim`).
func TestUsageHintNamesFullCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		hint string
	}{
		{[]string{"pr", "claim", "1", "2"}, "hint: see 'git handoff pr claim --help'"},
		{[]string{"pr", "claim", "--bogus"}, "hint: see 'git handoff pr claim --help'"},
		{[]string{"session", "replace", "--bogus"}, "hint: see 'git handoff session replace --help'"},
		{[]string{"hooks", "install", "--bogus"}, "hint: see 'git handoff hooks install --help'"},
		{[]string{"list", "--bogus"}, "hint: see 'git handoff list --help'"},
		{[]string{"--bogus"}, "hint: see 'git handoff --help'"},
	} {
		var stdout, stderr strings.Builder
		code := run(context.Background(), append([]string{"git-handoff"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitUsage)
		}
		if !strings.Contains(stderr.String(), tc.hint+"\n") {
			t.Errorf("%v: stderr lacks %q:\n%s", tc.args, tc.hint, stderr.String())
		}
	}
}

// Every entry of readOnlyCommands and readLaterCommands names a command
// that exists: a renamed command would otherwise quietly start writing on
// reads again, or lose its later start of cat-file.
func TestReadOnlyCommandsExist(t *testing.T) {
	app := newApp(newDeps(strings.NewReader(""), io.Discard, io.Discard))
	have := map[string]bool{}
	var walk func(cs []*cli.Command, parent string)
	walk = func(cs []*cli.Command, parent string) {
		for _, c := range cs {
			path := strings.TrimSpace(parent + " " + c.Name)
			have[path] = true
			walk(c.Subcommands, path)
		}
	}
	walk(app.Commands, "")
	for path := range readOnlyCommands {
		if !have[path] {
			t.Errorf("readOnlyCommands names %q, which is not a command", path)
		}
	}
	for path := range readLaterCommands {
		if !have[path] {
			t.Errorf("readLaterCommands names %q, which is not a command", path)
		}
	}
}

// `git handoff --version` says which build runs, as `git --version` does,
// and is listed in the help.
func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"git-handoff", "--version"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitOK || !strings.HasPrefix(stdout.String(), "git handoff version ") || stderr.Len() != 0 {
		t.Fatalf("--version: exit %d, %q, %q", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	run(context.Background(), []string{"git-handoff", "--help"}, strings.NewReader(""), &stdout, &stderr)
	if !strings.Contains(stdout.String(), "git handoff --version") {
		t.Errorf("--help does not list --version:\n%s", stdout.String())
	}
}
