package handoff

import (
	"context"
	"errors"
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
	if errors.Is(err, refstore.ErrNotFound) {
		// A baton this clone holds, already cancelled or dismissed, is
		// there but gone from the queue: a conflict of state (exit 5),
		// as undismiss of a waiting baton is, not "not found" (exit 6,
		// for an id no record here has).
		if gone, ok := tombstoneOf(ctx, st, opts.ID); ok {
			err = baton.NotLive(gone.Baton, "")
		}
	}
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

// tombstoneOf finds the current version of baton id when it is a
// cancellation or a dismissal.
func tombstoneOf(ctx context.Context, st refstore.Records, id string) (baton.Stored, bool) {
	var found *baton.Stored
	var warns []baton.Warning // met already by FindLive, and said
	baton.Each(ctx, st, refstore.HandoffsPrefix, func(s baton.Stored) {
		if s.ID == id && s.Deleted != nil && !s.Claimed {
			c := s
			found = &c
		}
	}, &warns)
	if found == nil {
		return baton.Stored{}, false
	}
	return *found, true
}

func warningLines(warns []baton.Warning) []string {
	var out []string
	for _, w := range warns {
		out = append(out, w.String())
	}
	return out
}
