package handoff

import (
	"context"
	"errors"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// EndOptions are what `git handoff end` was asked.
type EndOptions struct {
	Session   string
	Owner     string
	Branch    string
	Harness   string
	Shared    bool
	Next      []string
	Failed    []string
	Questions []string
	// Snapshot records the worktree's uncommitted changes as the
	// session's snapshot first (snapshot.go); failing, nothing is ended.
	Snapshot bool
	// NoBaton ends the session with nothing to hand over: no baton is
	// written (the design's empty payload, `git handoff end` without
	// baton flags). Next, Failed and Questions must then be empty; a
	// payload that is present but empty (Next: [""]) is still refused
	// with baton.ErrNoSteps.
	NoBaton bool
}

// EndResult is the baton left behind.
type EndResult struct {
	Handoff baton.Stored    // zero with EndOptions.NoBaton
	Left    bool            // a baton was written (false with NoBaton)
	Session *session.Record // nil when no session record was found
	Unbound bool            // this worktree was bound to the ended session and no longer is
	// Superseded is the baton this one replaced while it was still waiting.
	Superseded *baton.Stored
	Snapshot   SnapshotTaken // with EndOptions.Snapshot
	// Redacted is what was taken out of the notes before they were
	// written (credentials: redact).
	Redacted []redact.Hit
	Notices  []string
}

// End leaves a baton for the next session, marks the session ended and
// clears the objective, in one ref transaction. With NoBaton it does the
// same but writes no baton.
func End(ctx context.Context, st refstore.Clone, opts EndOptions, clock Clock) (EndResult, error) {
	if opts.NoBaton && len(opts.Next)+len(opts.Failed)+len(opts.Questions) > 0 {
		return EndResult{}, errors.New("ending without a baton, yet given a baton's notes")
	}
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return EndResult{}, err
	}
	id, err := SessionID(st, opts.Session)
	if err != nil {
		return EndResult{}, err
	}
	var notices []string
	var redacted []redact.Hit
	for _, l := range []*[]string{&opts.Next, &opts.Failed, &opts.Questions} {
		var hits []redact.Hit
		*l, hits = scrubList(*l)
		redacted = redact.Merge(redacted, hits)
	}
	if n := redactedNotice(redacted); n != "" {
		notices = append(notices, n)
	}
	taken, err := endSnapshot(ctx, st, id, opts.Snapshot)
	if err != nil {
		return EndResult{}, err
	}
	if n := taken.notice(id); n != "" {
		notices = append(notices, n)
	}
	for attempt := 0; ; attempt++ {
		now := clock()
		var ups []refstore.Update
		var sessUp *refstore.Update
		var sess *session.Record
		var sessionHarness string
		if id != "" {
			cur, err := session.Read(ctx, st, id)
			switch {
			case err == nil:
				s := cur.Record
				sessionHarness = s.Harness
				s.EndAt(now)
				s.UpdatedAt = now
				up, err := session.Written(ctx, st, s, cur)
				if err != nil {
					return EndResult{}, err
				}
				sessUp, sess = &up, &s
			case errors.Is(err, refstore.ErrNotFound):
				if attempt == 0 && opts.NoBaton {
					notices = append(notices, "no record of session "+id+": no session was ended")
				} else if attempt == 0 {
					notices = append(notices, "no record of session "+id+": the baton names it, but no session was ended")
				}
			default:
				return EndResult{}, err
			}
		}
		var b baton.Baton
		var stored baton.Stored
		var up refstore.Update
		msg := "handoff: end session " + id
		if !opts.NoBaton {
			b, err = baton.New(baton.Draft{
				Owner: who.Owner, Branch: who.Branch, Shared: opts.Shared,
				NextSteps: opts.Next, FailedApproaches: opts.Failed, OpenQuestions: opts.Questions,
				Harness: HarnessName(opts.Harness, sessionHarness), SessionID: id, Head: who.Head,
			}, now)
			if err != nil {
				return EndResult{}, err
			}
			stored, up, err = baton.Written(ctx, st, b)
			if err != nil {
				return EndResult{}, err
			}
			ups = append(ups, up)
			msg = "handoff: end " + b.ID
		}
		objUp, objChanged, err := baton.ObjectiveUpdate(ctx, st, who.Owner, who.Branch, "", id, now)
		if err != nil {
			return EndResult{}, err
		} else if objChanged {
			ups = append(ups, objUp)
		}
		// Apply moves refs in this order and a kill can stop it after any
		// of them: the baton (and objective) go first, so a prefix is at
		// worst a baton waiting while the session still reads active. The
		// other way round a prefix is an ended session whose baton is lost.
		if sessUp != nil {
			ups = append(ups, *sessUp)
		}
		err = nil // nothing to write: no baton, no session record, no objective
		if len(ups) > 0 {
			err = st.Apply(ctx, msg, ups...)
		}
		if err == nil {
			var superseded *baton.Stored
			if !opts.NoBaton {
				var note []string
				superseded, note = supersededWaiting(ctx, st, up, b.ID)
				notices = append(notices, note...)
			}
			if n := objectiveCleared(ctx, st, objUp, "", "a session's end clears it"); n != "" {
				notices = append(notices, n)
			}
			if !opts.NoBaton {
				if n := unpushedHead(ctx, st, b.ID, b.Head); n != "" {
					notices = append(notices, n)
				}
			}
			unbound := false
			switch {
			case sessUp != nil:
				// The record just written is what the binding resolves
				// to while it names this session.
				dir, notes := unbindEnded(ctx, st, msg, session.Stored{Record: *sess, Ref: sessUp.Ref, OID: sessUp.New}, "ended")
				unbound, notices = dir != "", append(notices, notes...)
			case id != "":
				// No record: the binding is told by the name it holds.
				if bound, _ := st.BoundSession(); bound == id {
					if err := st.Unbind(ctx); err != nil {
						notices = append(notices, stillBound("ended", err))
					} else {
						unbound = true
					}
				}
			}
			return EndResult{Handoff: stored, Left: !opts.NoBaton, Session: sess, Unbound: unbound, Superseded: superseded, Snapshot: taken, Redacted: redacted, Notices: notices}, nil
		}
		if !errors.Is(err, refstore.ErrConflict) || attempt == 3 {
			return EndResult{}, err
		}
	}
}

// unbindEnded removes the binding to a session just ended (or terminated:
// how is what), stored as s: this worktree's, else that of the session's
// own worktree. It returns the worktree unbound ("" when none was bound to
// it) and, when the binding could not be removed, the notice that says so.
func unbindEnded(ctx context.Context, st refstore.Clone, msg string, s session.Stored, how string) (string, []string) {
	ok, err := st.UnbindFrom(ctx, msg, s.OID)
	dir := st.Dir()
	if !ok && err == nil {
		dir, err = session.Unbind(ctx, st, s, msg)
	}
	if err != nil {
		return "", []string{stillBound(how, err)}
	}
	return dir, nil
}

// stillBound is the notice of a binding to a session that ended (how) and
// could not be removed.
func stillBound(how string, err error) string {
	return "the worktree is still bound to the " + how + " session: " + err.Error()
}

// EndSessionResult is what ending a session without a baton did.
type EndSessionResult struct {
	Session session.Stored
	Ended   bool   // false: it was not active (nothing changed)
	Unbound string // the worktree that was bound to it and no longer is
	// Handover is what it handed on without a baton of its own: its
	// automatic handoff, or the baton it claimed offered again.
	Handover Handover
	Notices  []string
}

// EndSession ends a session whose agent is gone, without a baton: active
// becomes ended (session.Record.EndAt, as `end` does), its worktree is
// unbound, and what it did is handed on (handOver). A session that is not active is left as it is; a switch in
// flight refuses with *session.SwitchingError, since the switch stops the
// old agent on purpose and the session goes on with the new one.
func EndSession(ctx context.Context, st refstore.Clone, id, reason string, clock Clock) (EndSessionResult, error) {
	return endSession(ctx, st, id, reason, clock, false)
}

// endSession is EndSession; later leaves the handover noted as due, for
// FinishHandovers in another process to run (an agent's end hook, which
// the agent gives a second or two).
func endSession(ctx context.Context, st refstore.Clone, id, reason string, clock Clock, later bool) (EndSessionResult, error) {
	due, noteErr := noteHandover(ctx, st, id, reason)
	s, ended, err := session.End(ctx, st, id, reason, clock())
	res := EndSessionResult{Session: s, Ended: ended}
	if noteErr != nil && ended {
		// Handed on all the same, unless this process is stopped first.
		res.Notices = append(res.Notices, noteErr.Error())
	}
	if err != nil || !ended {
		due.drop()
		return res, err
	}
	res.Unbound, res.Notices = unbindEnded(ctx, st, "handoff: end "+id, s, "ended")
	if later && noteErr == nil {
		return res, nil
	}
	res.Handover = handOver(ctx, st, s, reason, clock)
	res.Notices = append(res.Notices, res.Handover.Notices...)
	if ctx.Err() == nil {
		due.drop()
	}
	return res, nil
}
