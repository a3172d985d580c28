package handoff_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// pinnedArbiter says where claims are decided. Pinned local, it must never
// be asked to arbitrate; pinned remote, it checks that the claim was noted
// in the git dir before the "push", as pending.go requires.
type pinnedArbiter struct {
	t      *testing.T
	local  bool
	dir    string // the git dir
	pushed int
}

func (p *pinnedArbiter) Pin(ctx context.Context, st refstore.Clone, ref string) (handoff.Arbiter, bool) {
	return p, p.local
}

func (p *pinnedArbiter) Arbitrate(ctx context.Context, st refstore.Clone, up refstore.Update) error {
	if p.local {
		p.t.Fatalf("a claim pinned local went to the arbiter: %s", up.Ref)
	}
	p.pushed++
	notes, err := os.ReadDir(filepath.Join(p.dir, "handoff", "pending"))
	if err != nil || len(notes) != 1 {
		p.t.Fatalf("pushing a claim with %d pending notes (%v), want 1", len(notes), err)
	}
	return nil
}

func (p *pinnedArbiter) Held(ctx context.Context, st refstore.Clone, ref string) (string, error) {
	return handoff.Local{}.Held(ctx, st, ref)
}

// A claim no remote decides is decided by the local transaction alone:
// neither start nor claim notes it (the note's file and rename are a fifth
// of a claim's writes), and the baton is delivered all the same. A claim a
// remote decides is still noted before it is pushed.
func TestLocalClaimsNoteNothing(t *testing.T) {
	for _, local := range []bool{true, false} {
		st := open(t)
		dir := st.Dir()
		ctx := context.Background()
		arb := &pinnedArbiter{t: t, local: local, dir: filepath.Join(dir, ".git")}
		pending := filepath.Join(dir, ".git", "handoff", "pending")

		if _, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{"first"}}, fixed(0)); err != nil {
			t.Fatal(err)
		}
		res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s1", Owner: "dev", Branch: "main", Arbiter: arb}, fixed(1))
		if err != nil || !res.Claimed || res.Handoff.NextSteps[0] != "first" {
			t.Fatalf("local=%v: start = claimed %v, %v", local, res.Claimed, err)
		}
		if _, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{"second"}}, fixed(2)); err != nil {
			t.Fatal(err)
		}
		got, err := handoff.Claim(ctx, st, handoff.ClaimOptions{Session: "s1", Owner: "dev", Branch: "main", Arbiter: arb}, fixed(3))
		if err != nil || got.Handoff.NextSteps[0] != "second" || !got.Handoff.Claimed {
			t.Fatalf("local=%v: claim = %+v, %v", local, got.Handoff, err)
		}
		notes, err := os.ReadDir(pending)
		switch {
		case local && !os.IsNotExist(err):
			t.Errorf("local claims made %s (%d notes, %v)", pending, len(notes), err)
		case !local && (err != nil || len(notes) != 0 || arb.pushed != 2):
			t.Errorf("remote claims: %d pushes, %d notes left (%v); want 2 pushes, none left", arb.pushed, len(notes), err)
		}
	}
}
