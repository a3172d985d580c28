package teamsync

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"sort"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// Sync costs what changed, not what exists: one listing of refs/ao/ gives
// every local record's blob id and every tracking copy's, and only the keys
// where the two differ are read and joined. A blob id names its bytes, so
// equal ids are equal records: nothing to decide, nothing to write.

// refIDs are the blob ids of the local records and of remote's tracking
// copies, both keyed by the local ref, from one listing that reads no
// object.
type refIDs struct {
	local, remote map[string]string
	// archLocal and archRemote are the archive's months (archive.Month)
	// here and in remote's copy, with the trees they name.
	archLocal, archRemote map[string]string
	// copies are all of remote's copies under the tracking prefix, as
	// git lists them (records, archive, snapshots): what a fetch would
	// change.
	copies map[string]string
	// snapLocal and snapRemote are the snapshot refs here and remote's
	// copies of them, by ref, with the commits they name (snapshots.go).
	snapLocal, snapRemote map[string]string
	warns                 []string
}

// listIDs lists refs/ao/ once: the local records of our kinds, and the
// copies of remote's under tp.
func listIDs(ctx context.Context, st refstore.Records, tp string) (refIDs, error) {
	all, err := st.RefIDs(ctx, refstore.Root)
	if err != nil {
		return refIDs{}, fmt.Errorf("listing records: %w", err)
	}
	// Most refs are a record here and its copy there: sized for that.
	half := len(all)/2 + 1
	ids := refIDs{local: make(map[string]string, half), remote: make(map[string]string, half), archLocal: map[string]string{}, archRemote: map[string]string{},
		copies: make(map[string]string, half), snapLocal: map[string]string{}, snapRemote: map[string]string{}}
	archCopies := archiveCopies(tp)
	for _, id := range all {
		if strings.HasPrefix(id.Ref, tp) {
			ids.copies[id.Ref] = id.OID
		}
		switch {
		case kindOf(id.Ref) != nil:
			ids.local[id.Ref] = id.OID
		case strings.HasPrefix(id.Ref, refstore.SnapshotPrefix):
			ids.snapLocal[id.Ref] = id.OID
		case isSnapshotCopy(tp, id.Ref):
			ids.snapRemote[id.Ref] = id.OID
		case strings.HasPrefix(id.Ref, refstore.ArchivePrefix):
			ids.archLocal[strings.TrimPrefix(id.Ref, refstore.ArchivePrefix)] = id.OID
		case strings.HasPrefix(id.Ref, archCopies):
			ids.archRemote[strings.TrimPrefix(id.Ref, archCopies)] = id.OID
		case strings.HasPrefix(id.Ref, tp):
			if isCopyOfOther(tp, id.Ref) {
				continue // commits, joined on their own
			}
			ref, ok := localRef(tp, id.Ref)
			if !ok {
				ids.warns = append(ids.warns, fmt.Sprintf("skipping %s: not a kind of record git-handoff keeps", id.Ref))
				continue
			}
			ids.remote[ref] = id.OID
		}
	}
	return ids, nil
}

// differ says whether the two sides differ anywhere: a record, or an
// archive month. Where nothing does, a sync has nothing to judge.
func (ids refIDs) differ() bool {
	return !maps.Equal(ids.local, ids.remote) || !maps.Equal(ids.archLocal, ids.archRemote)
}

// isCopyOfOther reports a fetched ref under tp that is not a record: a
// snapshot (snapshots.go) or an archive month (archive_join.go).
func isCopyOfOther(tp, ref string) bool {
	rest, ok := strings.CutPrefix(ref, tp)
	return ok && (strings.HasPrefix(rest, snapshotRel) || strings.HasPrefix(rest, archiveRel))
}

// archiveRel is where the archive's months are, below refs/ao/ and below
// a tracking prefix alike (archiveCopies).
var archiveRel = strings.TrimPrefix(refstore.ArchivePrefix, refstore.Root)

// planned is what plan decided: a decision for each key whose two sides
// differ (or every key, when all are to be judged for collection), and
// the keys both sides hold alike, with their blob id.
type planned struct {
	decisions []decision
	settled   map[string]string
	// unread are the keys skipped because a side could not be read, with
	// what the remote holds there ("" for nothing).
	unread map[string]string
	warns  []string
}

// plan joins the keys where the local record and remote's copy differ,
// reading only those blobs; with all, it reads and judges every key, since
// a record alike on both sides may be final (retirement, which judges
// them when anything differs or the remote moved, and now and then). Keys where either side cannot be read are skipped with a
// warning: nothing local is lost and nothing unreadable is pushed over.
func plan(ctx context.Context, st refstore.Records, tp string, all bool, prog io.Writer, ids refIDs) (planned, error) {
	p := planned{settled: make(map[string]string, len(ids.local)), unread: map[string]string{}, warns: ids.warns}
	if !all && maps.Equal(ids.local, ids.remote) {
		// Alike on both sides, key for key: nothing to read or decide
		// (most syncs, and every one with nothing new).
		maps.Copy(p.settled, ids.local)
		p.decisions = []decision{}
		return p, nil
	}
	keys := make([]string, 0, len(ids.local)+len(ids.remote))
	for ref := range ids.local {
		keys = append(keys, ref)
	}
	for ref := range ids.remote {
		if _, ok := ids.local[ref]; !ok {
			keys = append(keys, ref)
		}
	}
	sort.Strings(keys)
	// Each blob is read once, and decoded as the record of its key: the
	// same blob on both sides is one version.
	var ask []refstore.RefID
	asked := map[refstore.RefID]bool{}
	for _, ref := range keys {
		l, r := ids.local[ref], ids.remote[ref]
		if l == r && !all {
			p.settled[ref] = l
			continue
		}
		for _, oid := range []string{l, r} {
			id := refstore.RefID{Ref: ref, OID: oid}
			if oid != "" && !asked[id] {
				asked[id] = true
				ask = append(ask, id)
			}
		}
	}
	got := make(map[refstore.RefID]readResult, len(ask))
	progress(prog, len(ask), "sync: reading %d records", len(ask))
	err := st.ReadEach(ctx, ask, func(e refstore.Entry) error {
		id := refstore.RefID{Ref: e.Ref, OID: e.OID}
		// e.Data is reused for the next object: a version keeps a copy.
		e.Data = bytes.Clone(e.Data)
		v, err := read(kindOf(e.Ref), e.Ref, e)
		got[id] = readResult{v, err}
		return nil
	})
	if err != nil {
		return p, fmt.Errorf("reading records: %w", err)
	}
	decideKeys := make([]string, 0, len(asked))
	for _, ref := range keys {
		if _, ok := p.settled[ref]; !ok {
			decideKeys = append(decideKeys, ref)
		}
	}
	progress(prog, len(decideKeys), "sync: merging %d records", len(decideKeys))
	look := storeLookup(ctx, st)
	p.decisions = make([]decision, 0, len(decideKeys))
	for _, ref := range decideKeys {
		l, r := ids.local[ref], ids.remote[ref]
		lv, lerr := side(got, ref, l)
		rv, rerr := side(got, ref, r)
		if lerr != nil || rerr != nil {
			p.unread[ref] = r
			if lerr != nil {
				p.warns = append(p.warns, fmt.Sprintf("skipping %s: %v", ref, lerr))
			}
			if rerr != nil && (lerr == nil || l != r) {
				// The same blob here and in the copy is one record to
				// skip, said once.
				p.warns = append(p.warns, fmt.Sprintf("skipping %s: %v", trackingRef(tp, ref), rerr))
			}
			continue
		}
		p.decisions = append(p.decisions, decide(kindOf(ref), ref, lv, rv, look))
	}
	return p, nil
}

// readResult is one blob read as the record of a key.
type readResult struct {
	v   *version
	err error
}

// side is the version read for ref's blob oid: nil for an absent side.
func side(got map[refstore.RefID]readResult, ref, oid string) (*version, error) {
	if oid == "" {
		return nil, nil
	}
	r, ok := got[refstore.RefID{Ref: ref, OID: oid}]
	if !ok {
		return nil, fmt.Errorf("blob %s was not read", oid)
	}
	return r.v, r.err
}
