package lease

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// maxAttempts bounds how often a lost swap is re-read and re-decided.
const maxAttempts = 12

func pause(ctx context.Context, attempt int) {
	t := time.NewTimer(time.Duration(rand.IntN(5*attempt+2)) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Holder is who takes a lease.
type Holder struct {
	Session string
	Owner   string
	Agent   string
}

// Clock is the local clock; expiry only ever compares its readings with
// each other.
type Clock func() time.Time

// TakeOptions are what a take was asked.
type TakeOptions struct {
	Keys []Key
	Holder
	TTL  time.Duration // 0 = DefaultTTL
	Note string
	// Over, when set, takes the keys over from another session that
	// holds them, breaking its lease in the same swap, for the reason
	// OverReason, and only while Over says so: it is asked at each
	// attempt after the board is read, and the swap is on the versions
	// read, so of takeovers racing, the one that lands last had Over's
	// consent over the version it replaced (a pull request's lease goes
	// with its ownership, read at that moment). When it says no, nothing
	// is written and the take fails with ErrNotOver.
	Over       func() bool
	OverReason string
	// Carry, when set, is asked at each attempt, after the board is read
	// (and after Over): the updates it returns go in the same all-or-none
	// swap as the take, so the holding and what it goes with (a pull
	// request's ownership record, Carrier) are decided together at the
	// board. When it returns any, a key the session holds already and
	// needs no new version of is swapped from its version to itself: the
	// swap then fails, and is read again, if the key moved meanwhile. An
	// error fails the take with nothing written (ErrNotOver: no longer
	// called for).
	Carry func() ([]refstore.Update, error)
}

// A Carrier is a board that can carry a record of this clone in a swap
// (TakeOptions.Carry): the board of a remote pushes it, the local board
// only checks it is still there.
type Carrier interface {
	// Carry is the update that puts this clone's version of ref at the
	// board: from the board's version (read now) when the join sync
	// applies keeps ours over it, from ours to ours when the board holds
	// ours already (a guard: it fails if the board's moves). A board
	// whose version the join keeps over ours is ErrNotCarried.
	Carry(ctx context.Context, ref string) (refstore.Update, error)
}

// ErrNotCarried is a record the board holds a version of that wins over
// this clone's: carrying ours would undo a decision taken elsewhere.
var ErrNotCarried = errors.New("the board holds a version that wins over this clone's")

// ErrNotOver is a take over (TakeOptions.Over) its condition no longer
// allowed: nothing was written.
var ErrNotOver = errors.New("the takeover is no longer called for")

// The outcomes of one key.
const (
	Taken    = "taken"    // it was free (never taken, released or broken)
	TookOver = "takeover" // its holder let it expire
	Mine     = "mine"     // the session held it already (renewed if due)
	Renewed  = "renewed"
	NotDue   = "fresh" // held, renewal not due: nothing written
	Released = "released"
	NotHeld  = "not held" // nothing to release
	Broken   = "broken"
	HandedOn = "handover"
)

// Outcome is what an operation did to one key.
type Outcome struct {
	Key    Key
	Action string
	From   string // the previous holder, for a takeover or handover
	Lease  Stored // the version now at the board (zero when none)
}

// Result is what an operation did.
type Result struct {
	Leases []Outcome
	Where  string // the board that decided
}

// HeldError: the key, or a path lease overlapping it, is held by another
// session whose version this clone has not yet seen unchanged for its
// TTL. It wraps refstore.ErrConflict.
type HeldError struct {
	Key     Key
	By      Stored    // the lease in the way
	FreesAt time.Time // by this clone's clock, if its holder stops renewing
}

func (e *HeldError) Error() string {
	what := e.Key.String() + " is"
	if bk := e.By.ParsedKey(); bk != e.Key {
		what = fmt.Sprintf("%s overlaps %s, which is", e.Key, bk)
	}
	who := "session " + e.By.Session
	var more []string
	if e.By.Owner != "" {
		more = append(more, "owner "+e.By.Owner)
	}
	if e.By.Agent != "" {
		more = append(more, "agent "+e.By.Agent)
	}
	if len(more) > 0 {
		who += " (" + strings.Join(more, ", ") + ")"
	}
	return fmt.Sprintf("%s held by %s; it frees at %s by this machine's clock unless renewed",
		what, who, e.FreesAt.Local().Format("15:04:05"))
}

func (e *HeldError) Unwrap() error { return refstore.ErrConflict }

// NotHolderError: the session asked to renew or release a lease it does
// not hold (another holds it, or it was broken). It wraps
// refstore.ErrConflict.
type NotHolderError struct {
	Key     Key
	Session string
	Lease   Stored // the version at the board; zero when there is none
}

func (e *NotHolderError) Error() string {
	switch {
	case e.Lease.OID == "":
		return fmt.Sprintf("session %s does not hold %s: nobody does", e.Session, e.Key)
	case e.Lease.Held():
		return fmt.Sprintf("session %s does not hold %s: session %s does", e.Session, e.Key, e.Lease.Session)
	}
	return fmt.Sprintf("session %s does not hold %s: it was %s", e.Session, e.Key, e.Lease.State)
}

func (e *NotHolderError) Unwrap() error { return refstore.ErrConflict }

// plan is one attempt's writes.
type plan struct {
	ups      []refstore.Update
	outs     []Outcome
	written  []Stored // versions written, for the writer's notes
	paths    map[string]string
	pathsMod bool
}

func newPlan(s Snapshot) *plan {
	p := &plan{paths: map[string]string{}}
	for k, v := range s.Paths {
		p.paths[k] = v
	}
	return p
}

// write adds the version rec of the key at ref, replacing cur.
func (p *plan) write(ctx context.Context, w refstore.Writer, rec Record, cur Stored, ref string) (Stored, error) {
	return p.writeOn(ctx, w, rec, cur.OID, cur.OID, ref)
}

// writeOn adds the version rec of the key at ref, swapped over old ("":
// the board holds none) and written after base: old, or the key's floor
// when it retired (floor.go).
func (p *plan) writeOn(ctx context.Context, w refstore.Writer, rec Record, old, base, ref string) (Stored, error) {
	rec.Schema = Schema
	if rec.History == nil {
		rec.History = []Event{}
	}
	oid, _, err := refstore.WriteVersion(ctx, w, ref, base, &rec.Cause, &rec)
	if err != nil {
		return Stored{}, fmt.Errorf("%s: %w", rec.Key, err)
	}
	st := Stored{Record: rec, Ref: ref, OID: oid}
	p.ups = append(p.ups, refstore.Update{Ref: ref, New: oid, Old: old})
	p.written = append(p.written, st)
	if rec.ParsedKey().Kind == KindPath {
		if rec.Held() {
			p.paths[rec.Key] = oid
		} else {
			delete(p.paths, rec.Key)
		}
		p.pathsMod = true
	}
	return st, nil
}

// commit swaps the plan at the board, with the guard when a path lease
// changed. The writer's notes (when it wrote each version) take the time
// read just before the swap: no later than when the swap landed, so the
// holder never believes longer than a contender waits (expiry.go).
func (p *plan) commit(ctx context.Context, w refstore.Writer, b Board, s Snapshot, msg string, clock Clock) error {
	if len(p.ups) == 0 {
		return nil
	}
	ups := p.ups
	if p.pathsMod {
		gid, err := writeGuard(ctx, w, p.paths)
		if err != nil {
			return err
		}
		ups = append(ups, refstore.Update{Ref: GuardRef, New: gid, Old: s.Guard})
	}
	before := clock()
	if err := b.Swap(ctx, msg, ups); err != nil {
		return err
	}
	for _, v := range p.written {
		if v.Held() {
			if err := noteSeen(ctx, w.Local(), v.Ref, v.OID, before, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// retry runs decide until its swap lands or it fails for another reason
// than a lost swap.
func retry(ctx context.Context, what string, decide func() error) error {
	var last error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			pause(ctx, attempt)
		}
		err := decide()
		var held *HeldError
		var nh *NotHolderError
		if err == nil || !errors.Is(err, refstore.ErrConflict) || errors.As(err, &held) || errors.As(err, &nh) {
			return err
		}
		last = err
	}
	return fmt.Errorf("%s: gave up after %d lost swaps: %w", what, maxAttempts, last)
}

// Take makes the session hold every key, all or none: a key held by
// another session (or, for a path, overlapping a path lease another
// session holds) that this clone has not seen unchanged for its TTL
// refuses the whole take with *HeldError; one it has is taken over, and an
// expired overlapping path lease is marked broken in the same swap (its
// holder, renewing, then finds it lost instead of holding it beside us).
// A key the session holds already is renewed when due.
func Take(ctx context.Context, w refstore.Writer, b Board, opts TakeOptions, clock Clock) (Result, error) {
	if opts.Session == "" {
		return Result{}, errNoHolder
	}
	if len(opts.Keys) == 0 {
		return Result{}, errors.New("taking a lease: no key")
	}
	if opts.TTL == 0 {
		opts.TTL = DefaultTTL
	}
	if err := CheckTTL(opts.TTL); err != nil {
		return Result{}, err
	}
	res := Result{Where: b.Where()}
	err := retry(ctx, "taking "+keysText(opts.Keys), func() error {
		s, err := b.Snapshot(ctx)
		if err != nil {
			return err
		}
		out, p, err := decideTake(ctx, w, b, s, opts, clock())
		if err != nil {
			return err
		}
		if err := p.commit(ctx, w, b, s, "handoff: lease take "+keysText(opts.Keys)+" by "+opts.Session, clock); err != nil {
			return err
		}
		res.Leases = out
		return nil
	})
	return res, err
}

func decideTake(ctx context.Context, w refstore.Writer, b Board, s Snapshot, opts TakeOptions, now time.Time) ([]Outcome, *plan, error) {
	if opts.Over != nil && !opts.Over() {
		return nil, nil, ErrNotOver
	}
	p := newPlan(s)
	holders, err := pathHolders(ctx, w, s)
	if err != nil {
		return nil, nil, err
	}
	breaking := map[string]Stored{} // expired overlapping path leases, by ref
	var outs []Outcome
	for _, k := range opts.Keys {
		ref, err := k.Ref()
		if err != nil {
			return nil, nil, err
		}
		cur, has := s.Leases[ref]
		// A key the board holds no ref of may have retired: the take
		// builds on its floor, so its versions go on from there, not
		// over again (floor.go).
		base := cur.OID
		if !has {
			f, ok, err := Floor(ctx, w, s.Archive, ref)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				base, cur.History = f.OID, f.History
			}
		}
		action, from, broke := Taken, "", false
		if has && cur.Held() {
			from = cur.Session
			if cur.Session == opts.Session {
				action = Mine
			} else if opts.Over != nil {
				action, broke = TookOver, true
			} else {
				ex, err := expiryOf(ctx, w.Local(), cur, now)
				if err != nil {
					return nil, nil, err
				}
				if !ex.Expired {
					return nil, nil, &HeldError{Key: k, By: cur, FreesAt: ex.FreesAt}
				}
				action = TookOver
			}
		}
		if k.Kind == KindPath {
			if err := overlapping(ctx, w.Local(), k, opts.Session, holders, breaking, now); err != nil {
				return nil, nil, err
			}
		}
		if action == Mine {
			if !RenewDue(w.Local(), cur, now) && cur.TTL() == opts.TTL && (opts.Note == "" || opts.Note == cur.Note) {
				outs = append(outs, Outcome{Key: k, Action: Mine, From: from, Lease: cur})
				continue
			}
		}
		rec := Record{
			Key: k.String(), State: StateHeld, Session: opts.Session, Owner: opts.Owner, Agent: opts.Agent,
			TTLText: opts.TTL.String(), Note: oneLine(opts.Note), TakenAt: now, RenewedAt: now,
			Offline: b.Local(), History: cur.History,
		}
		switch action {
		case Mine:
			rec.TakenAt = cur.TakenAt
			if opts.Note == "" {
				rec.Note = cur.Note
			}
		case TookOver:
			if broke { // taken over while held: a break, then a take, in the log
				rec.History = withEvent(withEvent(cur.History, Event{At: now, Action: "break", From: from, By: "session " + opts.Session, Reason: oneLine(opts.OverReason)}),
					Event{At: now, Action: "take", Session: opts.Session})
				break
			}
			rec.History = withEvent(cur.History, Event{At: now, Action: "takeover", Session: opts.Session, From: from,
				Reason: "its version was unchanged for " + cur.TTL().String() + " by the taker's clock"})
		default:
			rec.History = withEvent(cur.History, Event{At: now, Action: "take", Session: opts.Session})
		}
		v, err := p.writeOn(ctx, w, rec, cur.OID, base, ref)
		if err != nil {
			return nil, nil, err
		}
		outs = append(outs, Outcome{Key: k, Action: action, From: from, Lease: v})
	}
	if err := p.breakExpired(ctx, w, s, breaking, opts.Session, now); err != nil {
		return nil, nil, err
	}
	if opts.Carry != nil {
		ups, err := opts.Carry()
		if err != nil {
			return nil, nil, err
		}
		if len(ups) > 0 {
			for _, o := range outs {
				if o.Action == Mine && o.Lease.OID != "" && !p.writes(o.Lease.Ref) {
					p.ups = append(p.ups, refstore.Update{Ref: o.Lease.Ref, New: o.Lease.OID, Old: o.Lease.OID})
				}
			}
			p.ups = append(p.ups, ups...)
		}
	}
	return outs, p, nil
}

// writes reports whether the plan swaps ref already.
func (p *plan) writes(ref string) bool {
	for _, u := range p.ups {
		if u.Ref == ref {
			return true
		}
	}
	return false
}

// breakExpired writes the path leases a take overlapped, found expired
// (breaking, by ref), as broken by session me.
func (p *plan) breakExpired(ctx context.Context, w refstore.Writer, s Snapshot, breaking map[string]Stored, me string, now time.Time) error {
	refs := make([]string, 0, len(breaking))
	for ref := range breaking {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	for _, ref := range refs {
		old := breaking[ref]
		if cur, ok := s.Leases[ref]; !ok || cur.OID != old.OID {
			// The guard named a version the listing does not hold at
			// the ref: read again.
			return &refstore.ConflictError{Ref: ref, Expected: old.OID, Actual: cur.OID}
		}
		rec := old.Record
		rec.State, rec.RenewedAt = StateBroken, now
		rec.History = withEvent(old.History, Event{At: now, Action: "break", By: me,
			Reason: "expired (unchanged for " + old.TTL().String() + " by the taker's clock) and overlapped by a path lease taken"})
		if _, err := p.write(ctx, w, rec, old, ref); err != nil {
			return err
		}
	}
	return nil
}

// overlapping refuses a path key overlapping a path lease another session
// holds and this clone has not seen expire; expired ones go in breaking.
func overlapping(ctx context.Context, l refstore.Local, k Key, me string, holders []Stored, breaking map[string]Stored, now time.Time) error {
	pat, err := Compile(k.Value)
	if err != nil {
		return err
	}
	for _, h := range holders {
		hk := h.ParsedKey()
		if h.Session == me || hk == k {
			continue // ours, or the key itself (decided above)
		}
		hp, err := Compile(hk.Value)
		if err != nil || !Overlap(pat, hp) {
			continue
		}
		ex, err := expiryOf(ctx, l, h, now)
		if err != nil {
			return err
		}
		if !ex.Expired {
			return &HeldError{Key: k, By: h, FreesAt: ex.FreesAt}
		}
		breaking[h.Ref] = h
	}
	return nil
}

func keysText(keys []Key) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = k.String()
	}
	return strings.Join(s, " ")
}

// Renew writes a new version of each of the session's leases (keys; none
// = every lease it holds) whose renewal is due (half its TTL passed since
// this clone wrote it). When none is due it does not even read the board:
// it answers from this clone's refs and notes, so agents' hooks can call
// it on every turn. A key the session does not hold is *NotHolderError.
func Renew(ctx context.Context, w refstore.Writer, b Board, session string, keys []Key, clock Clock) (Result, error) {
	if session == "" {
		return Result{}, errNoHolder
	}
	res := Result{Where: b.Where()}
	if fresh, ok := allFresh(ctx, w, session, keys, clock()); ok {
		res.Where = "this clone"
		res.Leases = fresh
		return res, nil
	}
	err := retry(ctx, "renewing leases", func() error {
		s, err := b.Snapshot(ctx)
		if err != nil {
			return err
		}
		now := clock()
		targets, err := heldBy(s, session, keys)
		if err != nil {
			return err
		}
		p := newPlan(s)
		var outs []Outcome
		for _, cur := range targets {
			if !RenewDue(w.Local(), cur, now) {
				outs = append(outs, Outcome{Key: cur.ParsedKey(), Action: NotDue, Lease: cur})
				continue
			}
			rec := cur.Record
			rec.RenewedAt, rec.Offline = now, b.Local()
			v, err := p.write(ctx, w, rec, cur, cur.Ref)
			if err != nil {
				return err
			}
			outs = append(outs, Outcome{Key: cur.ParsedKey(), Action: Renewed, Lease: v})
		}
		if err := p.commit(ctx, w, b, s, "handoff: lease renew by "+session, clock); err != nil {
			return err
		}
		res.Leases = outs
		return nil
	})
	return res, err
}

// allFresh answers a renewal from this clone alone when every lease asked
// (none = every one this clone's refs say the session holds) is held by
// the session here and not due.
func allFresh(ctx context.Context, w refstore.Writer, session string, keys []Key, now time.Time) ([]Outcome, bool) {
	s, err := ReadBoard(ctx, w, Prefix, GuardRef, refstore.ArchivePrefix)
	if err != nil {
		return nil, false
	}
	targets, err := heldBy(s, session, keys)
	if err != nil {
		return nil, false
	}
	var outs []Outcome
	for _, cur := range targets {
		if RenewDue(w.Local(), cur, now) {
			return nil, false
		}
		outs = append(outs, Outcome{Key: cur.ParsedKey(), Action: NotDue, Lease: cur})
	}
	return outs, true
}

// heldBy is the session's leases among keys (none = all it holds); a key
// it does not hold is *NotHolderError.
func heldBy(s Snapshot, session string, keys []Key) ([]Stored, error) {
	if len(keys) == 0 {
		var out []Stored
		for _, l := range sortedLeases(s) {
			if l.Held() && l.Session == session {
				out = append(out, l)
			}
		}
		return out, nil
	}
	var out []Stored
	for _, k := range keys {
		ref, err := k.Ref()
		if err != nil {
			return nil, err
		}
		cur, ok := s.Leases[ref]
		if !ok || !cur.Held() || cur.Session != session {
			return nil, &NotHolderError{Key: k, Session: session, Lease: cur}
		}
		out = append(out, cur)
	}
	return out, nil
}

func sortedLeases(s Snapshot) []Stored {
	out := make([]Stored, 0, len(s.Leases))
	for _, l := range s.Leases {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out
}

// Release frees the session's leases on keys (none = all it holds) at
// once. A key nobody holds is NotHeld, not an error; one another session
// holds is *NotHolderError.
func Release(ctx context.Context, w refstore.Writer, b Board, session string, keys []Key, reason string, clock Clock) (Result, error) {
	if session == "" {
		return Result{}, errNoHolder
	}
	res := Result{Where: b.Where()}
	err := retry(ctx, "releasing leases", func() error {
		s, err := b.Snapshot(ctx)
		if err != nil {
			return err
		}
		now := clock()
		p := newPlan(s)
		var outs []Outcome
		var targets []Stored
		if len(keys) == 0 {
			targets, _ = heldBy(s, session, nil)
		}
		for _, k := range keys {
			ref, err := k.Ref()
			if err != nil {
				return err
			}
			cur, ok := s.Leases[ref]
			switch {
			case !ok || !cur.Held():
				outs = append(outs, Outcome{Key: k, Action: NotHeld, Lease: cur})
			case cur.Session != session:
				return &NotHolderError{Key: k, Session: session, Lease: cur}
			default:
				targets = append(targets, cur)
			}
		}
		for _, cur := range targets {
			rec := cur.Record
			rec.State, rec.RenewedAt = StateReleased, now
			rec.History = withEvent(cur.History, Event{At: now, Action: "release", Session: session, Reason: oneLine(reason)})
			v, err := p.write(ctx, w, rec, cur, cur.Ref)
			if err != nil {
				return err
			}
			outs = append(outs, Outcome{Key: cur.ParsedKey(), Action: Released, Lease: v})
		}
		if err := p.commit(ctx, w, b, s, "handoff: lease release by "+session, clock); err != nil {
			return err
		}
		res.Leases = outs
		return nil
	})
	return res, err
}

// Break frees a lease another session holds, now, without waiting for it
// to expire: a person taking over a dead holder's work. The reason is
// kept in the record's history (and so in `git handoff log`). A key
// nobody holds is refstore.ErrNotFound.
func Break(ctx context.Context, w refstore.Writer, b Board, k Key, by, reason string, clock Clock) (Result, error) {
	reason = oneLine(reason)
	if reason == "" {
		return Result{}, errors.New("breaking a lease needs a reason")
	}
	ref, err := k.Ref()
	if err != nil {
		return Result{}, err
	}
	res := Result{Where: b.Where()}
	err = retry(ctx, "breaking "+k.String(), func() error {
		s, err := b.Snapshot(ctx)
		if err != nil {
			return err
		}
		now := clock()
		cur, ok := s.Leases[ref]
		if !ok || !cur.Held() {
			return fmt.Errorf("%w: nobody holds %s", refstore.ErrNotFound, k)
		}
		p := newPlan(s)
		rec := cur.Record
		rec.State, rec.RenewedAt = StateBroken, now
		rec.History = withEvent(cur.History, Event{At: now, Action: "break", From: cur.Session, By: by, Reason: reason})
		v, err := p.write(ctx, w, rec, cur, ref)
		if err != nil {
			return err
		}
		if err := p.commit(ctx, w, b, s, "handoff: lease break "+k.String()+" by "+by+": "+reason, clock); err != nil {
			return err
		}
		res.Leases = []Outcome{{Key: k, Action: Broken, From: cur.Session, Lease: v}}
		return nil
	})
	return res, err
}

// HandOver moves every lease session holds to successor (a replaced
// session's work goes on in its successor): the successor's own clone
// then renews them at once (it has no note of these versions).
func HandOver(ctx context.Context, w refstore.Writer, b Board, session string, to Holder, clock Clock) (Result, error) {
	if session == "" || to.Session == "" {
		return Result{}, errNoHolder
	}
	res := Result{Where: b.Where()}
	err := retry(ctx, "handing leases on", func() error {
		s, err := b.Snapshot(ctx)
		if err != nil {
			return err
		}
		now := clock()
		targets, _ := heldBy(s, session, nil)
		p := newPlan(s)
		var outs []Outcome
		for _, cur := range targets {
			rec := cur.Record
			rec.Session, rec.RenewedAt = to.Session, now
			if to.Owner != "" {
				rec.Owner = to.Owner
			}
			if to.Agent != "" {
				rec.Agent = to.Agent
			}
			rec.History = withEvent(cur.History, Event{At: now, Action: "handover", Session: to.Session, From: session})
			v, err := p.write(ctx, w, rec, cur, cur.Ref)
			if err != nil {
				return err
			}
			outs = append(outs, Outcome{Key: cur.ParsedKey(), Action: HandedOn, From: session, Lease: v})
		}
		if err := p.commit(ctx, w, b, s, "handoff: leases of "+session+" handed to "+to.Session, clock); err != nil {
			return err
		}
		res.Leases = outs
		return nil
	})
	return res, err
}

// View is a lease as this clone sees it.
type View struct {
	Stored
	Key  Key
	Mine bool // held by the asking session
	// FreesAt is when the lease frees by this clone's clock if nobody
	// renews it (held leases only): for another's, first seen + TTL; for
	// the session's own, last written here + TTL.
	FreesAt time.Time
	Expired bool // another's, unchanged for its TTL here: free to take
	// Archived: released or broken, and retired to the archive (its key
	// has no live ref; floor.go).
	Archived bool
}

// Views reads the snapshot's leases for session (all: also those not
// held), noting first sightings as a take would.
func Views(ctx context.Context, l refstore.Local, s Snapshot, session string, all bool, now time.Time) ([]View, error) {
	var out []View
	for _, cur := range sortedLeases(s) {
		if !all && !cur.Held() {
			continue
		}
		v := View{Stored: cur, Key: cur.ParsedKey(), Mine: cur.Held() && session != "" && cur.Session == session}
		switch {
		case !cur.Held():
		case v.Mine:
			if oid, at, wrote, ok := readSeen(l, cur.Ref); ok && wrote && oid == cur.OID {
				v.FreesAt = at.Add(cur.TTL())
			}
		default:
			ex, err := expiryOf(ctx, l, cur, now)
			if err != nil {
				return nil, err
			}
			v.FreesAt, v.Expired = ex.FreesAt, ex.Expired
		}
		out = append(out, v)
	}
	return out, nil
}
