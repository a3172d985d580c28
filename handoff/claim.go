package handoff

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// ErrNoSession is returned when a command needs a session and none is named
// or bound.
var ErrNoSession = errors.New("no session: pass --session, set GIT_HANDOFF_SESSION, or run `git handoff start`")

// ClaimOptions are what `git handoff claim` was asked.
type ClaimOptions struct {
	Session string
	Owner   string
	Branch  string
	Arbiter Arbiter // nil = Local
}

// ClaimResult is the baton a session claimed.
type ClaimResult struct {
	Handoff baton.Stored
	Notices []string
	// Conflicts are the versions the arbiter's answer replaced here that
	// were written without seeing the version kept (as sync reports them).
	Conflicts []Conflict
}

// claimAttempts bounds how often a claim is decided again after the local
// record of it lost a swap.
const claimAttempts = 3

// Claim claims the eligible baton for the session; the session's record, if
// there is one, keeps a copy (same transaction). It fails with
// *baton.ClaimedError when another session got it first and with
// refstore.ErrNotFound when nothing is eligible.
//
// A claim won at the arbiter is a win: it is noted in the git dir before it
// is pushed, so when the local record of it fails (or the process dies in
// between), the next claim or start here delivers it. A baton this session
// holds already is delivered again, to the same session, as a success.
func Claim(ctx context.Context, st refstore.Clone, opts ClaimOptions, clock Clock) (ClaimResult, error) {
	id, err := SessionID(st, opts.Session)
	if err != nil {
		return ClaimResult{}, err
	}
	if id == "" {
		return ClaimResult{}, ErrNoSession
	}
	if _, err := refstore.SessionRef(id); err != nil {
		return ClaimResult{}, fmt.Errorf("session id %q: %w", id, err)
	}
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return ClaimResult{}, err
	}
	c := &claiming{st: st, arb: arbiter(opts.Arbiter), who: who, id: id, clock: clock}
	// A deletion decided at the arbiter and not recorded here leaves its
	// waiting copy claimable here until it is (unrecorded.go).
	if err := RecordDecided(ctx, st, c.arb); err != nil {
		return c.fail(err)
	}
	defer lockClaims(st)()
	defer c.lock.unlock()
	for attempt := 0; ; attempt++ {
		last := attempt+1 >= claimAttempts
		// A session with a record keeps a copy of its claim there
		// (recordClaim): only such a one takes over another's (settle).
		_, rerr := session.Read(ctx, st, id)
		c.holds = rerr == nil
		w, err := settle(ctx, st, c.arb, who, id, c.holds)
		if err != nil {
			return c.fail(err)
		}
		if w == nil {
			var mine *ClaimResult
			if w, mine, err = c.claimEligible(ctx); err != nil {
				return c.fail(err)
			} else if mine != nil {
				return *mine, nil
			}
		}
		res, err := recordClaim(ctx, st, w, id, clock())
		if err == nil {
			return c.delivered(ctx, w, res), nil
		}
		if res, again, err := c.notRecorded(ctx, w, err, last); !again {
			return res, err
		}
		// Someone changed the ref or the session meanwhile: settle again.
	}
}

// claiming is one claim, across its attempts.
type claiming struct {
	st        refstore.Clone
	arb       Arbiter
	who       Who
	id        string // the session claiming
	clock     Clock
	notices   noticeSet
	conflicts []Conflict
	lock      batonLock // the baton this claim decides on
	holds     bool      // the session has a record to keep a copy of its claim
}

// fail is the claim's answer with err: the notices and conflicts so far.
func (c *claiming) fail(err error) (ClaimResult, error) {
	return ClaimResult{Notices: c.notices.list, Conflicts: c.conflicts}, err
}

// claimEligible claims the eligible baton for the session, at the arbiter
// when one decides it, and returns the claim to record. When none is
// eligible, mine is the baton of mine this session claimed already (else
// the error says why there is none).
func (c *claiming) claimEligible(ctx context.Context) (w *wonClaim, mine *ClaimResult, err error) {
	var h *baton.Stored
	for try := 0; ; try++ {
		var warns []baton.Warning
		var refused []string
		if h, warns, refused, err = eligible(ctx, c.st, c.who); err != nil {
			return nil, nil, err
		}
		for _, w := range warns {
			c.notices.add(w.String())
		}
		c.notices.addAll(refused)
		if h == nil {
			mine, err := c.noneEligible(ctx)
			return nil, mine, err
		}
		// Another claim of this clone may be deciding it: wait for it,
		// and decide from what it left here.
		if err := c.lock.lock(ctx, c.st, h.ID); err != nil {
			return nil, nil, err
		}
		if cur, err := refstore.ResolveID(ctx, c.st, h.Ref); err == nil && cur == h.OID || try == claimAttempts {
			break
		}
	}
	claimed, up, err := baton.Claimed(ctx, c.st, *h, c.id, c.clock())
	if err != nil {
		return nil, nil, err
	}
	claimed.Signature, claimed.Fenced = h.Signature, h.Fenced // the notes' author, not the claim's
	note := &pendingClaim{Baton: h.ID, Ref: up.Ref, Old: up.Old, Claimed: up.New, Session: c.id}
	w = &wonClaim{note: note, baton: claimed}
	// A claim no remote decides is decided by recordClaim's
	// transaction, with nothing to note before it.
	if decider, local := pinned(ctx, c.st, c.arb, up.Ref); !local {
		if w, err = c.arbitrate(ctx, decider, w, up); err != nil {
			return nil, nil, err
		}
	}
	return w, nil, nil
}

// noneEligible answers a claim with no baton eligible: my own baton here
// having been claimed says more than "none".
func (c *claiming) noneEligible(ctx context.Context) (*ClaimResult, error) {
	if ref, err := refstore.HandoffRef(false, c.who.Owner, c.who.Branch); err == nil {
		mine, err := baton.Read(ctx, c.st, ref)
		if errors.Is(err, refstore.ErrNotFound) {
			mine, err = claimedRetired(ctx, c.st, ref, c.id)
		}
		if err == nil && mine.Claimed {
			if mine.ClaimedBySession != c.id {
				return nil, &baton.ClaimedError{Baton: mine.Baton}
			}
			if deliveredElsewhere(ctx, c.st, c.id, mine.ID) {
				return nil, fmt.Errorf("%w: a claim made in this session's name whose outcome was never learned (its process died, or the remote did not answer) was taken over by a later start or claim here and delivered to that session", &baton.ClaimedError{Baton: mine.Baton})
			}
			return &ClaimResult{Handoff: mine, Notices: c.notices.list}, nil
		}
	}
	return nil, fmt.Errorf("no baton is waiting for %s on %q: %w", c.who.Owner, c.who.Branch, refstore.ErrNotFound)
}

// claimedRetired is the newest baton retired at ref (its floor there,
// archive.KeyPath) that session me claimed: a claim whose process died
// after recording it and before saying so is retired by the next sync
// like any claim, and the claim run again delivers it from there (found
// by the simulation, seed 1796556298527470563: a claim by a session with
// no record, which therefore held no copy, answered "no baton waiting"
// once a sync had retired its baton). One git ls-tree per month, newest
// first, on the answer "nothing is waiting" only.
func claimedRetired(ctx context.Context, st refstore.Clone, ref, me string) (baton.Stored, error) {
	dir, err := archive.KeyDir(ref)
	if err != nil {
		return baton.Stored{}, err
	}
	months, err := archive.Months(ctx, st)
	if err != nil {
		return baton.Stored{}, err
	}
	for _, m := range months {
		floors, err := st.ListTree(ctx, m.OID, dir)
		if err != nil {
			return baton.Stored{}, err
		}
		var newest baton.Stored
		for _, f := range floors {
			if b, ok := readClaim(ctx, st, ref, f.OID); ok && b.CreatedAt.After(newest.CreatedAt) {
				newest = b
			}
		}
		if newest.OID == "" {
			continue
		}
		// Only the key's latest baton: a later one someone else took
		// says mine is long delivered.
		if newest.Claimed && newest.ClaimedBySession == me {
			return newest, nil
		}
		break
	}
	return baton.Stored{}, fmt.Errorf("archive: %s: %w", dir, refstore.ErrNotFound)
}

// deliveredElsewhere reports whether baton id, claimed at its ref in
// session me's name, was delivered to another session: me's record holds
// no claim of it. A start whose claim's outcome it could not learn (the
// remote unreachable after the push) leaves the claim pending, and the
// next start for the owner and branch takes it over and delivers it to its
// own session (settle): the record still names me, who was told nothing
// was claimed, and must not be handed it again (found by the simulation,
// seed 201 of the widened run). me's record is read where it is, live or
// archived: an ended session retires at the next sync, and its claim run
// again after that read no record, took the claim for its own and was
// handed the baton a later start here had received (seed 3 of the widened
// run). A session with no record anywhere says nothing: the claim is
// taken as its own, as before.
func deliveredElsewhere(ctx context.Context, st refstore.Records, me, id string) bool {
	cur, err := session.Find(ctx, st, me)
	if err != nil {
		return false
	}
	held, err := claimedTask(cur.Record)
	return err != nil || held == nil || held.ID != id
}

// arbitrate has decider decide the claim w (up) before it is recorded
// here: noted first (pending.go), its object held from gc (hold.go). It
// returns the claim to record.
func (c *claiming) arbitrate(ctx context.Context, decider Arbiter, w *wonClaim, up refstore.Update) (*wonClaim, error) {
	note := w.note
	// Named for the baton too: a released hold is the proof of a recorded
	// claim (received), which a later claim of this process (the MCP
	// server's, the page's) must not take back by reusing the name.
	pass, err := hold(ctx, c.st, "claim-"+shortSum(note.Baton), up.New)
	if err != nil {
		return nil, err
	}
	note.Held = pass.group
	if err := notePending(ctx, c.st, note); err != nil {
		pass.release(ctx, c.st)
		return nil, err
	}
	err = decider.Arbitrate(ctx, c.st, up)
	if err == nil {
		w.hold = pass
		return w, nil
	}
	var ce *baton.ClaimedError
	if errors.As(err, &ce) && ce.Baton.ID == note.Baton && ce.Baton.ClaimedBySession == c.id {
		// Held by this session at the arbiter already (an earlier
		// run's push): that claim is the one to record.
		if w, _ = settle(ctx, c.st, c.arb, c.who, c.id, c.holds); w == nil {
			return nil, err
		}
		return w, nil
	}
	if errors.Is(err, refstore.ErrConflict) || nothingLanded(err) {
		dropPending(ctx, c.st, note) // someone else's, not a baton to claim, never pushed, or refused whole
	}
	var se *SupersededError
	if errors.As(err, &se) && se.Conflict != nil {
		c.conflicts = append(c.conflicts, *se.Conflict)
	}
	// Unreachable or refused: the push may have landed, so the note
	// stays for the next claim to settle.
	return nil, err
}

// delivered is the answer of a claim w recorded here as res.
func (c *claiming) delivered(ctx context.Context, w *wonClaim, res ClaimResult) ClaimResult {
	verifyBaton(ctx, c.st, &res.Handoff, c.who.Owner)
	if x := w.crashed(c.id); x != "" {
		c.notices.add(fmt.Sprintf("baton %s was won by session %s, which stopped before receiving it: delivered to session %s instead", w.baton.ID, x, c.id))
	}
	res.Notices = c.notices.list
	return res
}

// notRecorded sorts a claim w whose record here failed with err: again
// says to settle once more (a lost swap, before the last attempt), else
// res and the error are the claim's answer.
func (c *claiming) notRecorded(ctx context.Context, w *wonClaim, err error, last bool) (res ClaimResult, again bool, _ error) {
	if errors.Is(err, refstore.ErrConflict) && !w.decided {
		// Lost the local swap: if the arbiter holds our claim all the
		// same, it is won, and only recording it here is left.
		if _, local := c.arb.(Local); !local {
			if held, herr := c.arb.Held(ctx, c.st, w.baton.Ref); herr == nil && held == w.baton.OID {
				w.decided = true
			}
		}
	}
	if last && errors.Is(err, refstore.ErrConflict) && w.decided {
		// Won at the arbiter, and still not recorded here because the
		// records keep changing: deliver the notes all the same (the
		// note stays, so the next claim records it).
		c.notices.add(fmt.Sprintf("baton %s is yours (the arbiter holds your claim) but the local records kept changing, so it is not recorded here yet: the next claim or sync records it", w.baton.ID))
		return ClaimResult{Handoff: w.baton, Notices: c.notices.list}, false, nil
	}
	if last && errors.Is(err, refstore.ErrConflict) {
		// Still changing under us: say who holds it here. A claim the
		// arbiter gave us keeps its note for the next run.
		res, err := c.fail(baton.LostClaim(ctx, c.st, w.baton, err))
		return res, false, err
	}
	if !errors.Is(err, refstore.ErrConflict) {
		res, err := c.fail(fmt.Errorf("baton %s was claimed for session %s but not recorded here: %w (run the claim again to receive it)", w.baton.ID, w.note.Session, err))
		return res, false, err
	}
	return ClaimResult{}, true, nil
}

// recordClaim records a won claim here: the local baton ref at the won
// version and, when me has a session record, a copy in it, in one
// transaction; then the note goes.
func recordClaim(ctx context.Context, st refstore.Clone, w *wonClaim, me string, now time.Time) (ClaimResult, error) {
	var ups []refstore.Update
	up, ok, err := localUpdate(ctx, st, w)
	if err != nil {
		return ClaimResult{}, err
	}
	if ok {
		ups = append(ups, up)
	}
	// The hold on the claim's objects goes in the same transaction: a
	// note whose hold is gone was recorded (received), even for a session
	// with no record to show it.
	rel := w.hold.releases()
	if len(rel) == 0 { // a note's claim, settled: its hold read from the refs
		if rel, err = groupReleases(ctx, st, w.note.Held); err != nil {
			return ClaimResult{}, err
		}
	}
	ups = append(ups, rel...)
	cur, err := session.Read(ctx, st, me)
	switch {
	case err == nil:
		s := cur.Record
		s.ClaimedHandoff, _ = baton.Marshal(&w.baton.Baton)
		s.UpdatedAt = now
		sup, err := session.Written(ctx, st, s, cur)
		if err != nil {
			return ClaimResult{}, err
		}
		ups = append(ups, sup)
	case !errors.Is(err, refstore.ErrNotFound):
		return ClaimResult{}, err
	}
	if err := st.Apply(ctx, "handoff: claimed "+w.baton.ID+" by "+me, ups...); err != nil {
		return ClaimResult{}, err
	}
	dropPending(ctx, st, w.note)
	return ClaimResult{Handoff: w.baton}, nil
}
