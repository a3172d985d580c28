package archive

import (
	"context"
	"errors"

	"github.com/git-handoff/git-handoff/refstore"
)

// Build returns the tree of base ("" for none) with entries put in,
// moving no ref: for a caller that moves the month's ref itself, in a
// transaction or a push of its own (sync, which retires records and moves
// the month on both sides at once).
func Build(ctx context.Context, st Store, base string, entries []Entry) (string, error) {
	if len(entries) == 0 {
		return base, nil
	}
	if err := checkEntries(ctx, st, entries); err != nil {
		return "", err
	}
	return st.BuildTree(ctx, base, entries)
}

// Put adds entries to month's archive here, moving its ref by
// compare-and-swap (again, on a month another writer moved meanwhile):
// for a record a command of this clone decided out of the live refs by
// itself, which the next sync carries to the remote's month with the
// rest.
func Put(ctx context.Context, st Store, month, msg string, entries []Entry) error {
	if err := checkMonth(month); err != nil {
		return err
	}
	var err error
	for range 5 {
		var base, ref, tree string
		if base, ref, err = monthTree(ctx, st, month); err != nil {
			return err
		}
		if tree, err = Build(ctx, st, base, entries); err != nil || tree == base {
			return err
		}
		err = st.Apply(ctx, msg, refstore.Update{Ref: ref, Old: base, New: tree})
		if !errors.Is(err, refstore.ErrConflict) {
			return err
		}
	}
	return err
}
