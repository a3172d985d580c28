package lease

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/refstore"
)

// Retirement. A released or broken lease is history: sync retires it
// (teamsync) to the archive month it ended in, at its key's path there
// (archive.LeasePath), and the key's live ref goes, on every clone and on
// the remote. The archived version is the key's floor. Without it a
// retired key would start its versions over: a new take creates the ref
// afresh, and a clone still holding a copy from before (a holder that was
// broken or expired) could win the join against the new lineage and push
// a dead holding back over the board's decision. So a take of a key the
// board holds no ref of builds on its floor (its cause counts from the
// floor's: rev above it, the floor's writes seen), and sync treats a copy
// the floor is at or after as retired: never pushed back, never adopted.

// ArchivePath is where the final version of k's lease is archived once
// it retired: its floor.
func (k Key) ArchivePath() (string, error) { return archive.LeasePath(k.Kind, k.Value) }

// archiveTrees are the trees of the archive months under prefix, newest
// month first.
func archiveTrees(ctx context.Context, st refstore.Records, prefix string) ([]string, error) {
	months, err := archive.MonthsUnder(ctx, st, prefix)
	if err != nil {
		return nil, fmt.Errorf("listing the archive: %w", err)
	}
	out := make([]string, 0, len(months))
	for _, m := range months {
		if m.OID != "" {
			out = append(out, m.OID)
		}
	}
	return out, nil
}

// Floor is the version of ref's key retired last in the archive trees
// trees: of the versions the months hold at its path, the one with the
// highest rev (then blob id), as the months are named by the clocks of
// whoever retired it. ok is false when none holds one. A store without
// trees has no archive.
func Floor(ctx context.Context, st refstore.Records, trees []string, ref string) (Stored, bool, error) {
	fs, err := floors(ctx, st, trees, ref)
	if err != nil || len(fs) == 0 {
		return Stored{}, false, err
	}
	best := fs[0]
	for _, f := range fs[1:] {
		if f.Rev > best.Rev || f.Rev == best.Rev && f.OID > best.OID {
			best = f
		}
	}
	return best, true, nil
}

// floors are the versions of ref's key the trees hold, one per tree that
// holds one (a version that cannot be read as the key's lease is passed
// over: it decides nothing).
func floors(ctx context.Context, st refstore.Records, trees []string, ref string) ([]Stored, error) {
	if len(trees) == 0 {
		return nil, nil
	}
	ts, ok := st.(refstore.Trees)
	if !ok {
		return nil, errors.New("reading the lease archive: this store keeps no trees")
	}
	k, err := KeyOfRef(ref)
	if err != nil {
		return nil, err
	}
	p, err := k.ArchivePath()
	if err != nil {
		return nil, err
	}
	var out []Stored
	for _, t := range trees {
		e, err := ts.ReadPath(ctx, t, p)
		if errors.Is(err, refstore.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the archive for %s: %w", ref, err)
		}
		e.Ref = ref
		if l, err := Decode(e); err == nil {
			out = append(out, l)
		}
	}
	return out, nil
}

// atOrBelowFloor reports whether the version oid of ref is retired: a
// floor of its key is that very version or was written after it. The
// floor's cause names the versions it was written over (Prev, Back), so
// a version this clone never fetched (the guard names versions by blob
// id only) is judged too; one it holds is judged by the version vectors.
func atOrBelowFloor(ctx context.Context, st refstore.Records, trees []string, ref, oid string) (bool, error) {
	fs, err := floors(ctx, st, trees, ref)
	if err != nil || len(fs) == 0 {
		return false, err
	}
	var c *refstore.Cause
	if e, err := st.ReadObject(ctx, oid); err == nil {
		rc := refstore.RevOf(e.Data)
		c = &rc
	}
	for _, f := range fs {
		if f.OID == oid || f.Cause.Follows(oid) {
			return true, nil
		}
		if c != nil {
			if d, ok := f.Cause.Descends(*c); ok && d {
				return true, nil
			}
		}
	}
	return false, nil
}

// Retired are the final versions of the keys the snapshot's board
// retired and holds no live ref of (each key's Floor), in ref order:
// what `lease list --all` and `lease show` answer from the archive.
func Retired(ctx context.Context, st refstore.Records, s Snapshot) ([]Stored, error) {
	if len(s.Archive) == 0 {
		return nil, nil
	}
	ts, ok := st.(refstore.Trees)
	if !ok {
		return nil, errors.New("reading the lease archive: this store keeps no trees")
	}
	refs := map[string]bool{}
	for _, t := range s.Archive {
		entries, err := ts.ListTree(ctx, t, archive.LeasesDir)
		if err != nil {
			return nil, fmt.Errorf("listing the lease archive: %w", err)
		}
		for _, e := range entries {
			parts := strings.Split(e.Path, "/")
			if len(parts) != 3 {
				continue
			}
			kind, err1 := refstore.DecodeComponent(parts[1])
			value, err2 := refstore.DecodeComponent(parts[2])
			if err1 != nil || err2 != nil {
				continue
			}
			ref, err := Key{Kind: kind, Value: value}.Ref()
			if err != nil {
				continue
			}
			if _, live := s.Leases[ref]; !live {
				refs[ref] = true
			}
		}
	}
	var out []Stored
	for _, ref := range slices.Sorted(maps.Keys(refs)) {
		f, ok, err := Floor(ctx, st, s.Archive, ref)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, f)
		}
	}
	return out, nil
}
