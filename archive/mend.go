package archive

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// Mend puts right the months under prefixes whose trees reach objects the
// repository lacks: a month written while a git gc --prune=now ran (git's
// documented race of --prune=now with writers) can keep its top tree and
// lose the subtrees written with it, and then every sync of this clone
// fails reading it, and every git gc of the repository fails repacking it.
// A month whose own commit a prune took is among them. A month of this
// clone's own (prefix refstore.ArchivePrefix) is rebuilt from the records
// still readable in it and in the earlier versions its reflog keeps
// (none: the ref goes), and sync then joins the remote's copy of it in as
// ever; a copy of a remote's month is deleted, and the next fetch brings
// it whole. Either way the ref's reflog goes too: an entry naming the
// damaged tree stops git gc as the ref did. It returns a note per month
// put right, for the user: the records only the missing part held are
// gone from this clone.
func Mend(ctx context.Context, st Store, prefixes ...string) ([]string, error) {
	pt, ok := st.(refstore.PartTrees)
	if !ok {
		return nil, nil
	}
	var ids, whole []refstore.RefID
	for _, prefix := range prefixes {
		under, err := st.RefIDs(ctx, prefix)
		if err != nil {
			return nil, err
		}
		ids = append(ids, under...)
	}
	var notes []string
	// A month whose own object a prune took names nothing git can walk.
	for _, id := range ids {
		if _, err := st.ReadObject(ctx, id.OID); errors.Is(err, refstore.ErrNotFound) {
			note, err := mendOne(ctx, st, pt, id, nil, []string{id.OID})
			if err != nil {
				return notes, err
			}
			notes = append(notes, note)
			continue
		}
		whole = append(whole, id)
	}
	// One walk of the rest first: most often nothing is amiss.
	trees := make([]string, len(whole))
	for i, id := range whole {
		trees[i] = id.OID
	}
	if len(trees) == 0 {
		return notes, nil
	}
	if missing, err := pt.Missing(ctx, trees...); err != nil || len(missing) == 0 {
		return notes, err
	}
	for _, id := range whole {
		entries, missing, err := pt.ReadableTree(ctx, id.OID)
		if err != nil {
			return notes, fmt.Errorf("reading %s: %w", id.Ref, err)
		}
		if len(missing) == 0 {
			continue
		}
		note, err := mendOne(ctx, st, pt, id, entries, missing)
		if err != nil {
			return notes, err
		}
		notes = append(notes, note)
	}
	return notes, nil
}

// mendOne puts right month id, whose tree reaches the missing objects and
// of which entries can still be read, and returns the note that says so.
// A month of this clone's own is rebuilt from entries and from its
// earlier versions (withLogged); a copy of a remote's, or an own month
// nothing of which can be read, is deleted.
func mendOne(ctx context.Context, st Store, pt refstore.PartTrees, id refstore.RefID, entries []Entry, missing []string) (string, error) {
	own := strings.HasPrefix(id.Ref, refstore.ArchivePrefix)
	var err error
	if own {
		if entries, err = withLogged(ctx, pt, id, entries); err != nil {
			return "", fmt.Errorf("reading the reflog of %s: %w", id.Ref, err)
		}
	}
	tree := ""
	if own && len(entries) > 0 {
		if tree, err = st.BuildTree(ctx, "", entries); err != nil {
			return "", fmt.Errorf("rebuilding %s: %w", id.Ref, err)
		}
	}
	if err := st.Apply(ctx, "handoff: mend "+id.Ref+" (a git gc --prune=now removed part of it)", refstore.Update{Ref: id.Ref, New: tree, Old: id.OID}); err != nil {
		return "", fmt.Errorf("mending %s: %w", id.Ref, err)
	}
	// A ref deleted took its reflog with it; one rebuilt drops the
	// entries naming what is gone, which stop git gc as the ref did.
	if tree != "" {
		if err := pt.ForgetReflog(ctx, id.Ref); err != nil {
			return "", fmt.Errorf("mending %s: %w", id.Ref, err)
		}
	}
	switch {
	case tree == "" && own:
		return fmt.Sprintf("%s named a tree reaching %d objects this clone lacks (a git gc --prune=now ran while it was written), and nothing in it or its earlier versions could be read: deleted; any record only it held is gone from this clone's archive, unless the remote's copy of the month holds it", id.Ref, len(missing)), nil
	case !own:
		return fmt.Sprintf("%s named a tree reaching %d objects this clone lacks (a git gc --prune=now ran while it was fetched): deleted; the next fetch brings the month whole", id.Ref, len(missing)), nil
	}
	return fmt.Sprintf("%s named a tree reaching %d objects this clone lacks (a git gc --prune=now ran while it was written): rebuilt from the %d records still readable in it and in its earlier versions; any record only the lost part held is gone from this clone's archive, unless the remote's copy of the month holds it", id.Ref, len(missing), len(entries)), nil
}

// mendLogged bounds how far back a month's reflog is read: the damage is
// the newest write's, and a month is rewritten by every sync that moves
// it, so the few versions before it hold what the damage took.
const mendLogged = 64

// withLogged adds to entries, the records still readable in month id,
// those its earlier versions hold at paths entries lack, the newest
// readable version of each path: a month only grows, and the reflog
// keeps each earlier version, and the records in it, from git gc, so a
// record this clone archived and had not pushed yet (a baton a tie-break
// dropped here, one an end superseded) is kept when a prune takes the
// subtrees of a later version (found by the soak: a dropped baton gone
// from every repository after the month that held it was rebuilt).
func withLogged(ctx context.Context, pt refstore.PartTrees, id refstore.RefID, entries []Entry) ([]Entry, error) {
	logged, err := pt.Logged(ctx, id.Ref, mendLogged)
	if err != nil {
		return entries, err
	}
	have := make(map[string]bool, len(entries))
	for _, e := range entries {
		have[e.Path] = true
	}
	done := map[string]bool{id.OID: true}
	for _, old := range logged {
		if done[old] {
			continue
		}
		done[old] = true
		more, _, err := pt.ReadableTree(ctx, old)
		if err != nil {
			continue // a version git cannot read at all keeps nothing
		}
		for _, e := range more {
			if !have[e.Path] {
				have[e.Path] = true
				entries = append(entries, e)
			}
		}
	}
	return entries, nil
}
