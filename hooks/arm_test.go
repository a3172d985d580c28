package hooks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/hooks"
)

// prepare-commit-msg is armed once some worktree is bound to a session (or
// handoff.commitHook=always): until then an unbound commit runs no hook of
// ours at all. Config hooks disarm when the last binding goes; hook files
// stay armed until uninstall (stickyDetail in arm.go), and there an unbound
// commit costs one sh start and starts no git-handoff.

func pcmPath(dir string) string { return filepath.Join(dir, ".git", "hooks", hooks.PrepareCommitMsg) }

// wantArmed fails the test unless prepare-commit-msg in hookDir is (armed)
// or is not (disarmed) our current shim.
func wantArmed(t testing.TB, hookDir string, armed bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hookDir, hooks.PrepareCommitMsg))
	shim, _ := hooks.Shim(hooks.PrepareCommitMsg, "")
	is := err == nil && string(b) == shim
	if is != armed {
		t.Fatalf("prepare-commit-msg is our shim: %v, want %v", is, armed)
	}
}

func TestUnboundRepositoryHasNoCommitHook(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	rep := e.install(dir)
	if h := rep.Hooks[0]; h.Name != hooks.PrepareCommitMsg || h.Action != hooks.Idle || h.Detail == "" {
		t.Errorf("install reported %+v, want prepare-commit-msg idle with a reason", h)
	}
	if _, err := os.Lstat(pcmPath(dir)); err == nil {
		t.Fatalf("prepare-commit-msg installed with nothing bound")
	}
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "plain")
	if got := e.headMessage(dir); got != "plain\n\n" {
		t.Errorf("message = %q, want it untouched", got)
	}
	if s := e.starts(); s != nil {
		t.Errorf("git-handoff started: %q", s)
	}
	for name, st := range states(t, e, dir) {
		if !st.OK() {
			t.Errorf("%s: %s, want ok", name, st.State)
		}
	}
	if st := states(t, e, dir)[hooks.PrepareCommitMsg]; st.State != hooks.StateIdle || st.Note == "" {
		t.Errorf("check: %+v, want idle with a note", st)
	}
	if res := e.refresh(dir); res.Action != hooks.Idle {
		t.Errorf("refresh: %s, want idle", res.Action)
	}
	if rep := e.install(dir); rep.Changed() {
		t.Errorf("second install changed something: %+v", rep.Hooks)
	}
}

func TestBindArmsAndUnbind(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		e.wantArmed(dir, false)

		e.bind(dir, "s1")
		e.wantArmed(dir, true)
		if st := states(t, e, dir)[hooks.PrepareCommitMsg]; st.State != hooks.StateInstalled {
			t.Errorf("check while bound: %s", st.State)
		}
		e.git(dir, "commit", "-q", "--allow-empty", "-m", "bound")
		if got := e.headMessage(dir); !strings.Contains(got, "\n\nHandoff-Session: s1\nHandoff-Agent: test-agent\n") {
			t.Errorf("bound commit = %q, want trailers", got)
		}
		if res := e.refresh(dir); res.Action != hooks.Unchanged {
			t.Errorf("second refresh: %s, want unchanged", res.Action)
		}

		e.unbind(dir)
		e.wantUnarmedOrSticky(dir, "after unbinding")
		want := hooks.StateIdle
		if e.form == hooks.FormFiles {
			want = hooks.StateInstalled
		}
		if st := states(t, e, dir)[hooks.PrepareCommitMsg]; st.State != want {
			t.Errorf("check after unbinding: %s, want %s", st.State, want)
		}
		if res := e.refresh(dir); e.form == hooks.FormFiles && res.Action != hooks.Unchanged {
			t.Errorf("refresh after unbinding: %+v, want unchanged", res)
		}
	})
}

// TestUserCommitHookArmedAndDisarmed: a user's prepare-commit-msg runs alone
// until something is bound, behind our shim from then on (hook files stay
// armed), and uninstall puts it back byte for byte, mode and symlink
// included.
func TestUserCommitHookArmedAndDisarmed(t *testing.T) {
	for _, kind := range []string{"file", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t)
			dir := e.newRepo()
			hookDir := filepath.Join(dir, ".git", "hooks")
			log := filepath.Join(t.TempDir(), "ran")
			hook := "#!/bin/sh\necho \"$(basename \"$0\") $2\" >>'" + log + "'\n"
			if kind == "file" {
				writeFile(t, pcmPath(dir), hook, 0o741)
			} else {
				target := filepath.Join(t.TempDir(), "managed-hook")
				writeFile(t, target, hook, 0o755)
				if err := os.Symlink(target, pcmPath(dir)); err != nil {
					t.Fatal(err)
				}
			}
			original := snapshot(t, hookDir)
			ran := func() string {
				b, _ := os.ReadFile(log)
				os.Remove(log)
				return string(b)
			}

			e.install(dir)
			unbound := snapshot(t, hookDir)
			if _, err := os.Lstat(pcmPath(dir) + ".handoff-chained"); err == nil {
				t.Fatalf("install chained the user's hook with nothing bound:\n%s", unbound)
			}
			e.git(dir, "commit", "-q", "--allow-empty", "-m", "one")
			if got := ran(); got != "prepare-commit-msg message\n" {
				t.Errorf("unbound: user's hook ran as %q", got)
			}
			if got := e.headMessage(dir); got != "one\n\n" {
				t.Errorf("unbound message = %q", got)
			}

			e.bind(dir, "s1")
			wantArmed(t, hookDir, true)
			e.git(dir, "commit", "-q", "--allow-empty", "-m", "two")
			if got := ran(); got != "prepare-commit-msg.handoff-chained message\n" {
				t.Errorf("bound: user's hook ran as %q", got)
			}
			if got := e.headMessage(dir); !strings.Contains(got, "Handoff-Session: s1\n") {
				t.Errorf("bound message = %q, want trailers", got)
			}

			bound := snapshot(t, hookDir)
			e.unbind(dir)
			if got := snapshot(t, hookDir); got != bound {
				t.Errorf("hooks after unbinding:\n%s\nwant them as while bound:\n%s", got, bound)
			}
			e.git(dir, "commit", "-q", "--allow-empty", "-m", "three")
			if got := ran(); got != "prepare-commit-msg.handoff-chained message\n" {
				t.Errorf("unbound again: user's hook ran as %q", got)
			}
			if got := e.headMessage(dir); got != "three\n\n" {
				t.Errorf("unbound again: message = %q", got)
			}

			// Armed once more, then uninstalled while armed: as before install.
			e.bind(dir, "s1")
			rep, err := hooks.Uninstall(e.ctx(), dir)
			if err != nil || rep.Hooks[0].Action != hooks.Restored {
				t.Fatalf("uninstall: %+v %v", rep.Hooks, err)
			}
			if got := snapshot(t, hookDir); got != original {
				t.Errorf("hooks after uninstall:\n%s\nwant:\n%s", got, original)
			}
			// Nothing installed: a refresh (as after the next unbind) leaves
			// the directory alone.
			e.unbind(dir)
			e.bind(dir, "s2")
			if got := snapshot(t, hookDir); got != original {
				t.Errorf("hooks after refreshes without our hooks:\n%s\nwant:\n%s", got, original)
			}
		})
	}
}

func TestUninstallWhileDisarmedLeavesUserHook(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	writeFile(t, pcmPath(dir), userHook, 0o700)
	before := snapshot(t, hookDir)
	e.install(dir)
	rep, err := hooks.Uninstall(e.ctx(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if h := rep.Hooks[0]; h.Action != hooks.Unchanged {
		t.Errorf("prepare-commit-msg: %s, want unchanged", h.Action)
	}
	if after := snapshot(t, hookDir); after != before {
		t.Errorf("hooks after uninstall:\n%s\nwant:\n%s", after, before)
	}
}

func TestRefreshWithoutOurHooksDoesNothing(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	before := snapshot(t, hookDir)
	e.bind(dir, "s1") // refreshes
	if res := e.refresh(dir); res.Action != hooks.Skipped {
		t.Errorf("refresh: %s, want skipped", res.Action)
	}
	e.git(dir, "config", hooks.CommitHookKey, hooks.CommitHookAlways)
	e.refresh(dir)
	if after := snapshot(t, hookDir); after != before {
		t.Errorf("refresh without our hooks changed the directory:\n%s", after)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git", "handoff-hooks.lock")); err == nil {
		t.Errorf("lock file left behind")
	}
}

// TestTwoWorktrees: the hooks directory is shared, so it stays armed while
// any worktree is bound, whichever worktree refreshes.
func TestTwoWorktrees(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	wt := filepath.Join(t.TempDir(), "wt")
	e.git(dir, "worktree", "add", "-q", "-b", "wt-branch", wt)
	e.install(dir)

	e.bind(wt, "s2")
	wantArmed(t, hookDir, true)
	e.bind(dir, "s1")
	e.unbind(wt)
	wantArmed(t, hookDir, true) // the main worktree is still bound
	e.git(wt, "commit", "-q", "--allow-empty", "-m", "in wt")
	if got := e.headMessage(wt); got != "in wt\n\n" {
		t.Errorf("unbound worktree's commit = %q", got)
	}
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "in main")
	if got := e.headMessage(dir); !strings.Contains(got, "Handoff-Session: s1\n") {
		t.Errorf("bound worktree's commit = %q, want trailers", got)
	}

	e.bind(wt, "s2")
	e.unbind(dir)
	wantArmed(t, hookDir, true) // now the linked one is
	e.unbind(wt)
	wantArmed(t, hookDir, true) // and stays: stickyDetail
	e.wantUnboundCommit(wt, "with nothing bound")
}

func TestCoreHooksPathArms(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.git(dir, "config", "core.hooksPath", ".githooks")
	hookDir := filepath.Join(dir, ".githooks")
	e.install(dir)
	wantArmed(t, hookDir, false)
	e.bind(dir, "s1")
	wantArmed(t, hookDir, true)
	if _, err := os.Lstat(pcmPath(dir)); err == nil {
		t.Errorf("armed .git/hooks too")
	}
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "x")
	if got := e.headMessage(dir); !strings.Contains(got, "Handoff-Session: s1\n") {
		t.Errorf("message = %q, want trailers", got)
	}
	e.unbind(dir)
	wantArmed(t, hookDir, true) // hook files stay armed
}

// TestSharedHooksDirStaysArmed: a hooks directory outside the repository
// may serve other repositories, whose bindings this one cannot see.
func TestSharedHooksDirStaysArmed(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(t.TempDir(), "shared-hooks")
	e.git(dir, "config", "core.hooksPath", hookDir)
	rep := e.install(dir)
	if h := rep.Hooks[0]; h.Action != hooks.Installed || !strings.Contains(h.Detail, "outside the repository") {
		t.Errorf("install: %+v", h)
	}
	e.bind(dir, "s1")
	e.unbind(dir)
	wantArmed(t, hookDir, true)
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "x")
	if got := e.headMessage(dir); got != "x\n\n" {
		t.Errorf("message = %q", got)
	}
}

func TestCommitHookAlways(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	e.install(dir)
	e.git(dir, "config", hooks.CommitHookKey, hooks.CommitHookAlways)
	if res := e.refresh(dir); res.Action != hooks.Installed || !strings.Contains(res.Detail, hooks.CommitHookKey) {
		t.Errorf("refresh: %+v", res)
	}
	e.with(hooks.SessionEnv+"=env-session").git(dir, "commit", "-q", "--allow-empty", "-m", "x")
	if got := e.headMessage(dir); !strings.Contains(got, "Handoff-Session: env-session\n") {
		t.Errorf("message = %q, want the session from the environment", got)
	}
	e.git(dir, "config", hooks.CommitHookKey, hooks.CommitHookBound)
	if res := e.refresh(dir); res.Action != hooks.Unchanged {
		t.Errorf("refresh with bound: %s, want unchanged (hook files stay armed)", res.Action)
	}
	wantArmed(t, hookDir, true)

	// An unknown value is reported and taken as the default.
	e.git(dir, "config", hooks.CommitHookKey, "sometimes")
	res, err := hooks.Refresh(e.ctx(), dir)
	if err == nil || !strings.Contains(err.Error(), hooks.CommitHookKey) || res.Action != hooks.Unchanged {
		t.Errorf("refresh with an unknown value: %+v %v", res, err)
	}
	if _, err := hooks.Uninstall(e.ctx(), dir); err != nil {
		t.Fatal(err)
	}
	hooks.Install(e.ctx(), dir, hooks.Options{}) // reports the value too
	if st := states(t, e, dir)[hooks.PrepareCommitMsg]; st.State != hooks.StateIdle || !strings.Contains(st.Note, "sometimes") {
		t.Errorf("check with an unknown value: %+v", st)
	}
}

func TestCheckWantsCommitHookWhileBound(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	e.install(dir)
	e.bind(dir, "s1")
	if err := os.Remove(pcmPath(dir)); err != nil {
		t.Fatal(err)
	}
	st := states(t, e, dir)[hooks.PrepareCommitMsg]
	if st.State != hooks.StateMissing || st.OK() || !strings.Contains(st.Note, "git handoff hooks install") {
		t.Errorf("check: %+v, want missing with a hint", st)
	}
	// A user's own hook there while bound is not ours either.
	writeFile(t, pcmPath(dir), userHook, 0o755)
	if st := states(t, e, dir)[hooks.PrepareCommitMsg]; st.State != hooks.StateForeign || st.OK() {
		t.Errorf("check: %+v, want foreign", st)
	}
	rep := e.install(dir)
	if rep.Hooks[0].Action != hooks.Chained {
		t.Errorf("install: %s, want chained", rep.Hooks[0].Action)
	}
}

// TestConcurrentBindings: worktrees binding and unbinding at once, each
// refreshing after its change, leave the hook armed exactly when one is
// still bound.
func TestConcurrentBindings(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		const n = 4
		var gitDirs []string
		for i := 0; i < n; i++ {
			wt := filepath.Join(t.TempDir(), fmt.Sprintf("wt%d", i))
			e.git(dir, "worktree", "add", "-q", "--detach", wt)
			gitDirs = append(gitDirs, strings.TrimSpace(e.git(wt, "rev-parse", "--absolute-git-dir")))
		}
		// Bindings name a session that exists: one whose ref is gone binds
		// nothing (no trailer can name it).
		e.git(dir, "update-ref", "refs/ao/sessions/s", strings.TrimSpace(e.gitIn(dir, `{"id":"s"}`, "hash-object", "-w", "--stdin")))
		binding := func(gitDir string) string {
			return filepath.Join(gitDir, "refs", "worktree", "ao", "session")
		}
		for round := 0; round < 3; round++ {
			var wg sync.WaitGroup
			errs := make(chan error, n*20)
			for i, gd := range gitDirs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := 0; k < 10; k++ {
						p := binding(gd)
						if k%2 == 0 {
							os.MkdirAll(filepath.Dir(p), 0o755)
							errs <- os.WriteFile(p, []byte("ref: refs/ao/sessions/s\n"), 0o644)
						} else if i != round || k != 9 { // worktree `round` ends bound
							errs <- os.Remove(p)
						}
						_, err := hooks.Refresh(e.ctx(), dir)
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			e.wantArmed(dir, true)
			os.Remove(binding(gitDirs[round]))
			e.refresh(dir)
			e.wantUnarmedOrSticky(dir, "with nothing bound")
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git", "handoff-hooks.lock")); err == nil {
			t.Errorf("lock file left behind")
		}
	})
}

// TestUnboundCommitsWhileAnotherWorktreeBindsAndUnbinds: commits in one
// worktree never fail while another binds and unbinds over and over. git
// looks a hook up and runs it in two steps, so a disarm that removed the
// shim between them failed the commit ("cannot run
// .git/hooks/prepare-commit-msg: No such file or directory", seen in CI):
// hook files now stay armed, and a config hook's command opens its shim
// before it reads it.
func TestUnboundCommitsWhileAnotherWorktreeBindsAndUnbinds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hundreds of processes")
	}
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		wt := filepath.Join(t.TempDir(), "wt")
		e.git(dir, "worktree", "add", "-q", "-b", "wt-branch", wt)
		blob := strings.TrimSpace(e.gitIn(dir, `{"schema":"session/v1","id":"s1"}`, "hash-object", "-w", "--stdin"))
		e.git(dir, "update-ref", "refs/ao/sessions/s1", blob)

		const cycles = 40
		done := make(chan error, 1)
		go func() { // the other worktree: bind, refresh, unbind, refresh
			for i := 0; i < cycles; i++ {
				for _, args := range [][]string{
					{"symbolic-ref", "refs/worktree/ao/session", "refs/ao/sessions/s1"},
					{"symbolic-ref", "--delete", "refs/worktree/ao/session"},
				} {
					if _, errs, err := e.run(wt, args...); err != nil {
						done <- fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, errs)
						return
					}
					if _, err := hooks.Refresh(e.ctx(), wt); err != nil {
						done <- err
						return
					}
				}
			}
			done <- nil
		}()
		commits := 0
		for running := true; running; commits++ {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				running = false
			default:
			}
			msg := fmt.Sprintf("unbound %d", commits)
			if _, errs, err := e.run(dir, "commit", "-q", "--allow-empty", "-m", msg); err != nil {
				t.Fatalf("commit %d while the other worktree binds and unbinds: %v\n%s", commits, err, errs)
			}
			if got := e.headMessage(dir); got != msg+"\n\n" {
				t.Fatalf("unbound commit = %q", got)
			}
		}
		t.Logf("%d commits during %d bind/unbind cycles", commits, cycles)
	})
}
