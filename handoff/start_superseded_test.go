package handoff_test

import (
	"context"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// replacedAfterWin stands for a remote that takes the claim and then, before
// the claimer records it, gets a newer baton from a teammate who had synced
// the claim (so the newer baton was written after seeing it). The claim
// was won: its notes are the claimer's, even though the arbiter now holds
// the newer baton.
type replacedAfterWin struct {
	t    *testing.T
	held string
}

func (r *replacedAfterWin) Arbitrate(ctx context.Context, st refstore.Clone, up refstore.Update) error {
	if r.held != "" {
		return nil
	}
	// The teammate's clone: the claim arrives by sync, then its end.
	if err := st.Apply(ctx, "test: sync brings the claim", up); err != nil {
		r.t.Fatal(err)
	}
	res, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{"the newer baton"}}, fixed(3))
	if err != nil {
		r.t.Fatal(err)
	}
	r.held = res.Handoff.OID
	return nil
}

func (r *replacedAfterWin) Held(ctx context.Context, st refstore.Clone, ref string) (string, error) {
	return r.held, nil
}

// TestStartWonThenSupersededIsDelivered: a starting session gets the notes
// of the baton its claim won, not the newer one that replaced it at the arbiter (which
// stays waiting for the next session), so neither is lost.
func TestStartWonThenSupersededIsDelivered(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := context.Background()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{"the won baton"}}, fixed(0)); err != nil {
		t.Fatal(err)
	}
	arb := &replacedAfterWin{t: t}
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s1", Owner: "dev", Branch: "main", Arbiter: arb}, fixed(1))
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	if !res.Claimed || res.Handoff == nil || len(res.Handoff.NextSteps) != 1 || res.Handoff.NextSteps[0] != "the won baton" {
		t.Fatalf("start delivered %+v (claimed %v), want the notes of the baton its claim won", res.Handoff, res.Claimed)
	}
	next, err := handoff.Claim(ctx, st, handoff.ClaimOptions{Session: "c2", Owner: "dev", Branch: "main", Arbiter: handoff.Local{}}, fixed(4))
	if err != nil || len(next.Handoff.NextSteps) != 1 || next.Handoff.NextSteps[0] != "the newer baton" {
		t.Fatalf("the newer baton is not waiting for the next session: %v %v", next.Handoff.NextSteps, err)
	}
}
