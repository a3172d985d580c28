package hooks_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/hooks"
)

// putBaton stores a baton blob for owner "me" on branch.
func (e *env) putBaton(dir, branch, summary string) {
	e.t.Helper()
	blob := strings.TrimSpace(e.gitIn(dir, summary, "hash-object", "-w", "--stdin"))
	e.git(dir, "update-ref", "refs/ao/handoffs/private/"+batonOwner+"/"+branch, blob)
}

func TestPostCheckoutAnnouncesWaitingBaton(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		writeFile(t, filepath.Join(dir, "file"), "content\n", 0o644)
		e.git(dir, "add", "file")
		e.git(dir, "commit", "-q", "-m", "a file")
		e.git(dir, "branch", "feature")
		e.git(dir, "branch", "quiet")

		// No batons anywhere: the binary is never started.
		if _, errs, _ := e.run(dir, "checkout", "-q", "feature"); errs != "" {
			t.Errorf("stderr = %q, want nothing", errs)
		}
		if s := e.starts(); s != nil {
			t.Errorf("git-handoff started with no batons: %q", s)
		}

		e.git(dir, "checkout", "-q", "main")
		e.putBaton(dir, "feature", "finish the parser\nthen the tests")
		_, errs, err := e.run(dir, "checkout", "-q", "feature")
		if err != nil {
			t.Fatal(err)
		}
		if want := "git-handoff: baton h-1 from me is waiting on feature: finish the parser then the tests (git handoff start)\n"; errs != want {
			t.Errorf("stderr = %q, want %q", errs, want)
		}
		if _, errs, _ := e.run(dir, "checkout", "-q", "quiet"); errs != "" {
			t.Errorf("branch without baton: stderr = %q", errs)
		}

		// A file checkout ($3 = 0) does nothing, even with batons around.
		e.resetLog()
		e.git(dir, "checkout", "-q", "feature", "--", ".")
		if s := e.starts(); s != nil {
			t.Errorf("git-handoff started on a file checkout: %q", s)
		}

		// Packed batons are found too.
		e.git(dir, "pack-refs", "--all")
		_, errs, _ = e.run(dir, "checkout", "-q", "feature")
		if !strings.Contains(errs, "baton h-1 from me is waiting on feature") {
			t.Errorf("packed baton: stderr = %q", errs)
		}
	})
}

func TestPostCheckoutInLinkedWorktreeFindsSharedBatons(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	e.git(dir, "branch", "feature")
	e.putBaton(dir, "feature", "carry on")
	wt := filepath.Join(t.TempDir(), "wt")
	e.git(dir, "worktree", "add", "-q", "--detach", wt)
	_, errs, err := e.run(wt, "checkout", "-q", "feature")
	if err != nil || !strings.Contains(errs, "baton h-1 from me is waiting on feature: carry on") {
		t.Errorf("worktree checkout: err %v stderr %q", err, errs)
	}
}

// A shared baton left on another branch is eligible on the branch checked
// out, not waiting on it: the line says where it was left and that it can
// be taken here, and never that it waits on both branches.
func TestPostCheckoutSharedBatonFromAnotherBranch(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	e.git(dir, "branch", "feature")
	blob := strings.TrimSpace(e.gitIn(dir, "watch the live feed", "hash-object", "-w", "--stdin"))
	e.git(dir, "update-ref", "refs/ao/handoffs/shared/ann/live", blob)

	_, errs, err := e.run(dir, "checkout", "-q", "feature")
	if err != nil {
		t.Fatal(err)
	}
	want := "git-handoff: shared baton h-1 from ann, left on live, is eligible here on feature: watch the live feed (git handoff start)\n"
	if errs != want {
		t.Errorf("stderr = %q, want %q", errs, want)
	}
	if strings.Contains(errs, "waiting on") {
		t.Errorf("a shared baton from another branch said to wait here: %q", errs)
	}
}

func TestPrePushWithoutRecordsNeverStartsBinary(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		remote := filepath.Join(t.TempDir(), "remote.git")
		e.git(".", "init", "-q", "--bare", remote)
		e.git(dir, "push", "-q", remote, "main")
		if s := e.starts(); s != nil {
			t.Errorf("git-handoff started with no records: %q", s)
		}
	})
}

func TestPrePushPushesPackedRecords(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		e.bind(dir, "s1")
		e.git(dir, "pack-refs", "--all")
		remote := filepath.Join(t.TempDir(), "remote.git")
		e.git(".", "init", "-q", "--bare", remote)
		e.git(dir, "remote", "add", "origin", remote)
		e.git(dir, "push", "-q", "origin", "main")
		if _, _, err := e.run(remote, "rev-parse", "--verify", "-q", "refs/ao/sessions/s1"); err != nil {
			t.Errorf("packed session record not pushed")
		}
		// The nested push ran with --no-verify and the guard: one start only.
		if s := e.starts(); len(s) != 1 {
			t.Errorf("starts = %q, want exactly one", s)
		}
	})
}

func TestFailingRecordPushNeverBlocksPush(t *testing.T) {
	for _, mode := range []string{"error", "panic", "hang"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t).with(failEnv+"="+mode, timeoutEnv+"=300ms")
			dir := e.newRepo()
			e.install(dir)
			e.bind(dir, "s1")
			remote := filepath.Join(t.TempDir(), "remote.git")
			e.git(".", "init", "-q", "--bare", remote)
			_, errs, err := e.run(dir, "push", "-q", remote, "main")
			if err != nil {
				t.Fatalf("push failed: %v\n%s", err, errs)
			}
			if _, _, err := e.run(remote, "rev-parse", "--verify", "-q", "refs/heads/main"); err != nil {
				t.Errorf("user's branch not pushed")
			}
			if !strings.HasPrefix(errs, "warning: git-handoff: pre-push hook: ") {
				t.Errorf("stderr = %q, want a warning", errs)
			}
		})
	}
}

func TestPushFromBareRepository(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.bind(dir, "s1")
	bare := filepath.Join(t.TempDir(), "mirror.git")
	e.git(".", "clone", "-q", "--bare", dir, bare)
	e.git(dir, "push", "-q", bare, "refs/ao/sessions/s1:refs/ao/sessions/s1")
	e.install(bare)
	remote := filepath.Join(t.TempDir(), "remote.git")
	e.git(".", "init", "-q", "--bare", remote)
	_, errs, err := e.run(bare, "push", "-q", remote, "main")
	if err != nil {
		t.Fatalf("push from bare: %v\n%s", err, errs)
	}
	if _, _, err := e.run(remote, "rev-parse", "--verify", "-q", "refs/ao/sessions/s1"); err != nil {
		t.Errorf("records not pushed from a bare repository (stderr %q)", errs)
	}
}

// In-process checks of Run's own guarantees.

type slowDeps struct{ envDeps }

func (slowDeps) BoundSession(ctx context.Context) (hooks.Session, bool, error) {
	<-ctx.Done()
	return hooks.Session{}, false, ctx.Err()
}

func TestRunGivesUpAtItsDeadline(t *testing.T) {
	saved := hooks.Timeouts[hooks.PrepareCommitMsg]
	hooks.Timeouts[hooks.PrepareCommitMsg] = 50 * time.Millisecond
	defer func() { hooks.Timeouts[hooks.PrepareCommitMsg] = saved }()
	var stderr bytes.Buffer
	start := time.Now()
	hooks.Run(context.Background(), hooks.PrepareCommitMsg, []string{"/nonexistent"}, &stderr, slowDeps{})
	if d := time.Since(start); d > time.Second {
		t.Errorf("Run took %v", d)
	}
	if !strings.HasPrefix(stderr.String(), "warning: git-handoff: prepare-commit-msg hook: ") {
		t.Errorf("stderr = %q", stderr.String())
	}
}

func TestRunUnknownHookWarns(t *testing.T) {
	var stderr bytes.Buffer
	hooks.Run(context.Background(), "post-merge", nil, &stderr, envDeps{})
	if !strings.Contains(stderr.String(), "warning: git-handoff: post-merge hook: unknown hook") {
		t.Errorf("stderr = %q", stderr.String())
	}
}

func TestRunUnderGuardDoesNothing(t *testing.T) {
	t.Setenv(hooks.GuardEnv, "1")
	var stderr bytes.Buffer
	hooks.Run(context.Background(), hooks.PrepareCommitMsg, nil, &stderr, nil)
	if stderr.Len() != 0 {
		t.Errorf("stderr = %q", stderr.String())
	}
}
