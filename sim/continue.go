package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// Continuation in the simulation (Config.Continue): a session carried on
// in another agent (handoff.Continue) by hand; by two deciders at once
// (two processes of one clone, or of two clones, that both saw the
// session's agent stop); and with a first fallback that fails to start.
// The crash faults hit every write of a continuation half-way. No agent
// runs: the session's record naming an agent is the agent running.
//
// Invariants: of deciders that saw the same agent stop, at most one
// continues the session (never two agents on one session); a fallback
// that fails to start leaves the session's record as it was; and the
// automatic handoff a continuation writes, born claimed by its own
// session, is in the baton accounting like any other (delivered to that
// session at birth, deleted when withdrawn), so no baton is lost by a
// continuation, finished or not.

// continueWeights are the continuation operations' weights, with
// Config.Continue.
var continueWeights = map[Op]int{OpContinue: 6, OpContinueRace: 6, OpContinueFail: 4}

// contAgents are the agents sessions continue in.
var contAgents = []string{"codex", "gemini", "claude-code"}

// contLedger is what the continuation operations know.
type contLedger struct {
	withdrawn map[string]bool // continuation batons seen withdrawn
}

func newContLedger() *contLedger { return &contLedger{withdrawn: map[string]bool{}} }

// noteContinuation keeps the accounting of a continuation's automatic
// handoff, as the stores show its versions: claimed by its own session at
// birth (delivered to it, even when the process that wrote it died before
// saying so), withdrawn when its continuation failed or was undone.
func (w *world) noteContinuation(b baton.Baton) {
	if b.Auto == nil || b.Auto.Continued == "" {
		return
	}
	switch {
	// Withdrawn: cancelled, its claim by its own session taken off with it
	// (restoreBaton), or left on (an older release's withdrawal). Born
	// claimed, no one else can cancel it.
	case b.Deleted != nil && b.Deleted.Reason == "cancelled" && (b.ClaimedBySession == b.Auto.Session || b.ClaimedBySession == ""):
		w.cl.withdrawn[b.ID] = true
		if w.led.delivered[b.ID] == b.Auto.Session {
			delete(w.led.delivered, b.ID)
		}
		if _, ok := w.led.deleted[b.ID]; !ok {
			w.led.deleted[b.ID] = "withdrawn (its continuation did not happen)"
		}
	case b.Claimed && b.ClaimedBySession == b.Auto.Session && !w.cl.withdrawn[b.ID]:
		if _, ok := w.led.delivered[b.ID]; !ok {
			w.led.delivered[b.ID] = b.Auto.Session
		}
	}
}

// callContinue runs one continuation operation.
func (w *world) callContinue(ctx context.Context, c *faulty, s Step, who string, clock handoff.Clock) string {
	sid := w.sessionFor(c, s.Clone, s.Arg)
	if sid == "" {
		return "nothing"
	}
	cur, err := session.Read(ctx, c, sid)
	if err == nil && !cur.Live() {
		// Most sessions have ended by now: continue a live one.
		if live := w.liveSession(ctx, c, s.Clone, s.Arg); live.ID != "" {
			sid, cur = live.ID, live
		}
	}
	if err != nil {
		return "error " + sid + " " + short(err)
	}
	to := pick(contAgents, s.Arg>>4)
	switch s.Op {
	case OpContinue:
		res, err := handoff.Continue(ctx, c, handoff.ContinueOptions{ID: sid, To: to, By: who}, clock)
		if err != nil {
			return "error " + sid + " " + short(err)
		}
		return w.continued(c, sid, res, who)
	case OpContinueRace:
		return w.continueRace(ctx, c, s, cur.Record, who, clock)
	}
	// OpContinueFail: the first agent exits at once; the next, when
	// there is one, starts.
	next := pick(contAgents, s.Arg>>6)
	opts := handoff.ContinueOptions{ID: sid, To: to, By: who, Auto: true, Why: "sim: the agent stopped",
		Run: func(_ context.Context, _ session.Record, plan session.LaunchPlan) (*session.Runtime, error) {
			if plan.Harness == to {
				return nil, &handoff.StartError{Agent: to, Exit: "status 1"}
			}
			return nil, nil
		}}
	if s.Arg&0x1000 != 0 && next != to {
		opts.Then = []string{next}
	}
	res, err := handoff.Continue(ctx, c, opts, clock)
	if err == nil {
		if len(opts.Then) == 0 || res.Session.Harness != next {
			w.violate(w.step, "failed-start-continued", fmt.Sprintf("session %s continued in %s, whose start failed (%s)", sid, res.Session.Harness, who))
		}
		return w.continued(c, sid, res, who)
	}
	var se *handoff.StartError
	if errors.As(err, &se) {
		// The session is as it was: the agent, the claimed handoff.
		if now, rerr := session.Read(ctx, c, sid); rerr == nil &&
			(now.Harness != cur.Harness || !bytes.Equal(now.ClaimedHandoff, cur.ClaimedHandoff) || now.Continued != nil && (cur.Continued == nil || !now.Continued.At.Equal(cur.Continued.At))) {
			w.violate(w.step, "failed-start-changed-session", fmt.Sprintf("session %s runs %s (was %s) after its fallback failed to start (%s)", sid, now.Harness, cur.Harness, who))
		}
	}
	return "error " + sid + " " + short(err)
}

// liveSession is a live session among the clone's latest, from arg on.
func (w *world) liveSession(ctx context.Context, c *faulty, clone int, arg uint32) session.Stored {
	list := w.wl.sessions[clone]
	if len(list) > 2*recent {
		list = list[len(list)-2*recent:]
	}
	for i := range list {
		sid := list[(int(arg>>20)+i)%len(list)]
		if cur, err := session.Read(ctx, c, sid); err == nil && cur.Live() {
			return cur
		}
	}
	return session.Stored{}
}

// continued notes a continuation that reported success.
func (w *world) continued(st refstore.Records, sid string, res handoff.ContinueResult, who string) string {
	out := fmt.Sprintf("continued %s %s->%s", sid, res.From, res.Session.Harness)
	if res.Baton != nil {
		w.deliver(st, *res.Baton, sid, who)
		out += " baton " + res.Baton.ID
	}
	return out
}

// continueRace has two deciders continue one session, each having seen
// the agent it runs stop: the second decided before the first acted, so
// it passes the agent it saw (From). The second is another process of
// this clone, or of another clone whose copy of the session it read (odd
// Arg bits); the first may die half-way (the step's crash faults), and
// the second then runs all the same.
func (w *world) continueRace(ctx context.Context, c *faulty, s Step, cur session.Record, who string, clock handoff.Clock) string {
	from := handoff.HarnessName(cur.Harness)
	a, b := pick(contAgents, s.Arg>>4), pick(contAgents, s.Arg>>7)
	other, where := c, s.Clone
	if s.Arg&0x2000 != 0 && len(w.clones) > 1 {
		j := (s.Clone + 1 + int(s.Arg>>14)%(len(w.clones)-1)) % len(w.clones)
		other, where = newFaulty(w.clones[j], w.faults), j
		if theirs, err := session.Read(ctx, other, cur.ID); err != nil || handoff.HarnessName(theirs.Harness) != from {
			other, where = c, s.Clone // its copy is not the one seen: a second process here
		}
	}
	// Each decider reads its own clone's clock: a first sighting of a
	// lease the brief notes with another clone's skewed clock would take
	// hours off its wait (found by seed 12 with continuation).
	decide := func(st *faulty, to string, clock handoff.Clock) (res handoff.ContinueResult, err error, died bool) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(crash); !ok {
					panic(r)
				}
				died = true
			}
		}()
		res, err = handoff.Continue(ctx, st, handoff.ContinueOptions{ID: cur.ID, To: to, From: from, Auto: true, By: who, Why: "sim: " + from + " stopped"}, clock)
		return res, err, false
	}
	resA, errA, diedA := decide(c, a, clock)
	// The second decider is a process of its own: the first's death is
	// not its.
	w.faults.dead.Store(false)
	clockB := clock
	if where != s.Clone {
		clockB = w.clock(where)
	}
	resB, errB, diedB := decide(other, b, clockB)
	out := "race " + cur.ID
	for _, d := range []struct {
		name string
		st   refstore.Records
		res  handoff.ContinueResult
		err  error
		died bool
	}{{"a", c, resA, errA, diedA}, {fmt.Sprintf("b@c%d", where), other, resB, errB, diedB}} {
		switch {
		case d.died:
			out += " " + d.name + ":died"
		case d.err != nil:
			out += " " + d.name + ":" + short(d.err)
		default:
			out += " " + d.name + ":" + w.continued(d.st, cur.ID, d.res, who)
		}
	}
	if errA == nil && errB == nil && !diedA && !diedB && a != from && b != from {
		w.violate(w.step, "continued-twice", fmt.Sprintf("session %s, seen running %s, continued in %s and in %s (%s)", cur.ID, from, resA.Session.Harness, resB.Session.Harness, who))
	}
	return out
}
