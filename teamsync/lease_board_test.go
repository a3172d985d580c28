package teamsync

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

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
	syncAt(t, b, 2)
	if l, err := lease.Read(ctx, b, k); err != nil || l.Held() {
		t.Fatalf("after release and sync: %+v %v", l.Record, err)
	}
}
