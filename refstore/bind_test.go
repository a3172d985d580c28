package refstore_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// TestUnbindFrom: the binding goes only while it names the session whose
// record is given, in the main worktree and a linked one alike, and the
// session records themselves are never touched (a no-deref delete).
func TestUnbindFrom(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	dir := gittest.Init(t)
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, dir, "worktree", "add", "-q", "-b", "other", linked)

	st := open(t, dir, refstore.Options{})
	s1 := put(t, st, "refs/ao/sessions/s1", "", `{"id":"s1"}`)
	s2 := put(t, st, "refs/ao/sessions/s2", "", `{"id":"s2"}`)
	wt := open(t, linked, refstore.Options{})

	if ok, err := st.UnbindFrom(ctx, "test: unbind", s1); ok || err != nil {
		t.Fatalf("unbound worktree: UnbindFrom = %v, %v; want false, nil", ok, err)
	}
	if err := st.Bind("refs/ao/sessions/s2"); err != nil {
		t.Fatal(err)
	}
	if err := wt.Bind("refs/ao/sessions/s1"); err != nil {
		t.Fatal(err)
	}
	// The main worktree is bound to s2: s1's record does not unbind it.
	if ok, err := st.UnbindFrom(ctx, "test: unbind", s1); ok || err != nil {
		t.Fatalf("bound elsewhere: UnbindFrom = %v, %v; want false, nil", ok, err)
	}
	if id, _ := st.BoundSession(); id != "s2" {
		t.Fatalf("main worktree bound to %q after a refused unbind, want s2", id)
	}
	// The linked worktree's binding to s1 goes; the main one's stays.
	if ok, err := wt.UnbindFrom(ctx, "test: unbind", s1); !ok || err != nil {
		t.Fatalf("linked: UnbindFrom = %v, %v; want true, nil", ok, err)
	}
	if id, _ := wt.BoundSession(); id != "" {
		t.Fatalf("linked worktree still bound to %q", id)
	}
	if ok, err := st.UnbindFrom(ctx, "test: unbind", s2); !ok || err != nil {
		t.Fatalf("main: UnbindFrom = %v, %v; want true, nil", ok, err)
	}
	for ref, want := range map[string]string{"refs/ao/sessions/s1": s1, "refs/ao/sessions/s2": s2} {
		if got := gittest.Run(t, dir, "rev-parse", ref); got != want {
			t.Fatalf("%s = %s after unbinding, want %s untouched", ref, got, want)
		}
	}
}

// A git killed while it wrote a worktree's binding leaves its lock file
// (files backend): the soak's kill trials saw an end killed, with its
// process group, between its unbinding's prepare and commit. Every later
// bind and unbind then failed on it, and the sync that retired the ended
// session left the binding naming a ref that was gone (git fsck fails on
// it). A lock that stood staleLockAge unchanged is a dead git's: Bind,
// UnbindFrom and Unbind remove it and write, in the main worktree and a
// linked one; one just left (the end run again at once) is waited for.
func TestBindingPastAKilledGitsLock(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	dir := gittest.Init(t)
	if gittest.RefFormat(t, dir) == "reftable" {
		t.Skip("a reftable's lock is every ref's (BackendLock), not the binding's own")
	}
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, dir, "worktree", "add", "-q", "-b", "other", linked)
	st := open(t, dir, refstore.Options{})
	wt := open(t, linked, refstore.Options{})
	s1 := put(t, st, "refs/ao/sessions/s1", "", `{"id":"s1"}`)
	s2 := put(t, st, "refs/ao/sessions/s2", "", `{"id":"s2"}`)
	lockOf := func(d string) string {
		g := gittest.Run(t, d, "rev-parse", "--path-format=absolute", "--git-dir")
		return filepath.Join(g, filepath.FromSlash(refstore.WorktreeSession)+".lock")
	}
	// kill leaves the lock a git killed age ago would have left.
	kill := func(d string, age time.Duration) {
		t.Helper()
		p := lockOf(d)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		then := time.Now().Add(-age)
		if err := os.Chtimes(p, then, then); err != nil {
			t.Fatal(err)
		}
	}
	bound := func(d string) string {
		id, err := refstore.BoundSessionOf(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	if err := st.Bind("refs/ao/sessions/s1"); err != nil {
		t.Fatal(err)
	}
	if err := wt.Bind("refs/ao/sessions/s2"); err != nil {
		t.Fatal(err)
	}

	kill(dir, time.Minute)
	if _, err := gittest.Git("-C", dir, "symbolic-ref", refstore.WorktreeSession, "refs/ao/sessions/s2"); err == nil {
		t.Fatal("git wrote the binding past the lock: the test plays no killed git")
	}
	if ok, err := st.UnbindFrom(ctx, "test: unbind", s1); !ok || err != nil {
		t.Fatalf("UnbindFrom past a dead git's lock = %v, %v; want true, nil", ok, err)
	}
	if id := bound(dir); id != "" {
		t.Fatalf("still bound to %q", id)
	}

	kill(dir, time.Minute)
	if err := st.Bind("refs/ao/sessions/s2"); err != nil {
		t.Fatalf("Bind past a dead git's lock: %v", err)
	}
	if id := bound(dir); id != "s2" {
		t.Fatalf("bound to %q, want s2", id)
	}

	kill(dir, time.Minute)
	if err := st.Unbind(ctx); err != nil {
		t.Fatalf("Unbind past a dead git's lock: %v", err)
	}
	if id := bound(dir); id != "" {
		t.Fatalf("still bound to %q after Unbind", id)
	}

	// Left just now, as by an end killed a moment before it runs again.
	start := time.Now()
	kill(linked, 0)
	if ok, err := wt.UnbindFrom(ctx, "test: unbind", s2); !ok || err != nil {
		t.Fatalf("linked: UnbindFrom past a fresh dead lock = %v, %v; want true, nil", ok, err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Fatalf("a lock just taken was removed after %v: a live git's could be", waited)
	}
	if id := bound(linked); id != "" {
		t.Fatalf("linked worktree still bound to %q", id)
	}
	for _, d := range []string{dir, linked} {
		if _, err := os.Stat(lockOf(d)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: the lock is still there (%v)", d, err)
		}
	}
	for ref, want := range map[string]string{"refs/ao/sessions/s1": s1, "refs/ao/sessions/s2": s2} {
		if got := gittest.Run(t, dir, "rev-parse", ref); got != want {
			t.Fatalf("%s = %s, want %s untouched", ref, got, want)
		}
	}
}
