package handoff

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

// ErrNothingToUndo refuses an undo of a session that was not continued.
var ErrNothingToUndo = errors.New("nothing to undo")

// WorkedError refuses to undo a continuation whose new agent has worked
// already: going back would drop what it did from the story.
type WorkedError struct{ ID, Agent, What string }

func (e *WorkedError) Error() string {
	return fmt.Sprintf("session %q cannot go back: %s has worked since it took over (%s)", e.ID, e.Agent, e.What)
}

// ContinueUndoOptions are what `continue --undo` was asked.
type ContinueUndoOptions struct {
	ID               string
	By               string
	Grace            time.Duration
	Launcher, Exited []string
}

// ContinueUndo takes a continuation back, within the same session and
// before the new agent did any work (it ended no turn and made no commit
// since): the session runs the agent it left again, with the claimed
// baton and handoff package it had, and the continuation's automatic
// handoff is withdrawn from its ref. It goes through the same guard as
// the continuation. Under tmux the new agent is stopped and the old one
// started again in the pane.
func ContinueUndo(ctx context.Context, st refstore.Clone, opts ContinueUndoOptions, clock Clock) (session.RelaunchResult, error) {
	cur, err := session.Read(ctx, st, opts.ID)
	if err != nil {
		return session.RelaunchResult{}, err
	}
	k := cur.Continued
	if k == nil {
		return session.RelaunchResult{}, fmt.Errorf("session %q was not continued in another agent: %w", opts.ID, ErrNothingToUndo)
	}
	if err := notWorkedSince(ctx, st, cur.Record, *k); err != nil {
		return session.RelaunchResult{}, err
	}
	ro := session.RelaunchOptions{
		ID: opts.ID, Harness: k.From, Model: k.FromModel, By: opts.By, Briefer: SessionBriefer(ctx, st, clock),
		Expect: func(r session.Record) error {
			if r.Continued == nil || !r.Continued.At.Equal(k.At) || HarnessName(r.Harness) != k.To {
				return fmt.Errorf("session %q changed since it was continued in %s: %w", r.ID, k.To, refstore.ErrConflict)
			}
			return notWorkedSince(ctx, st, r, *k)
		},
		Prepare: func(ctx context.Context, guarded session.Record) (func(*session.Record), error) {
			return func(s *session.Record) {
				s.ClaimedHandoff = append([]byte(nil), k.PrevClaimed...)
				s.HandoffPackage = k.PrevPackage
				s.Continued = nil
			}, nil
		},
	}
	var notices []string
	if rs := runtimeState(ctx, cur.Record); rs != nil && rs.State == tmuxrt.StateLive {
		grace := opts.Grace
		if grace <= 0 || grace > maxGrace {
			grace = StopGrace
		}
		ro.Run = liveRun(st, grace, opts.Launcher, opts.Exited, &notices)
	}
	// A session that never ran its old agent's launcher here (an agent its
	// user started) has no conversation to resume: the brief starts it.
	ro.Briefer.Continuing = cur.Launched[k.From].NativeID == ""
	ro.EndBound = endBoundFor(st, clock)
	res, err := session.Switch(ctx, st, ro, clock())
	res.Notices = append(notices, res.Notices...)
	if err != nil || k.Baton == "" {
		return res, err
	}
	// Only once the session is back: a refused undo leaves the new agent
	// its brief.
	if ref, rerr := refstore.HandoffRef(false, cur.Owner, cur.Branch); rerr == nil {
		if n := restoreBaton(ctx, st, baton.Stored{Baton: baton.Baton{ID: k.Baton}, Ref: ref}, clock); n != "" {
			res.Notices = append(res.Notices, n)
		}
	}
	return res, nil
}

// notWorkedSince refuses when the agent that took s over has ended a turn
// or moved HEAD since the continuation k.
func notWorkedSince(ctx context.Context, st refstore.Clone, s session.Record, k session.Continuation) error {
	if s.TurnAt != nil && s.TurnAt.After(k.At) {
		return &WorkedError{ID: s.ID, Agent: k.To, What: "it ended a turn at " + s.TurnAt.UTC().Format(time.RFC3339)}
	}
	if k.Head == "" {
		return nil
	}
	wt, done, err := sessionWorktree(ctx, st, &s)
	if err != nil || wt == nil {
		return nil // its worktree is not here: the turn is all there is to go by
	}
	defer done()
	if head, err := wt.Head(ctx); err == nil && head.Commit != k.Head {
		return &WorkedError{ID: s.ID, Agent: k.To, What: "HEAD moved from " + short(k.Head) + " to " + short(head.Commit)}
	}
	return nil
}
