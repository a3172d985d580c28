package baton

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// TestClaimReleaseTombstoneOverMemstore runs a baton's life over the
// in-memory store: claimed, offered again, claimed, and a claim or a
// tombstone that meets a baton no longer waiting is refused with who
// decided it. Each version names the one it replaced.
func TestClaimReleaseTombstoneOverMemstore(t *testing.T) {
	ctx := context.Background()
	st := newMem(t)
	b := putBaton(t, st, false, "me", "main", 0)

	c, up, err := Claimed(ctx, st, b, "s1", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if up.Old != b.OID || up.New != c.OID || !c.Claimed || c.ClaimedBySession != "s1" || c.Prev != b.OID || c.Rev != b.Rev+1 {
		t.Fatalf("claimed: %+v, swap %+v", c.Baton, up)
	}
	if err := st.Apply(ctx, "test: claim", up); err != nil {
		t.Fatal(err)
	}
	// A second claim of the version it read loses the swap and is told
	// who claimed it.
	_, up2, err := Claimed(ctx, st, b, "s2", t0.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	err = LostClaim(ctx, st, b, st.Apply(ctx, "test: claim again", up2))
	var ce *ClaimedError
	if !errors.As(err, &ce) || ce.Baton.ClaimedBySession != "s1" || !errors.Is(err, refstore.ErrConflict) {
		t.Fatalf("second claim: %v", err)
	}
	if _, _, err := Claimed(ctx, st, c, "s2", t0); !errors.As(err, &ce) {
		t.Fatalf("claim of a claimed baton: %v", err)
	}
	if got, _, err := Eligible(ctx, st, "me", "main"); err != nil || got != nil {
		t.Fatalf("a claimed baton is eligible: %+v, %v", got, err)
	}

	// Offered again: waiting, with the session that had it.
	r, up, err := Released(ctx, st, c, t0.Add(3*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: reoffer", up); err != nil {
		t.Fatal(err)
	}
	if !r.Live() || r.Reoffered == nil || r.Reoffered.Session != "s1" {
		t.Fatalf("released: %+v", r.Baton)
	}
	if _, _, err := Released(ctx, st, r, t0); err == nil {
		t.Fatal("a waiting baton was released")
	}
	if got, _, err := Eligible(ctx, st, "me", "main"); err != nil || got == nil || got.ID != b.ID {
		t.Fatalf("the baton offered again is not eligible: %+v, %v", got, err)
	}
	if got, _, err := FindLive(ctx, st, b.ID); err != nil || got.OID != r.OID {
		t.Fatalf("FindLive: %+v, %v", got, err)
	}

	// Cancelled: a tombstone, listed nowhere; a later claim or deletion
	// is told it was cancelled.
	d, err := Delete(ctx, st, r, "cancelled", t0.Add(4*time.Minute))
	if err != nil || d.Deleted == nil || d.Deleted.Reason != "cancelled" {
		t.Fatalf("delete: %+v, %v", d.Baton, err)
	}
	var de *DeletedError
	if _, err := Delete(ctx, st, r, "dismissed", t0.Add(5*time.Minute)); !errors.As(err, &de) || de.Baton.Deleted.Reason != "cancelled" {
		t.Fatalf("second deletion of the version read: %v", err)
	}
	if _, _, err := Claimed(ctx, st, d, "s3", t0); !errors.As(err, &de) {
		t.Fatalf("claim of a tombstone: %v", err)
	}
	if _, _, err := Tombstone(ctx, st, d, "dismissed", t0); !errors.As(err, &de) {
		t.Fatalf("tombstone of a tombstone: %v", err)
	}
	if _, _, err := FindLive(ctx, st, b.ID); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("FindLive of a tombstone: %v", err)
	}
	if list, _, err := List(ctx, st, Filter{All: true}); err != nil || len(list) != 0 {
		t.Fatalf("List lists a tombstone: %+v, %v", list, err)
	}

	// The history walks back through every version.
	var revs []uint64
	if err := st.History(ctx, d.OID, func(e refstore.Entry) bool {
		revs = append(revs, refstore.RevOf(e.Data).Rev)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(revs) != 4 || revs[0] != 4 || revs[3] != 1 {
		t.Fatalf("history revs %v, want 4 3 2 1", revs)
	}
}

// TestObjectiveOverMemstore sets, keeps and clears an objective over the
// in-memory store.
func TestObjectiveOverMemstore(t *testing.T) {
	ctx := context.Background()
	st := newMem(t)
	if o, _, err := ReadObjective(ctx, st, "me", "main"); err != nil || o != nil {
		t.Fatalf("no objective yet: %+v, %v", o, err)
	}
	if changed, err := SetObjective(ctx, st, "me", "main", " ship it ", "s1", t0); err != nil || !changed {
		t.Fatalf("set: %v, %v", changed, err)
	}
	if changed, err := SetObjective(ctx, st, "me", "main", "ship it", "s2", t0.Add(time.Minute)); err != nil || changed {
		t.Fatalf("set to the same text: %v, %v", changed, err)
	}
	o, oid, err := ReadObjective(ctx, st, "me", "main")
	if err != nil || o == nil || o.Text != "ship it" || o.SessionID != "s1" || oid == "" {
		t.Fatalf("read: %+v, %q, %v", o, oid, err)
	}
	if changed, err := SetObjective(ctx, st, "me", "main", "", "s1", t0.Add(2*time.Minute)); err != nil || !changed {
		t.Fatalf("clear: %v, %v", changed, err)
	}
	if o, oid, err := ReadObjective(ctx, st, "me", "main"); err != nil || o != nil || oid == "" {
		t.Fatalf("after clearing: %+v, %q, %v; want none, its record kept", o, oid, err)
	}
}
