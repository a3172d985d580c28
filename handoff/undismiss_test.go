package handoff_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

func endWithBaton(t *testing.T, st *refstore.Store, id, branch string, next ...string) baton.Stored {
	t.Helper()
	res, err := handoff.End(context.Background(), st, handoff.EndOptions{Session: id, Owner: "dev@example.com", Branch: branch,
		Next: next, Failed: []string{"tried a, b, and c"}}, clock)
	if err != nil {
		t.Fatal(err)
	}
	return res.Handoff
}

// An undone dismissal leaves the baton waiting again, whole, as the
// version after the tombstone; a second undo has nothing to undo.
func TestUndismissRestoresTheBaton(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	b := endWithBaton(t, st, "s1", "main", "wire the parser")
	d, err := handoff.Dismiss(ctx, st, handoff.DismissOptions{ID: b.ID}, clock)
	if err != nil {
		t.Fatal(err)
	}
	res, err := handoff.Undismiss(ctx, st, handoff.UndismissOptions{ID: b.ID}, clock)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := baton.Read(ctx, st, b.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !cur.Live() || cur.ID != b.ID || !slices.Equal(cur.NextSteps, b.NextSteps) || !slices.Equal(cur.FailedApproaches, b.FailedApproaches) ||
		cur.OID != res.Restored.OID {
		t.Fatalf("after the undo the ref holds %+v, want baton %s waiting as before", cur, b.ID)
	}
	if cur.Prev != d.Dismissed.OID || cur.Rev <= d.Dismissed.Rev {
		t.Fatalf("the restored version has prev %s rev %d: want it after the tombstone %s (rev %d)", cur.Prev, cur.Rev, d.Dismissed.OID, d.Dismissed.Rev)
	}
	// Listed and claimable again.
	got, err := handoff.Show(ctx, st, handoff.ShowOptions{Owner: "dev@example.com", Branch: "main"})
	if err != nil || got.Handoff.ID != b.ID {
		t.Fatalf("show after the undo: %v, %+v", err, got.Handoff)
	}
	_, err = handoff.Undismiss(ctx, st, handoff.UndismissOptions{ID: b.ID}, clock)
	var nr *handoff.NotRestorableError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "waiting, not dismissed") {
		t.Fatalf("a second undo: %v, want it refused as waiting", err)
	}
}

// Once anything else is the current version of the ref, the dismissal is
// not undone and nothing changes.
func TestUndismissRefusedOnceTheRefMoved(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	old := endWithBaton(t, st, "s1", "main", "first")
	if _, err := handoff.Dismiss(ctx, st, handoff.DismissOptions{ID: old.ID}, clock); err != nil {
		t.Fatal(err)
	}
	// A new baton on the same branch takes the ref.
	start(t, st, "s2")
	newer := endWithBaton(t, st, "s2", "main", "second")
	before, err := refstore.ResolveID(ctx, st, old.Ref)
	if err != nil {
		t.Fatal(err)
	}
	_, err = handoff.Undismiss(ctx, st, handoff.UndismissOptions{ID: old.ID}, clock)
	var nr *handoff.NotRestorableError
	if !errors.As(err, &nr) || !errors.Is(err, refstore.ErrConflict) || !strings.Contains(err.Error(), "another baton ("+newer.ID+")") {
		t.Fatalf("undoing a dismissal whose ref holds a newer baton: %v", err)
	}
	if after, _ := refstore.ResolveID(ctx, st, old.Ref); after != before {
		t.Fatal("a refused undo changed the ref")
	}

	// A cancel is not a dismissal: it is not undone here.
	if _, err := handoff.Cancel(ctx, st, handoff.CancelOptions{Owner: "dev@example.com", Branch: "main"}, clock); err != nil {
		t.Fatal(err)
	}
	_, err = handoff.Undismiss(ctx, st, handoff.UndismissOptions{ID: newer.ID}, clock)
	nr = nil
	if !errors.As(err, &nr) || !errors.Is(err, refstore.ErrConflict) || !strings.Contains(err.Error(), "cancelled, not dismissed") {
		t.Fatalf("undoing a cancel: %v", err)
	}
}
