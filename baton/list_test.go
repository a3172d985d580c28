package baton

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// List (kept as the caller's reduction and sorted on its key) selects what
// Filter says and orders by Newer, ties on createdAt broken by id. Reading
// loose and packed refs alike is the git store's (refstore's stream tests).
func TestListSelectsAndOrders(t *testing.T) {
	st := newMem(t)
	ctx := context.Background()
	var all []Stored
	for i := 0; i < 40; i++ {
		owner := []string{"me", "you"}[i%2]
		s := putBaton(t, st, i%3 == 0, owner, fmt.Sprintf("b%02d", i), i%4)
		switch i % 5 {
		case 1:
			claimElsewhere(t, st, s)
			s.Claimed = true
		case 2:
			d, err := Delete(ctx, st, s, "cancelled", t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			s = d
		}
		all = append(all, s)
	}
	for _, f := range []Filter{{All: true}, {Owner: "me"}, {Owner: "me", Branch: "b06"}} {
		got, warns, err := List(ctx, st, f)
		if err != nil || len(warns) != 0 {
			t.Fatalf("%+v: %v %v", f, warns, err)
		}
		var want []string
		for _, s := range all {
			switch {
			case s.Deleted != nil:
			case f.All, s.Live() && (s.Shared || s.Owner == f.Owner && (f.Branch == "" || s.Branch == f.Branch)):
				want = append(want, s.ID)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%+v: %d listed, want %d", f, len(got), len(want))
		}
		seen := map[string]bool{}
		for i := range got {
			seen[got[i].ID] = true
			if i > 0 && !Newer(&got[i-1].Baton, &got[i].Baton) {
				t.Fatalf("%+v: %s before %s is not newest first", f, got[i-1].ID, got[i].ID)
			}
		}
		for _, id := range want {
			if !seen[id] {
				t.Fatalf("%+v: %s not listed", f, id)
			}
		}
	}
}
