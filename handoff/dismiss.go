package handoff

import (
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// DismissResult is the tombstone a dismissal wrote.
type DismissResult struct {
	Dismissed baton.Stored
	Notices   []string
}

// Dismiss deletes an unclaimed baton by its id, whoever's it is, leaving a
// tombstone. Unreadable records met on the way are notices, also when the
// baton is not found.
func Dismiss(ctx context.Context, st *refstore.Store, id string, clock Clock) (DismissResult, error) {
	h, warns, err := baton.FindLive(ctx, st, id)
	res := DismissResult{Notices: warningLines(warns)}
	if err != nil {
		return res, fmt.Errorf("dismissing baton: %w", err)
	}
	out, err := baton.Delete(ctx, st, h, "dismissed", clock())
	if err != nil {
		return res, fmt.Errorf("dismissing baton %s: %w", id, err)
	}
	res.Dismissed = out
	return res, nil
}

func warningLines(warns []baton.Warning) []string {
	var out []string
	for _, w := range warns {
		out = append(out, w.String())
	}
	return out
}
