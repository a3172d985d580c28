package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

// Issue 27: a commit made while its worktree was bound carried no
// Handoff-Session trailer. The prepare-commit-msg shim is armed for the
// whole repository while some worktree is bound, and `start` armed it under
// a lock it waited for 2 s at most: on a busy machine it gave up, warned,
// and the worktree's commits ran no hook. These tests run the real
// git-handoff (the test binary, on PATH through testscript.Main) in real
// linked worktrees, with the hooks lock held by another process.

// trailerCmdTimeout bounds every process these tests start; a loaded
// 2-core machine meets it with room to spare.
const trailerCmdTimeout = 2 * time.Minute

// runIn runs name with args in dir and returns stdout, failing with stderr.
func runIn(dir, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), trailerCmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, errb.String())
	}
	return out.String(), nil
}

// holdHooksLock holds the hooks lock of the repository whose common git dir
// is common for d with flock(1), as a git-handoff busy changing the hooks
// on a loaded machine would, and returns once it holds it. It skips the
// test without flock(1).
func holdHooksLock(t *testing.T, common string, d time.Duration) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock(1) not installed")
	}
	cmd := exec.Command(bin, "-o", filepath.Join(common, "handoff-hooks.lock"), "sh", "-c",
		fmt.Sprintf("echo locked; exec sleep %.1f", d.Seconds()))
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

// sessionTrailers returns the Handoff-Session values of commit, in order.
func sessionTrailers(dir, commit string) ([]string, error) {
	out, err := runIn(dir, "git", "log", "-1", "--format=%(trailers:key="+hooks.SessionTrailer+",valueonly,separator=%x00)", commit)
	if err != nil {
		return nil, err
	}
	out = strings.TrimSpace(out)
	if out == "" {
		return nil, nil
	}
	return strings.Split(out, "\x00"), nil
}

// trailerRepo makes a repository with git-handoff's hooks installed and n
// linked worktrees, each on its own branch, and returns the main worktree
// and the linked ones.
func trailerRepo(t *testing.T, n int) (string, []string) {
	t.Helper()
	gittest.Isolate(t)
	dir := gittest.Init(t)
	if _, err := runIn(dir, "git", "handoff", "hooks", "install"); err != nil {
		t.Fatal(err)
	}
	var wts []string
	for i := 0; i < n; i++ {
		wt := filepath.Join(filepath.Dir(dir), fmt.Sprintf("wt%d", i))
		gittest.Run(t, dir, "worktree", "add", "-q", "-b", fmt.Sprintf("b%d", i), wt)
		wts = append(wts, wt)
	}
	return dir, wts
}

// TestBoundCommitWhileHooksLockHeld: nothing bound (so no commit hook), the
// hooks lock held for longer than a change used to wait, and a session
// started in a linked worktree: its next commit carries its trailer.
// Before the fix, start warned that it could not lock the hooks and the
// commit carried nothing.
func TestBoundCommitWhileHooksLockHeld(t *testing.T) {
	dir, wts := trailerRepo(t, 1)
	if _, err := os.Lstat(filepath.Join(dir, ".git", "hooks", hooks.PrepareCommitMsg)); err == nil {
		t.Fatal("prepare-commit-msg armed with nothing bound")
	}
	holdHooksLock(t, filepath.Join(dir, ".git"), 3*time.Second)
	if _, err := runIn(wts[0], "git", "handoff", "start", "--session", "s-held"); err != nil {
		t.Fatal(err)
	}
	if _, err := runIn(wts[0], "git", "commit", "-q", "--allow-empty", "-m", "bound"); err != nil {
		t.Fatal(err)
	}
	got, err := sessionTrailers(wts[0], "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "s-held" {
		t.Fatalf("commit made while bound has Handoff-Session %q, want [s-held]", got)
	}
}

// TestBoundCommitsCarryTheirOwnTrailer is issue 27's run: the main worktree
// and four linked ones each start a session, commit, end and commit again
// in a loop, all at once; one linked worktree is now and then removed and
// added back (sometimes while bound, its session left running), and
// another process holds the hooks lock past the 2 s a change used to wait,
// again and again. Every commit made while its worktree is bound carries
// exactly its own session's trailer; no commit made unbound carries one.
func TestBoundCommitsCarryTheirOwnTrailer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hundreds of processes")
	}
	dir, wts := trailerRepo(t, 4)
	common := filepath.Join(dir, ".git")
	const rounds = 5

	type made struct {
		dir, commit, want, what string // want: the session, "" for none
	}
	var (
		mu      sync.Mutex
		commits []made
		errs    []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	commit := func(wt, msg, want string) error {
		if _, err := runIn(wt, "git", "commit", "-q", "--allow-empty", "-m", msg); err != nil {
			return err
		}
		id, err := runIn(wt, "git", "rev-parse", "HEAD")
		if err != nil {
			return err
		}
		mu.Lock()
		commits = append(commits, made{wt, strings.TrimSpace(id), want, msg})
		mu.Unlock()
		return nil
	}
	// bound returns the session the worktree at wt is bound to, "" if none.
	bound := func(wt string) string {
		out, err := runIn(wt, "git", "symbolic-ref", "-q", "refs/worktree/ao/session")
		if err != nil {
			return ""
		}
		return strings.TrimPrefix(strings.TrimSpace(out), "refs/ao/sessions/")
	}

	stop := make(chan struct{})
	var holder sync.WaitGroup
	holder.Add(1)
	go func() { // the busy machine: the hooks lock held 2.5 s at a time
		defer holder.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(100+i%3*150) * time.Millisecond):
			}
			runIn(common, "flock", "-o", filepath.Join(common, "handoff-hooks.lock"), "sleep", "2.5")
		}
	}()

	var wg sync.WaitGroup
	all := append([]string{dir}, wts...)
	for w, wt := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			removable := w == len(all)-1
			for r := 0; r < rounds; r++ {
				id := fmt.Sprintf("w%d-r%d", w, r)
				if _, err := runIn(wt, "git", "handoff", "start", "--session", id); err != nil {
					fail(err)
					return
				}
				if got := bound(wt); got != id {
					fail(fmt.Errorf("%s: bound to %q after starting %s", wt, got, id))
					return
				}
				if err := commit(wt, id+" bound", id); err != nil {
					fail(err)
					return
				}
				if removable && r%2 == 1 {
					// Removed while bound: the worktree that comes back is
					// a new one, bound to nothing.
					if err := readd(dir, wt, fmt.Sprintf("b%d", w-1)); err != nil {
						fail(err)
						return
					}
					if err := commit(wt, id+" re-added", ""); err != nil {
						fail(err)
						return
					}
					continue
				}
				if _, err := runIn(wt, "git", "handoff", "end", "--session", id, "--next", "step after "+id); err != nil {
					fail(err)
					return
				}
				if got := bound(wt); got != "" {
					fail(fmt.Errorf("%s: still bound to %q after ending %s", wt, got, id))
					return
				}
				if err := commit(wt, id+" unbound", ""); err != nil {
					fail(err)
					return
				}
				if removable && r%2 == 0 {
					if err := readd(dir, wt, fmt.Sprintf("b%d", w-1)); err != nil {
						fail(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	holder.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	bad := 0
	for _, c := range commits {
		got, err := sessionTrailers(c.dir, c.commit)
		if err != nil {
			t.Fatal(err)
		}
		want := []string(nil)
		if c.want != "" {
			want = []string{c.want}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			bad++
			t.Errorf("commit %q has Handoff-Session %q, want %q", c.what, got, want)
		}
	}
	t.Logf("%d commits, %d with the wrong trailers", len(commits), bad)
	if len(commits) != len(all)*rounds*2 {
		t.Errorf("made %d commits, want %d", len(commits), len(all)*rounds*2)
	}
}

// readd removes the linked worktree at wt and adds it back on branch.
func readd(main, wt, branch string) error {
	if _, err := runIn(main, "git", "worktree", "remove", "--force", wt); err != nil {
		return err
	}
	_, err := runIn(main, "git", "worktree", "add", "-q", wt, branch)
	return err
}
