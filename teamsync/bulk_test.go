package teamsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// TestBulkPushByPattern: past bulkPushMin changed records, sync pushes by
// pattern with leases on the tracking refs. It must move exactly what the
// join decided, never a record the remote holds a newer version of, and a
// lease lost in between must make it fetch, join and push again.
func TestBulkPushByPattern(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ctx := context.Background()
	n := bulkPushMin + 36
	leaveBatons(t, a, 0, n, "step", at(0))
	res := syncAt(t, a, 1)
	if len(res.Pushed) != n {
		t.Fatalf("pushed %d, want %d", len(res.Pushed), n)
	}
	if got := strings.Count(git(t, tm.remote, "for-each-ref", refstore.HandoffsPrefix), "\n") + 1; got != n {
		t.Fatalf("remote holds %d records, want %d", got, n)
	}
	syncAt(t, b, 2)

	// b claims one baton at the remote; a, which has not fetched since,
	// writes a newer baton on another branch and rewrites n more, then
	// syncs: the claim must survive (a's stale tracking ref loses the
	// lease, sync fetches and joins again).
	ref, _ := refstore.HandoffRef(false, "dev", "b000")
	if _, err := handoff.Claim(ctx, b, handoff.ClaimOptions{Session: "s-b", Owner: "dev", Branch: "b000", Arbiter: Arbiter{}}, clock(3)); err != nil {
		t.Fatal(err)
	}
	leaveBatons(t, a, 1, n, "newer step", at(4))
	// a meets b's claim, which is final: its sync retires it (a deletion
	// and the archive month pushed) beside the n-1 newer batons.
	res = syncAt(t, a, 5)
	if merged := len(res.Pushed) - res.Retired - 1; merged != n-1 || res.Retired != 1 {
		t.Fatalf("second sync pushed %d (%d retired), want %d batons, the claimed one retired and its month", len(res.Pushed), res.Retired, n-1)
	}
	if got := lastBaton(t, open(t, tm.remote), ref); got.ClaimedBySession != "s-b" {
		t.Fatalf("the claim made at the remote was pushed over: %+v", got.Baton)
	}
	if got := lastBaton(t, a, ref); !got.Claimed {
		t.Fatalf("a did not adopt the claim: %+v", got.Baton)
	}
	other, _ := refstore.HandoffRef(false, "dev", "b001")
	var rb baton.Baton
	e, err := b.Get(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	syncAt(t, b, 6)
	e, _ = b.Get(ctx, other)
	if err := refstore.Decode(e, baton.Schema, &rb); err != nil || rb.NextSteps[0] != "newer step" {
		t.Fatalf("b has %+v, %v", rb, err)
	}
}

// leaveBatons writes the batons of dev on branches b<from>…b<to-1>, each
// with the one next step, in one transaction: what as many ends would
// leave, without the dozen git processes each end starts (this test's
// cost was its set-up: 27 s of CI).
func leaveBatons(t *testing.T, st *refstore.Store, from, to int, step string, now time.Time) {
	t.Helper()
	ctx := context.Background()
	var ups []refstore.Update
	for i := from; i < to; i++ {
		b, err := baton.New(baton.Draft{Owner: "dev", Branch: fmt.Sprintf("b%03d", i), NextSteps: []string{step}}, now)
		if err != nil {
			t.Fatal(err)
		}
		_, up, err := baton.Written(ctx, st, b)
		if err != nil {
			t.Fatal(err)
		}
		ups = append(ups, up)
	}
	if err := st.Apply(ctx, "test: batons", ups...); err != nil {
		t.Fatal(err)
	}
}

// A sync that leaves many of our refs loose has git pack them: a plain
// git fetch reads every loose ref of the clone (refstore.PackLoose). The
// records read the same after. Real git, a real bare remote; the files
// backend (a reftable compacts itself).
func TestSyncPacksLooseRefs(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	leaveBatons(t, a, 0, packLooseAt+20, "step", at(0))
	syncAt(t, a, 1)
	syncAt(t, b, 2)
	if _, err := os.Stat(filepath.Join(b.Dir(), ".git", "reftable")); err == nil {
		return // a reftable: git compacts it itself (PackLoose's own test)
	}
	listed := strings.TrimSpace(git(t, b.Dir(), "for-each-ref", "--format=%(refname)", refstore.Root))
	var files []string
	filepath.WalkDir(filepath.Join(b.Dir(), ".git", "refs", "ao"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) > 0 {
		t.Fatalf("%d of our refs left loose after a sync that fetched %d records (%s first)", len(files), packLooseAt+20, files[0])
	}
	if got := strings.Count(listed, "/handoffs/"); got != 2*(packLooseAt+20) {
		t.Fatalf("b lists %d baton refs and copies, want %d", got, 2*(packLooseAt+20))
	}
}
