//go:build linux

package hooks_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/refstore"
)

// holdLock starts a process holding the hooks lock with flock(1) (-o: only
// flock itself holds it, not the command it waits for), as
// a git-handoff in the middle of changing the hooks would, and returns it
// once it holds the lock.
func holdLock(t *testing.T, lock string) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock(1) not installed")
	}
	cmd := exec.Command(bin, "-o", lock, "sh", "-c", "echo locked; exec sleep 600")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "locked\n" {
		t.Fatalf("flock: %q", line)
	}
	return cmd
}

// A running holder makes Refresh wait and then fail naming the lock; once the
// holder is killed (-9, no chance to clean up) the next Refresh arms at once:
// the file it left behind blocks nobody (issue 9: every later start waited
// 2 s and never armed the commit hook).
func TestRefreshAfterTheLockHolderIsKilled(t *testing.T) {
	saved, savedArm := *hooks.LockWait, *hooks.ArmWait
	*hooks.LockWait, *hooks.ArmWait = 200*time.Millisecond, 200*time.Millisecond
	defer func() { *hooks.LockWait, *hooks.ArmWait = saved, savedArm }()
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	lock := filepath.Join(dir, ".git", "handoff-hooks.lock")
	holder := holdLock(t, lock)
	e.git(dir, "symbolic-ref", "refs/worktree/ao/session", "refs/ao/sessions/s1")
	if _, err := hooks.Refresh(e.ctx(), dir); err == nil || !strings.Contains(err.Error(), lock) {
		t.Errorf("refresh under a held lock: %v, want an error naming %s", err, lock)
	}
	holder.Process.Kill() // flock only: its sleeping child holds nothing
	holder.Wait()
	if _, err := os.Lstat(lock); err != nil {
		t.Fatalf("the killed holder left no lock file to test with: %v", err)
	}
	res, err := hooks.Refresh(e.ctx(), dir)
	if err != nil || res.Action != hooks.Installed {
		t.Fatalf("refresh after the holder was killed: %s, %v; want installed", res.Action, err)
	}
	wantArmed(t, filepath.Join(dir, ".git", "hooks"), true)
	if _, err := os.Lstat(lock); err == nil {
		t.Errorf("lock file left behind by a clean release")
	}
}

// A Refresh for a bound worktree does not give up where other changes do
// (issue 27: a busy machine held the lock past the 2 s wait, start warned,
// and the bound worktree's commits ran no hook): it waits for the holder,
// then arms. A Refresh after an unbind that cannot take the lock in time
// leaves the shim in place, which costs time and never a trailer.
func TestBoundRefreshWaitsOutTheLock(t *testing.T) {
	saved, savedArm := *hooks.LockWait, *hooks.ArmWait
	*hooks.LockWait, *hooks.ArmWait = 200*time.Millisecond, time.Minute
	defer func() { *hooks.LockWait, *hooks.ArmWait = saved, savedArm }()
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	e.install(dir)
	lock := filepath.Join(dir, ".git", "handoff-hooks.lock")

	holder := holdLock(t, lock)
	const held = time.Second
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(held)
		// The lock goes with the holder, at the kill: Wait returns after,
		// so a time taken then could follow the refresh that took it.
		at := time.Now()
		holder.Process.Kill()
		holder.Wait()
		released <- at
	}()
	blob := strings.TrimSpace(e.gitIn(dir, `{"id":"s1"}`, "hash-object", "-w", "--stdin"))
	e.git(dir, "update-ref", "refs/ao/sessions/s1", blob)
	e.git(dir, "symbolic-ref", "refs/worktree/ao/session", "refs/ao/sessions/s1")
	res, err := hooks.Refresh(e.ctx(), dir)
	done := time.Now()
	if err != nil || res.Action != hooks.Installed {
		t.Fatalf("refresh of a bound worktree under a held lock: %s, %v; want installed", res.Action, err)
	}
	if r := <-released; done.Before(r) {
		t.Errorf("armed %v before the holder released the lock", r.Sub(done))
	}
	wantArmed(t, hookDir, true)

	// Unbound, with the lock held: the shim stays.
	e.git(dir, "symbolic-ref", "--delete", "refs/worktree/ao/session")
	holdLock(t, lock)
	if _, err := hooks.Refresh(e.ctx(), dir); err == nil || errors.Is(err, hooks.ErrNotArmed) {
		t.Errorf("refresh after unbinding under a held lock: %v, want a plain lock error", err)
	}
	wantArmed(t, hookDir, true)
}

// A bound worktree's Refresh that cannot take the lock even in ArmWait says
// so with ErrNotArmed, for the caller to undo the binding.
func TestBoundRefreshNotArmed(t *testing.T) {
	saved := *hooks.ArmWait
	*hooks.ArmWait = 200 * time.Millisecond
	defer func() { *hooks.ArmWait = saved }()
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	holdLock(t, filepath.Join(dir, ".git", "handoff-hooks.lock"))
	e.git(dir, "symbolic-ref", "refs/worktree/ao/session", "refs/ao/sessions/s1")
	if _, err := hooks.Refresh(e.ctx(), dir); !errors.Is(err, hooks.ErrNotArmed) {
		t.Errorf("refresh: %v, want ErrNotArmed", err)
	}
}

// BindGuard writes a binding only with the commit hook armed and the hooks
// lock held, so a command killed at any point leaves the worktree unbound,
// or bound and armed; when the lock cannot be had, nothing is bound.
func TestBindGuard(t *testing.T) {
	saved := *hooks.ArmWait
	*hooks.ArmWait = 300 * time.Millisecond
	defer func() { *hooks.ArmWait = saved }()
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	e.install(dir)
	wt := filepath.Join(t.TempDir(), "wt")
	e.git(dir, "worktree", "add", "-q", "-b", "wt-branch", wt)
	st, err := refstore.Open(e.ctx(), wt, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.GuardBindings(hooks.BindGuard(st.Dir(), st.Layout()))

	holder := holdLock(t, filepath.Join(dir, ".git", "handoff-hooks.lock"))
	if err := st.Bind("refs/ao/sessions/s1"); !errors.Is(err, hooks.ErrNotArmed) {
		t.Fatalf("bind under a held lock: %v, want ErrNotArmed", err)
	}
	if id, _ := st.BoundSession(); id != "" {
		t.Fatalf("bound to %q without the commit hook", id)
	}
	wantArmed(t, hookDir, false)

	*hooks.ArmWait = time.Minute
	go func() { time.Sleep(500 * time.Millisecond); holder.Process.Kill() }()
	var armedFirst bool
	st.GuardBindings(func(bind func() error) error {
		return hooks.BindGuard(st.Dir(), st.Layout())(func() error {
			_, err := os.Stat(pcmPath(dir))
			armedFirst = err == nil
			return bind()
		})
	})
	if err := st.Bind("refs/ao/sessions/s1"); err != nil {
		t.Fatalf("bind once the holder is gone: %v", err)
	}
	if !armedFirst {
		t.Errorf("the binding was written before the commit hook was armed")
	}
	if id, _ := st.BoundSession(); id != "s1" {
		t.Errorf("bound to %q, want s1", id)
	}
	wantArmed(t, hookDir, true)
}
