package refstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// TestOpenAnswersHeadAndBinding: what Open's rev-parse says of HEAD and
// the binding is what git symbolic-ref says, in every state either can be
// in (unborn, detached, on a branch; unbound, bound, bound to a record
// that is gone, a plain ref), in the main worktree, a linked one and a
// bare repository; and when it answers, Head and BoundSession start no
// git symbolic-ref of their own.
func TestOpenAnswersHeadAndBinding(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	dir := gittest.Init(t)
	bare := gittest.Init(t, "--bare")

	// ask opens a Store in d and returns Head's branch, BoundSession's
	// id and BoundLive's id, and how many symbolic-ref processes the
	// three started.
	ask := func(t *testing.T, d string) (branch, bound, live string, asked int) {
		t.Helper()
		trace := filepath.Join(t.TempDir(), "trace2")
		t.Setenv("GIT_TRACE2_EVENT", trace)
		st, err := refstore.Open(ctx, d, refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		h, err := st.Head(ctx)
		if err != nil {
			t.Fatalf("Head: %v", err)
		}
		if bound, err = st.BoundSession(); err != nil {
			t.Fatalf("BoundSession: %v", err)
		}
		// A second Store: BoundLive is asked first there, as start asks.
		st2, err := refstore.Open(ctx, d, refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		if live, err = st2.BoundLive(); err != nil {
			t.Fatalf("BoundLive: %v", err)
		}
		os.Unsetenv("GIT_TRACE2_EVENT")
		events, _ := os.ReadFile(trace)
		for _, l := range strings.Split(string(events), "\n") {
			if strings.Contains(l, `"event":"start"`) && strings.Contains(l, `"symbolic-ref"`) {
				asked++
			}
		}
		return h.Branch, bound, live, asked
	}
	// want is git's own answer.
	want := func(t *testing.T, d string) (branch, bound string) {
		t.Helper()
		if out, err := refstore.Git(ctx, d, false, nil, "symbolic-ref", "-q", "HEAD"); err == nil {
			branch = strings.TrimPrefix(strings.TrimSpace(string(out)), "refs/heads/")
		}
		if out, err := refstore.Git(ctx, d, false, nil, "symbolic-ref", "-q", refstore.WorktreeSession); err == nil {
			bound = strings.TrimPrefix(strings.TrimSpace(string(out)), "refs/ao/sessions/")
		}
		return branch, bound
	}
	check := func(t *testing.T, d string, liveWant string, maxAsked int) {
		t.Helper()
		branch, bound, live, asked := ask(t, d)
		wb, wbound := want(t, d)
		if branch != wb || bound != wbound {
			t.Errorf("Head().Branch, BoundSession() = %q, %q; git says %q, %q", branch, bound, wb, wbound)
		}
		if live != liveWant {
			t.Errorf("BoundLive() = %q, want %q", live, liveWant)
		}
		if asked > maxAsked {
			t.Errorf("%d git symbolic-ref processes, want at most %d", asked, maxAsked)
		}
	}

	// Unborn: rev-parse cannot name HEAD, and git is asked.
	t.Run("unborn", func(t *testing.T) { check(t, dir, "", 3) })
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, dir, "worktree", "add", "-q", "-b", "other", linked)
	rec := gittest.Run(t, dir, "hash-object", "-w", "--stdin") // an empty record will do
	gittest.Run(t, dir, "update-ref", "refs/ao/sessions/s1", rec)

	// Unbound: BoundSession asks git (a binding to a record that is
	// gone reads the same to rev-parse); BoundLive need not.
	t.Run("unbound", func(t *testing.T) { check(t, dir, "", 1) })
	gittest.Run(t, dir, "symbolic-ref", refstore.WorktreeSession, "refs/ao/sessions/s1")
	t.Run("bound", func(t *testing.T) { check(t, dir, "s1", 0) })
	gittest.Run(t, dir, "checkout", "-q", "--detach")
	t.Run("detached and bound", func(t *testing.T) { check(t, dir, "s1", 0) })
	t.Run("linked worktree, unbound", func(t *testing.T) { check(t, linked, "", 1) })
	gittest.Run(t, linked, "symbolic-ref", refstore.WorktreeSession, "refs/ao/sessions/gone")
	t.Run("linked worktree, record gone", func(t *testing.T) { check(t, linked, "", 1) })
	gittest.Run(t, linked, "update-ref", "--no-deref", refstore.WorktreeSession, rec)
	t.Run("linked worktree, plain ref", func(t *testing.T) { check(t, linked, "", 0) })
	t.Run("bare", func(t *testing.T) { check(t, bare, "", 3) })
}
