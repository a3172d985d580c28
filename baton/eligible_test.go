package baton

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// putShared writes a waiting shared baton of owner on branch, created at
// t0 plus min minutes, through the same swap end uses.
func putShared(t *testing.T, st refstore.Writer, owner, branch string, min int) Stored {
	t.Helper()
	return putBaton(t, st, true, owner, branch, min)
}

func putBaton(t *testing.T, st refstore.Writer, shared bool, owner, branch string, min int) Stored {
	t.Helper()
	ctx := context.Background()
	b, err := New(Draft{Owner: owner, Branch: branch, Shared: shared, NextSteps: []string{"step of " + branch}}, t0.Add(time.Duration(min)*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	s, up, err := Written(ctx, st, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: end", up); err != nil {
		t.Fatal(err)
	}
	return s
}

// claimByGit claims s the way another process would, behind this Store's
// back: a claimed blob and a swap through git itself.
func claimByGit(t *testing.T, dir string, s Stored) string {
	t.Helper()
	c := s.Baton
	at := t0.Add(time.Hour)
	c.Claimed, c.ClaimedAt, c.ClaimedBySession = true, &at, "other-session"
	data, err := refstore.Encode(&c)
	if err != nil {
		t.Fatal(err)
	}
	f := t.TempDir() + "/blob"
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	oid := gittest.Run(t, dir, "hash-object", "-w", f)
	gittest.Run(t, dir, "update-ref", "-m", "claimed elsewhere", s.Ref, oid, s.OID)
	return oid
}

func eligibleID(t *testing.T, st refstore.Records) (string, []Warning) {
	t.Helper()
	b, warns, err := Eligible(context.Background(), st, "reader", "main")
	if err != nil {
		t.Fatal(err)
	}
	if b == nil {
		return "", warns
	}
	if !b.Live() {
		t.Fatalf("delivered %s, which is not waiting: %+v", b.ID, b.Baton)
	}
	return b.ID, warns
}

// A claim made elsewhere moves the ref to a claimed blob, and the claimed
// baton is never delivered.
func TestEligibleSharedFollowsClaimsElsewhere(t *testing.T) {
	st := newMem(t)
	old := putShared(t, st, "alice", "a", 1)
	newest := putShared(t, st, "bob", "b", 2)
	if id, _ := eligibleID(t, st); id != newest.ID {
		t.Fatalf("eligible = %q, want the newest shared %s", id, newest.ID)
	}
	claimElsewhere(t, st, newest)
	if id, _ := eligibleID(t, st); id != old.ID {
		t.Fatalf("after the newest was claimed elsewhere, eligible = %q, want %s", id, old.ID)
	}
	claimElsewhere(t, st, old)
	if id, _ := eligibleID(t, st); id != "" {
		t.Fatalf("every shared baton claimed, eligible = %q", id)
	}
	// A private baton of the reader's own still comes first.
	putShared(t, st, "carol", "c", 3)
	priv := putBaton(t, st, false, "reader", "main", 0)
	if id, _ := eligibleID(t, st); id != priv.ID {
		t.Fatalf("eligible = %q, want %s", id, priv.ID)
	}
}

// Unreadable shared records are reported at each start; a record at the
// wrong ref is one of them.
func TestEligibleSharedWarnsEveryTime(t *testing.T) {
	ctx := context.Background()
	st := newMem(t)
	want := putShared(t, st, "alice", "a", 1)
	empty := st.WriteRawBlob(nil)
	misplaced := putShared(t, st, "bob", "b", 2)
	if err := st.Apply(ctx, "test: unreadable and misplaced",
		refstore.Update{Ref: refstore.SharedPrefix + "zed/broken", New: empty},
		refstore.Update{Ref: refstore.SharedPrefix + "bob/elsewhere", New: misplaced.OID},
		refstore.Update{Ref: misplaced.Ref, Old: misplaced.OID}); err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 2; run++ {
		id, warns := eligibleID(t, st)
		if id != want.ID {
			t.Fatalf("run %d: eligible = %q, want %s", run, id, want.ID)
		}
		var refs []string
		for _, w := range warns {
			if !errors.Is(w.Err, refstore.ErrInvalidRecord) {
				t.Errorf("run %d: warning %v is not an invalid record", run, w)
			}
			refs = append(refs, w.Ref)
		}
		if got := strings.Join(refs, " "); got != refstore.SharedPrefix+"bob/elsewhere "+refstore.SharedPrefix+"zed/broken" {
			t.Fatalf("run %d: warnings for %q", run, got)
		}
	}
}

// The listing reads only what orders the shared batons; a newest one broken
// in a field it skips (next steps that are not a list) is found broken
// when it is read whole to be offered: reported, and the next newest is
// offered instead. A tombstone, deleted but not claimed, never is.
func TestEligibleSharedBrokenPastTheListing(t *testing.T) {
	ctx := context.Background()
	st := newMem(t)
	want := putShared(t, st, "alice", "a", 1)
	gone := putShared(t, st, "carol", "c", 3)
	if _, err := Delete(ctx, st, gone, "cancelled", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	ref, err := refstore.HandoffRef(true, "bob", "b")
	if err != nil {
		t.Fatal(err)
	}
	broken := st.WriteRawBlob([]byte(`{"schema":"handoff/v1","id":"h-broken","owner":"bob","branch":"b","shared":true,"nextSteps":7,"createdAt":"` + t0.Add(2*time.Minute).Format(time.RFC3339) + `","claimed":false}`))
	if err := st.Apply(ctx, "test: broken", refstore.Update{Ref: ref, New: broken}); err != nil {
		t.Fatal(err)
	}
	id, warns := eligibleID(t, st)
	if id != want.ID {
		t.Fatalf("eligible = %q, want %s past the broken newer one", id, want.ID)
	}
	if len(warns) != 1 || warns[0].Ref != ref || !errors.Is(warns[0].Err, refstore.ErrInvalidRecord) {
		t.Fatalf("warnings = %v, want one invalid record at %s", warns, ref)
	}
}

// Many shared batons of several owners: the newest waiting one each time.
// (Loose and packed refs are TestEligibleSharedArrivals's, on git.)
func TestEligibleSharedManyBatons(t *testing.T) {
	st := newMem(t)
	all := writeShared(t, st, 120, func(i int) (Draft, int) {
		return Draft{Owner: fmt.Sprintf("o%d", i%7), Branch: fmt.Sprintf("b%03d", i)}, i % 50
	})
	newest := func(skip map[string]bool) string {
		var best *Stored
		for i := range all {
			if !skip[all[i].ID] && (best == nil || Newer(&all[i].Baton, &best.Baton)) {
				best = &all[i]
			}
		}
		return best.ID
	}
	claimedIDs := map[string]bool{}
	for round := 0; round < 4; round++ {
		want := newest(claimedIDs)
		if id, _ := eligibleID(t, st); id != want {
			t.Fatalf("round %d: eligible = %q, want %s", round, id, want)
		}
		for i := range all {
			if all[i].ID == want {
				claimElsewhere(t, st, all[i])
			}
		}
		claimedIDs[want] = true
	}
}

// settle waits until every stamp taken so far is settled, then starts
// once so that the head holds settled stamps: the next start trusts them
// and lists nothing that did not change.
func settle(t *testing.T, st refstore.Records) {
	t.Helper()
	time.Sleep(80 * time.Millisecond)
	eligibleID(t, st)
}

// blobOf writes b as a record through git itself and returns its id.
func blobOf(t *testing.T, dir string, b Baton) string {
	t.Helper()
	data, err := refstore.Encode(&b)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return gittest.Run(t, dir, "hash-object", "-w", f)
}

// addPacked adds ref to packed-refs the way git writes that file: a new
// sorted file renamed over the old one.
func addPacked(t *testing.T, dir, ref, oid string) {
	t.Helper()
	path := filepath.Join(dir, ".git", "packed-refs")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(old), "\n"), "\n")
	if !strings.Contains(lines[0], " sorted") {
		t.Fatalf("packed-refs is not sorted: %q", lines[0])
	}
	out := []string{lines[0]}
	added := false
	for _, l := range lines[1:] {
		if _, name, _ := strings.Cut(l, " "); !added && l[0] != '^' && name > ref {
			out, added = append(out, oid+" "+ref), true
		}
		out = append(out, l)
	}
	if !added {
		out = append(out, oid+" "+ref)
	}
	if err := os.WriteFile(path+".new", []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if got := gittest.Run(t, dir, "rev-parse", ref); got != oid {
		t.Fatalf("git reads %s as %s after the rewrite, want %s", ref, got, oid)
	}
}

func draft(t *testing.T, owner, branch string, min int) Baton {
	t.Helper()
	b, err := New(Draft{Owner: owner, Branch: branch, Shared: true, NextSteps: []string{"step of " + branch}}, t0.Add(time.Duration(min)*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sharedRef(owner, branch string) string {
	ref, _ := refstore.HandoffRef(true, owner, branch)
	return ref
}

// A shared baton that arrives by any route is found at the next start,
// the notes warm and their stamps settled, loose or packed; one deleted or
// claimed is never delivered. Run on the files (stamps trusted where the
// filesystem allows) and through git alone (every directory listed).
func TestEligibleSharedArrivals(t *testing.T) {
	for _, cli := range []bool{false} { // one read path: git
		t.Run(fmt.Sprintf("cli=%v", cli), func(t *testing.T) {
			gittest.Isolate(t)
			dir := gittest.Init(t)
			st, err := refstore.Open(context.Background(), dir, refstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			for i := 0; i < 12; i++ {
				s := putShared(t, st, fmt.Sprintf("o%d", i%3), fmt.Sprintf("b%d", i), i)
				if i%4 == 0 {
					claimByGit(t, dir, s)
				}
			}
			min := 100
			newer := func() int { min++; return min }
			expect := func(step, want string) {
				t.Helper()
				if id, _ := eligibleID(t, st); id != want {
					t.Fatalf("%s: eligible = %q, want %s", step, id, want)
				}
			}
			settle(t, st)
			// Our own end --shared, into a directory that exists.
			s := putShared(t, st, "o1", "ours", newer())
			expect("end --shared", s.ID)
			settle(t, st)

			// A plain git update-ref, in a new directory.
			b := draft(t, "newcomer", "x", newer())
			gittest.Run(t, dir, "update-ref", sharedRef("newcomer", "x"), blobOf(t, dir, b))
			expect("update-ref, new directory", b.ID)
			newcomer := b.ID
			settle(t, st)

			// A plain git update-ref moving a claimed ref to a waiting baton.
			b = draft(t, "o0", "b0", newer())
			gittest.Run(t, dir, "update-ref", sharedRef("o0", "b0"), blobOf(t, dir, b))
			expect("update-ref over a claimed baton", b.ID)
			settle(t, st)

			// pack-refs moves every loose ref into packed-refs and
			// removes the directories; the answer stays.
			gittest.Run(t, dir, "pack-refs", "--all")
			expect("pack-refs", b.ID)
			settle(t, st)

			// Claimed behind our back while packed: a loose ref shadows
			// the packed one.
			claimByGit(t, dir, Stored{Baton: b, Ref: sharedRef("o0", "b0"), OID: gittest.Run(t, dir, "rev-parse", sharedRef("o0", "b0"))})
			expect("claimed over packed", newcomer)
			settle(t, st)

			// Into a directory pack-refs removed, and one it never had.
			b = draft(t, "o2", "after-pack", newer())
			gittest.Run(t, dir, "update-ref", sharedRef("o2", "after-pack"), blobOf(t, dir, b))
			expect("update-ref after pack-refs", b.ID)
			settle(t, st)

			// git gc packs and prunes; a deletion of the newest
			// (packed, so packed-refs is rewritten) leaves the next.
			gittest.Run(t, dir, "gc", "-q", "--prune=now")
			expect("gc", b.ID)
			settle(t, st)
			gittest.Run(t, dir, "update-ref", "-d", sharedRef("o2", "after-pack"))
			expect("packed ref deleted", newcomer)
			settle(t, st)

			// Written straight into packed-refs, as git clone does: no
			// directory of loose refs moves, packed-refs does (the files
			// backend only).
			if _, err := os.Stat(filepath.Join(dir, ".git", "reftable")); err == nil {
				return
			}
			b = draft(t, "cloned", "y", newer())
			addPacked(t, dir, sharedRef("cloned", "y"), blobOf(t, dir, b))
			expect("packed-refs rewritten", b.ID)
			settle(t, st)
			b2 := draft(t, "o1", "packed-too", newer())
			addPacked(t, dir, sharedRef("o1", "packed-too"), blobOf(t, dir, b2))
			expect("packed-refs rewritten, into a known directory", b2.ID)
			settle(t, st)

			// A loose ref deleted.
			s = putShared(t, st, "o1", "gone-soon", newer())
			expect("end --shared after gc", s.ID)
			settle(t, st)
			gittest.Run(t, dir, "update-ref", "-d", s.Ref)
			expect("loose ref deleted", b2.ID)
			settle(t, st)

			// Two arrivals in one directory within one clock tick of
			// each other and of the start between them.
			s1 := putShared(t, st, "o1", "tick-a", newer())
			expect("first of a tick", s1.ID)
			s2 := putShared(t, st, "o1", "tick-b", newer())
			expect("second of a tick", s2.ID)
		})
	}
}

func writeShared(t *testing.T, st refstore.Writer, n int, draft func(i int) (Draft, int)) []Stored {
	t.Helper()
	ctx := context.Background()
	var all []Stored
	var ups []refstore.Update
	for i := 0; i < n; i++ {
		d, min := draft(i)
		d.Shared, d.NextSteps = true, []string{"x"}
		b, err := New(d, t0.Add(time.Duration(min)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		s, up, err := Written(ctx, st, b)
		if err != nil {
			t.Fatal(err)
		}
		all, ups = append(all, s), append(ups, up)
	}
	if err := st.ApplyEach(ctx, "test: many", ups...); err != nil {
		t.Fatal(err)
	}
	return all
}
