package teamsync

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

func leaseTake(ctx context.Context, st *refstore.Store, session string, keys ...string) (lease.Result, error) {
	b, err := LeaseBoard(ctx, st, false)
	if err != nil {
		return lease.Result{}, err
	}
	var ks []lease.Key
	for _, s := range keys {
		k, err := lease.ParseKey(s)
		if err != nil {
			return lease.Result{}, err
		}
		ks = append(ks, k)
	}
	return lease.Take(ctx, st, b, lease.TakeOptions{Keys: ks, Holder: lease.Holder{Session: session}, TTL: time.Hour}, time.Now)
}

// race runs take in every clone at once and returns each one's error.
func race(ctx context.Context, tm *team, take func(i int, st *refstore.Store) error) []error {
	errs := make([]error, len(tm.clones))
	var wg sync.WaitGroup
	for i, st := range tm.clones {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = take(i, st)
		}()
	}
	wg.Wait()
	return errs
}

// Clones racing for one key at the arbiter: exactly one wins each round,
// and every other is refused naming it.
func TestLeaseBoardRace(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm := newTeam(t, 3)
	for round := range 4 {
		errs := race(ctx, tm, func(i int, st *refstore.Store) error {
			_, err := leaseTake(ctx, st, fmt.Sprintf("s-%d-%d", round, i), "issue:7")
			return err
		})
		winner := -1
		for i, err := range errs {
			if err == nil {
				if winner >= 0 {
					t.Fatalf("round %d: clones %d and %d both took issue:7", round, winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won: %v", round, errs)
		}
		for i, err := range errs {
			var held *lease.HeldError
			if i != winner && (!errors.As(err, &held) || held.By.Session != fmt.Sprintf("s-%d-%d", round, winner)) {
				t.Fatalf("round %d: clone %d: %v (winner %d)", round, i, err, winner)
			}
		}
		b, _ := LeaseBoard(ctx, tm.clones[winner], false)
		k, _ := lease.ParseKey("issue:7")
		if _, err := lease.Release(ctx, tm.clones[winner], b, fmt.Sprintf("s-%d-%d", round, winner), []lease.Key{k}, "", time.Now); err != nil {
			t.Fatal(err)
		}
	}
}

// Overlapping path leases taken at once from different clones: one wins.
func TestLeaseBoardOverlapRace(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm := newTeam(t, 3)
	keys := []string{"path:src/**", "path:src/a.go", "path:*.go"}
	errs := race(ctx, tm, func(i int, st *refstore.Store) error {
		_, err := leaseTake(ctx, st, fmt.Sprintf("s-%d", i), keys[i])
		return err
	})
	won := 0
	for i, err := range errs {
		var held *lease.HeldError
		switch {
		case err == nil:
			won++
		case !errors.As(err, &held):
			t.Fatalf("clone %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d overlapping path leases taken: %v", won, errs)
	}
	// One disjoint from all three is taken beside the winner.
	if _, err := leaseTake(ctx, tm.clones[0], "s-9", "path:docs/*.md"); err != nil {
		t.Fatal(err)
	}
}

// Sync carries leases: a lease taken at the arbiter reaches another clone
// by sync, and so does its release.
func TestLeaseSync(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	if _, err := leaseTake(ctx, a, "s-a", "key:deploy"); err != nil {
		t.Fatal(err)
	}
	syncAt(t, b, 1)
	k, _ := lease.ParseKey("key:deploy")
	l, err := lease.Read(ctx, b, k)
	if err != nil || l.Session != "s-a" || !l.Held() {
		t.Fatalf("after sync: %+v %v", l.Record, err)
	}
	// Taken offline in b meanwhile? The arbiter's holder stays.
	bb := lease.LocalBoard{St: b}
	l2, err := lease.Take(ctx, b, bb, lease.TakeOptions{Keys: []lease.Key{k}, Holder: lease.Holder{Session: "s-b"}, TTL: time.Hour}, time.Now)
	var held *lease.HeldError
	if !errors.As(err, &held) {
		t.Fatalf("offline take over a lease this clone knows is held: %+v %v", l2, err)
	}
	ab, _ := LeaseBoard(ctx, a, false)
	if _, err := lease.Release(ctx, a, ab, "s-a", nil, "", time.Now); err != nil {
		t.Fatal(err)
	}
	// The release reaches b as a retirement: the key has no live ref
	// left there, and b's archive holds the released version.
	syncAt(t, b, 2)
	if l, err := lease.Read(ctx, b, k); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("after release and sync: %+v %v", l.Record, err)
	}
	v, _, err := handoff.LeaseShow(ctx, b, lease.LocalBoard{St: b}, handoff.LeaseOptions{Keys: []string{"key:deploy"}}, time.Now)
	if err != nil || v.Held() || v.Session != "s-a" || !v.Archived {
		t.Fatalf("the released lease from b's archive: %+v %v", v, err)
	}
}

// A released lease retires like the other kinds: its ref leaves both
// clones, their copies of the remote's, and the remote, at the next syncs;
// `lease show` and `lease list --all` answer from the archive; and a new
// take of its key builds on the retired version (its floor) and wins over
// the dead holding a third clone, away all along, still holds.
func TestLeaseRetires(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm := newTeam(t, 3)
	a, b, c := tm.clones[0], tm.clones[1], tm.clones[2]
	k, _ := lease.ParseKey("issue:36")
	ref, _ := k.Ref()
	if _, err := leaseTake(ctx, a, "s-a", "issue:36"); err != nil {
		t.Fatal(err)
	}
	syncAt(t, b, 1)
	syncAt(t, c, 1)
	stale, err := lease.Read(ctx, c, k)
	if err != nil || !stale.Held() || stale.Session != "s-a" {
		t.Fatalf("c's copy of the holding: %+v %v", stale.Record, err)
	}
	ab, err := LeaseBoard(ctx, a, false)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := lease.Release(ctx, a, ab, "s-a", nil, "done", time.Now)
	if err != nil || len(rel.Leases) != 1 || rel.Leases[0].Action != lease.Released {
		t.Fatalf("release: %+v %v", rel, err)
	}
	final := rel.Leases[0].Lease
	if res := syncAt(t, a, 2); res.Retired != 1 {
		t.Fatalf("a's sync retired %d records, want the lease: %+v", res.Retired, res)
	}
	if res := syncAt(t, b, 3); res.Retired != 1 {
		t.Fatalf("b's sync retired %d records, want its copy of the lease: %+v", res.Retired, res)
	}
	tracking, _ := refstore.RemoteRef("origin", ref)
	for name, st := range map[string]*refstore.Store{"a": a, "b": b} {
		for _, r := range []string{ref, tracking} {
			if e, err := st.Get(ctx, r); !errors.Is(err, refstore.ErrNotFound) {
				t.Errorf("%s still holds %s: %s %v", name, r, e.OID, err)
			}
		}
	}
	if out := git(t, tm.dir, "--git-dir", tm.remote, "for-each-ref", lease.Prefix); out != "" {
		t.Errorf("the remote still holds lease refs:\n%s", out)
	}

	// Both boards answer from the archive: this clone's and the remote's.
	bb, err := LeaseBoard(ctx, b, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, board := range []lease.Board{lease.LocalBoard{St: b}, bb} {
		v, _, err := handoff.LeaseShow(ctx, b, board, handoff.LeaseOptions{Keys: []string{"issue:36"}}, time.Now)
		if err != nil || v.OID != final.OID || !v.Archived || v.State != lease.StateReleased {
			t.Fatalf("lease show at %s: %+v %v", board.Where(), v, err)
		}
		all, err := handoff.LeaseList(ctx, b, board, handoff.LeaseOptions{All: true}, time.Now)
		if err != nil || len(all.Leases) != 1 || all.Leases[0].OID != final.OID || !all.Leases[0].Archived {
			t.Fatalf("lease list --all at %s: %+v %v", board.Where(), all, err)
		}
		held, err := handoff.LeaseList(ctx, b, board, handoff.LeaseOptions{}, time.Now)
		if err != nil || len(held.Leases) != 0 {
			t.Fatalf("lease list at %s lists a retired lease as held: %+v %v", board.Where(), held, err)
		}
	}

	// A new take of the key goes on from its floor.
	res, err := leaseTake(ctx, b, "s-b", "issue:36")
	if err != nil || len(res.Leases) != 1 || res.Leases[0].Action != lease.Taken {
		t.Fatalf("take after the retirement: %+v %v", res, err)
	}
	n := res.Leases[0].Lease
	if n.Rev <= final.Rev || n.Prev != final.OID || len(n.History) != len(final.History)+1 {
		t.Fatalf("the new take does not build on the floor: rev %d prev %s history %d; floor rev %d %s history %d",
			n.Rev, n.Prev, len(n.History), final.Rev, final.OID, len(final.History))
	}
	if d, ok := n.Cause.Descends(stale.Cause); !ok || !d {
		t.Fatalf("the new take does not descend from the holding it follows: %+v over %+v", n.Cause, stale.Cause)
	}

	// c, away all along with the dead holding, takes the new one and
	// pushes nothing back.
	sr := syncAt(t, c, 4)
	for _, p := range sr.Pushed {
		if p.Ref == ref {
			t.Fatalf("c pushed %s: %+v", ref, p)
		}
	}
	if l, err := lease.Read(ctx, c, k); err != nil || l.OID != n.OID || l.Session != "s-b" {
		t.Fatalf("c after its sync: %+v %v", l.Record, err)
	}
	if out := strings.Fields(git(t, tm.dir, "--git-dir", tm.remote, "for-each-ref", "--format=%(objectname)", ref)); len(out) != 1 || out[0] != n.OID {
		t.Fatalf("the remote holds %v at %s, want the new take %s", out, ref, n.OID)
	}
	// And the new holding is c's to see held: the stale one is gone from
	// its board too.
	cb, err := LeaseBoard(ctx, c, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaseTake(ctx, c, "s-c", "issue:36"); !errors.As(err, new(*lease.HeldError)) {
		t.Fatalf("c's take of a key s-b holds at %s: %v", cb.Where(), err)
	}
}

// A path lease released in a clone (offline) and brought to the remote by
// the sync that retires it leaves the remote's guard naming the holding:
// only writes at the board swap the guard. The guard must not count a
// retired lease: an overlapping take at the remote is decided as if the
// key were free, and the guard it writes no longer lists it.
func TestLeaseGuardForgetsRetired(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	if _, err := leaseTake(ctx, a, "s-a", "path:src/**"); err != nil {
		t.Fatal(err)
	}
	if _, err := lease.Release(ctx, a, lease.LocalBoard{St: a}, "s-a", nil, "done offline", time.Now); err != nil {
		t.Fatal(err)
	}
	if res := syncAt(t, a, 1); res.Retired != 1 {
		t.Fatalf("a's sync retired %d records, want the released lease: %+v", res.Retired, res)
	}
	guard := git(t, tm.dir, "--git-dir", tm.remote, "cat-file", "blob", lease.GuardRef)
	if !strings.Contains(guard, "src/**") {
		t.Fatalf("the remote's guard, which no sync swaps, should still name src/**: %s", guard)
	}
	res, err := leaseTake(ctx, b, "s-b", "path:src/a.go")
	if err != nil {
		t.Fatalf("an overlapping take after the retirement: %v", err)
	}
	if len(res.Leases) != 1 || res.Leases[0].Action != lease.Taken {
		t.Fatalf("take: %+v", res)
	}
	guard = git(t, tm.dir, "--git-dir", tm.remote, "cat-file", "blob", lease.GuardRef)
	if strings.Contains(guard, "src/**") || !strings.Contains(guard, "src/a.go") {
		t.Fatalf("the guard the take wrote: %s", guard)
	}
}
