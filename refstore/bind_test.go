package refstore_test

import (
	"context"
	"path/filepath"
	"testing"

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
