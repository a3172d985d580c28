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
	var err error
	for range 5 {
		var up refstore.Update
		var moved bool
		if up, moved, err = Staged(ctx, st, month, entries); err != nil || !moved {
			return err
		}
		err = st.Apply(ctx, msg, up)
		if !errors.Is(err, refstore.ErrConflict) {
			return err
		}
	}
	return err
}

// Staged is the move of month's ref that adds entries to it here, for a
// command that applies it in its own transaction, with the write that
// takes the entries' records out of the live refs (so neither lands
// without the other); moved is false when the month holds them already.
// Its compare-and-swap fails the transaction if another writer moves the
// month first.
//
// A month here that a git gc --prune=now damaged (Mend) is mended first
// and built on again: until the next sync, every record a command
// archived by itself failed to be archived, and the dropped or superseded
// baton lived in a reflog its ref's retirement took (found by the soak).
func Staged(ctx context.Context, st Store, month string, entries []Entry) (up refstore.Update, moved bool, err error) {
	if err := checkMonth(month); err != nil {
		return refstore.Update{}, false, err
	}
	for mended := false; ; mended = true {
		base, ref, err := monthTree(ctx, st, month)
		if err != nil {
			return refstore.Update{}, false, err
		}
		tree, err := Build(ctx, st, base, entries)
		if errors.Is(err, refstore.ErrMissingObject) && !mended {
			if _, merr := Mend(ctx, st, refstore.ArchivePrefix); merr == nil {
				continue
			}
		}
		if err != nil || tree == base {
			return refstore.Update{}, false, err
		}
		return refstore.Update{Ref: ref, Old: base, New: tree}, true, nil
	}
}
