package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/refstore"
)

// StartOptions are what `git handoff start` was asked.
type StartOptions struct {
	Session   string // "" = make one
	Harness   string
	Model     string
	Objective string
	MaxBytes  int
	Owner     string
	Branch    string
	Arbiter   Arbiter // nil = Local
}

// StartResult is what a starting session is told.
type StartResult struct {
	Session   lineage.Session
	Handoff   *baton.Stored // the baton the brief is about; nil when none
	Claimed   bool
	Objective *baton.Objective
	Brief     string
	Notices   []string
}

// Start creates the session, sets or clears the objective and claims the
// eligible baton, all in one ref transaction, then binds the worktree to the
// session. The baton is claimed only when the brief fits; a claim lost to
// another session degrades to a notice and the plain brief.
func Start(ctx context.Context, st *refstore.Store, opts StartOptions, clock Clock) (StartResult, error) {
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
	var notices []string
	skipClaim := false // the arbiter could not be asked: deliver no baton
	for attempt := 0; ; attempt++ {
		now := clock()
		if _, err := lineage.ReadSession(ctx, st, id); err == nil {
			return StartResult{}, &ExistsError{ID: id}
		} else if !errors.Is(err, refstore.ErrNotFound) {
			return StartResult{}, err
		}
		ctxBrief, err := gather(ctx, st, who, now)
		if err != nil {
			return StartResult{}, err
		}
		notices = append(notices, ctxBrief.notices...)
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
		if skipClaim {
			// Shown but unclaimed, a baton could be delivered twice.
			ctxBrief.input.Baton, ctxBrief.handoff = nil, nil
		}
		text, fits := brief.Render(ctxBrief.input, maxBytes(opts.MaxBytes))
		sess := lineage.Session{
			ID: id, Owner: who.Owner, Branch: who.Branch, Worktree: worktree(st), Host: hostname(),
			Harness: HarnessName(opts.Harness), Model: opts.Model, Status: lineage.StatusActive, Prompt: opts.Objective,
			CreatedAt: now, UpdatedAt: now,
		}
		res := StartResult{Objective: ctxBrief.input.Objective, Brief: text}
		var claimUp refstore.Update
		if h := ctxBrief.handoff; h != nil {
			res.Handoff = h
			if !fits {
				notices = append(notices, fmt.Sprintf("baton %s does not fit in %d bytes with the objective, so it was left unclaimed: read it with `git handoff show`, or start again with a larger --max-bytes", h.ID, maxBytes(opts.MaxBytes)))
			} else {
				claimed, up, err := baton.Claimed(ctx, st, *h, id, now)
				if err != nil {
					return StartResult{}, err
				}
				claimUp = up
				res.Handoff, res.Claimed = &claimed, true
				sess.ClaimedHandoff, _ = json.Marshal(claimed.Baton)
			}
		}
		sessUp, err := lineage.SessionUpdate(ctx, st, sess, lineage.StoredSession{})
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
		if res.Claimed {
			ups = append(ups, claimUp)
			err = arbiter(opts.Arbiter).Arbitrate(ctx, st, claimUp)
			if errors.Is(err, refstore.ErrConflict) && attempt < 3 {
				notices = append(notices, fmt.Sprintf("another clone claimed baton %s first: %v", res.Handoff.ID, err))
				continue
			}
			if err != nil {
				// The session still starts; the baton waits for a claim
				// that can reach the remote (or an --offline one).
				notices = append(notices, fmt.Sprintf("baton %s is waiting but was not claimed: %v; run `git handoff claim` once the remote is reachable, or `git handoff claim --offline`", res.Handoff.ID, err))
				skipClaim = true
				continue
			}
		}
		err = st.Apply(ctx, "handoff: start "+id, ups...)
		var ce *refstore.ConflictError
		switch {
		case err == nil:
			if err := st.Bind(sessUp.Ref); err != nil {
				notices = append(notices, "this worktree was not bound to the session: "+err.Error())
			}
			sess.Schema = lineage.SessionSchema
			res.Session, res.Notices = sess, notices
			return res, nil
		case !errors.As(err, &ce) || attempt == 3:
			return StartResult{}, err
		case ce.Ref == sessUp.Ref:
			return StartResult{}, &ExistsError{ID: id}
		case res.Claimed && ce.Ref == claimUp.Ref:
			if lost := baton.LostClaim(ctx, st, *res.Handoff, err); lost != err {
				notices = append(notices, "another session claimed the baton first: "+lost.Error())
			}
		}
		// Someone changed what we decided from: decide again from fresh values.
	}
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

func worktree(st *refstore.Store) string {
	if st.Bare() {
		return ""
	}
	return st.Dir()
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}
