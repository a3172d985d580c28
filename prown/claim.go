package prown

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// maxAttempts bounds how often a lost swap is re-read and re-decided. Each
// lost round means another claimer won one, so this is also enough for a
// crowd of that many claimers taking over from each other.
const maxAttempts = 16

// retryPause spreads claimers that lost a swap, so they do not collide again
// in lockstep.
func retryPause(ctx context.Context, attempt int) {
	d := time.Duration(rand.IntN(2+attempt)) * time.Millisecond
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// ClaimOptions are what a claim was asked.
type ClaimOptions struct {
	Repo    string // owner/name on GitHub
	Number  int
	URL     string // the pull request's web page, kept on the record
	Session string // the claiming session; it must exist and be active
	// Reason goes into the history; "" = "claimed", or "taken over" when an
	// active owner loses it.
	Reason string
	// NoTakeover refuses, with *OwnedError, when another active session
	// owns the pull request. An owner that is not active (ended,
	// terminated, replaced, or a record this clone lacks) is always
	// replaced.
	NoTakeover bool
}

// ClaimResult is what a claim did.
type ClaimResult struct {
	Record         Stored
	Previous       string // the owner before; "" when there was none
	PreviousStatus string // its status then; "" when its record was not found
	TookOver       bool   // the previous owner was an active session
	Changed        bool   // false: the session already owned it and nothing was written
	Notices        []string
}

// Claim makes opts.Session the owner of the pull request, in one ref
// transaction: the record is created or swapped (its history gains
// {session, from, at, reason}), the new owner's `pr` pointer is set, and the
// previous owner's pointer, if it named this pull request, is cleared. A
// lost swap is re-read and re-decided, up to maxAttempts times; concurrent
// claimers therefore never both own it. Claiming what the session already
// owns writes nothing (Changed false).
//
// Errors: *OwnedError (NoTakeover and an active owner), *MergedError (the
// record says merged), *BusyError (the session owns another pull request),
// *InactiveError, and refstore.ErrNotFound for a session with no record.
func Claim(ctx context.Context, st refstore.Writer, opts ClaimOptions, now time.Time) (ClaimResult, error) {
	if opts.Session == "" {
		return ClaimResult{}, errors.New("claiming a pull request: no session")
	}
	if _, err := Ref(opts.Repo, opts.Number); err != nil {
		return ClaimResult{}, err
	}
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			retryPause(ctx, attempt)
		}
		res, ups, err := decideClaim(ctx, st, opts, now)
		if err != nil || !res.Changed {
			return res, err
		}
		msg := fmt.Sprintf("handoff: %s claims %s", opts.Session, label(opts.Repo, opts.Number))
		if res.Previous != "" && res.Previous != opts.Session {
			msg += " from " + res.Previous
		}
		err = st.Apply(ctx, msg, ups...)
		if err == nil {
			return res, nil
		}
		if !errors.Is(err, refstore.ErrConflict) {
			return ClaimResult{}, err
		}
		lastErr = err
	}
	return ClaimResult{}, fmt.Errorf("claiming %s: gave up after %d lost swaps: %w", label(opts.Repo, opts.Number), maxAttempts, lastErr)
}

// decideClaim reads the current values and builds the transaction.
func decideClaim(ctx context.Context, st refstore.Writer, opts ClaimOptions, now time.Time) (ClaimResult, []refstore.Update, error) {
	cur, err := Read(ctx, st, opts.Repo, opts.Number)
	if err != nil && !errors.Is(err, refstore.ErrNotFound) {
		return ClaimResult{}, nil, err
	}
	if cur.Merged() {
		return ClaimResult{}, nil, &MergedError{Repo: opts.Repo, Number: opts.Number, Owner: cur.OwnerSession}
	}
	sess, err := readClaimer(ctx, st, opts.Session)
	if err != nil {
		return ClaimResult{}, nil, err
	}
	res := ClaimResult{Previous: cur.OwnerSession, Record: cur}
	if err := checkNotBusyElsewhere(ctx, st, sess, opts, &res); err != nil {
		return ClaimResult{}, nil, err
	}

	rec := cur.Record
	rec.Repo, rec.Number = opts.Repo, opts.Number
	if opts.URL != "" {
		rec.URL = opts.URL
	}
	var ups []refstore.Update
	if cur.OwnerSession == sess.ID {
		res.PreviousStatus = sess.Status
		if pointsAt(sess.PR, opts.Repo, opts.Number) && rec.URL == cur.URL {
			return res, nil, nil // already ours: nothing to write
		}
		// Ours, but the pointer or the URL is missing: repair both.
	} else {
		ups, err = takeFromOwner(ctx, st, cur.OwnerSession, opts, now, &res)
		if err != nil {
			return ClaimResult{}, nil, err
		}
		reason := claimReason(opts.Reason, cur, res)
		rec.OwnerSession, rec.ClaimedAt = sess.ID, now
		rec.History = append(append([]Transfer{}, rec.History...), Transfer{
			Session: sess.ID, From: cur.OwnerSession, At: now, Reason: reason, Harness: sess.Harness,
		})
	}
	recUp, err := update(ctx, st, rec, cur)
	if err != nil {
		return ClaimResult{}, nil, err
	}
	next := sess.Record
	next.PR, next.UpdatedAt = rec.Pointer(), now
	sessUp, err := session.Written(ctx, st, next, sess)
	if err != nil {
		return ClaimResult{}, nil, err
	}
	ups = append([]refstore.Update{recUp, sessUp}, ups...)
	rec.Schema = Schema
	res.Record = Stored{Record: rec, Ref: recUp.Ref, OID: recUp.New}
	res.Changed = true
	return res, ups, nil
}

// readClaimer reads the claiming session, which must be live: one that is
// not is an *InactiveError, naming its line's live session when it was
// replaced.
func readClaimer(ctx context.Context, st refstore.Records, id string) (session.Stored, error) {
	sess, err := session.Read(ctx, st, id)
	if err != nil {
		return session.Stored{}, err
	}
	if !sess.Live() {
		e := &InactiveError{Session: sess.ID, Status: sess.Status}
		if sess.ReplacedBy != "" {
			if g, err := session.LineGraph(ctx, st, sess.ID); err == nil {
				e.Live = g.Live(sess.ID)
			}
		}
		return session.Stored{}, e
	}
	return sess, nil
}

// checkNotBusyElsewhere refuses, with *BusyError, a session that owns
// another pull request it points at; a pointer to one that cannot be read
// is only a notice, since the claim points the session here.
func checkNotBusyElsewhere(ctx context.Context, st refstore.Records, sess session.Stored, opts ClaimOptions, res *ClaimResult) error {
	p := sess.PR
	if p == nil || pointsAt(p, opts.Repo, opts.Number) {
		return nil
	}
	other, err := Read(ctx, st, p.Repo, p.Number)
	switch {
	case err == nil && other.OwnerSession == sess.ID && !other.Merged():
		return &BusyError{Session: sess.ID, Repo: p.Repo, Number: p.Number}
	case err != nil && !errors.Is(err, refstore.ErrNotFound):
		res.Notices = append(res.Notices, fmt.Sprintf("session %s pointed at %s, which cannot be read (%v); pointing it here now", sess.ID, label(p.Repo, p.Number), err))
	}
	return nil
}

// takeFromOwner settles the previous owner, if any, of a pull request
// another session claims: it notes the owner's status and whether the claim
// takes over from a live session (refused, with *OwnedError, under
// NoTakeover), and returns the update clearing the owner's pointer. An
// owner with no session record here is only a notice.
func takeFromOwner(ctx context.Context, st refstore.Writer, owner string, opts ClaimOptions, now time.Time, res *ClaimResult) ([]refstore.Update, error) {
	if owner == "" {
		return nil, nil
	}
	old, err := session.Read(ctx, st, owner)
	switch {
	case err == nil:
		res.PreviousStatus = old.Status
		if old.Live() {
			if opts.NoTakeover {
				return nil, &OwnedError{Repo: opts.Repo, Number: opts.Number, Owner: owner}
			}
			res.TookOver = true
		}
		up, err := clearPointer(ctx, st, old, opts.Repo, opts.Number, now)
		if err != nil {
			return nil, err
		}
		return []refstore.Update{up}, nil
	case errors.Is(err, refstore.ErrNotFound):
		res.Notices = append(res.Notices, fmt.Sprintf("the previous owner %s has no session record here; taking over", owner))
		return nil, nil
	default:
		return nil, err
	}
}

// claimReason is the history's reason for a claim: the one asked, or what
// the claim did to the previous owner.
func claimReason(asked string, cur Stored, res ClaimResult) string {
	reason := oneLine(asked)
	switch {
	case reason != "":
	case res.TookOver:
		reason = "taken over"
	case cur.OwnerSession != "" && res.PreviousStatus != "":
		reason = "claimed (previous owner " + res.PreviousStatus + ")"
	default:
		reason = "claimed"
	}
	return reason
}

// clearPointer builds the swap of the previous owner's record: its pointer
// cleared when it names this pull request (a merged session is read-only
// and keeps it), else the record as read, unchanged. The swap is included
// either way: git moves the refs of one transaction one after the other, so
// a reader can see the new PR record beside the old owner's previous
// session record; swapping against what was read turns that torn read into
// a lost swap instead of a pointer left behind.
func clearPointer(ctx context.Context, st refstore.Writer, old session.Stored, repo string, number int, now time.Time) (refstore.Update, error) {
	if !pointsAt(old.PR, repo, number) || old.Status == session.StatusMerged {
		return refstore.Update{Ref: old.Ref, New: old.OID, Old: old.OID}, nil
	}
	prev := old.Record
	prev.PR, prev.UpdatedAt = nil, now
	return session.Written(ctx, st, prev, old)
}
