package baton_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// A shared baton that this clone has seen waiting (and noted so) and that
// another clone then claims comes back claimed through sync's merge of the
// fetched records: the next start here must not deliver it.
func TestEligibleSharedClaimedByAnotherCloneSync(t *testing.T) {
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	ctx := context.Background()
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	gittest.Run(t, dir, "init", "-q", "--bare", remote)
	seed := gittest.Init(t)
	gittest.Run(t, seed, "push", "-q", remote, "main")
	clone := func(name string) *refstore.Store {
		gittest.Run(t, dir, "clone", "-q", remote, name)
		st, err := refstore.Open(ctx, filepath.Join(dir, name), refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := teamsync.Init(ctx, st, "origin"); err != nil {
			t.Fatal(err)
		}
		return st
	}
	a, b := clone("a"), clone("b")
	sync := func(st *refstore.Store, min int) {
		t.Helper()
		if _, err := teamsync.Sync(ctx, st, teamsync.Options{Remote: "origin", Now: t0.Add(time.Duration(min) * time.Minute), MaxAge: teamsync.DefaultMaxAge}); err != nil {
			t.Fatalf("sync: %v", err)
		}
	}
	put := func(owner, branch string, min int) baton.Stored {
		t.Helper()
		n, err := baton.New(baton.Draft{Owner: owner, Branch: branch, Shared: true, NextSteps: []string{"go on"}}, t0.Add(time.Duration(min)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		s, up, err := baton.Written(ctx, a, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Apply(ctx, "test: end", up); err != nil {
			t.Fatal(err)
		}
		return s
	}
	eligible := func(st *refstore.Store) string {
		t.Helper()
		s, _, err := baton.Eligible(ctx, st, "reader", "main")
		if err != nil {
			t.Fatal(err)
		}
		if s == nil {
			return ""
		}
		if !s.Live() {
			t.Fatalf("delivered %s, which is not waiting", s.ID)
		}
		return s.ID
	}
	older := put("alice", "one", 1)
	newer := put("bob", "two", 2)
	sync(a, 3)
	sync(b, 4)
	if got := eligible(b); got != newer.ID {
		t.Fatalf("clone b: eligible = %q, want %s", got, newer.ID)
	}
	// Clone a claims the newer one and pushes the claim.
	s, up, err := baton.Claimed(ctx, a, newer, "a-session", t0.Add(5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Apply(ctx, "test: claim", up); err != nil {
		t.Fatal(err)
	}
	sync(a, 6)
	sync(b, 7)
	if cur, err := baton.Read(ctx, b, s.Ref); err != nil || !cur.Claimed {
		t.Fatalf("clone b did not merge the claim: %+v, %v", cur.Baton, err)
	}
	if got := eligible(b); got != older.ID {
		t.Fatalf("after the claim came through sync, clone b: eligible = %q, want %s", got, older.ID)
	}
}
