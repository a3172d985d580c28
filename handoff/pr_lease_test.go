package handoff_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

// team is two clones of one bare remote, the arbiter of their leases.
func prTeam(t *testing.T) (one, two *refstore.Store) {
	t.Helper()
	ctx := context.Background()
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	gittest.Run(t, dir, "init", "-q", "--bare", remote)
	seed := filepath.Join(dir, "seed")
	gittest.Run(t, dir, "init", "-q", seed)
	gittest.Run(t, seed, "commit", "-q", "--allow-empty", "-m", "first")
	gittest.Run(t, seed, "push", "-q", remote, "HEAD:refs/heads/main")
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
	return clone("one"), clone("two")
}

func syncWith(t *testing.T, st *refstore.Store) {
	t.Helper()
	if _, err := teamsync.Sync(context.Background(), st, teamsync.Options{Remote: "origin", Now: clock()}); err != nil {
		t.Fatal(err)
	}
}

// The lease at the arbiter (read through this clone's board).
func prLeaseAt(t *testing.T, st *refstore.Store, b lease.Board) lease.Stored {
	t.Helper()
	s, err := b.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := lease.Key{Kind: lease.KindPR, Value: "7"}.Ref()
	return s.Leases[ref]
}

// Two clones' claims interleaved as in the defect found by the
// simulation (sim corpus: "pull request lease taken over by a claim the
// join overrules"), by hand: B's swap in clone one (B1), C's claim in
// clone two after seeing it (C1, then C2: C takes the lease), then the
// rest of B's claim in clone one (B2), whose clone still says B owns the
// pull request. B2 used to take the lease over from C, who owns the pull
// request once the clones sync; it must leave the lease to C.
func TestPRLeaseStaysWithTheOwnerAcrossClones(t *testing.T) {
	ctx := context.Background()
	one, two := prTeam(t)
	_, gh := fakeGitHub(t, token)
	claim := func(st *refstore.Store, session string) handoff.PRClaimResult {
		t.Helper()
		b, err := teamsync.LeaseBoard(ctx, st, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := handoff.PRClaim(ctx, st, gh, handoff.PRClaimOptions{Number: 7, Session: session, NoComment: true, Leases: b}, clock)
		if err != nil {
			t.Fatalf("claim by %s: %v", session, err)
		}
		return res
	}

	// A owns #7 and holds its lease; everyone knows.
	start(t, one, "A")
	if res := claim(one, "A"); res.Lease == nil || res.Lease.Lease.Session != "A" {
		t.Fatalf("A's claim: lease %+v, notices %q", res.Lease, res.Notices)
	}
	// B1: B's swap in clone one, and the sync that shows it to clone two.
	start(t, one, "B")
	if _, err := prown.Claim(ctx, one, prown.ClaimOptions{Repo: gh.Repo().FullName(), Number: 7, Session: "B"}, clock()); err != nil {
		t.Fatal(err)
	}
	syncWith(t, one)
	// C1, C2: C takes #7 over from B in clone two, and its lease.
	syncWith(t, two)
	start(t, two, "C")
	if res := claim(two, "C"); !res.TookOver || res.Previous != "B" || res.Lease == nil || res.Lease.Lease.Session != "C" {
		t.Fatalf("C's claim: took over %v from %q, lease %+v, notices %q", res.TookOver, res.Previous, res.Lease, res.Notices)
	}
	// B2: clone one has not synced: its copy still says B owns #7.
	res := claim(one, "B")
	if res.Changed || res.Record.OwnerSession != "B" {
		t.Fatalf("B's claim in clone one: %+v", res.ClaimResult)
	}
	if res.Lease != nil || !strings.Contains(strings.Join(res.Notices, "\n"), "wins over this one") {
		t.Errorf("B's claim over a stale copy: lease %+v, notices %q", res.Lease, res.Notices)
	}

	syncWith(t, one)
	syncWith(t, two)
	syncWith(t, one)
	for i, st := range []*refstore.Store{one, two} {
		rec, err := prown.Read(ctx, st, gh.Repo().FullName(), 7)
		if err != nil || rec.OwnerSession != "C" {
			t.Fatalf("clone %d: #7 owned by %q (%v), want C", i, rec.OwnerSession, err)
		}
	}
	b, err := teamsync.LeaseBoard(ctx, one, false)
	if err != nil {
		t.Fatal(err)
	}
	if l := prLeaseAt(t, one, b); !l.Held() || l.Session != "C" || l.Note != handoff.PRLeaseNote {
		t.Fatalf("the lease pr:7 at the arbiter: %s by %s (%q); C owns #7", l.State, l.Session, l.Note)
	}

	// C's own claim again changes nothing: it owns the pull request and
	// holds its lease, its record is the arbiter's.
	if res := claim(two, "C"); res.Changed || res.Lease == nil || res.Lease.Action != lease.Mine || len(res.Notices) != 0 {
		t.Fatalf("C's claim again: changed %v, lease %+v, notices %q", res.Changed, res.Lease, res.Notices)
	}
}

// A lease held for another reason still refuses a claim, with the
// arbiter's board and with this clone's own (offline); the offline board
// takes the lease with the ownership, and takes it over from the owner
// before.
func TestPRLeaseHeldForAnotherReasonRefusesTheClaim(t *testing.T) {
	ctx := context.Background()
	one, _ := prTeam(t)
	_, gh := fakeGitHub(t, token)
	remote, err := teamsync.LeaseBoard(ctx, one, false)
	if err != nil {
		t.Fatal(err)
	}
	start(t, one, "D")
	for _, b := range []lease.Board{remote, lease.LocalBoard{St: one}} {
		t.Run(b.Where(), func(t *testing.T) {
			k := lease.Key{Kind: lease.KindPR, Value: "7"}
			if _, err := lease.Take(ctx, one, b, lease.TakeOptions{Keys: []lease.Key{k}, Holder: lease.Holder{Session: "X"}, Note: "reviewing it"}, lease.Clock(clock)); err != nil {
				t.Fatal(err)
			}
			_, err := handoff.PRClaim(ctx, one, gh, handoff.PRClaimOptions{Number: 7, Session: "D", NoComment: true, Leases: b}, clock)
			var held *lease.HeldError
			if !errors.As(err, &held) || held.By.Session != "X" {
				t.Fatalf("claim over X's lease: %v", err)
			}
			if _, err := lease.Release(ctx, one, b, "X", []lease.Key{k}, "done", lease.Clock(clock)); err != nil {
				t.Fatal(err)
			}
		})
	}

	// Offline: D claims with the lease, E takes both over.
	b := lease.LocalBoard{St: one}
	res, err := handoff.PRClaim(ctx, one, gh, handoff.PRClaimOptions{Number: 7, Session: "D", NoComment: true, Leases: b}, clock)
	if err != nil || res.Lease == nil || res.Lease.Lease.Session != "D" || len(res.Notices) != 0 {
		t.Fatalf("D's offline claim: %v, lease %+v, notices %q", err, res.Lease, res.Notices)
	}
	start(t, one, "E")
	res, err = handoff.PRClaim(ctx, one, gh, handoff.PRClaimOptions{Number: 7, Session: "E", NoComment: true, Leases: b}, clock)
	if err != nil || !res.TookOver || res.Lease == nil || res.Lease.Action != lease.TookOver || res.Lease.Lease.Session != "E" {
		t.Fatalf("E's offline takeover: %v, %+v, lease %+v, notices %q", err, res.ClaimResult, res.Lease, res.Notices)
	}
}
