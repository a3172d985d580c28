package handoff_test

import (
	"context"
	"testing"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// cancelledMeanwhile stands for a remote that gives the claim to this
// clone while, here, a concurrent `git handoff cancel` tombstones the same
// baton before the claim is recorded: the arbiter holds the claim, the
// local ref holds the tombstone.
type cancelledMeanwhile struct {
	t       *testing.T
	claimed string // what the remote holds after the push
}

func (c *cancelledMeanwhile) Arbitrate(ctx context.Context, st refstore.Clone, up refstore.Update) error {
	c.claimed = up.New
	h, err := baton.Read(ctx, st, up.Ref)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := baton.Delete(ctx, st, h, "cancelled", fixed(5)()); err != nil {
		c.t.Fatalf("the concurrent cancel: %v", err)
	}
	return nil
}

func (c *cancelledMeanwhile) Held(ctx context.Context, st refstore.Clone, ref string) (string, error) {
	return c.claimed, nil
}

// TestClaimWonAtArbiterBeatsLocalCancel: a claim the arbiter took is a
// win even when the local ref moved meanwhile; the claimer gets the notes
// (exit 0, not "changed underneath us"), and the local ref ends at the
// claimed version, which the join keeps over the tombstone anyway.
func TestClaimWonAtArbiterBeatsLocalCancel(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := context.Background()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{"the notes"}}, fixed(0)); err != nil {
		t.Fatal(err)
	}
	arb := &cancelledMeanwhile{t: t}
	res, err := handoff.Claim(ctx, st, handoff.ClaimOptions{Session: "c1", Owner: "dev", Branch: "main", Arbiter: arb}, fixed(1))
	if err != nil {
		t.Fatalf("a claim the arbiter holds was reported lost: %v", err)
	}
	if res.Handoff.ClaimedBySession != "c1" || len(res.Handoff.NextSteps) != 1 || res.Handoff.NextSteps[0] != "the notes" {
		t.Fatalf("delivered %+v", res.Handoff)
	}
	ref, _ := refstore.HandoffRef(false, "dev", "main")
	if cur, _ := refstore.ResolveID(ctx, st, ref); cur != arb.claimed {
		t.Fatalf("local ref holds %s, want the claimed blob %s the arbiter holds", cur, arb.claimed)
	}
}
