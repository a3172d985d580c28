package handoff

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// Clock tells the time; tests pin it.
type Clock func() time.Time

// gathered is what a brief is made of, read from the store.
type gathered struct {
	input   brief.Input
	handoff *baton.Stored
	notices []string
	objOID  string // the stored objective's blob, for Brief to verify
}

const (
	sinceLimit  = 20
	recentLimit = 10
)

// gather reads the eligible baton, the objective and the commits a brief
// shows. Unreadable records become notices, never failures.
func gather(ctx context.Context, st refstore.Clone, who Who, now time.Time) (gathered, error) {
	g := gathered{input: brief.Input{Owner: who.Owner, Branch: who.Branch, Now: now}}
	h, warns, refused, err := eligible(ctx, st, who)
	if err != nil {
		return g, err
	}
	for _, w := range warns {
		g.notices = append(g.notices, w.String())
	}
	g.notices = append(g.notices, refused...)
	obj, objOID, err := baton.ReadObjective(ctx, st, who.Owner, who.Branch)
	g.objOID = objOID
	if err != nil {
		g.notices = append(g.notices, "skipping the objective: "+err.Error())
	}
	g.input.Objective = obj
	if h != nil {
		g.handoff = h
		g.input.Baton = &h.Baton
		g.input.Signature, g.input.Fenced = h.Signature, h.Fenced
		g.input.Since, g.input.SinceTotal, g.input.SinceNote = since(ctx, st, h.Head, who.Head)
	}
	if who.Head != "" {
		g.input.Recent, _, err = st.Log(ctx, who.Head, "", recentLimit)
		if err != nil {
			g.notices = append(g.notices, "recent commits left out: "+err.Error())
		}
	}
	return g, nil
}

// since lists the commits made after a baton written at base.
func since(ctx context.Context, st refstore.Clone, base, head string) ([]refstore.Commit, int, string) {
	switch {
	case base == "":
		return nil, 0, "The baton was written before this branch had a commit."
	case head == "":
		return nil, 0, "This branch has no commits yet."
	case base == head:
		return nil, 0, ""
	}
	commits, total, err := st.Log(ctx, head, base, sinceLimit)
	if err != nil {
		return nil, 0, fmt.Sprintf("The baton was written at %s, which this clone does not have (fetch to compare).", base[:min(10, len(base))])
	}
	if total == 0 {
		return nil, 0, fmt.Sprintf("HEAD is behind or beside where the baton was written (%s): check `git log %s` before going on.", base[:10], base[:10])
	}
	return commits, total, ""
}

// withClaimed puts the baton session s claimed in g's brief instead of the
// waiting one (a session that goes on, or is relaunched, is given again
// what it claimed). Its notes come from the session's copy; their signature
// is checked again on the baton's ref while it still holds that claim, and
// they are fenced as any baton would be. It returns the waiting baton when
// that is another one, for the caller to point at.
func withClaimed(ctx context.Context, st refstore.Clone, s session.Record, g *gathered, who Who) (waiting *baton.Stored) {
	waiting = g.handoff
	g.handoff, g.input.Baton, g.input.Signature, g.input.Fenced = nil, nil, nil, false
	g.input.Since, g.input.SinceTotal, g.input.SinceNote = nil, 0, ""
	if len(s.ClaimedHandoff) > 0 {
		var b baton.Baton
		if err := json.Unmarshal(s.ClaimedHandoff, &b); err != nil {
			g.notices = append(g.notices, fmt.Sprintf("the baton session %s claimed could not be read back: %v; `git handoff show` may still have it", s.ID, err))
		} else {
			claimed := baton.Stored{Baton: b}
			if ref, err := refstore.HandoffRef(b.Shared, b.Owner, b.Branch); err == nil {
				claimed.Ref = ref
				if cur, err := baton.Read(ctx, st, ref); err == nil && cur.ID == b.ID && cur.ClaimedBySession == s.ID {
					claimed = cur
				}
			}
			verifyBaton(ctx, st, &claimed, who.Owner)
			g.input.Baton, g.input.Signature, g.input.Fenced = &claimed.Baton, claimed.Signature, claimed.Fenced
			g.input.Since, g.input.SinceTotal, g.input.SinceNote = since(ctx, st, b.Head, who.Head)
		}
	}
	if waiting != nil && g.input.Baton != nil && waiting.ID == g.input.Baton.ID {
		waiting = nil
	}
	return waiting
}
