package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// gitBashCompletion is where Debian's git package puts its bash
// completion.
const gitBashCompletion = "/usr/share/bash-completion/completions/git"

// needTool is the path of prog (gittest.Need).
func needTool(t *testing.T, prog string) string {
	t.Helper()
	return gittest.Need(t, prog, "apt-get install -y "+prog)
}

// completionScript writes `git handoff completion SHELL` to a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	t.Chdir(t.TempDir())
	stdout, stderr, code := cliRun(t, "completion", shell)
	if code != 0 {
		t.Fatalf("completion %s: exit %d\n%s", shell, code, stderr)
	}
	path := filepath.Join(t.TempDir(), "git-handoff."+shell)
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// shellOutput runs a shell program with a deadline and returns its
// stdout's lines.
func shellOutput(t *testing.T, name string, args ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s %v: %v\n%s", name, args, err, msg)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// `git handoff <TAB>` through git's own bash completion: git's completion
// finds _git_handoff in our script and calls it.
func TestBashCompletionThroughGit(t *testing.T) {
	bash := needTool(t, "bash")
	if _, err := os.Stat(gitBashCompletion); err != nil {
		gittest.Missing(t, "git's bash completion ("+err.Error()+")", "apt-get install -y git bash-completion")
	}
	script := completionScript(t, "bash")
	// complete WORDS...: COMPREPLY of git's completion function for the
	// command line WORDS (the last is the word under the cursor).
	complete := func(fn string, words ...string) []string {
		t.Helper()
		prog := `source "$1"; source "$2"; shift 3
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
` + fn + ` "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"`
		return shellOutput(t, bash, append([]string{"--norc", "--noprofile", "-c", prog, "bash", gitBashCompletion, script, "-"}, words...)...)
	}
	for _, tc := range []struct {
		fn    string
		words []string
		want  []string
	}{
		{"__git_wrap__git_main", []string{"git", "handoff", "st"}, []string{"start"}},
		{"__git_wrap__git_main", []string{"git", "handoff", "end", "--n"}, []string{"--next"}},
		{"__git_wrap__git_main", []string{"git", "handoff", "session", "l"}, []string{"launch", "lineage", "ls"}},
		{"__git_wrap__git_main", []string{"git", "handoff", "end", "--next", "a step", "--sh"}, []string{"--shared"}},
		{"__git_wrap__git_main", []string{"git", "-C", ".", "handoff", "pr", "cl"}, []string{"claim"}},
		// typed directly, without git
		{"_git_handoff_direct", []string{"git-handoff", "completion", ""}, nil},
		{"_git_handoff_direct", []string{"git-handoff", "sta"}, []string{"start"}},
		{"_git_handoff_direct", []string{"git-handoff", "brief", "--max-bytes", ""}, nil},
	} {
		got := complete(tc.fn, tc.words...)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: COMPREPLY %q, want %q", tc.fn, tc.words, got, tc.want)
		}
	}
}

func TestZshCompletionParses(t *testing.T) {
	zsh := needTool(t, "zsh")
	shellOutput(t, zsh, "-n", completionScript(t, "zsh"))
}

func TestFishCompletion(t *testing.T) {
	fish := needTool(t, "fish")
	script := completionScript(t, "fish")
	shellOutput(t, fish, "--no-execute", script)
	// fish completes a command line itself: check what it offers
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"git-handoff end --n", []string{"--next"}},
		{"git-handoff session l", []string{"launch", "lineage", "ls"}},
	} {
		got := shellOutput(t, fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, tc.line)
		for i := range got {
			got[i], _, _ = strings.Cut(got[i], "\t")
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("fish %q: %q, want %q", tc.line, got, tc.want)
		}
	}
}

// The scripts follow the command tree: every command appears in each.
func TestCompletionCoversCommands(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		text, err := os.ReadFile(completionScript(t, shell))
		if err != nil {
			t.Fatal(err)
		}
		for path, c := range leafCommands() {
			if strings.Contains(path, " ") || c.Hidden {
				continue
			}
			if !regexp.MustCompile(`[ "']` + path + `[ "'\n]`).Match(text) {
				t.Errorf("%s completion lacks %q", shell, path)
			}
		}
	}
}

// TestMakeInstallCompletes: `make install` into a fresh PREFIX, then
// `git handoff <TAB>` completes in bash through git's own completion
// (bash-completion loads completions/git-handoff for it) and in fish (the
// script in vendor_conf.d), and zsh finds _git-handoff on the fpath given.
func TestMakeInstallCompletes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary with make")
	}
	makeProg := needTool(t, "make")
	bash := needTool(t, "bash")
	fish := needTool(t, "fish")
	zsh := needTool(t, "zsh")
	const bashCompletion = "/usr/share/bash-completion/bash_completion"
	for _, f := range []string{bashCompletion, gitBashCompletion} {
		if _, err := os.Stat(f); err != nil {
			gittest.Missing(t, "bash-completion ("+err.Error()+")", "apt-get install -y git bash-completion")
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	prefix := filepath.Join(tmp, "prefix")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// BIN outside the clone: the test leaves the source tree as it was
	// (git-handoff.1 is made there, as by make build, and ignored by git).
	cmd := exec.CommandContext(ctx, makeProg, "-C", root, "install", "PREFIX="+prefix, "BIN="+filepath.Join(tmp, "git-handoff"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	env := append(os.Environ(), "PATH="+filepath.Join(prefix, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+filepath.Join(tmp, "home"), "XDG_DATA_HOME="+filepath.Join(prefix, "share"),
		"BASH_COMPLETION_USER_DIR="+filepath.Join(prefix, "share", "bash-completion"))
	run := func(name string, args ...string) []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, name, args...)
		c.Env, c.Dir = env, tmp
		out, err := c.Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			t.Fatalf("%s %q: %v\n%s", name, args, err, msg)
		}
		var lines []string
		for _, l := range strings.Split(string(out), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				l, _, _ = strings.Cut(l, "\t")
				lines = append(lines, l)
			}
		}
		return lines
	}
	// bash: nothing of ours sourced by hand; git's completion loads it.
	bashProg := `source "$1"; _completion_loader git; shift
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
__git_wrap__git_main git "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"`
	for _, tc := range []struct {
		words, want []string
	}{
		{[]string{"git", "handoff", "st"}, []string{"start"}},
		{[]string{"git", "handoff", "session", "l"}, []string{"launch", "lineage", "ls"}},
		{[]string{"git", "handoff", "undis"}, []string{"undismiss"}},
	} {
		if got := run(bash, append([]string{"--norc", "--noprofile", "-c", bashProg, "bash", bashCompletion}, tc.words...)...); !slices.Equal(got, tc.want) {
			t.Errorf("bash %q: %q, want %q", tc.words, got, tc.want)
		}
	}
	// fish, with its user data directory under PREFIX/share: no config.
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"git handoff sta", []string{"start"}},
		{"git -C . handoff session l", []string{"launch", "lineage", "ls"}},
		{"git handoff end --n", []string{"--next"}},
		{"git-handoff sta", []string{"start"}},
	} {
		if got := run(fish, "-c", "complete -C $argv[1]", tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("fish %q: %q, want %q", tc.line, got, tc.want)
		}
	}
	// zsh: the function file is on the fpath the README names.
	site := filepath.Join(prefix, "share", "zsh", "site-functions")
	if got := run(zsh, "-f", "-c", `fpath=("$1" $fpath); autoload -Uz _git-handoff; whence -w _git-handoff`, "zsh", site); !slices.Equal(got, []string{"_git-handoff: function"}) {
		t.Errorf("zsh: %q", got)
	}
	shellOutput(t, zsh, "-n", filepath.Join(site, "_git-handoff"))
}
