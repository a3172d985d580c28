package teamsync

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// killing is the arbiter, with the process killed (SIGKILL) at its call:
// before it pushes anything, or once the remote took the push and the
// tracking ref moved. (No Pinner: pinned would hand the decision to the
// Arbiter it names.)
type killing struct{ after bool }

func (k killing) Arbitrate(ctx context.Context, st refstore.Clone, up refstore.Update) error {
	if k.after {
		if err := (Arbiter{}).Arbitrate(ctx, st, up); err != nil {
			return err
		}
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal comes
}

func (k killing) Held(ctx context.Context, st refstore.Clone, ref string) (string, error) {
	return Arbiter{}.Held(ctx, st, ref)
}

// A cancel killed at its push leaves only the note it wrote before it
// (handoff/unrecorded.go). Whether the push landed or not, and whether a
// teammate claimed the baton meanwhile, the next start here settles it at
// the arbiter: of "delivered" and "cancelled" exactly one holds, here and
// at the remote. Killed before its push, the cancel is the user's still:
// the start pushes the tombstone, leased on the waiting version, unless a
// claim elsewhere won first, and this clone then shows the claim, not a
// tombstone over it.
func TestDeletionKilledAtItsPushIsSettledAtTheArbiter(t *testing.T) {
	if dir := os.Getenv("TEAMSYNC_KILLED_CANCEL"); dir != "" {
		ctx := context.Background()
		st, err := refstore.Open(ctx, dir, refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = handoff.Cancel(ctx, st, handoff.CancelOptions{Owner: "dev", Branch: "main", Arbiter: killing{after: os.Getenv("TEAMSYNC_KILLED_AFTER") != ""}}, clock(2))
		t.Fatalf("the cancel was not killed: %v", err)
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, tc := range []struct {
		name           string
		after, claimed bool
	}{
		{"before its push", false, false},
		{"before its push, then claimed elsewhere", false, true},
		{"after its push", true, false},
		{"after its push, then claimed elsewhere", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := newTeam(t, 2)
			ctx := context.Background()
			a, b := tm.clones[0], tm.clones[1]
			m := end(t, a, 0, "from a")
			syncAt(t, a, 1)
			syncAt(t, b, 1)
			env := []string{"TEAMSYNC_KILLED_CANCEL=" + a.Dir()}
			if tc.after {
				env = append(env, "TEAMSYNC_KILLED_AFTER=1")
			}
			gittest.RunKilled(t, "TestDeletionKilledAtItsPushIsSettledAtTheArbiter", env...)
			notes := func() []string {
				names, _ := open(t, a.Dir()).Local().List("unrecorded")
				return names
			}
			if len(notes()) != 1 {
				t.Fatalf("the killed cancel left notes %v, want its one", notes())
			}
			there := func() baton.Baton {
				t.Helper()
				var got baton.Baton
				if err := json.Unmarshal([]byte(git(t, tm.remote, "cat-file", "-p", mainRef)), &got); err != nil {
					t.Fatal(err)
				}
				return got
			}
			if got := there(); got.ID != m.ID || (got.Deleted != nil) != tc.after {
				t.Fatalf("the remote holds %s deleted %v after the kill, want %s deleted %v", got.ID, got.Deleted != nil, m.ID, tc.after)
			}
			delivered := ""
			if tc.claimed {
				res, err := claim(b, "s-b", 3, Arbiter{})
				var de *baton.DeletedError
				switch {
				case err == nil && res.Handoff.ID == m.ID:
					delivered = "s-b"
				case !tc.after || !errors.As(err, &de):
					t.Fatalf("b's claim: %+v, %v", res.Handoff, err)
				}
			}
			// The next start here, in a process of its own.
			again := open(t, a.Dir())
			res, err := handoff.Start(ctx, again, handoff.StartOptions{Session: "s-a", Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(4))
			if err != nil {
				t.Fatal(err)
			}
			if res.Claimed && res.Handoff != nil && res.Handoff.ID == m.ID {
				if delivered != "" {
					t.Fatalf("%s delivered to %s and to s-a", m.ID, delivered)
				}
				delivered = "s-a"
			}
			got := there()
			cancelled := got.ID == m.ID && got.Deleted != nil
			if cancelled == (delivered != "") {
				t.Fatalf("the remote holds %s claimed %v deleted %v, delivered to %q: want exactly one of delivered and cancelled", got.ID, got.Claimed, got.Deleted != nil, delivered)
			}
			if want := !tc.claimed || tc.after; cancelled != want {
				t.Errorf("cancelled %v, want %v", cancelled, want)
			}
			if here := readBaton(t, again, mainRef); here.ID != m.ID || (here.Deleted != nil) != cancelled {
				t.Errorf("a holds %s claimed %v deleted %v, the remote %s claimed %v deleted %v", here.ID, here.Claimed, here.Deleted != nil, got.ID, got.Claimed, got.Deleted != nil)
			}
			if n := notes(); len(n) != 0 {
				t.Errorf("notes left: %v", n)
			}
			if holds := git(t, a.Dir(), "for-each-ref", "--format=%(refname)", "refs/ao/inflight/"); strings.Contains(holds, "-cancelled") {
				t.Errorf("the killed cancel's hold is left: %s", holds)
			}
		})
	}
}

// A cancel killed before its push leaves its note in flight; then the
// remote's gc loses the waiting baton's object (its race with a push),
// and a teammate's sync marks it lost there. The clone with the note is
// the only one that holds the object: its sync settles notes first, and
// the arbiter decides nothing while the ref is marked lost, so until the
// fix every sync of that clone failed there and nobody pushed the object
// back (the simulation's seed 1570). Its sync pushes it back first now,
// then records the cancel at the remote. Real git, a real bare remote.
func TestSyncHealsTheBatonOfADeletionInFlight(t *testing.T) {
	if dir := os.Getenv("TEAMSYNC_KILLED_CANCEL_LOST"); dir != "" {
		ctx := context.Background()
		st, err := refstore.Open(ctx, dir, refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = handoff.Cancel(ctx, st, handoff.CancelOptions{Owner: "dev", Branch: "main", Arbiter: killing{}}, clock(2))
		t.Fatalf("the cancel was not killed: %v", err)
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	syncAt(t, b, 0) // b has synced before, and never fetches the baton
	m := end(t, a, 0, "from a")
	syncAt(t, a, 1)
	gittest.RunKilled(t, "TestSyncHealsTheBatonOfADeletionInFlight", "TEAMSYNC_KILLED_CANCEL_LOST="+a.Dir())
	// A push of a few objects is unpacked into loose ones
	// (transfer.unpackLimit): the gc race removes one.
	if err := os.Remove(filepath.Join(tm.remote, "objects", m.OID[:2], m.OID[2:])); err != nil {
		t.Fatal(err)
	}
	res := syncAt(t, b, 3)
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "marked lost there") {
		t.Fatalf("b's sync warned %q, want the lost object marked", res.Warnings)
	}

	again := open(t, a.Dir())
	res = syncAt(t, again, 4)
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "healed origin's "+mainRef) {
		t.Errorf("a's sync warned %q, want the heal", res.Warnings)
	}
	if names, _ := again.Local().List("unrecorded"); len(names) != 0 {
		t.Errorf("notes left: %v", names)
	}
	if got := lastBaton(t, again, mainRef); got.ID != m.ID || got.Deleted == nil {
		t.Fatalf("a holds %s deleted %v, want %s cancelled", got.ID, got.Deleted != nil, m.ID)
	}
	// b learns the cancel from the remote (a cancelled baton retires at
	// the sync that sees it final: the archive keeps it).
	syncAt(t, b, 5)
	if got := lastBaton(t, b, mainRef); got.ID != m.ID || got.Deleted == nil {
		t.Errorf("b holds %s deleted %v, want %s cancelled", got.ID, got.Deleted != nil, m.ID)
	}
}
