package baton

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
)

// newMem is the in-memory store the baton logic runs over: choosing,
// claiming, tombstoning and listing batons need records and a writer, not
// git.
func newMem(t *testing.T) *memstore.Store {
	t.Helper()
	st, err := memstore.New(refstore.FormatSHA1)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// claimElsewhere claims s the way another clone's write would arrive: a
// claimed blob, with no causal clock of ours, swapped in.
func claimElsewhere(t *testing.T, st *memstore.Store, s Stored) string {
	t.Helper()
	c := s.Baton
	at := t0.Add(time.Hour)
	c.Claimed, c.ClaimedAt, c.ClaimedBySession = true, &at, "other-session"
	data, err := refstore.Encode(&c)
	if err != nil {
		t.Fatal(err)
	}
	oid := st.WriteRawBlob(data)
	if err := st.Apply(context.Background(), "claimed elsewhere", refstore.Update{Ref: s.Ref, New: oid, Old: s.OID}); err != nil {
		t.Fatal(err)
	}
	return oid
}

// TestEligibleAndListOverMemstore runs the start's choice of a baton and
// the listing over the in-memory store: they need only refstore.Records.
func TestEligibleAndListOverMemstore(t *testing.T) {
	ctx := context.Background()
	st, err := memstore.New(refstore.FormatSHA256)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	put := func(b Baton) {
		t.Helper()
		b.Schema = Schema
		b.NextSteps = []string{"carry on"}
		ref, err := refstore.HandoffRef(b.Shared, b.Owner, b.Branch)
		if err != nil {
			t.Fatal(err)
		}
		data, err := refstore.Encode(&b)
		if err != nil {
			t.Fatal(err)
		}
		oid, err := st.WriteBlob(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Apply(ctx, "test", refstore.Update{Ref: ref, New: oid}); err != nil {
			t.Fatal(err)
		}
	}
	put(Baton{ID: "old-shared", Owner: "you", Branch: "x", Shared: true, CreatedAt: t0})
	put(Baton{ID: "new-shared", Owner: "you", Branch: "y", Shared: true, CreatedAt: t0.Add(time.Hour)})
	put(Baton{ID: "claimed-shared", Owner: "you", Branch: "z", Shared: true, CreatedAt: t0.Add(2 * time.Hour), Claimed: true})
	put(Baton{ID: "mine", Owner: "me", Branch: "main", CreatedAt: t0})

	got, warns, err := Eligible(ctx, st, "me", "main")
	if err != nil || len(warns) != 0 || got == nil || got.ID != "mine" {
		t.Fatalf("Eligible(me, main) = %+v, %v, %v; want my private baton", got, warns, err)
	}
	got, _, err = Eligible(ctx, st, "me", "other")
	if err != nil || got == nil || got.ID != "new-shared" {
		t.Fatalf("Eligible(me, other) = %+v, %v; want the newest waiting shared baton", got, err)
	}
	list, _, err := List(ctx, st, Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	if want := "claimed-shared new-shared old-shared mine"; fmt.Sprint(ids) != "["+want+"]" {
		t.Fatalf("List = %v, want [%s]", ids, want)
	}
}
