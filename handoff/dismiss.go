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
	Conflicts []Conflict
}

// DismissOptions are what `git handoff dismiss` was asked.
type DismissOptions struct {
	ID      string  // the baton's id
	Arbiter Arbiter // nil = Local
}

// Dismiss deletes an unclaimed baton by its id, whoever's it is, leaving a
// tombstone, decided where its claims are (deleteDecided). Unreadable
// records met on the way are notices, also when the baton is not found.
func Dismiss(ctx context.Context, st refstore.Clone, opts DismissOptions, clock Clock) (DismissResult, error) {
	h, warns, err := baton.FindLive(ctx, st, opts.ID)
	res := DismissResult{Notices: warningLines(warns)}
	if err != nil {
		return res, fmt.Errorf("dismissing baton: %w", err)
	}
	out, conflict, err := deleteDecided(ctx, st, arbiter(opts.Arbiter), h, "dismissed", clock())
	if conflict != nil {
		res.Conflicts = append(res.Conflicts, *conflict)
	}
	if err != nil {
		return res, fmt.Errorf("dismissing baton %s: %w", opts.ID, err)
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
