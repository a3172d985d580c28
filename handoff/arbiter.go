package handoff

import (
	"context"

	"github.com/git-handoff/git-handoff/refstore"
)

// Arbiter decides a claim somewhere other clones can see before it is made
// locally: when a baton is known to a remote, the remote is the arbiter, so
// two clones claiming the same baton cannot both win.
type Arbiter interface {
	// Arbitrate makes the claim (up moves a baton ref from its unclaimed to
	// its claimed blob) at the arbiter. It returns an error wrapping
	// refstore.ErrConflict when the arbiter holds something else, and nil
	// when the baton is not known there (a purely local claim).
	Arbitrate(ctx context.Context, st *refstore.Store, up refstore.Update) error
}

// Local arbitrates nothing: the local ref transaction decides, as with
// --offline or a repository without a remote.
type Local struct{}

// Arbitrate always lets the local transaction decide.
func (Local) Arbitrate(context.Context, *refstore.Store, refstore.Update) error { return nil }
