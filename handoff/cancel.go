package handoff

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// CancelOptions are what `git handoff cancel` was asked.
type CancelOptions struct {
	Owner  string
	Branch string
}

// CancelResult is what a cancel did.
type CancelResult struct {
	Who       Who
	Cancelled *baton.Stored // the tombstone written; nil when nothing was waiting
	Notices   []string
}

// Cancel takes back the owner's unclaimed private baton on the branch,
// leaving a tombstone. Nothing waiting is not an error: Cancelled is nil,
// with a notice when the baton had been claimed already.
func Cancel(ctx context.Context, st *refstore.Store, opts CancelOptions, clock Clock) (CancelResult, error) {
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return CancelResult{}, err
	}
	res := CancelResult{Who: who}
	ref, err := refstore.HandoffRef(false, who.Owner, who.Branch)
	if err != nil {
		return res, err
	}
	h, err := baton.Read(ctx, st, ref)
	switch {
	case errors.Is(err, refstore.ErrNotFound):
	case err != nil:
		return res, fmt.Errorf("cancelling the baton: %w", err)
	case h.Claimed:
		res.Notices = append(res.Notices, fmt.Sprintf("baton %s was already claimed by session %s: nothing to cancel", h.ID, h.ClaimedBySession))
	case h.Live():
		out, err := baton.Delete(ctx, st, h, "cancelled", clock())
		if err != nil {
			return res, fmt.Errorf("cancelling baton %s: %w", h.ID, err)
		}
		res.Cancelled = &out
	}
	return res, nil
}
