package handoff

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// UndismissOptions are what undoing a dismissal was asked.
type UndismissOptions struct {
	ID      string  // the dismissed baton's id
	Arbiter Arbiter // nil = Local; where the dismissal was decided
}

// UndismissResult is the baton waiting again.
type UndismissResult struct {
	Restored  baton.Stored
	Notices   []string
	Conflicts []Conflict
}

// NotRestorableError refuses to undo a dismissal once the baton's ref has
// moved on: something other than the dismissal's tombstone is its current
// version (a new baton, a claim of a teammate's copy, a cancel), or the
// version the tombstone replaced is not in this clone.
type NotRestorableError struct {
	ID  string
	Why string
	Err error // the lost swap or decision at the arbiter, when that is how it was learnt
}

func (e *NotRestorableError) Error() string {
	return fmt.Sprintf("baton %s can no longer be restored: %s", e.ID, e.Why)
}

func (e *NotRestorableError) Unwrap() []error {
	if e.Err != nil {
		return []error{refstore.ErrConflict, e.Err}
	}
	return []error{refstore.ErrConflict}
}

// Undismiss undoes a dismissal while the tombstone it wrote is still the
// current version of the baton's ref: the waiting version the tombstone
// replaced is written back as the version that follows the tombstone (so
// sync orders it after the dismissal, as it would any later write), by
// compare-and-swap on the tombstone, decided where its claims are, as
// the dismissal was. Anything else at the ref refuses with
// *NotRestorableError; nothing is changed then.
//
// The version written is signed, where this clone signs, by whoever undoes
// the dismissal: a teammate's baton restored by someone else reads as
// signed by someone else, which is what happened.
func Undismiss(ctx context.Context, st refstore.Clone, opts UndismissOptions, clock Clock) (UndismissResult, error) {
	var res UndismissResult
	tomb, prior, warns, err := dismissedVersions(ctx, st, opts.ID)
	res.Notices = warningLines(warns)
	if err != nil {
		return res, err
	}
	unlock, err := decideAlone(ctx, st, tomb.ID)
	if err != nil {
		return res, err
	}
	defer unlock()
	back := prior.Baton
	back.Cause = refstore.Cause{}
	oid, data, err := refstore.WriteVersion(ctx, st, tomb.Ref, tomb.OID, &back.Cause, &back)
	if err != nil {
		return res, fmt.Errorf("restoring baton %s: %w", opts.ID, err)
	}
	up := refstore.Update{Ref: tomb.Ref, New: oid, Old: tomb.OID}
	var pass held
	if decider, local := pinned(ctx, st, arbiter(opts.Arbiter), up.Ref); !local {
		if pass, err = hold(ctx, st, "restored", up.New); err != nil {
			return res, err
		}
		if err := decider.Arbitrate(ctx, st, up); err != nil {
			pass.release(ctx, st)
			var se *SupersededError
			if errors.As(err, &se) && se.Conflict != nil {
				res.Conflicts = append(res.Conflicts, *se.Conflict)
			}
			if !errors.Is(err, refstore.ErrConflict) {
				// Not refused: the push may have landed, its answer
				// lost, or land yet (a remote that stalls).
				return res, fmt.Errorf("restoring baton %s: the remote did not confirm it, so whether it is waiting again is unknown until the next sync (then `git handoff show %s` says): %w", opts.ID, opts.ID, err)
			}
			return res, restoreLost(ctx, st, tomb, fmt.Errorf("restoring baton %s: %w", opts.ID, err))
		}
	}
	if err := st.Apply(ctx, "handoff: restored "+opts.ID, append([]refstore.Update{up}, pass.releases()...)...); err != nil {
		pass.release(ctx, st)
		if cur, rerr := refstore.ResolveID(ctx, st, up.Ref); rerr == nil && cur == up.New {
			err = nil // a fetch brought the arbiter's copy of ours first
		} else {
			return res, restoreLost(ctx, st, tomb, fmt.Errorf("restoring baton %s: %w", opts.ID, err))
		}
	}
	res.Restored = baton.Stored{Baton: back, Ref: tomb.Ref, OID: oid, Sealed: refstore.Signed(data)}
	return res, nil
}

// dismissedVersions finds the tombstone of a dismissal of baton id at the
// tip of its ref, and the waiting version it replaced.
func dismissedVersions(ctx context.Context, st refstore.Clone, id string) (tomb, prior baton.Stored, warns []baton.Warning, err error) {
	var found, live *baton.Stored
	err = baton.Each(ctx, st, refstore.HandoffsPrefix, func(s baton.Stored) {
		if s.ID != id {
			return
		}
		c := s
		if s.Deleted != nil {
			found = &c
		} else {
			live = &c
		}
	}, &warns)
	switch {
	case err != nil:
		return tomb, prior, warns, fmt.Errorf("restoring baton %s: %w", id, err)
	case live != nil && live.Live():
		return tomb, prior, warns, &NotRestorableError{ID: id, Why: "it is waiting, not dismissed"}
	case live != nil:
		return tomb, prior, warns, &NotRestorableError{ID: id, Why: "it was claimed by session " + live.ClaimedBySession}
	case found == nil:
		return tomb, prior, warns, notAtItsRef(ctx, st, id)
	case found.Deleted.Reason != "dismissed":
		return tomb, prior, warns, &NotRestorableError{ID: id, Why: "it was " + found.Deleted.Reason + ", not dismissed"}
	case found.Prev == "":
		return tomb, prior, warns, &NotRestorableError{ID: id, Why: "its tombstone names no earlier version"}
	}
	e, rerr := st.ReadObject(ctx, found.Prev)
	if rerr != nil {
		return tomb, prior, warns, &NotRestorableError{ID: id, Why: "the version before the dismissal is not in this clone (" + rerr.Error() + ")"}
	}
	e.Ref = found.Ref
	prior, rerr = baton.Decode(e)
	if rerr != nil || prior.ID != id || !prior.Live() {
		return tomb, prior, warns, &NotRestorableError{ID: id, Why: "the version before the dismissal was not this baton waiting"}
	}
	return *found, prior, warns, nil
}

// restoreLost says why a restore that lost its swap was refused, in the
// terms a person reads: what the ref holds now instead of the tombstone.
func restoreLost(ctx context.Context, st refstore.Records, tomb baton.Stored, err error) error {
	if !errors.Is(err, refstore.ErrConflict) {
		return err
	}
	cur, rerr := baton.Read(ctx, st, tomb.Ref)
	why := "its ref changed since the dismissal"
	switch {
	case rerr != nil:
		why += " (" + rerr.Error() + ")"
	case cur.ID != tomb.ID:
		why = "another baton (" + cur.ID + ") was left there since"
	case cur.Claimed:
		why = "it was claimed by session " + cur.ClaimedBySession
	case cur.Live():
		why = "it is waiting again already"
	}
	return &NotRestorableError{ID: tomb.ID, Why: why, Err: err}
}

// recentEvents bounds how far back notAtItsRef looks for a baton that is no
// ref's current version: the newest events of the most recently changed
// refs, as `git handoff log` reads them.
const recentEvents = 2000

// notAtItsRef says why baton id, at no ref now, cannot be restored: a
// baton the history knows was replaced since (refused, exit 5), one it
// does not know is not found.
func notAtItsRef(ctx context.Context, st refstore.Clone, id string) error {
	events, err := baton.Events(ctx, st, recentEvents)
	if err == nil {
		var ref string
		for _, e := range events {
			if e.ID == id {
				ref = e.Ref
				break
			}
		}
		if ref != "" {
			why := "another record is at its ref now"
			if cur, rerr := baton.Read(ctx, st, ref); rerr == nil && cur.ID != id {
				why = "another baton (" + cur.ID + ") was left there since"
			}
			return &NotRestorableError{ID: id, Why: why}
		}
	}
	return fmt.Errorf("restoring baton %s: no baton of that id is in this clone: %w", id, refstore.ErrNotFound)
}
