// Package gittest makes real, isolated git repositories for tests.
package gittest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// MatrixVars are the variables that choose the format of every repository
// a test's git makes with `git init` or `git clone` (git >= 2.45 honours
// both): `make test-git` sets them for its rows, and every test's
// environment must pass them on to the git it runs, or a row would run on
// the default formats without knowing it (TestMatrix checks).
var MatrixVars = []string{"GIT_DEFAULT_REF_FORMAT", "GIT_DEFAULT_HASH"}

// MatrixEnv is MatrixVars as this process has them, as NAME=value pairs.
func MatrixEnv() []string {
	var env []string
	for _, k := range MatrixVars {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func isMatrixVar(k string) bool {
	for _, m := range MatrixVars {
		if k == m {
			return true
		}
	}
	return false
}

// Env is the environment every test git process gets: no system or user
// configuration, a fixed identity, no prompts, and the matrix's formats
// (MatrixVars).
func Env(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if (strings.HasPrefix(k, "GIT_") && !isMatrixVar(k)) || k == "HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=Test Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
		"GIT_COMMITTER_NAME=Test Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
		"GIT_TERMINAL_PROMPT=0",
	)
}

// Isolate points this test process's own git at an empty configuration, so
// code under test that runs git sees what the test set up and nothing else.
func Isolate(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Test Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n"), 0o644)
	for _, kv := range Env(home) {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "HOME" {
			t.Setenv(k, v)
		}
	}
	return home
}

// Init makes a repository with one commit on main and returns its path.
// Extra args go to git init (for example "--bare").
func Init(t testing.TB, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	Run(t, "", append([]string{"init", "-q", "-b", "main"}, append(args, dir)...)...)
	if len(args) == 0 {
		Run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	}
	return dir
}

// Run runs git in dir and returns its trimmed stdout, failing the test on
// error.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out))
}

// RunKilled runs the test binary again as a child that runs only test
// (which, seeing env, does the work under test), and fails t unless the
// child was killed by a signal: fault injection (GIT_HANDOFF_TEST_KILL_*)
// kills it mid-write.
func RunKilled(t testing.TB, test string, env ...string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(self, "-test.run=^"+test+"$")
	c.Env = append(os.Environ(), env...)
	out, err := c.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
		t.Fatalf("%s was not killed: %v\n%s", test, err, out)
	}
}

// WriteFile writes data to rel under dir, making the directories it needs.
func WriteFile(t testing.TB, dir, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
