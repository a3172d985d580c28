package baton

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/internal/simdefect"
	"github.com/git-handoff/git-handoff/refstore"
)

// Stored is a baton as read from its ref, with the id the ref held, which a
// later swap must name as its expected old value.
type Stored struct {
	Baton
	Ref string `json:"ref"`
	OID string `json:"-"`
	// Signature is who signed the baton's notes and whether that signer
	// may speak for its owner; nil until a workflow checks it
	// (refstore.Store.Verify). Decoding never checks: that runs programs.
	Signature *refstore.Verification `json:"-"`
	// Sealed: the blob carries a signature (refstore.Signed), so an
	// unsigned baton is known as such without reading it again.
	Sealed bool `json:"-"`
	// Fenced: show the notes as data to weigh, not instructions to
	// follow (they are not verifiably their owner's, and may be someone
	// else's words). Set with Signature.
	Fenced bool `json:"-"`
}

// Warning is a baton record that could not be read (refstore.Skipped).
type Warning = refstore.Skipped

// ClaimedError says a baton had already been claimed, and by whom.
type ClaimedError struct {
	Baton Baton
}

func (e *ClaimedError) Error() string {
	b := e.Baton
	when := ""
	if b.ClaimedAt != nil {
		when = " at " + b.ClaimedAt.Format(time.RFC3339)
	}
	return fmt.Sprintf("baton %s was already claimed by session %s%s", b.ID, b.ClaimedBySession, when)
}

func (e *ClaimedError) Unwrap() error { return refstore.ErrConflict }

// DeletedError says the baton was cancelled or dismissed (somewhere: Where
// names the remote that decided it, "" for this clone) before the claim or
// deletion that meets it: that one was not made.
type DeletedError struct {
	Baton Baton
	Where string
}

func (e *DeletedError) Error() string {
	b := e.Baton
	reason, when := "deleted", ""
	if d := b.Deleted; d != nil {
		reason, when = d.Reason, " at "+d.At.Format(time.RFC3339)
	}
	if e.Where != "" {
		return fmt.Sprintf("baton %s was already %s on %s%s", b.ID, reason, e.Where, when)
	}
	return fmt.Sprintf("baton %s was already %s%s", b.ID, reason, when)
}

func (e *DeletedError) Unwrap() error { return refstore.ErrConflict }

// NotLive is the error for acting on a baton that is no longer waiting:
// *ClaimedError when it was claimed, *DeletedError when it was cancelled
// or dismissed.
func NotLive(b Baton, where string) error {
	if b.Deleted != nil && !b.Claimed {
		return &DeletedError{Baton: b, Where: where}
	}
	return &ClaimedError{Baton: b}
}

// Decode reads one entry as a baton, refusing a record that belongs at
// another ref than e.Ref. It is the one decoder of batons: sync uses it too.
func Decode(e refstore.Entry) (Stored, error) {
	b, err := DecodeVersion(e)
	if err != nil {
		return Stored{}, err
	}
	b.normalize()
	// A record is trusted only at its own place: a teammate's record that
	// claims another owner or branch than its ref says is skipped.
	if err := AtItsPlace(e.Ref, b.Owner, b.Branch, b.Shared); err != nil {
		return Stored{}, err
	}
	return Stored{Baton: b, Ref: e.Ref, OID: e.OID, Sealed: refstore.Signed(e.Data)}, nil
}

// AtItsPlace is nil when a baton of owner on branch (shared or not)
// belongs at ref, and otherwise the error that says it belongs elsewhere.
func AtItsPlace(ref, owner, branch string, shared bool) error {
	if want, err := refstore.HandoffRef(shared, owner, branch); err != nil || want != ref {
		return fmt.Errorf("%w: %s holds a baton of owner %q on branch %q (shared %v), which belongs elsewhere", refstore.ErrInvalidRecord, ref, owner, branch, shared)
	}
	return nil
}

// DecodeVersion reads a blob as a baton record as refstore.Decode does
// (no ref to check it against: a version out of a reflog or a swap's old
// side).
func DecodeVersion(e refstore.Entry) (Baton, error) {
	var b Baton
	if err := refstore.Decode(e, Schema, &b); err != nil {
		return Baton{}, err
	}
	return b, nil
}

// Read reads the baton at ref (ErrNotFound when there is none).
func Read(ctx context.Context, st refstore.Records, ref string) (Stored, error) {
	e, err := st.Get(ctx, ref)
	if err != nil {
		return Stored{}, err
	}
	return Decode(e)
}

// Written returns the swap that stores b at its ref in place of whatever
// baton is there now (a new baton supersedes the old one).
func Written(ctx context.Context, st refstore.Writer, b Baton) (Stored, refstore.Update, error) {
	ref, err := refstore.HandoffRef(b.Shared, b.Owner, b.Branch)
	if err != nil {
		return Stored{}, refstore.Update{}, err
	}
	old, err := refstore.ResolveID(ctx, st, ref)
	if err != nil && !errors.Is(err, refstore.ErrNotFound) {
		return Stored{}, refstore.Update{}, err
	}
	base := old
	if old == "" {
		// A ref this clone holds no version of may have retired here:
		// the new baton counts on from the version retired last.
		if base, err = Floor(ctx, st, ref); err != nil {
			return Stored{}, refstore.Update{}, err
		}
	}
	oid, data, err := refstore.WriteVersion(ctx, st, ref, base, &b.Cause, &b)
	if err != nil {
		return Stored{}, refstore.Update{}, err
	}
	return Stored{Baton: b, Ref: ref, OID: oid, Sealed: refstore.Signed(data)}, refstore.Update{Ref: ref, New: oid, Old: old}, nil
}

// Floor is the version of the baton ref retired last in this clone's
// archive (its floors, archive.KeyDir: one per baton retired there, the
// highest rev, then blob id), "" when none: what a baton written at a ref
// this clone holds no version of builds on, as a lease take builds on
// its key's floor (lease.Floor).
//
// Retirement takes the ref's history with it. A baton written afresh
// after a sync retired the claimed one would count this clone's writes
// from nothing, its clock marking every count before its own as unseen
// (refstore.Cause.JumpBy), so it would look concurrent with the claimed
// version it was written after; a teammate still holding a copy of that
// claimed version kept it in the join, by its higher rev, and its start
// passed over the new baton waiting at the remote (found by the soak on
// git 2.55: a start killed after its claim landed, a sync that retired
// the claim, then an end here; the teammate's next start delivered
// nothing, and an automatic handoff there replaced the waiting baton).
func Floor(ctx context.Context, st refstore.Records, ref string) (string, error) {
	ts, ok := st.(refstore.Trees)
	if !ok {
		return "", nil // a store without trees keeps no archive
	}
	dir, err := archive.KeyDir(ref)
	if err != nil {
		return "", nil // a ref the archive cannot name has no floor
	}
	months, err := archive.Months(ctx, st)
	if err != nil {
		return "", fmt.Errorf("listing the archive for %s: %w", ref, err)
	}
	best, bestRev := "", uint64(0)
	for _, m := range months {
		if m.OID == "" {
			continue
		}
		// One read through the long-lived cat-file says whether the
		// month holds a floor of the ref; only one that does is listed
		// (a git ls-tree each).
		if _, err := ts.ReadPath(ctx, m.OID, dir); errors.Is(err, refstore.ErrNotFound) {
			continue
		}
		es, err := ts.ListTree(ctx, m.OID, dir)
		if err != nil {
			if errors.Is(err, refstore.ErrNotFound) {
				continue
			}
			return "", fmt.Errorf("reading the archive for %s: %w", ref, err)
		}
		for _, f := range es {
			e, err := st.ReadObject(ctx, f.OID)
			if err != nil {
				continue // gone from this clone: it says nothing
			}
			rev := refstore.RevOf(e.Data).Rev
			if best == "" || rev > bestRev || rev == bestRev && f.OID > best {
				best, bestRev = f.OID, rev
			}
		}
	}
	return best, nil
}

// Eligible finds the baton the next session of owner on branch should get:
// owner's own unclaimed private baton for branch; only when there is none,
// the newest unclaimed shared baton of any owner and branch. Another owner's
// or branch's private baton is never considered. nil means none.
func Eligible(ctx context.Context, st refstore.Records, owner, branch string) (*Stored, []Warning, error) {
	return EligibleWhere(ctx, st, owner, branch, nil)
}

// EligibleWhere is Eligible where accept, when not nil, may refuse a
// candidate (one not verifiably its owner's, when delivery requires
// signatures): a refused private baton leaves the shared ones eligible, and
// a refused shared one the next newest. accept may set the candidate's
// Signature; it is kept on the baton returned.
func EligibleWhere(ctx context.Context, st refstore.Records, owner, branch string, accept func(*Stored) bool) (*Stored, []Warning, error) {
	ok := func(s *Stored) bool { return accept == nil || accept(s) }
	var warns []Warning
	ref, err := refstore.HandoffRef(false, owner, branch)
	if err != nil {
		return nil, nil, err
	}
	s, err := Read(ctx, st, ref)
	switch {
	case err == nil && s.Live() && ok(&s):
		return &s, nil, nil
	case err != nil && !errors.Is(err, refstore.ErrNotFound):
		if !isBadRecord(err) {
			return nil, nil, err
		}
		warns = append(warns, Warning{Ref: ref, Err: err})
	}
	return newestShared(ctx, st, ok, warns)
}

func isBadRecord(err error) bool {
	return errors.Is(err, refstore.ErrInvalidRecord) || errors.Is(err, refstore.ErrTooLarge)
}

// Each decodes every baton under prefix, collecting unreadable ones as
// warnings.
func Each(ctx context.Context, st refstore.Records, prefix string, fn func(Stored), warns *[]Warning) error {
	return each(ctx, st.EachStreamed, prefix, fn, warns)
}

func each(ctx context.Context, list func(context.Context, string, func(refstore.Entry) error) error, prefix string, fn func(Stored), warns *[]Warning) error {
	return list(ctx, prefix, func(e refstore.Entry) error {
		s, err := Decode(e)
		if err != nil {
			*warns = append(*warns, Warning{Ref: e.Ref, Err: err})
			return nil
		}
		fn(s)
		return nil
	})
}

// Claimed returns s in its claimed form and the swap that stores it, for a
// caller that commits it in a transaction of its own.
func Claimed(ctx context.Context, st refstore.Writer, s Stored, session string, now time.Time) (Stored, refstore.Update, error) {
	if !s.Live() {
		return Stored{}, refstore.Update{}, NotLive(s.Baton, "")
	}
	c := s.Baton
	at := now.UTC()
	c.Claimed, c.ClaimedAt, c.ClaimedBySession = true, &at, session
	return prepare(ctx, st, s, c)
}

// Released returns s, claimed, waiting again for the next session, and the
// swap that stores it: the session that claimed it never acted on it.
func Released(ctx context.Context, st refstore.Writer, s Stored, now time.Time) (Stored, refstore.Update, error) {
	if !s.Claimed || s.Deleted != nil {
		return Stored{}, refstore.Update{}, fmt.Errorf("baton %s is not claimed: nothing to offer again", s.ID)
	}
	r := s.Baton
	r.Reoffered = &Reoffer{Session: r.ClaimedBySession, At: now.UTC()}
	r.Claimed, r.ClaimedAt, r.ClaimedBySession = false, nil, ""
	return prepare(ctx, st, s, r)
}

// LostClaim turns a failed claim or deletion of s into *ClaimedError or
// *DeletedError when the same baton is no longer waiting here; other
// errors pass through.
func LostClaim(ctx context.Context, st refstore.Records, s Stored, err error) error {
	if errors.Is(err, refstore.ErrConflict) {
		if cur, rerr := Read(ctx, st, s.Ref); rerr == nil && cur.ID == s.ID && !cur.Live() {
			return NotLive(cur.Baton, "")
		}
	}
	return err
}

// Tombstone writes the tombstone of s, for cancel ("cancelled") and dismiss
// ("dismissed"), and returns it with the swap that puts it in place.
func Tombstone(ctx context.Context, st refstore.Writer, s Stored, reason string, now time.Time) (Stored, refstore.Update, error) {
	if !s.Live() && !(s.Deleted == nil && simdefect.On(simdefect.DismissSkipsClaimCheck)) { // planted defect (package sim), off without the simdefects tag
		return Stored{}, refstore.Update{}, NotLive(s.Baton, "")
	}
	d := s.Baton
	d.Deleted = &Deletion{Reason: reason, At: now.UTC()}
	return prepare(ctx, st, s, d)
}

// Delete tombstones s in this clone alone: the local swap decides, as
// where no remote arbitrates the baton.
func Delete(ctx context.Context, st refstore.Writer, s Stored, reason string, now time.Time) (Stored, error) {
	out, up, err := Tombstone(ctx, st, s, reason, now)
	if err != nil {
		return Stored{}, err
	}
	if err := st.Apply(ctx, "handoff: "+reason+" "+s.ID, up); err != nil {
		return Stored{}, LostClaim(ctx, st, s, err)
	}
	return out, nil
}

// prepare writes the blob of "to", as the version that follows from.OID,
// and returns the swap from "from" to it.
func prepare(ctx context.Context, st refstore.Writer, from Stored, to Baton) (Stored, refstore.Update, error) {
	oid, data, err := refstore.WriteVersion(ctx, st, from.Ref, from.OID, &to.Cause, &to)
	if err != nil {
		return Stored{}, refstore.Update{}, err
	}
	return Stored{Baton: to, Ref: from.Ref, OID: oid, Sealed: refstore.Signed(data)}, refstore.Update{Ref: from.Ref, New: oid, Old: from.OID}, nil
}

// Filter selects batons for List.
type Filter struct {
	All    bool   // every owner's, claimed ones too
	Owner  string // otherwise: this owner's live private batons and live shared ones
	Branch string // "" = any branch
}

// List returns the batons f selects, newest first. Tombstones are never listed.
func List(ctx context.Context, st refstore.Records, f Filter) ([]Stored, []Warning, error) {
	return ListEach(ctx, st, f, func(s *Stored) Stored { return *s })
}

// ListEach is List for a caller that keeps less than a whole baton: conv
// reduces each selected baton as it is read (to its output, say), and only
// what it returns is kept, with the order's key, for the sort.
func ListEach[T any](ctx context.Context, st refstore.Records, f Filter, conv func(*Stored) T) ([]T, []Warning, error) {
	l := listing[T]{conv: conv}
	n := -1
	err := st.EachStreamed(ctx, refstore.HandoffsPrefix, func(e refstore.Entry) error {
		n++
		s, err := Decode(e)
		if err != nil {
			l.warn(n, Warning{Ref: e.Ref, Err: err})
			return nil
		}
		if !f.selects(&s) {
			return nil
		}
		return l.keep(n, s)
	})
	warns := l.warningsInRefOrder()
	return l.newestFirst(), warns, err
}

// selects reports whether f lists s. Tombstones are never listed.
func (f Filter) selects(s *Stored) bool {
	switch {
	case s.Deleted != nil:
		return false
	case f.All:
	case !s.Live():
		return false
	case s.Shared:
	case s.Owner == f.Owner && (f.Branch == "" || s.Branch == f.Branch):
	default:
		return false
	}
	return true
}

// listed is what Newer orders by, kept small and free of pointers (the id
// is kept in listing.ids, one buffer for all): a hundred thousand of these
// stay until the sort, and a collection meanwhile need not look at them.
type listed[T any] struct {
	sec   int64 // createdAt, as Unix seconds and nanoseconds
	nsec  int32
	n     int32 // the place in ref order, which breaks ties as a stable sort would
	idOff int32 // the id: ids[idOff : idOff+idLen]
	idLen int32
	v     T
}

// placedWarning is a warning with its baton's place n in ref order, which
// the warnings are put back in (a store once read them in pack order;
// EachStreamed gives ref order).
type placedWarning struct {
	n int
	w Warning
}

// listing is what ListEach gathers as it reads the batons, each with its
// place n in ref order, which breaks the sort's ties.
type listing[T any] struct {
	conv   func(*Stored) T
	out    []listed[T]
	ids    []byte
	warned []placedWarning
	// One baton is handed to conv at a time: conv keeps what it needs,
	// so the same variable serves every baton instead of one allocated
	// for each.
	cur Stored
}

// warn notes the warning for the baton at place n.
func (l *listing[T]) warn(n int, w Warning) {
	l.warned = append(l.warned, placedWarning{n, w})
}

// keep reduces the selected baton s, at place n, with conv and keeps what
// conv returns with the order's key.
func (l *listing[T]) keep(n int, s Stored) error {
	if len(l.ids)+len(s.ID) > math.MaxInt32 {
		return fmt.Errorf("listing batons: more ids than a listing holds")
	}
	k := listed[T]{sec: s.CreatedAt.Unix(), nsec: int32(s.CreatedAt.Nanosecond()), n: int32(n), idOff: int32(len(l.ids)), idLen: int32(len(s.ID))}
	l.ids = append(l.ids, s.ID...)
	l.cur = s
	k.v = l.conv(&l.cur)
	l.out = append(l.out, k)
	return nil
}

// warningsInRefOrder returns the warnings in their batons' ref order.
func (l *listing[T]) warningsInRefOrder() []Warning {
	slices.SortFunc(l.warned, func(a, b placedWarning) int { return cmp.Compare(a.n, b.n) })
	var warns []Warning
	for _, w := range l.warned {
		warns = append(warns, w.w)
	}
	return warns
}

// newestFirst sorts what was kept as Newer orders batons and returns it.
func (l *listing[T]) newestFirst() []T {
	id := func(k *listed[T]) []byte { return l.ids[k.idOff : k.idOff+k.idLen] }
	slices.SortFunc(l.out, func(a, b listed[T]) int {
		// Newer, on the two fields it reads (seconds then nanoseconds
		// order instants as time.Compare does).
		if c := cmp.Compare(b.sec, a.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(b.nsec, a.nsec); c != 0 {
			return c
		}
		if c := bytes.Compare(id(&b), id(&a)); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	})
	vs := make([]T, len(l.out))
	for i := range l.out {
		vs[i] = l.out[i].v
	}
	return vs
}

// FindLive finds an unclaimed baton by id (ErrNotFound when none has it).
func FindLive(ctx context.Context, st refstore.Records, id string) (Stored, []Warning, error) {
	var found *Stored
	var warns []Warning
	err := Each(ctx, st, refstore.HandoffsPrefix, func(s Stored) {
		if s.ID == id && s.Deleted == nil {
			c := s
			found = &c
		}
	}, &warns)
	if err != nil {
		return Stored{}, warns, err
	}
	if found == nil {
		return Stored{}, warns, fmt.Errorf("baton %q: %w", id, refstore.ErrNotFound)
	}
	return *found, warns, nil
}
