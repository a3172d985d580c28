package handoff

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	arb := arbiter(opts.Arbiter)
	defer lockClaims(st)()
	var notices noticeSet
	var conflicts []Conflict
	fail := func(err error) (ClaimResult, error) {
		return ClaimResult{Notices: notices.list, Conflicts: conflicts}, err
	}
	for attempt := 0; ; attempt++ {
		last := attempt+1 >= claimAttempts
		w, err := settle(ctx, st, arb, who, id)
		if err != nil {
			return fail(err)
		}
		if w == nil {
			h, warns, refused, err := eligible(ctx, st, who)
			if err != nil {
				return fail(err)
			}
			for _, w := range warns {
				notices.add(w.String())
			}
			for _, n := range refused {
				notices.add(n)
			}
			if h == nil {
				// My own baton here having been claimed says more than "none".
				if ref, err := refstore.HandoffRef(false, who.Owner, who.Branch); err == nil {
					if mine, err := baton.Read(ctx, st, ref); err == nil && mine.Claimed {
						if mine.ClaimedBySession == id {
							return ClaimResult{Handoff: mine, Notices: notices.list}, nil
						}
						return fail(&baton.ClaimedError{Baton: mine.Baton})
					}
				}
				return fail(fmt.Errorf("no baton is waiting for %s on %q: %w", who.Owner, who.Branch, refstore.ErrNotFound))
			}
			claimed, up, err := baton.Claimed(ctx, st, *h, id, clock())
			if err != nil {
				return fail(err)
			}
			claimed.Signature, claimed.Fenced = h.Signature, h.Fenced // the notes' author, not the claim's
			note := &pendingClaim{Baton: h.ID, Ref: up.Ref, Old: up.Old, Claimed: up.New, Session: id}
			w = &wonClaim{note: note, baton: claimed}
			// A claim no remote decides is decided by recordClaim's
			// transaction, with nothing to note before it.
			if decider, local := pinned(ctx, st, arb, up.Ref); !local {
				pass, err := hold(ctx, st, "claim", up.New)
				if err != nil {
					return fail(err)
				}
				note.Held = pass.group
				if err := notePending(ctx, st, note); err != nil {
					pass.release(ctx, st)
					return fail(err)
				}
				if err := decider.Arbitrate(ctx, st, up); err != nil {
					var ce *baton.ClaimedError
					if errors.As(err, &ce) && ce.Baton.ID == h.ID && ce.Baton.ClaimedBySession == id {
						// Held by this session at the arbiter already (an
						// earlier run's push): that claim is the one to record.
						if w, _ = settle(ctx, st, arb, who, id); w == nil {
							return fail(err)
						}
					} else {
						if errors.Is(err, refstore.ErrConflict) || errors.Is(err, ErrNoArbiter) || refusedOutright(err) {
							dropPending(ctx, st, note) // someone else's, not a baton to claim, never pushed, or refused whole
						}
						var se *SupersededError
						if errors.As(err, &se) && se.Conflict != nil {
							conflicts = append(conflicts, *se.Conflict)
						}
						// Unreachable or refused: the push may have landed, so
						// the note stays for the next claim to settle.
						return fail(err)
					}
				}
			}
		}
		res, err := recordClaim(ctx, st, w, id, clock())
		if err == nil {
			verifyBaton(ctx, st, &res.Handoff, who.Owner)
			if x := w.crashed(id); x != "" {
				notices.add(fmt.Sprintf("baton %s was won by session %s, which stopped before receiving it: delivered to session %s instead", w.baton.ID, x, id))
			}
			res.Notices = notices.list
			return res, nil
		}
		if errors.Is(err, refstore.ErrConflict) && !w.decided {
			// Lost the local swap: if the arbiter holds our claim all the
			// same, it is won, and only recording it here is left.
			if _, local := arb.(Local); !local {
				if held, herr := arb.Held(ctx, st, w.baton.Ref); herr == nil && held == w.baton.OID {
					w.decided = true
				}
			}
		}
		if last && errors.Is(err, refstore.ErrConflict) && w.decided {
			// Won at the arbiter, and still not recorded here because the
			// records keep changing: deliver the notes all the same (the
			// note stays, so the next claim records it).
			notices.add(fmt.Sprintf("baton %s is yours (the arbiter holds your claim) but the local records kept changing, so it is not recorded here yet: the next claim or sync records it", w.baton.ID))
			return ClaimResult{Handoff: w.baton, Notices: notices.list}, nil
		}
		if last && errors.Is(err, refstore.ErrConflict) {
			// Still changing under us: say who holds it here. A claim the
			// arbiter gave us keeps its note for the next run.
			return fail(baton.LostClaim(ctx, st, w.baton, err))
		}
		if !errors.Is(err, refstore.ErrConflict) {
			return fail(fmt.Errorf("baton %s was claimed for session %s but not recorded here: %w (run the claim again to receive it)", w.baton.ID, w.note.Session, err))
		}
		// Someone changed the ref or the session meanwhile: settle again.
	}
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
