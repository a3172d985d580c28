package teamsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

// Leases as a kind sync joins (kinds.go lists it), and the arbiter as a
// lease board.

var leases = &recordKind[lease.Record]{
	read: func(e refstore.Entry) (lease.Record, error) {
		s, err := lease.Decode(e)
		return s.Record, err
	},
	causeOf:    func(r lease.Record) refstore.Cause { return r.Cause },
	rules:      leaseRules,
	ordered:    func(a, b lease.Record) bool { return a.Offline != b.Offline || bytes.Equal(canonical(a), canonical(b)) },
	retiresAt:  retiresLease,
	archivedAt: leaseArchivePath,
	// Keeping w over a concurrent l overrules a lease when l was another
	// holder's (that holder lost it) or l freed what w still holds.
	undoes: func(w, l lease.Record) bool {
		return w.Held() && l.Held() && w.Session != l.Session || w.Held() && !l.Held() && w.Session == l.Session
	},
	words: func(r lease.Record) string {
		if r.Held() {
			return fmt.Sprintf("lease %s held by session %s", r.Key, r.Session)
		}
		return fmt.Sprintf("lease %s (%s, last held by session %s)", r.Key, r.State, r.Session)
	},
}

// leaseRules: rev; then, of two versions written without seeing each
// other, one decided at the arbiter over one written offline (the arbiter
// is where leases are decided); then a released or broken version over a
// held one (freeing is final for that holding: a later take writes after
// seeing it, with a higher rev); then the encoding.
var leaseRules = []rule[lease.Record]{
	{whyRev, func(a, b lease.Record) int { return cmpRev(a.Cause, b.Cause) }},
	{"it was decided at the arbiter; the other was written offline", func(a, b lease.Record) int { return cmpBool(!a.Offline, !b.Offline) }},
	{"a released or broken lease is not revived by a copy that still reads held", func(a, b lease.Record) int { return cmpBool(!a.Held(), !b.Held()) }},
	{whyEncoding, func(a, b lease.Record) int { return bytes.Compare(canonical(a), canonical(b)) }},
}

// retiresLease: a released or broken lease, to the month it ended in,
// at its key's path (archive.LeasePath), which is also the key's floor.
// Retiring starts no lineage over: a new take of the key builds on the
// floor (lease.Floor), and a copy the floor is at or after is stale
// wherever it is (dropStale), so a clone still holding the dead holding
// cannot push it back over the board's decision (found by the simulation
// when leases first retired without floors, seed 8 without faults: two
// sessions holding src/**).
func retiresLease(r lease.Record, final final, _ map[string]bool) (retirement, bool) {
	if r.Held() || !final.at(r.RenewedAt) {
		return retirement{}, false
	}
	p, err := leaseArchivePath(r)
	return retirement{path: p, month: archive.Month(r.RenewedAt)}, err == nil
}

// leaseArchivePath is where r is archived: its key's path.
func leaseArchivePath(r lease.Record) (string, error) {
	k, err := lease.ParseKey(r.Key)
	if err != nil {
		return "", err
	}
	return k.ArchivePath()
}

// LeaseBoard is where this clone's leases are decided: the arbiter (the
// remote handoff.arbiter names, else the one remote that carries the
// team's records), else, with no remote or offline, this clone.
func LeaseBoard(ctx context.Context, st refstore.Clone, offline bool) (lease.Board, error) {
	if offline {
		return lease.LocalBoard{St: st}, nil
	}
	remote, err := Arbiter{}.remoteFor(ctx, st, lease.GuardRef)
	if err != nil {
		return nil, err
	}
	if remote == "" {
		return lease.LocalBoard{St: st}, nil
	}
	return LeaseBoardAt(st, remote)
}

// LeaseBoardAt is the board at the named remote.
func LeaseBoardAt(st refstore.Clone, remote string) (lease.Board, error) {
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return nil, err
	}
	enc, err := refstore.EncodeComponent(remote)
	if err != nil {
		return nil, err
	}
	return &remoteBoard{st: st, remote: remote, tp: tp, guardCopies: guardCopiesPrefix + enc + "/"}, nil
}

// remoteBoard decides leases at a remote: read by fetching its leases and
// guard, written by one atomic push with a lease on every ref.
type remoteBoard struct {
	st     refstore.Clone
	remote string
	tp     string // its tracking prefix
	// guardCopies is where its guard is fetched to.
	guardCopies string
}

func (b *remoteBoard) Where() string { return "remote " + b.remote }
func (b *remoteBoard) Local() bool   { return false }

func (b *remoteBoard) tracking(ref string) string {
	return trackingRef(b.tp, ref)
}

// copyOf is where this clone keeps its copy of the remote's ref: the
// tracking ref of a lease, the guard's own copy.
func (b *remoteBoard) copyOf(ref string) string {
	if ref == lease.GuardRef {
		return b.guardCopies + strings.TrimPrefix(ref, guardDir)
	}
	return b.tracking(ref)
}

func (b *remoteBoard) fetch(ctx context.Context, carried ...string) error {
	// The archive's months come with the leases: a key the remote holds
	// no ref of may have retired there, and a take of it builds on its
	// floor (lease.Floor).
	specs := []string{
		"+" + lease.Prefix + "*:" + b.tracking(lease.Prefix) + "*",
		"+" + guardDir + "*:" + b.guardCopies + "*",
		archiveRefspec(b.tp),
	}
	// A record carried in a swap (Carry) is fetched with its kind, by
	// pattern: a fetch of one ref the remote lacks fails.
	for _, ref := range carried {
		if k := kindOf(ref); k != nil && k.prefix != lease.Prefix {
			if spec := "+" + k.prefix + "*:" + b.tracking(k.prefix) + "*"; !contains(specs, spec) {
				specs = append(specs, spec)
			}
		}
	}
	if _, err := fetchPatiently(ctx, b.st, b.remote, specs, 3); err != nil {
		return &UnreachableError{Remote: b.remote, Err: err}
	}
	return nil
}

// guardDir is the guard's directory: fetched by pattern, since a fetch of
// one ref the remote lacks fails. Its copy is kept outside the tracking
// prefix, where sync would take it for a record of an unknown kind.
var guardDir = lease.GuardRef[:strings.LastIndex(lease.GuardRef, "/")+1]

// guardCopiesPrefix holds each remote's guard: refs/ao/leaseguards/<remote>/.
const guardCopiesPrefix = "refs/ao/leaseguards/"

func (b *remoteBoard) Snapshot(ctx context.Context) (lease.Snapshot, error) {
	if err := b.fetch(ctx); err != nil {
		return lease.Snapshot{}, err
	}
	// The floors are read from the remote's archive and from this
	// clone's: a month the remote lost (its gc raced a push, lost.go) is
	// left out of the fetch, and this clone's copy of it still tells the
	// floor; without it a take would start the key's versions over.
	return lease.ReadBoardWithArchive(ctx, b.st, b.tracking(lease.Prefix), b.copyOf(lease.GuardRef), archiveCopies(b.tp), refstore.ArchivePrefix)
}

// Swap pushes ups atomically. A push that fails is looked into by a
// fetch: every ref at its New is a push that landed whose answer was
// lost; every ref still at its Old is a refusal (a hook, a permission),
// returned as it is; anything else lost a lease to another writer
// (refstore.ErrConflict), for the caller to read again.
func (b *remoteBoard) Swap(ctx context.Context, msg string, ups []refstore.Update) error {
	// A ref the remote holds no version of may be one it deleted for an
	// object its gc lost, until a clone holding the object pushes it back
	// (lost.go): creating it then would decide over a holding nobody can
	// see (found by the simulation, seed 6035: a renewal's object lost,
	// the key taken afresh by another session).
	for _, u := range ups {
		if u.Old == "" {
			if err := markedLost(ctx, b.st, b.remote, u.Ref); err != nil {
				return err
			}
		}
	}
	perr := b.st.Push(ctx, b.remote, ups, refstore.PushOptions{Atomic: true, NoVerify: true})
	if perr != nil {
		var carried []string
		for _, u := range ups {
			carried = append(carried, u.Ref)
		}
		if err := b.fetch(ctx, carried...); err != nil {
			return fmt.Errorf("%v; then fetching to see why: %w", perr, err)
		}
		landed, unmoved := true, true
		var moved *refstore.ConflictError
		for _, u := range ups {
			now, err := refstore.ResolveID(ctx, b.st, b.copyOf(u.Ref))
			if err != nil && !errors.Is(err, refstore.ErrNotFound) {
				return err
			}
			landed = landed && now == u.New
			if now != u.Old {
				unmoved = false
				if moved == nil {
					moved = &refstore.ConflictError{Ref: u.Ref, Expected: u.Old, Actual: now}
				}
			}
		}
		switch {
		case landed:
		case unmoved:
			return fmt.Errorf("pushing the lease to %s: %w", b.remote, perr)
		default:
			return fmt.Errorf("deciding at %s: %w", b.remote, moved)
		}
	}
	b.record(ctx, msg, ups)
	return nil
}

// record moves the tracking refs and this clone's lease refs to what the
// remote took. A ref that cannot move is only a stale copy: the next
// fetch or sync mends it.
func (b *remoteBoard) record(ctx context.Context, msg string, ups []refstore.Update) {
	for _, u := range ups {
		targets := []string{b.copyOf(u.Ref)}
		if strings.HasPrefix(u.Ref, lease.Prefix) {
			targets = append(targets, u.Ref)
		}
		for _, ref := range targets {
			for range 3 {
				cur, err := refstore.ResolveID(ctx, b.st, ref)
				if err != nil && !errors.Is(err, refstore.ErrNotFound) || cur == u.New {
					break
				}
				if err := b.st.Apply(ctx, msg+" (decided at "+b.remote+")", refstore.Update{Ref: ref, New: u.New, Old: cur}); !errors.Is(err, refstore.ErrConflict) {
					break
				}
			}
		}
	}
}

// Carry puts this clone's version of a record (ref, of a kind sync
// joins) in a swap at the remote, the way sync would push it: over the
// remote's version, fetched now, when the join keeps ours (lease.Carrier);
// lease.ErrNotCarried when it keeps the remote's. The swap's lease on the
// remote's version makes the two one decision: a pull request's lease is
// taken with its ownership only while no other claim's ownership won at
// the remote meanwhile.
func (b *remoteBoard) Carry(ctx context.Context, ref string) (refstore.Update, error) {
	k := kindOf(ref)
	if k == nil || k.prefix == lease.Prefix {
		return refstore.Update{}, fmt.Errorf("carrying %s with a lease: not a record sync joins", ref)
	}
	e, err := b.st.Get(ctx, ref)
	if err != nil {
		return refstore.Update{}, err
	}
	if err := b.fetch(ctx, ref); err != nil {
		return refstore.Update{}, err
	}
	up := refstore.Update{Ref: ref, New: e.OID}
	te, err := b.st.Get(ctx, b.tracking(ref))
	switch {
	case errors.Is(err, refstore.ErrNotFound):
		return up, nil
	case err != nil:
		return refstore.Update{}, err
	}
	up.Old = te.OID
	if te.OID == e.OID {
		return up, nil
	}
	ours, err := read(k, ref, e)
	if err != nil {
		return refstore.Update{}, err
	}
	theirs, err := read(k, ref, te)
	if err != nil {
		return refstore.Update{}, err
	}
	if d := decide(k, ref, ours, theirs, nil); d.winner != ours {
		return refstore.Update{}, fmt.Errorf("%s at %s: %w", ref, b.remote, lease.ErrNotCarried)
	}
	return up, nil
}
