package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/refstore"
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
}

// Claim claims the eligible baton for the session; the session's record, if
// there is one, keeps a copy (same transaction). It fails with
// *baton.ClaimedError when another session got it first and with
// refstore.ErrNotFound when nothing is eligible.
func Claim(ctx context.Context, st *refstore.Store, opts ClaimOptions, clock Clock) (ClaimResult, error) {
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
	var notices []string
	h, warns, err := baton.Eligible(ctx, st, who.Owner, who.Branch)
	if err != nil {
		return ClaimResult{}, err
	}
	for _, w := range warns {
		notices = append(notices, w.String())
	}
	if h == nil {
		// My own baton here having been claimed says more than "none".
		if ref, err := refstore.HandoffRef(false, who.Owner, who.Branch); err == nil {
			if mine, err := baton.Read(ctx, st, ref); err == nil && mine.Claimed {
				return ClaimResult{Notices: notices}, &baton.ClaimedError{Baton: mine.Baton}
			}
		}
		return ClaimResult{Notices: notices}, fmt.Errorf("no baton is waiting for %s on %q: %w", who.Owner, who.Branch, refstore.ErrNotFound)
	}
	now := clock()
	claimed, up, err := baton.Claimed(ctx, st, *h, id, now)
	if err != nil {
		return ClaimResult{Notices: notices}, err
	}
	if err := arbiter(opts.Arbiter).Arbitrate(ctx, st, up); err != nil {
		return ClaimResult{Notices: notices}, err
	}
	ups := []refstore.Update{up}
	if cur, err := lineage.ReadSession(ctx, st, id); err == nil {
		s := cur.Session
		s.ClaimedHandoff, _ = json.Marshal(claimed.Baton)
		s.UpdatedAt = now
		sup, err := lineage.SessionUpdate(ctx, st, s, cur)
		if err != nil {
			return ClaimResult{Notices: notices}, err
		}
		ups = append(ups, sup)
	}
	if err := st.Apply(ctx, "handoff: claimed "+claimed.ID+" by "+id, ups...); err != nil {
		// The session record changing under us is not losing the baton:
		// claim again without the copy rather than report a false loss.
		var ce *refstore.ConflictError
		if errors.As(err, &ce) && ce.Ref != up.Ref && len(ups) > 1 {
			err = st.Apply(ctx, "handoff: claimed "+claimed.ID+" by "+id, up)
		}
		if err != nil {
			return ClaimResult{Notices: notices}, baton.LostClaim(ctx, st, *h, err)
		}
	}
	return ClaimResult{Handoff: claimed, Notices: notices}, nil
}

// BriefResult is a brief rendered without claiming anything.
type BriefResult struct {
	Handoff   *baton.Stored
	Objective *baton.Objective
	Brief     string
	Fits      bool
	Notices   []string
}

// BriefOptions are what `git handoff brief` was asked.
type BriefOptions struct {
	Session  string
	Owner    string
	Branch   string
	MaxBytes int
	// PRFacts renders the facts of the pull request a session owns, with
	// notices; nil leaves them out (no GitHub access).
	PRFacts func(context.Context, *lineage.PRPointer) (string, []string)
}

// Brief renders the brief for owner on branch as start would, but claims
// nothing. A bound session that replaced another gets its handoff package
// at the top; one that owns a pull request gets its facts.
func Brief(ctx context.Context, st *refstore.Store, opts BriefOptions, clock Clock) (BriefResult, error) {
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return BriefResult{}, err
	}
	g, err := gather(ctx, st, who, clock())
	if err != nil {
		return BriefResult{}, err
	}
	if id, err := SessionID(st, opts.Session); err == nil && id != "" {
		if s, err := lineage.ReadSession(ctx, st, id); err == nil {
			g.input.Package = s.HandoffPackage
			if s.PR != nil && opts.PRFacts != nil {
				var notes []string
				g.input.PR, notes = opts.PRFacts(ctx, s.PR)
				g.notices = append(g.notices, notes...)
			}
		}
	}
	max := maxBytes(opts.MaxBytes)
	text, fits := brief.Render(g.input, max)
	res := BriefResult{Handoff: g.handoff, Objective: g.input.Objective, Brief: text, Fits: fits, Notices: g.notices}
	if g.handoff != nil && !fits {
		res.Notices = append(res.Notices, fmt.Sprintf("baton %s does not fit in %d bytes: read it with `git handoff show`", g.handoff.ID, max))
	}
	return res, nil
}
