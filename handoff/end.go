package handoff

import (
	"context"
	"errors"
	"time"

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
	// Superseded are the batons this one replaced while they were still
	// waiting: the one here, and one waiting at a remote that the merge
	// had not brought here (supersede.go).
	Superseded []baton.Stored
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
	// The baton's id is drawn first: the transaction's reflog message
	// names it, and its update-ref then starts while the records are read.
	batonID := ""
	if !opts.NoBaton {
		batonID = baton.NewID("h")
		writeAhead(ctx, st)
		refsAhead(st, endMessage(batonID))
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
	redacted := scrubNotes(&opts)
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
		p := &endPass{id: id, batonID: batonID, msg: "handoff: end session " + id}
		batonID = "" // a pass that follows a lost swap draws its own
		if id != "" {
			missing, err := p.endRecord(ctx, st, now)
			if err != nil {
				return EndResult{}, err
			}
			if missing && attempt == 0 {
				notices = append(notices, noRecordNotice(id, opts.NoBaton))
			}
		}
		if err := p.write(ctx, st, opts, who, now); err != nil {
			return EndResult{}, err
		}
		err = nil // nothing to write: no baton, no session record, no objective
		if len(p.ups) > 0 {
			err = st.Apply(ctx, p.msg, p.ups...)
		}
		if err == nil {
			superseded, unbound, more := p.ended(ctx, st, opts.NoBaton)
			notices = append(notices, more...)
			return EndResult{Handoff: p.stored, Left: !opts.NoBaton, Session: p.sess, Unbound: unbound, Superseded: superseded, Snapshot: taken, Redacted: redacted, Notices: notices}, nil
		}
		if !errors.Is(err, refstore.ErrConflict) || attempt == 3 {
			return EndResult{}, err
		}
	}
}

// endMessage is the reflog message of the end that leaves baton id.
func endMessage(id string) string { return "handoff: end " + id }

// scrubNotes takes credentials out of the baton's notes, returning what it
// took.
func scrubNotes(opts *EndOptions) []redact.Hit {
	var redacted []redact.Hit
	for _, l := range []*[]string{&opts.Next, &opts.Failed, &opts.Questions} {
		var hits []redact.Hit
		*l, hits = scrubList(*l)
		redacted = redact.Merge(redacted, hits)
	}
	return redacted
}

// noRecordNotice says that session id, named by the end, has no record.
func noRecordNotice(id string, noBaton bool) string {
	if noBaton {
		return "no record of session " + id + ": no session was ended"
	}
	return "no record of session " + id + ": the baton names it, but no session was ended"
}

// endPass is what one attempt of End writes, in one transaction.
type endPass struct {
	id      string            // the session ending ("" for none)
	sess    *session.Record   // its record, ended; nil when it has none
	sessUp  *refstore.Update  // the write of sess
	harness string            // the session's agent, as its record says
	b       baton.Baton       // the baton left (zero with NoBaton)
	stored  baton.Stored      // b as written
	up      refstore.Update   // the write of b
	objUp   refstore.Update   // the objective cleared
	ups     []refstore.Update // every write, in the order Apply moves them
	msg     string            // the transaction's message
	batonID string            // the id of the baton to leave; "": drawn when it is made
	// superseded are the batons b replaces while they wait, archived
	// by the same transaction, and supersededNotes tell their authors.
	superseded      []baton.Stored
	supersededNotes []string
	noted           bool // a final baton it replaces was noted (replacedFinal)
}

// endRecord reads the session's record and makes it ended as of now;
// missing says it has none.
func (p *endPass) endRecord(ctx context.Context, st refstore.Clone, now time.Time) (missing bool, err error) {
	cur, err := session.Read(ctx, st, p.id)
	switch {
	case err == nil:
		s := cur.Record
		p.harness = s.Harness
		s.EndAt(now)
		s.UpdatedAt = now
		up, err := session.Written(ctx, st, s, cur)
		if err != nil {
			return false, err
		}
		p.sessUp, p.sess = &up, &s
		return false, nil
	case errors.Is(err, refstore.ErrNotFound):
		return true, nil
	}
	return false, err
}

// write makes the baton (unless NoBaton) and clears the objective, then
// adds the session's record to the writes.
func (p *endPass) write(ctx context.Context, st refstore.Clone, opts EndOptions, who Who, now time.Time) error {
	if !opts.NoBaton {
		var err error
		p.b, err = baton.New(baton.Draft{
			Owner: who.Owner, Branch: who.Branch, Shared: opts.Shared,
			NextSteps: opts.Next, FailedApproaches: opts.Failed, OpenQuestions: opts.Questions,
			Harness: HarnessName(opts.Harness, p.harness), SessionID: p.id, Head: who.Head,
			ID: p.batonID,
		}, now)
		if err != nil {
			return err
		}
		if p.stored, p.up, err = baton.Written(ctx, st, p.b); err != nil {
			return err
		}
		p.ups = append(p.ups, p.up)
		p.msg = endMessage(p.b.ID)
	}
	objUp, objChanged, err := baton.ObjectiveUpdate(ctx, st, who.Owner, who.Branch, "", p.id, now)
	if err != nil {
		return err
	} else if objChanged {
		p.ups = append(p.ups, objUp)
	}
	p.objUp = objUp
	// Apply moves refs in this order and a kill can stop it after any
	// of them: the baton (and objective) go first, so a prefix is at
	// worst a baton waiting while the session still reads active. The
	// other way round a prefix is an ended session whose baton is lost.
	if p.sessUp != nil {
		p.ups = append(p.ups, *p.sessUp)
	}
	if !opts.NoBaton {
		r := replacing(ctx, st, p.up, p.b.ID, true)
		p.superseded, p.supersededNotes, p.noted = r.waiting, r.notices, r.noted
		p.ups = append(p.ups, r.archive...)
	}
	return nil
}

// ended says what the written pass did (the baton it superseded, one whose
// head is not pushed, the objective cleared) and unbinds the worktree from
// the ended session.
func (p *endPass) ended(ctx context.Context, st refstore.Clone, noBaton bool) (superseded []baton.Stored, unbound bool, notices []string) {
	superseded, notices = p.superseded, append(notices, p.supersededNotes...)
	if p.noted {
		notices = append(notices, archiveRetiringWhenMany(ctx, st)...)
	}
	if n := objectiveCleared(ctx, st, p.objUp, "", "a session's end clears it"); n != "" {
		notices = append(notices, n)
	}
	if !noBaton {
		if n := unpushedHead(ctx, st, p.b.ID, p.b.Head); n != "" {
			notices = append(notices, n)
		}
	}
	switch {
	case p.sessUp != nil:
		// The record just written is what the binding resolves
		// to while it names this session.
		dir, notes := unbindEnded(ctx, st, p.msg, session.Stored{Record: *p.sess, Ref: p.sessUp.Ref, OID: p.sessUp.New}, "ended")
		unbound, notices = dir != "", append(notices, notes...)
	case p.id != "":
		// No record: the binding is told by the name it holds.
		if bound, _ := st.BoundSession(); bound == p.id {
			if err := st.Unbind(ctx); err != nil {
				notices = append(notices, stillBound("ended", err))
			} else {
				unbound = true
			}
		}
	}
	return superseded, unbound, notices
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
