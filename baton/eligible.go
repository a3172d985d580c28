package baton

import (
	"context"
	"errors"
	"sort"

	"github.com/git-handoff/git-handoff/refstore"
)

// The newest waiting shared baton is found from one listing of every
// shared baton (refs/ao/handoffs/shared/), read through git: one
// for-each-ref and one cat-file, whatever the ref backend. Nothing is kept
// between starts: every start decides from what the refs hold now.

// newestShared is the newest waiting shared baton that ok accepts, with
// the warnings of shared refs that do not hold a readable baton. The one
// returned is re-read from its ref just before, as the claim's
// compare-and-swap will read it: one claimed or replaced since it was
// listed is skipped, or takes its new place when its new version waits too.
func newestShared(ctx context.Context, st refstore.Records, ok func(*Stored) bool, warns []Warning) (*Stored, []Warning, error) {
	var cands []Stored
	err := st.EachStreamed(ctx, refstore.SharedPrefix, func(e refstore.Entry) error {
		s, err := Decode(e)
		if err != nil {
			warns = append(warns, Warning{Ref: e.Ref, Err: err})
			return nil
		}
		if s.Live() {
			cands = append(cands, s)
		}
		return nil
	})
	if err != nil {
		return nil, warns, err
	}
	sort.SliceStable(cands, func(i, j int) bool { return Newer(&cands[i].Baton, &cands[j].Baton) })
	moves := 0
	for i := 0; i < len(cands); i++ {
		c := cands[i]
		s, err := Read(ctx, st, c.Ref)
		switch {
		case errors.Is(err, refstore.ErrNotFound):
		case err != nil && isBadRecord(err):
			warns = append(warns, Warning{Ref: c.Ref, Err: err})
		case err != nil:
			return nil, warns, err
		case !s.Live():
		case s.OID != c.OID:
			// A newer version that waits too: it takes its own place in
			// the order. Bounded, so a ref rewritten without end cannot
			// keep us here.
			if moves++; moves <= 16 {
				rest := cands[i+1:]
				at := i + 1 + sort.Search(len(rest), func(k int) bool { return Newer(&s.Baton, &rest[k].Baton) })
				cands = append(cands[:at], append([]Stored{s}, cands[at:]...)...)
			}
		case ok(&s):
			return &s, warns, nil
		}
	}
	return nil, warns, nil
}
