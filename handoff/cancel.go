package handoff

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/internal/simdefect"
	"github.com/git-handoff/git-handoff/refstore"
)

// CancelOptions are what `git handoff cancel` was asked.
type CancelOptions struct {
	Owner   string
	Branch  string
	Arbiter Arbiter // nil = Local
}

// CancelResult is what a cancel did.
type CancelResult struct {
	Who       Who
	Cancelled *baton.Stored // the tombstone written; nil when nothing was waiting
	Notices   []string
	Conflicts []Conflict
}

// Cancel takes back the owner's unclaimed private baton on the branch,
// leaving a tombstone. Nothing waiting is not an error: Cancelled is nil,
// with a notice when the baton had been claimed already.
func Cancel(ctx context.Context, st refstore.Clone, opts CancelOptions, clock Clock) (CancelResult, error) {
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return CancelResult{}, err
	}
	res := CancelResult{Who: who}
	ref, err := refstore.HandoffRef(false, who.Owner, who.Branch)
	if err != nil {
		return res, err
	}
	h, err := baton.Read(ctx, st, ref)
	switch {
	case errors.Is(err, refstore.ErrNotFound):
	case err != nil:
		return res, fmt.Errorf("cancelling the baton: %w", err)
	case h.Claimed:
		res.Notices = append(res.Notices, fmt.Sprintf("baton %s was already claimed by session %s: nothing to cancel", h.ID, h.ClaimedBySession))
	case h.Live():
		out, conflict, err := deleteDecided(ctx, st, arbiter(opts.Arbiter), h, "cancelled", clock())
		if conflict != nil {
			res.Conflicts = append(res.Conflicts, *conflict)
		}
		if err != nil {
			return res, fmt.Errorf("cancelling baton %s: %w", h.ID, err)
		}
		res.Cancelled = &out
	}
	return res, nil
}

// deleteDecided tombstones h where its claims are decided, so that of a
// claim and a deletion of one baton exactly one wins and the other is told
// it lost: at the arbiter when a remote knows the baton (the tombstone is
// pushed with a lease, as a claim is), else by the local swap. It fails
// with *baton.ClaimedError or *baton.DeletedError when the baton was
// claimed or deleted first, and *SupersededError (with the conflict, when
// the join reported one) when another baton replaced it.
func deleteDecided(ctx context.Context, st refstore.Clone, arb Arbiter, h baton.Stored, reason string, now time.Time) (baton.Stored, *Conflict, error) {
	unlock, err := decideAlone(ctx, st, h.ID)
	if err != nil {
		return baton.Stored{}, nil, err
	}
	defer unlock()
	// A planted defect (package sim): false without the simdefects tag.
	if simdefect.On(simdefect.NoTombstone) {
		return h, nil, nil
	}
	out, up, err := baton.Tombstone(ctx, st, h, reason, now)
	if err != nil {
		return baton.Stored{}, nil, err
	}
	var pass held
	var note *unrecordedDeletion // while the deletion is not known to be recorded here
	decided := false             // the arbiter took the tombstone
	if decider, local := pinned(ctx, st, arb, up.Ref); !local {
		if pass, err = hold(ctx, st, reason, up.New); err != nil {
			return baton.Stored{}, nil, err
		}
		// Noted before the push: a process killed after it (a kill -9
		// right after git push returned) leaves the note, and the next
		// start, claim or sync here settles it (unrecorded.go).
		if note, err = noteDeletion(ctx, st, h.ID, reason, up, pass); err != nil {
			pass.release(ctx, st)
			return baton.Stored{}, nil, err
		}
		if err := decider.Arbitrate(ctx, st, up); err != nil {
			pass.release(ctx, st)
			if errors.Is(err, refstore.ErrConflict) || nothingLanded(err) {
				note.drop(st) // decided otherwise, or never pushed: it cannot land
			} else {
				err = &UnansweredError{ID: h.ID, Done: reason, Err: err}
			}
			var se *SupersededError
			if errors.As(err, &se) {
				return baton.Stored{}, se.Conflict, err
			}
			return baton.Stored{}, nil, err
		}
		decided = true
	}
	err = st.Apply(ctx, "handoff: "+reason+" "+h.ID, append([]refstore.Update{up}, pass.releases()...)...)
	if err == nil {
		note.drop(st)
		return out, nil, nil
	}
	// The record failed: the hold goes on the way out.
	defer pass.release(ctx, st)
	if cur, rerr := refstore.ResolveID(ctx, st, up.Ref); rerr == nil && cur == up.New {
		note.drop(st)
		return out, nil, nil // a fetch brought the arbiter's copy of our tombstone first
	}
	if decided {
		// The arbiter took the tombstone: the deletion happened, only its
		// record here failed. Saying it failed would contradict what the
		// team sees (found by the simulation). The next command here
		// records it from the note, taken without asking again.
		note.taken(ctx, st)
		return out, nil, &NotRecordedError{ID: h.ID, Done: reason, Err: err}
	}
	return baton.Stored{}, nil, baton.LostClaim(ctx, st, h, err)
}

// UnansweredError is a deletion whose push got no answer the arbiter's
// refs could settle: it may have landed, or land yet. Its note stays
// (unrecorded.go), and the next start, claim or sync here asks the arbiter
// and finishes the deletion, unless the baton was claimed or replaced
// there first.
type UnansweredError struct {
	ID   string // the baton
	Done string // "cancelled" or "dismissed"
	Err  error  // the arbiter's answer
}

func (e *UnansweredError) Error() string {
	return fmt.Sprintf("%v (baton %s may be %s at the remote already: the next start, claim or sync here asks it, and finishes that unless the baton was claimed or replaced there first)", e.Err, e.ID, e.Done)
}

func (e *UnansweredError) Unwrap() error { return e.Err }

// NotRecordedError is a deletion the arbiter took whose local record then
// failed: the baton is deleted for the team, and the next start, claim or
// sync here records it (RecordDecided) from the note written before the
// push.
type NotRecordedError struct {
	ID   string // the baton
	Done string // "cancelled" or "dismissed"
	Err  error  // why the local record failed
}

func (e *NotRecordedError) Error() string {
	return fmt.Sprintf("baton %s was %s where claims are decided, but recording it here failed (%v): the next start, claim or sync here records it", e.ID, e.Done, e.Err)
}

func (e *NotRecordedError) Unwrap() error { return e.Err }
