package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/internal/simdefect"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// StartOptions are what `git handoff start` was asked.
type StartOptions struct {
	Session string // "" = make one
	Harness string
	// NativeID is the agent's own id for this session, recorded next to
	// the harness so `session launch` can resume it; "" = the id the
	// agent's environment gives, if any (harness.DetectNative).
	NativeID  string
	Model     string
	Objective string
	MaxBytes  int
	Owner     string
	Branch    string
	Arbiter   Arbiter // nil = Local
	// ApplySnapshot applies the snapshot of the baton's session to this
	// worktree once the session has started (snapshot.go).
	ApplySnapshot bool
}

// StartResult is what a starting session is told.
type StartResult struct {
	Session   session.Record
	Handoff   *baton.Stored // the baton the brief is about; nil when none
	Claimed   bool
	Objective *baton.Objective
	Brief     string
	Notices   []string
	// Snapshot is the uncommitted work the baton's session left, when it
	// left some; SnapshotErr says why --apply-snapshot refused it (the
	// session has started, the worktree is unchanged).
	Snapshot    *SnapshotOffer
	SnapshotErr error
	// EndedBound is the session this worktree was bound to, active, that
	// was ended (without a baton) so that one session is bound here.
	EndedBound string
	// Conflicts are the versions the arbiter's answer replaced here that
	// were written without seeing the version kept (as sync reports them).
	Conflicts []Conflict
}

// startAttempts bounds how often start decides its claim again after
// losing it (to another clone, or a swap of one of its refs); one more pass
// then starts the session without claiming.
const startAttempts = 3

// Start creates the session, sets or clears the objective and claims the
// eligible baton, all in one ref transaction, then binds the worktree to the
// session. The baton is claimed only when the brief fits; a claim lost to
// another session degrades to a notice and the plain brief. A claim this
// clone won at the arbiter but never recorded (a crash, a failed local
// write) is delivered first, whichever session made it.
func Start(ctx context.Context, st refstore.Clone, opts StartOptions, clock Clock) (StartResult, error) {
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return StartResult{}, err
	}
	id := opts.Session
	if id == "" {
		id = baton.NewID("s")
	}
	if _, err := refstore.SessionRef(id); err != nil {
		return StartResult{}, fmt.Errorf("session id %q: %w", id, err)
	}
	harnessName, nativeID, err := startHarness(opts)
	if err != nil {
		return StartResult{}, err
	}
	arb := arbiter(opts.Arbiter)
	var notices noticeSet
	var hits []redact.Hit
	if opts.Objective, hits = scrubText(opts.Objective); len(hits) > 0 {
		notices.add(redactedNotice(hits) + " (the objective)")
	}
	var conflicts []Conflict // joins the arbiter's answers made here
	if r, ok := arb.(Refresher); ok {
		ns, cs := r.Refresh(ctx, st, who.Owner, who.Branch)
		for _, n := range ns {
			notices.add(n)
		}
		conflicts = append(conflicts, cs...)
	}
	defer lockClaims(st)()
	// The session this worktree was bound to ends first: what it hands
	// on (its automatic handoff, or a claim it never acted on) is then
	// this session's to claim.
	var endedBound string
	for _, n := range append(FinishHandovers(ctx, st, clock), endBound(ctx, st, id, clock, &endedBound)...) {
		notices.add(n)
	}
	skipClaim := false // the arbiter could not be asked: deliver no baton
	var lastErr error
	for attempt := 0; attempt <= startAttempts; attempt++ {
		final := attempt == startAttempts // the last pass makes no new claim: it cannot lose one
		now := clock()
		if _, err := session.Read(ctx, st, id); err == nil {
			return StartResult{}, &ExistsError{ID: id}
		} else if !errors.Is(err, refstore.ErrNotFound) {
			return StartResult{}, err
		}
		ctxBrief, err := gather(ctx, st, who, now)
		if err != nil {
			return StartResult{}, err
		}
		for _, n := range ctxBrief.notices {
			notices.add(n)
		}
		var won *wonClaim
		if !skipClaim {
			if won, err = settle(ctx, st, arb, who, id); err != nil {
				notices.add(fmt.Sprintf("a baton was not claimed: a claim made earlier in this clone could not be settled (%v); run `git handoff claim` once the remote is reachable", err))
				skipClaim = true
			}
		}
		if won != nil {
			verifyBaton(ctx, st, &won.baton, who.Owner)
			ctxBrief.handoff, ctxBrief.input.Baton = &won.baton, &won.baton.Baton
			ctxBrief.input.Signature, ctxBrief.input.Fenced = won.baton.Signature, won.baton.Fenced
			ctxBrief.input.Since, ctxBrief.input.SinceTotal, ctxBrief.input.SinceNote = since(ctx, st, won.baton.Head, who.Head)
		}
		var ups []refstore.Update
		objUp, changed, err := baton.ObjectiveUpdate(ctx, st, who.Owner, who.Branch, opts.Objective, id, now)
		if err != nil {
			return StartResult{}, err
		}
		if changed {
			ups = append(ups, objUp)
		}
		if opts.Objective != "" {
			o := baton.NewObjective(who.Owner, who.Branch, opts.Objective, id, now)
			ctxBrief.input.Objective = &o
		} else {
			ctxBrief.input.Objective = nil // start without one clears a stale one
		}
		if skipClaim || final && won == nil {
			// Shown but unclaimed, a baton could be delivered twice.
			ctxBrief.input.Baton, ctxBrief.handoff = nil, nil
		}
		text, fits := brief.Render(ctxBrief.input, maxBytes(opts.MaxBytes))
		sess := session.Record{
			ID: id, Owner: who.Owner, Branch: who.Branch, Worktree: worktree(st), Host: hostname(),
			Harness: harnessName, Model: opts.Model, Status: session.StatusActive, Prompt: opts.Objective,
			StartHead: who.Head, CreatedAt: now, UpdatedAt: now,
		}
		if nativeID != "" {
			sess.Launched = map[string]session.Launched{harnessName: {NativeID: nativeID, First: now, Last: now}}
		}
		res := StartResult{Objective: ctxBrief.input.Objective, Brief: text}
		var claimUp *refstore.Update
		var note *pendingClaim // a claim to push before the transaction
		if h := ctxBrief.handoff; h != nil {
			res.Handoff = h
			switch {
			case won != nil:
				// Won already: deliver it even when it does not fit, or
				// nobody ever will.
				res.Claimed = true
				sess.ClaimedHandoff, _ = baton.Marshal(&won.baton.Baton)
				up, ok, err := localUpdate(ctx, st, won)
				if err != nil {
					return StartResult{}, fmt.Errorf("recording baton %s, claimed by session %s at the arbiter: %w", won.baton.ID, won.note.Session, err)
				}
				if ok {
					claimUp = &up
				}
				if x := won.crashed(id); x != "" {
					notices.add(fmt.Sprintf("baton %s was won by session %s, which stopped before receiving it: delivered to session %s instead", won.baton.ID, x, id))
				}
			case !fits:
				notices.add(fmt.Sprintf("baton %s does not fit in %d bytes with the objective, so it was left unclaimed: read it with `git handoff show`, or start again with a larger --max-bytes", h.ID, maxBytes(opts.MaxBytes)))
			default:
				claimed, up, err := baton.Claimed(ctx, st, *h, id, now)
				if err != nil {
					return StartResult{}, err
				}
				claimed.Signature, claimed.Fenced = h.Signature, h.Fenced // the notes' author, not the claim's
				claimUp = &up
				note = &pendingClaim{Baton: h.ID, Ref: up.Ref, Old: up.Old, Claimed: up.New, Session: id}
				res.Handoff, res.Claimed = &claimed, true
				sess.ClaimedHandoff, _ = baton.Marshal(&claimed.Baton)
			}
		}
		sessUp, err := session.Written(ctx, st, sess, session.Stored{})
		if err != nil {
			return StartResult{}, err
		}
		// Apply moves refs in this order and a kill can stop it after any
		// of them. The objective alone, or with the session, is harmless
		// (start again rewrites both). The session goes before the claim:
		// a session without its claim still holds the baton's notes in
		// ClaimedHandoff and the baton stays claimable, while a claim
		// without its session would name a session that never existed and
		// the notes would reach nobody.
		ups = append(ups, sessUp)
		var decider Arbiter
		if note != nil {
			var local bool
			if decider, local = pinned(ctx, st, arb, claimUp.Ref); local {
				note = nil // the transaction below decides: nothing to note
			}
		}
		var pass held // this pass's new objects, kept from gc while the arbiter decides
		if note != nil {
			news := []string{claimUp.New}
			for _, u := range ups {
				news = append(news, u.New)
			}
			if pass, err = hold(ctx, st, "start", news...); err != nil {
				return StartResult{}, err
			}
			note.Held = pass.group
			if err := notePending(ctx, st, note); err != nil {
				pass.release(ctx, st)
				return StartResult{}, err
			}
			// A planted defect (package sim): false without the simdefects tag.
			if err = nil; !simdefect.On(simdefect.ClaimSkipsCAS) {
				err = decider.Arbitrate(ctx, st, *claimUp)
			}
			var ce *baton.ClaimedError
			switch {
			case err == nil:
			case errors.As(err, &ce) && ce.Baton.ID == note.Baton && ce.Baton.ClaimedBySession == id:
				continue // this session's claim from an earlier run: the next pass settles it
			case errors.Is(err, refstore.ErrConflict):
				dropPending(ctx, st, note)
				n, c := lostNotice(err, res.Handoff.ID)
				notices.add(n)
				if c != nil {
					conflicts = append(conflicts, *c)
				}
				continue
			default:
				if errors.Is(err, ErrNoArbiter) || refusedOutright(err) {
					dropPending(ctx, st, note) // refused before any push, or the whole push refused
				}
				// The session still starts; the baton waits for a claim
				// that can reach the remote (or an --offline one). The
				// push may have landed: the note stays to be settled.
				notices.add(fmt.Sprintf("baton %s is waiting but was not claimed: %v; run `git handoff claim` once the remote is reachable, or `git handoff claim --offline`", res.Handoff.ID, err))
				skipClaim = true
				continue
			}
		}
		if claimUp != nil {
			ups = append(ups, *claimUp)
		}
		// The hold goes last: a kill before it leaves it for sweepHolds.
		ups = append(ups, pass.releases()...)
		err = st.Apply(ctx, "handoff: start "+id, ups...)
		if err == nil && note != nil {
			note.Held = "" // released by the transaction
		}
		var ce *refstore.ConflictError
		switch {
		case err == nil:
			if note != nil {
				dropPending(ctx, st, note)
			}
			if won != nil {
				dropPending(ctx, st, won.note)
			}
			res.EndedBound = endedBound
			if n := objectiveCleared(ctx, st, objUp, opts.Objective, "a start without an objective clears it"); n != "" {
				notices.add(n)
			}
			if err := st.Bind(sessUp.Ref); err != nil {
				notices.add("this worktree was not bound to the session: " + err.Error())
			}
			if harnessName != "" {
				// An agent's session, whether its start hook or the agent
				// itself (told to by an instruction file) runs start: its
				// Stop hook needs the working tree it started from, or work
				// done before its first stop goes unseen.
				if err := rememberAgent(ctx, st, id, harnessName, nativeID, true); err != nil {
					notices.add("the agent's session was not indexed here, so a resume may start another session and its Stop hook may not see its work: " + err.Error())
				}
			}
			sess.Schema = session.Schema
			if res.Handoff != nil {
				var notes []string
				res.Snapshot, notes, res.SnapshotErr = offerSnapshot(ctx, st, wtOf(st), opts.ApplySnapshot, res.Handoff.SessionID)
				for _, n := range notes {
					notices.add(n)
				}
				res.Brief += SnapshotSection(res.Snapshot)
			}
			res.Session, res.Notices, res.Conflicts = sess, notices.list, conflicts
			return res, nil
		case !errors.As(err, &ce):
			if res.Claimed {
				return StartResult{}, fmt.Errorf("baton %s was claimed but not recorded here: %w (start again, or run `git handoff claim`, to receive it)", res.Handoff.ID, err)
			}
			return StartResult{}, err
		case ce.Ref == sessUp.Ref:
			return StartResult{}, &ExistsError{ID: id}
		case res.Claimed && claimUp != nil && ce.Ref == claimUp.Ref:
			var lost *baton.ClaimedError
			if errors.As(baton.LostClaim(ctx, st, *res.Handoff, err), &lost) && lost.Baton.ClaimedBySession != id {
				notices.add("another session claimed the baton first: " + lost.Error())
			}
		}
		// Someone changed what we decided from (a sync bringing our own
		// claim counts): decide again from fresh values; a claim already
		// won is settled on the next pass.
		lastErr = err
	}
	return StartResult{}, fmt.Errorf("starting session %s: gave up after %d attempts: %w", id, startAttempts+1, lastErr)
}

// startHarness names the agent of a starting session and its own id for it:
// the options' (an id must have that agent's shape, so it can be handed back
// to it on resume), else what the agent's environment says.
func startHarness(opts StartOptions) (name, nativeID string, err error) {
	if opts.Harness == "" && opts.NativeID == "" {
		name, nativeID = harness.DetectNative(os.Getenv)
		return name, nativeID, nil
	}
	name = HarnessName(opts.Harness)
	if opts.NativeID == "" {
		return name, "", nil
	}
	h, err := harness.Lookup(name)
	if err != nil {
		return "", "", fmt.Errorf("recording the agent's own session id: %w", err)
	}
	if err := h.ValidateNativeID(opts.NativeID); err != nil {
		return "", "", err
	}
	return h.Name, opts.NativeID, nil
}

// ExistsError refuses to create a session whose id is taken.
type ExistsError struct{ ID string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("session %q already exists", e.ID)
}

func (e *ExistsError) Unwrap() error { return refstore.ErrConflict }

func arbiter(a Arbiter) Arbiter {
	if a == nil {
		return Local{}
	}
	return a
}

func maxBytes(n int) int {
	if n <= 0 {
		return brief.DefaultMaxBytes
	}
	return n
}

func worktree(st refstore.Clone) string {
	if st.Bare() {
		return ""
	}
	return st.Dir()
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}

// endBound ends the active session this worktree is bound to, other than
// id, before id is bound here: one worktree, one active session. It says
// so in the notices it returns (with what the ended one handed on), and
// names the ended one in *ended. A session a switch holds is left as it is
// (the notice says so).
func endBound(ctx context.Context, st refstore.Clone, id string, clock Clock, ended *string) []string {
	bound, err := st.BoundSession()
	if err != nil || bound == "" || bound == id {
		return nil
	}
	res, err := EndSession(ctx, st, bound, session.EndStartedHere, clock)
	var held *session.SwitchingError
	switch {
	case errors.As(err, &held):
		return []string{fmt.Sprintf("this worktree was bound to session %s, which is in the middle of a switch: it was left active", bound)}
	case errors.Is(err, refstore.ErrNotFound):
		return nil
	case err != nil:
		return []string{fmt.Sprintf("this worktree was bound to active session %s, which could not be ended: %v", bound, err)}
	case !res.Ended:
		return nil
	}
	*ended = bound
	return append([]string{fmt.Sprintf("this worktree was bound to active session %s: it was ended, and %s is bound here instead", bound, id)}, res.Handover.Notices...)
}
