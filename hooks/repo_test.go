package hooks_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// env is the environment every git command of a test runs with: the outer
// git environment dropped, a private HOME and identity, the test binary on
// PATH as git-handoff, and a log of its starts.
type env struct {
	t    testing.TB
	vars []string
	log  string
	// form is what install asks for: hooks.FormFiles unless a test says
	// otherwise (config_test.go runs the forms on each git).
	form hooks.Form
}

func newEnv(t testing.TB) *env {
	t.Helper()
	home := t.TempDir()
	var vars []string
	for _, kv := range refstore.CleanEnv(os.Environ()) {
		if strings.HasPrefix(kv, "GIT_") {
			continue // GIT_HANDOFF_*, GIT_CONFIG_*, GIT_EDITOR...
		}
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		vars = append(vars, kv)
	}
	log := filepath.Join(home, "starts.log")
	vars = append(vars,
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+home,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z",
		"GIT_EDITOR=true",
		testbinEnv+"=1",
		logEnv+"="+log,
	)
	// make test-git's formats (GIT_DEFAULT_REF_FORMAT, GIT_DEFAULT_HASH).
	vars = append(vars, gittest.MatrixEnv()...)
	return &env{t: t, vars: vars, log: log, form: hooks.FormFiles}
}

// with returns a copy of e with extra variables set.
func (e *env) with(kv ...string) *env {
	c := *e
	c.vars = append(append([]string(nil), e.vars...), kv...)
	return &c
}

// run runs git in dir and returns stdout and stderr; it does not fail the
// test on a non-zero exit.
func (e *env) run(dir string, args ...string) (string, string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = e.vars
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// git runs git in dir and fails the test if it fails.
func (e *env) git(dir string, args ...string) string {
	e.t.Helper()
	out, errs, err := e.run(dir, args...)
	if err != nil {
		e.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errs)
	}
	return out
}

// starts returns the lines the test binary logged, one per start.
func (e *env) starts() []string {
	b, err := os.ReadFile(e.log)
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func (e *env) resetLog() { os.Remove(e.log) }

// newRepo makes a repository with one commit on main.
func (e *env) newRepo() string {
	e.t.Helper()
	dir := filepath.Join(e.t.TempDir(), "repo")
	e.git(".", "init", "-q", "-b", "main", dir)
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "initial")
	return dir
}

// bind records a session and binds the worktree at dir to it, the way
// git-handoff does: a blob under refs/ao/sessions and a per-worktree
// symbolic ref to it, then Refresh to arm the commit hook.
func (e *env) bind(dir, id string) {
	e.t.Helper()
	blob := strings.TrimSpace(e.gitIn(dir, `{"schema":"session/v1","id":"`+id+`"}`, "hash-object", "-w", "--stdin"))
	e.git(dir, "update-ref", "refs/ao/sessions/"+id, blob)
	e.git(dir, "symbolic-ref", "refs/worktree/ao/session", "refs/ao/sessions/"+id)
	e.refresh(dir)
}

// unbind removes the worktree's binding, then Refreshes as git-handoff does.
func (e *env) unbind(dir string) {
	e.t.Helper()
	e.git(dir, "symbolic-ref", "--delete", "refs/worktree/ao/session")
	e.refresh(dir)
}

// refresh arms or disarms the commit hook, as the CLI does after every
// change to a binding.
func (e *env) refresh(dir string) hooks.HookResult {
	e.t.Helper()
	res, err := hooks.Refresh(e.ctx(), dir)
	if err != nil {
		e.t.Fatalf("refresh: %v", err)
	}
	return res
}

// gitIn runs git with stdin.
func (e *env) gitIn(dir, stdin string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = e.vars
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

func (e *env) install(dir string) hooks.Report {
	e.t.Helper()
	rep, err := hooks.Install(e.ctx(), dir, hooks.Options{Form: e.form})
	if err != nil {
		e.t.Fatalf("install: %v", err)
	}
	return rep
}

// ctx returns a context for library calls; the library runs git with the
// process environment, so the test's own HOME isolation does not apply, but
// the calls only read the repository layout.
func (e *env) ctx() context.Context { return context.Background() }

func (e *env) headMessage(dir string) string {
	return e.git(dir, "log", "-1", "--format=%B")
}

func writeFile(t testing.TB, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
