package prown

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// ReleaseResult is what a release did.
type ReleaseResult struct {
	Record   Stored
	Previous string // the owner released; "" when nobody owned it
	Changed  bool
}

// Release leaves the pull request without an owner, in one transaction:
// the record keeps its history (a transfer to nobody, reason "released")
// and the owner's `pr` pointer is cleared. Releasing what nobody owns
// changes nothing; a merged record is refused with *MergedError; no record
// at all is an *UnownedError (refstore.ErrNotFound).
func Release(ctx context.Context, st refstore.Writer, repo string, number int, now time.Time) (ReleaseResult, error) {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			retryPause(ctx, attempt)
		}
		cur, err := Read(ctx, st, repo, number)
		if err != nil {
			return ReleaseResult{}, err
		}
		if cur.Merged() {
			return ReleaseResult{}, &MergedError{Repo: repo, Number: number, Owner: cur.OwnerSession}
		}
		owner := cur.OwnerSession
		if owner == "" {
			return ReleaseResult{Record: cur}, nil
		}
		rec := cur.Record
		rec.OwnerSession = ""
		rec.History = append(append([]Transfer{}, rec.History...), Transfer{From: owner, At: now, Reason: "released"})
		up, err := update(ctx, st, rec, cur)
		if err != nil {
			return ReleaseResult{}, err
		}
		ups := []refstore.Update{up}
		old, err := session.Read(ctx, st, owner)
		switch {
		case err == nil:
			sup, err := clearPointer(ctx, st, old, repo, number, now)
			if err != nil {
				return ReleaseResult{}, err
			}
			ups = append(ups, sup)
		case !errors.Is(err, refstore.ErrNotFound):
			return ReleaseResult{}, err
		}
		err = st.Apply(ctx, fmt.Sprintf("handoff: %s releases %s", owner, label(repo, number)), ups...)
		if err == nil {
			rec.Schema = Schema
			return ReleaseResult{Record: Stored{Record: rec, Ref: up.Ref, OID: up.New}, Previous: owner, Changed: true}, nil
		}
		if !errors.Is(err, refstore.ErrConflict) {
			return ReleaseResult{}, err
		}
		lastErr = err
	}
	return ReleaseResult{}, fmt.Errorf("releasing %s: gave up after %d lost swaps: %w", label(repo, number), maxAttempts, lastErr)
}

// Routing says which session should receive a pull request's CI failures
// and review comments now.
type Routing struct {
	Repo   string
	Number int
	URL    string
	Owner  string // the session the record names
	// Session is where work goes: Owner's newest successor, following
	// replacedBy (or the successor's supersedes), or Owner itself.
	Session string
	Status  string   // Session's status; "" when this clone has no record of it
	Chain   []string // Owner … Session along the line
	Merged  bool     // the record says the pull request was merged
	Notices []string // why Session may not be able to act, and broken lineage
}

// Route finds the session that should receive work on the pull request
// now: the record's owner, then along its line to the newest successor.
// Nobody owning it (no record, or released) is an *UnownedError, which
// wraps refstore.ErrNotFound. Route only reads.
func Route(ctx context.Context, st refstore.Records, repo string, number int) (Routing, error) {
	rec, err := Read(ctx, st, repo, number)
	if err != nil {
		return Routing{}, err
	}
	if rec.OwnerSession == "" {
		e := &UnownedError{Repo: repo, Number: number}
		if n := len(rec.History); n > 0 {
			e.Released = rec.History[n-1].From
		}
		return Routing{}, e
	}
	r := Routing{Repo: rec.Repo, Number: rec.Number, URL: rec.URL, Owner: rec.OwnerSession, Session: rec.OwnerSession, Chain: []string{rec.OwnerSession}, Merged: rec.Merged()}
	if r.Merged {
		r.Notices = append(r.Notices, fmt.Sprintf("%s was merged", label(repo, number)))
	}
	g, err := session.LineGraph(ctx, st, rec.OwnerSession)
	if errors.Is(err, refstore.ErrNotFound) {
		r.Notices = append(r.Notices, fmt.Sprintf("session %s has no record in this clone (fetch with git handoff sync?)", rec.OwnerSession))
		return r, nil
	}
	if err != nil {
		return Routing{}, err
	}
	r.Session = g.Live(rec.OwnerSession)
	for id := rec.OwnerSession; id != r.Session; {
		next, ok := g.Successor(id)
		if !ok || len(r.Chain) > len(g.IDs()) {
			break
		}
		r.Chain = append(r.Chain, next)
		id = next
	}
	if n, ok := g.Node(r.Session); ok {
		r.Status = n.Status
	}
	if err := g.Validate(); err != nil {
		r.Notices = append(r.Notices, "the lineage of "+rec.OwnerSession+" is inconsistent: "+err.Error())
	}
	switch r.Status {
	case session.StatusActive, session.StatusMerged:
	case session.StatusEnded, session.StatusTerminated:
		r.Notices = append(r.Notices, fmt.Sprintf("session %s is %s: revive it (git handoff session restore %s) or replace it (git handoff session replace %s)", r.Session, r.Status, r.Session, r.Session))
	default:
		r.Notices = append(r.Notices, fmt.Sprintf("session %s is %s", r.Session, r.Status))
	}
	return r, nil
}

// MergedResult is what MarkMerged did.
type MergedResult struct {
	Record  Stored
	Session *session.Stored // the owner as now stored; nil when nobody owned it
	Changed bool
	Notices []string
}

// MarkMerged records that the pull request was merged on GitHub, in one
// transaction: the record gains mergedAt and becomes final, and its owning
// session becomes merged (read-only) unless it was replaced (replaced is
// final too; a notice says so). Without a record, or with nobody owning it,
// nothing changes and no error is returned. Marking twice changes nothing.
func MarkMerged(ctx context.Context, st refstore.Writer, repo string, number int, now time.Time) (MergedResult, error) {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			retryPause(ctx, attempt)
		}
		cur, err := Read(ctx, st, repo, number)
		if errors.Is(err, refstore.ErrNotFound) {
			return MergedResult{}, nil
		}
		if err != nil {
			return MergedResult{}, err
		}
		res := MergedResult{Record: cur}
		rec := cur.Record
		var ups []refstore.Update
		if rec.MergedAt == nil {
			rec.MergedAt = &now
			up, err := update(ctx, st, rec, cur)
			if err != nil {
				return MergedResult{}, err
			}
			ups = append(ups, up)
			rec.Schema = Schema
			res.Record = Stored{Record: rec, Ref: up.Ref, OID: up.New}
		}
		if owner := rec.OwnerSession; owner != "" {
			s, err := session.Read(ctx, st, owner)
			switch {
			case errors.Is(err, refstore.ErrNotFound):
				res.Notices = append(res.Notices, fmt.Sprintf("the owner %s has no session record here", owner))
			case err != nil:
				return MergedResult{}, err
			case s.Status == session.StatusMerged:
				res.Session = &s
			case s.Status == session.StatusReplaced || s.ReplacedBy != "":
				res.Session = &s
				res.Notices = append(res.Notices, fmt.Sprintf("the owner %s was replaced; its status stays replaced", owner))
			default:
				next := s.Record
				next.Status, next.UpdatedAt = session.StatusMerged, now
				if next.EndedAt == nil {
					next.EndedAt = &now
				}
				up, err := session.Written(ctx, st, next, s)
				if err != nil {
					return MergedResult{}, err
				}
				ups = append(ups, up)
				next.Schema = session.Schema
				res.Session = &session.Stored{Record: next, Ref: up.Ref, OID: up.New}
			}
		}
		if len(ups) == 0 {
			return res, nil
		}
		if len(ups) == 1 && rec.MergedAt != nil && cur.MergedAt != nil {
			// Only the session changes: still swap it against the record
			// as read, so a concurrent transfer is noticed.
			ups = append(ups, refstore.Update{Ref: cur.Ref, New: cur.OID, Old: cur.OID})
		}
		err = st.Apply(ctx, fmt.Sprintf("handoff: %s merged", label(repo, number)), ups...)
		if err == nil {
			res.Changed = true
			return res, nil
		}
		if !errors.Is(err, refstore.ErrConflict) {
			return MergedResult{}, err
		}
		lastErr = err
	}
	return MergedResult{}, fmt.Errorf("recording %s as merged: gave up after %d lost swaps: %w", label(repo, number), maxAttempts, lastErr)
}

// TransferUpdates prepares, for `session replace --claim-pr`, the move of
// the pull request that session oldID owns to its successor next, as part
// of the caller's own ref transaction. It only reads and writes blobs; it
// moves no ref.
//
// It finds the pull request through the old session's `pr` pointer (or, if
// that is missing or stale, the one record naming oldID as owner) and
// returns the swap of its record: owner next.ID, claimedAt now, and a
// history entry {session: next.ID, from: oldID, at: now, reason:
// "replaced: <reason>"}. When oldID owns no open pull request it returns
// (nil, nil, nil): there is nothing to move.
//
// When rec is not nil the caller must, in the same st.Apply as ups:
//   - set next.PR = rec.Pointer() in the new session's record, and
//   - set PR = nil in the old session's record (the one marked replaced),
//
// and on a lost swap (*refstore.ConflictError, on any ref) call
// TransferUpdates again with fresh values rather than reuse ups. After the
// transaction succeeded, and only then, the GitHub comment may be updated
// from Comment(*rec).
func TransferUpdates(ctx context.Context, st refstore.Writer, oldID string, next session.Record, reason string, now time.Time) ([]refstore.Update, *Record, error) {
	if next.ID == "" || next.ID == oldID {
		return nil, nil, fmt.Errorf("moving the pull request of %q: the successor needs its own id", oldID)
	}
	cur, err := ownedBy(ctx, st, oldID)
	if err != nil || cur == nil {
		return nil, nil, err
	}
	rec := cur.Record
	why := "replaced"
	if r := oneLine(reason); r != "" {
		why += ": " + r
	}
	rec.OwnerSession, rec.ClaimedAt = next.ID, now
	rec.History = append(append([]Transfer{}, rec.History...), Transfer{Session: next.ID, From: oldID, At: now, Reason: why, Harness: next.Harness})
	up, err := update(ctx, st, rec, *cur)
	if err != nil {
		return nil, nil, err
	}
	rec.Schema = Schema
	return []refstore.Update{up}, &rec, nil
}

// ownedBy finds the open pull request session id owns: the one its pointer
// names, else the first record naming it. nil when there is none.
func ownedBy(ctx context.Context, st refstore.Records, id string) (*Stored, error) {
	s, err := session.Read(ctx, st, id)
	if err != nil {
		return nil, err
	}
	if p := s.PR; p != nil {
		r, err := Read(ctx, st, p.Repo, p.Number)
		switch {
		case err == nil:
			if r.OwnerSession == id && !r.Merged() {
				return &r, nil
			}
		case !errors.Is(err, refstore.ErrNotFound) && !errors.Is(err, refstore.ErrInvalidRecord) && !errors.Is(err, refstore.ErrBadName):
			return nil, err
		}
	}
	all, _, err := List(ctx, st)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].OwnerSession == id && !all[i].Merged() {
			return &all[i], nil
		}
	}
	return nil, nil
}
