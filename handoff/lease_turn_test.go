package handoff_test

import (
	"context"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
)

// The end of a turn renews the session's leases only once half their time
// to live has passed, and opens the board only then.
func TestLeaseRenewTurn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := open(t)
	start(t, st, "s1")
	now := clock()
	at := func() time.Time { return now }
	opened := 0
	board := func(context.Context) (lease.Board, error) { opened++; return lease.LocalBoard{St: st}, nil }

	if _, err := handoff.LeaseRenewTurn(ctx, st, "s1", board, at); err != nil || opened != 0 {
		t.Fatalf("nothing leased: opened the board %d times (%v)", opened, err)
	}
	if _, err := handoff.LeaseTake(ctx, st, lease.LocalBoard{St: st}, handoff.LeaseOptions{Session: "s1", Keys: []string{"issue:7"}, TTL: 10 * time.Minute}, at); err != nil {
		t.Fatal(err)
	}
	k, _ := lease.ParseKey("issue:7")
	taken, err := lease.Read(ctx, st, k)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(4 * time.Minute)
	r, err := handoff.LeaseRenewTurn(ctx, st, "s1", board, at)
	if err != nil || opened != 0 || len(r.Leases) != 1 || r.Leases[0].Action != lease.NotDue {
		t.Fatalf("before half the TTL: %+v, board opened %d times (%v)", r, opened, err)
	}
	now = now.Add(time.Minute)
	r, err = handoff.LeaseRenewTurn(ctx, st, "s1", board, at)
	if err != nil || opened != 1 || len(r.Leases) != 1 || r.Leases[0].Action != lease.Renewed || r.Where != "this clone" {
		t.Fatalf("at half the TTL: %+v, board opened %d times (%v)", r, opened, err)
	}
	if cur, _ := lease.Read(ctx, st, k); cur.OID == taken.OID || !cur.Held() || cur.Session != "s1" {
		t.Fatalf("not renewed: %+v", cur)
	}
	if r, err := handoff.LeaseRenewTurn(ctx, st, "", board, at); err != nil || len(r.Leases) != 0 {
		t.Fatalf("no session: %+v (%v)", r, err)
	}
}
