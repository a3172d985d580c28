package handoff

import (
	"context"
	"fmt"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

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
	// Claimed shows the baton the session claimed in place of a waiting
	// one (which is pointed at, never shown unclaimed): the first message
	// of an agent launched for a session that claimed before.
	Claimed bool
	// PRFacts renders the facts of the pull request a session owns, with
	// notices; nil leaves them out (no GitHub access).
	PRFacts func(context.Context, *session.PRPointer) (string, []string)
	// Record is the session's record as a switch is about to write it
	// (its handoff package retitled for the new agent); nil reads the
	// stored one.
	Record *session.Record
}

// Brief renders the brief for owner on branch as start would, but claims
// nothing. A bound session that replaced another gets its handoff package
// at the top; one that owns a pull request gets its facts.
func Brief(ctx context.Context, st refstore.Clone, opts BriefOptions, clock Clock) (BriefResult, error) {
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return BriefResult{}, err
	}
	g, err := gather(ctx, st, who, clock())
	if err != nil {
		return BriefResult{}, err
	}
	// Only here is a stored objective shown (start shows the one it is
	// given, or none), so only here is it checked.
	if g.input.Objective != nil {
		var note string
		g.input.Objective, g.input.ObjectiveFenced, note = checkObjective(ctx, st, g.input.Objective, g.objOID, who.Owner)
		if note != "" {
			g.notices = append(g.notices, note)
		}
	}
	id, err := SessionID(st, opts.Session)
	if err != nil {
		id = ""
	}
	g.addLeases(ctx, st, id)
	if id != "" {
		if s, err := sessionFor(ctx, st, id, opts.Record); err == nil {
			g.input.Package = s.HandoffPackage
			if opts.Claimed {
				g.input.Progress = s.Summary
				if w := withClaimed(ctx, st, s.Record, &g, who); w != nil {
					g.notices = append(g.notices, fmt.Sprintf("baton %s is waiting on `%s`: run `git handoff claim` to take it", w.ID, w.Branch))
				}
			}
			if s.PR != nil && opts.PRFacts != nil {
				var notes []string
				g.input.PR, notes = opts.PRFacts(ctx, s.PR)
				g.notices = append(g.notices, notes...)
			}
		}
	}
	max := maxBytes(opts.MaxBytes)
	text, fits := brief.Render(g.input, max)
	text += briefSnapshot(ctx, st, opts.Session, g.handoff, &g.notices)
	res := BriefResult{Handoff: g.handoff, Objective: g.input.Objective, Brief: text, Fits: fits, Notices: g.notices}
	if g.handoff != nil && !fits {
		res.Notices = append(res.Notices, fmt.Sprintf("baton %s does not fit in %d bytes: read it with `git handoff show`", g.handoff.ID, max))
	}
	return res, nil
}

// sessionFor is session id's record: rec when it is that session's (as a
// switch is about to write it), else the stored one.
func sessionFor(ctx context.Context, st refstore.Records, id string, rec *session.Record) (session.Stored, error) {
	if rec != nil && rec.ID == id {
		return session.Stored{Record: *rec}, nil
	}
	return session.Read(ctx, st, id)
}

// addLeases lists in g's brief the leases held on this repository, from
// this clone's copies (a brief is read at every start: it fetches
// nothing), session's own marked as its; leases that cannot be read are
// a notice.
func (g *gathered) addLeases(ctx context.Context, st refstore.Clone, session string) {
	ls, err := briefLeases(ctx, st, session, g.input.Now)
	if err != nil {
		g.notices = append(g.notices, "the leases were left out of the brief: "+err.Error())
	}
	g.input.Leases = ls
}

// briefLeases are the leases held as this clone's copies have them, for
// a brief or package written for session.
func briefLeases(ctx context.Context, st refstore.Clone, session string, now time.Time) ([]brief.Lease, error) {
	s, err := lease.ReadBoard(ctx, st, lease.Prefix, lease.GuardRef, refstore.ArchivePrefix)
	if err != nil || len(s.Leases) == 0 {
		return nil, err
	}
	vs, err := lease.Views(ctx, st.Local(), s, session, false, now)
	if err != nil {
		return nil, err
	}
	out := make([]brief.Lease, 0, len(vs))
	for _, v := range vs {
		out = append(out, brief.Lease{Key: v.Record.Key, Session: v.Session, Owner: v.Owner, Agent: v.Agent,
			Note: v.Note, Mine: v.Mine, FreesAt: v.FreesAt, Expired: v.Expired})
	}
	return out, nil
}

// packageLeases is the handoff package's section on the leases session
// old holds here, which the replacement hands to its successor.
func packageLeases(ctx context.Context, st refstore.Clone, old string, now time.Time) string {
	ls, err := briefLeases(ctx, st, old, now)
	if err != nil {
		return ""
	}
	var mine []brief.Lease
	for _, l := range ls {
		if l.Mine {
			mine = append(mine, l)
		}
	}
	return brief.PackageLeases(mine)
}
