package teamsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// A claim or deletion decided at the arbiter can replace a teammate's baton
// written without seeing ours (the join's tie-break, weigh): the replaced
// baton goes in this clone's conflict log once the push is known to have
// landed (recordDecided). A process killed after the push and before that,
// or a push that landed with its answer lost, dropped the teammate's baton
// with nobody told (found by the simulation: a start that died after its
// claim's push, seeds 28, 31 and 32). So the tie is noted first, in
// ties/<hash>, and settled by whoever learns the push's fate: the arbiter
// itself when it hears, else the next sync after its fetch (settleTies).

// tiesDir holds the notes of ties in flight (refstore/local.go).
const tiesDir = "ties"

// tie is a decision at the arbiter that replaces a concurrent version.
type tie struct {
	Remote  string    `json:"remote"`
	Ref     string    `json:"ref"`
	Kept    string    `json:"kept"`    // ours, pushed
	Dropped string    `json:"dropped"` // the remote's, the push's lease
	At      time.Time `json:"at"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
}

func (t tie) name() string {
	sum := sha256.Sum256([]byte(t.Ref + "\x00" + t.Kept + "\x00" + t.Dropped))
	return tiesDir + "/" + hex.EncodeToString(sum[:8])
}

// noteTie notes t before its push. A note that cannot be written fails the
// decision before anything is pushed.
func noteTie(ctx context.Context, l refstore.Local, t tie) error {
	t.Host, _ = os.Hostname()
	t.PID = os.Getpid()
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return l.Write(ctx, t.name(), data)
}

// tieLanded settles t, its push having landed: the baton it dropped is
// archived here, its conflict noted, and its note drops (kept while
// either fails, for settleTies to do again).
//
// The dropped baton is archived as sync's tie-break archives it
// (archiveDropped), and the next sync carries it to the remote's month.
// The remote held it, decided, and this push took its history away: a
// dismissal or cancel there that nothing else records, so a clone
// holding the baton's waiting copy, whose push of it got no answer and
// which never learned the remote had it, found it neither at the remote
// (the claim over it retired) nor in the archive, and claimed and
// delivered it (found by the widened simulation, seed 20038: a baton
// dismissed at the remote, a claim of a concurrent baton at the key
// replacing the tombstone, the claim retired, and the waiting copy's
// start handed it).
func tieLanded(ctx context.Context, st refstore.Clone, t tie) {
	l := st.Local()
	archived := archiveTied(ctx, st, t)
	n := refstore.ConflictNote{At: t.At, Ref: t.Ref, Kept: t.Kept, Dropped: t.Dropped,
		Message: refstore.ConflictReflog + " from " + t.Remote + ": kept " + t.Kept + " over " + t.Dropped + " (a claim or deletion decided there)"}
	if refstore.NoteConflict(ctx, l, n) == nil && archived == nil {
		_ = l.Remove(t.name())
	}
}

// archiveTied archives here the baton t's push dropped for the one it
// kept (archiveDroppedHere). Either version unreadable here leaves
// nothing to archive.
func archiveTied(ctx context.Context, st refstore.Clone, t tie) error {
	k := kindOf(t.Ref)
	if k == nil {
		return nil
	}
	kept, dropped := versionOf(ctx, st, k, t.Ref, t.Kept), versionOf(ctx, st, k, t.Ref, t.Dropped)
	if kept == nil || dropped == nil {
		return nil
	}
	d := decision{ref: t.Ref, local: kept, remote: dropped, winner: kept, conflict: true}
	return archiveDroppedHere(ctx, st, &d)
}

// settleTies settles the ties noted for remote by processes that are gone,
// from what this clone fetched from it last: a push that landed (the
// remote holds our version, one written over it, or archived one of them)
// gets its conflict noted; one that did not is dropped. A remote's refs
// not fetched (a failed fetch) settle nothing.
func settleTies(ctx context.Context, st refstore.Clone, remote string) {
	l := st.Local()
	names, err := l.List(tiesDir)
	if err != nil || len(names) == 0 {
		return
	}
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return
	}
	for _, name := range names {
		data, err := l.Read(tiesDir + "/" + name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var t tie
		if err != nil || json.Unmarshal(data, &t) != nil || t.Ref == "" {
			_ = l.Remove(tiesDir + "/" + name) // torn by a kill: it was never pushed
			continue
		}
		if t.Remote != remote || !handoff.Gone(t.Host, t.PID) {
			continue
		}
		landed, known := tieFate(ctx, st, tp, t)
		switch {
		case !known:
		case landed:
			tieLanded(ctx, st, t)
		default:
			_ = l.Remove(t.name())
		}
	}
}

// tieFate tells whether t's push landed: the remote held t.Kept at some
// time (heldOnce). known is false when the clone cannot tell yet.
func tieFate(ctx context.Context, st refstore.Clone, tp string, t tie) (landed, known bool) {
	landed, err := heldOnce(ctx, st, t.Remote, tp, t.Ref, t.Kept)
	return landed, err == nil
}

// heldOnce reports whether remote (its tracking refs under tp) held the
// blob oid at ref at some time: it holds oid or a version written after it
// (refstore.WrittenOver), or its archive holds one: the baton's own
// version, retired, or a floor of the ref, when a version written over it
// was retired and the ref made anew (found by the simulation); or it
// marks the ref lost naming oid or a version written after it: it held
// that, then its gc lost the object and a heal deleted the ref until a
// clone holding it pushes it back (found by the simulation, seed
// 1796600000: a start's claim landed, the remote lost its object, and
// the next claim here took the noted claim for never won, dropped the
// note, and the baton, pushed back from here later, was claimed by a
// session that never received it).
func heldOnce(ctx context.Context, st refstore.Clone, remote, tp, ref, oid string) (bool, error) {
	cur, err := refstore.ResolveID(ctx, st, trackingRef(tp, ref))
	if err != nil && !errors.Is(err, refstore.ErrNotFound) {
		return false, err
	}
	if refstore.WrittenOver(ctx, st, cur, oid) {
		return true, nil
	}
	if cur == "" {
		lost, err := lostThereNow(ctx, st, remote, func(r string) bool { return r == ref })
		if err != nil {
			return false, err
		}
		for _, m := range lost {
			if refstore.WrittenOver(ctx, st, m.oid, oid) {
				return true, nil
			}
		}
	}
	av, err := remoteArchive(ctx, st, remote)
	if err != nil {
		return false, err
	}
	if e, err := st.ReadObject(ctx, oid); err == nil {
		e.Ref = ref
		var b baton.Baton
		if refstore.Decode(e, baton.Schema, &b) == nil {
			if p, err := archive.BatonPath(b.ID); err == nil {
				if at, err := av.at(ctx, p); err == nil && refstore.WrittenOver(ctx, st, at, oid) {
					return true, nil
				}
			}
		}
	}
	return av.anyFloor(ctx, ref, func(e refstore.Entry) bool {
		return refstore.WrittenOver(ctx, st, e.OID, oid)
	})
}
