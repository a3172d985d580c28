package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/hooks"
)

func TestUnboundCommitNeverStartsBinary(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		e.git(dir, "commit", "-q", "--allow-empty", "-m", "plain")
		if got := e.headMessage(dir); got != "plain\n\n" {
			t.Errorf("message = %q, want it untouched", got)
		}
		if s := e.starts(); s != nil {
			t.Errorf("git-handoff started with no session bound: %q", s)
		}
	})
}

func TestBoundCommitGetsTrailersOnce(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		e.bind(dir, "s1")

		e.git(dir, "commit", "-q", "--allow-empty", "-m", "subject\n\nbody")
		want := "subject\n\nbody\n\nHandoff-Session: s1\nHandoff-Agent: test-agent\n\n"
		if got := e.headMessage(dir); got != want {
			t.Fatalf("message = %q, want %q", got, want)
		}

		e.git(dir, "commit", "-q", "--amend", "--allow-empty", "--no-edit")
		if got := e.headMessage(dir); got != want {
			t.Errorf("after amend by the same session: %q, want %q", got, want)
		}

		// Like the author, the trailers stay with the session that first wrote
		// the message: another session amending it changes nothing.
		e.with("GIT_HANDOFF_SESSION=s2", harnessEnv+"=codex").
			git(dir, "commit", "-q", "--amend", "--allow-empty", "--no-edit")
		if got := e.headMessage(dir); got != want {
			t.Errorf("after amend by another session: %q, want %q", got, want)
		}
		// So does a rebase that replays the commit.
		e.git(dir, "commit", "-q", "--allow-empty", "-m", "next")
		e.with("GIT_HANDOFF_SESSION=s3").git(dir, "rebase", "-q", "--force-rebase", "HEAD~2")
		if got := e.git(dir, "log", "-1", "--skip=1", "--format=%B"); got != want {
			t.Errorf("after rebase by another session: %q, want %q", got, want)
		}
	})
}

func TestTrailersJoinExistingTrailerBlock(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	e.bind(dir, "s1")
	msg := filepath.Join(t.TempDir(), "msg")
	writeFile(t, msg, "fix: thing\n\nLonger text.\n\nSigned-off-by: A <a@example.com>\n", 0o644)
	e.git(dir, "commit", "-q", "--allow-empty", "-F", msg)
	want := "fix: thing\n\nLonger text.\n\nSigned-off-by: A <a@example.com>\nHandoff-Session: s1\nHandoff-Agent: test-agent\n\n"
	if got := e.headMessage(dir); got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

func TestEmptyMessageStillAborts(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	e.bind(dir, "s1")
	head := e.git(dir, "rev-parse", "HEAD")
	// GIT_EDITOR=true leaves git's comment-only template as it is.
	if _, errs, err := e.run(dir, "commit", "--allow-empty"); err == nil {
		t.Errorf("commit with an unedited empty message succeeded")
	} else if !strings.Contains(errs, "empty commit message") {
		t.Errorf("unexpected failure: %s", errs)
	}
	if _, _, err := e.run(dir, "commit", "--allow-empty", "-m", ""); err == nil {
		t.Errorf("commit -m '' succeeded")
	}
	if got := e.git(dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved")
	}
}

func TestTemplateIsLeftForTheEditor(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	e.bind(dir, "s1")
	tmpl := filepath.Join(t.TempDir(), "template")
	writeFile(t, tmpl, "summary here\n", 0o644)
	// GIT_EDITOR=true returns the template untouched: git must still abort.
	if _, errs, err := e.run(dir, "commit", "--allow-empty", "-t", tmpl); err == nil {
		t.Errorf("commit with an untouched template succeeded")
	} else if !strings.Contains(errs, "did not edit") {
		t.Errorf("unexpected failure: %s", errs)
	}
}

func TestMergeCommitGetsTrailers(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	e.git(dir, "checkout", "-q", "-b", "side")
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "on side")
	e.git(dir, "checkout", "-q", "main")
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "on main")
	e.bind(dir, "s1")
	e.git(dir, "merge", "-q", "--no-ff", "--no-edit", "side")
	want := "Merge branch 'side'\n\nHandoff-Session: s1\nHandoff-Agent: test-agent\n\n"
	if got := e.headMessage(dir); got != want {
		t.Errorf("merge message = %q, want %q", got, want)
	}
}

func TestSessionEnvOverridesBinding(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	// Without a binding, only this setting installs prepare-commit-msg.
	e.git(dir, "config", hooks.CommitHookKey, hooks.CommitHookAlways)
	e.install(dir)
	e.with("GIT_HANDOFF_SESSION=env-session").git(dir, "commit", "-q", "--allow-empty", "-m", "x")
	if got := e.headMessage(dir); !strings.Contains(got, "Handoff-Session: env-session\n") {
		t.Errorf("message = %q, want the session from the environment", got)
	}
}

func TestCoreHooksPath(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.git(dir, "config", "core.hooksPath", ".githooks")
	rep := e.install(dir)
	if want := filepath.Join(dir, ".githooks"); rep.Dir != want {
		t.Fatalf("installed into %s, want %s", rep.Dir, want)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "inside the work tree") {
		t.Errorf("warnings = %q, want one about the work tree", rep.Warnings)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "prepare-commit-msg")); err == nil {
		t.Errorf("also installed into .git/hooks")
	}
	e.bind(dir, "s1")
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "x")
	if got := e.headMessage(dir); !strings.Contains(got, "Handoff-Session: s1\n") {
		t.Errorf("message = %q, want trailers", got)
	}
}

func TestLinkedWorktree(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		wt := filepath.Join(t.TempDir(), "wt")
		e.git(dir, "worktree", "add", "-q", "-b", "wt-branch", wt)
		rep := e.install(wt)
		want := filepath.Join(dir, ".git", "hooks")
		if e.form == hooks.FormConfig {
			want = filepath.Join(dir, ".git", "handoff", "hooks")
		}
		if rep.Dir != want {
			t.Fatalf("installed into %s, want the shared %s", rep.Dir, want)
		}
		e.bind(wt, "wt-session")

		e.git(wt, "commit", "-q", "--allow-empty", "-m", "in worktree")
		if got := e.headMessage(wt); !strings.Contains(got, "Handoff-Session: wt-session\n") {
			t.Errorf("worktree commit = %q, want trailers", got)
		}
		// The binding is per worktree: the main worktree stays unbound, and its
		// commits never start the binary.
		e.resetLog()
		e.git(dir, "commit", "-q", "--allow-empty", "-m", "in main")
		if got := e.headMessage(dir); got != "in main\n\n" {
			t.Errorf("main worktree commit = %q, want no trailers", got)
		}
		if s := e.starts(); s != nil {
			t.Errorf("git-handoff started for the unbound main worktree: %q", s)
		}
	})
}

func TestGuardMakesNestedHooksNoOps(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		e.bind(dir, "s1")
		e.with("GIT_HANDOFF_IN_HOOK=1").git(dir, "commit", "-q", "--allow-empty", "-m", "nested")
		if got := e.headMessage(dir); got != "nested\n\n" {
			t.Errorf("message = %q, want no trailers under the guard", got)
		}
		if s := e.starts(); s != nil {
			t.Errorf("git-handoff started under the guard: %q", s)
		}
	})
}

func TestFailingDepsNeverBlockCommit(t *testing.T) {
	for _, mode := range []string{"error", "panic", "hang"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t).with(failEnv+"="+mode, timeoutEnv+"=300ms")
			dir := e.newRepo()
			e.install(dir)
			e.bind(dir, "s1")
			_, errs, err := e.run(dir, "commit", "-q", "--allow-empty", "-m", "still commits")
			if err != nil {
				t.Fatalf("commit failed: %v\n%s", err, errs)
			}
			if got := e.headMessage(dir); got != "still commits\n\n" {
				t.Errorf("message = %q", got)
			}
			if !strings.HasPrefix(errs, "warning: git-handoff: prepare-commit-msg hook: ") || strings.Count(errs, "\n") != 1 {
				t.Errorf("stderr = %q, want one warning line", errs)
			}
		})
	}
}

func TestAbsoluteCommandWithoutPath(t *testing.T) {
	e := newEnv(t).with("PATH=" + os.Getenv("PATH")) // git-handoff not on PATH
	dir := e.newRepo()
	cmd := "'" + filepath.Join(binDir, "git-handoff") + "'"
	if _, err := hooks.Install(e.ctx(), dir, hooks.Options{Command: cmd, Form: hooks.FormFiles}); err != nil {
		t.Fatal(err)
	}
	e.bind(dir, "s1")
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "x")
	if got := e.headMessage(dir); !strings.Contains(got, "Handoff-Session: s1\n") {
		t.Errorf("message = %q, want trailers", got)
	}
	sts, err := hooks.Check(e.ctx(), dir)
	if err != nil || !sts[0].OK() {
		t.Errorf("check after install with a command: %+v %v", sts, err)
	}
}
