package refstore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// UpToDate says whether a fetch of the refspecs would change anything:
// a new, moved or deleted ref at the remote, under a glob or an exact
// refspec, and nothing else.
func TestUpToDate(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, filepath.Dir(remote), "init", "-q", "--bare", remote)
	dir := gittest.Init(t)
	gittest.Run(t, dir, "remote", "add", "origin", remote)
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	blob := func(s string) string {
		oid, err := st.WriteBlob(ctx, []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return oid
	}
	b1, b2 := blob("one"), blob("two")
	glob := "+refs/ao/sessions/*:refs/ao/remotes/origin/sessions/*"
	// An exact refspec is checked too, though our fetches use globs (a
	// fetch of an exact ref the remote lacks fails).
	exact := "+refs/ao/handoffs/private/me/main:refs/ao/remotes/origin/handoffs/private/me/main"
	check := func(want bool, why string) {
		t.Helper()
		got, err := st.UpToDate(ctx, "origin", glob, exact)
		if err != nil || got != want {
			t.Fatalf("%s: UpToDate = %v, %v; want %v", why, got, err, want)
		}
	}
	fetch := func() {
		t.Helper()
		if err := st.Fetch(ctx, "origin", true, glob, exact); err != nil {
			t.Fatal(err)
		}
	}
	check(true, "nothing anywhere")
	gittest.Run(t, dir, "push", "-q", "origin", b1+":refs/ao/sessions/s-1", b1+":refs/ao/handoffs/private/me/main", b2+":refs/ao/other/x")
	check(false, "new refs at the remote")
	fetch()
	check(true, "fetched (a ref outside the refspecs is no news)")
	gittest.Run(t, remote, "update-ref", "refs/ao/sessions/s-1", b2)
	check(false, "a ref moved at the remote")
	fetch()
	check(true, "fetched again")
	gittest.Run(t, remote, "update-ref", "-d", "refs/ao/handoffs/private/me/main")
	check(false, "the exact ref deleted at the remote")
	gittest.Run(t, dir, "update-ref", "-d", "refs/ao/remotes/origin/handoffs/private/me/main")
	check(true, "deleted here too")
	gittest.Run(t, remote, "update-ref", "refs/ao/sessions/s-2", b1)
	gittest.Run(t, remote, "update-ref", "refs/ao/sessionsX", b1)
	check(false, "a second ref under the glob")
	if err := st.Fetch(ctx, "origin", true, glob); err != nil {
		t.Fatal(err)
	}
	check(true, "a ref beside the glob's prefix is no news")
	if _, err := st.UpToDate(ctx, "nosuch", glob); err == nil {
		t.Fatal("an unknown remote is an error")
	}
}
