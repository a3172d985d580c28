package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/internal/simdefect"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// StartOptions are what `git handoff start` was asked.
type StartOptions struct {
	Session string // "" = make one
	Harness string
	// NativeID is the agent's own id for this session, recorded next to
	// the harness so `session launch` can resume it; "" = the id the
	// agent's environment gives, if any (harness.DetectNative).
	NativeID  string
	Model     string
	Objective string
	MaxBytes  int
	Owner     string
	Branch    string
	Arbiter   Arbiter // nil = Local
	// ApplySnapshot applies the snapshot of the baton's session to this
	// worktree once the session has started (snapshot.go).
	ApplySnapshot bool
}

// StartResult is what a starting session is told.
type StartResult struct {
	Session   session.Record
	Handoff   *baton.Stored // the baton the brief is about; nil when none
	Claimed   bool
	Objective *baton.Objective
	Brief     string
	Notices   []string
	// Snapshot is the uncommitted work the baton's session left, when it
	// left some; SnapshotErr says why --apply-snapshot refused it (the
	// session has started, the worktree is unchanged).
	Snapshot    *SnapshotOffer
	SnapshotErr error
	// EndedBound is the session this worktree was bound to, active, that
	// was ended (without a baton) so that one session is bound here.
	EndedBound string
	// Conflicts are the versions the arbiter's answer replaced here that
	// were written without seeing the version kept (as sync reports them).
	Conflicts []Conflict
}

// startAttempts bounds how often start decides its claim again after
// losing it (to another clone, or a swap of one of its refs); one more pass
// then starts the session without claiming.
const startAttempts = 3

// Start creates the session, sets or clears the objective and claims the
// eligible baton, all in one ref transaction, then binds the worktree to the
// session. The baton is claimed only when the brief fits; a claim lost to
// another session degrades to a notice and the plain brief. A claim this
// clone won at the arbiter but never recorded (a crash, a failed local
// write) is delivered first, whichever session made it.
func Start(ctx context.Context, st refstore.Clone, opts StartOptions, clock Clock) (StartResult, error) {
	s, err := newStarting(ctx, st, opts, clock)
	if err != nil {
		return StartResult{}, err
	}
	s.recordDecided(ctx)
	s.refresh(ctx)
	defer lockClaims(st)()
	defer s.lock.unlock()
	// The session this worktree was bound to ends first: what it hands
	// on (its automatic handoff, or a claim it never acted on) is then
	// this session's to claim.
	s.notices.addAll(FinishHandovers(ctx, st, clock))
	s.endBound(ctx)
	var lastErr error
	for attempt := 0; attempt <= startAttempts; attempt++ {
		final := attempt == startAttempts // the last pass makes no new claim: it cannot lose one
		p, err := s.readBrief(ctx)
		if err != nil {
			return StartResult{}, err
		}
		s.recoverClaim(ctx, p)
		if err := s.decide(ctx, p, final); err != nil {
			return StartResult{}, err
		}
		again, err := s.arbitrate(ctx, p)
		if err != nil {
			return StartResult{}, err
		}
		if again {
			continue
		}
		err = s.record(ctx, p)
		if err == nil {
			return s.started(ctx, p), nil
		}
		if err := s.notRecorded(ctx, p, err); err != nil {
			return StartResult{}, err
		}
		// Someone changed what we decided from (a sync bringing our own
		// claim counts): decide again from fresh values; a claim already
		// won is settled on the next pass.
		lastErr = err
	}
	return StartResult{}, fmt.Errorf("starting session %s: gave up after %d attempts: %w", s.id, startAttempts+1, lastErr)
}

// starting is one start, across its passes.
type starting struct {
	st          refstore.Clone
	opts        StartOptions // Objective scrubbed
	clock       Clock
	id          string
	who         Who
	arb         Arbiter
	harnessName string
	nativeID    string
	notices     noticeSet
	conflicts   []Conflict // joins the arbiter's answers made here
	endedBound  string     // the session bound here that endBound ended
	skipClaim   bool       // the arbiter could not be asked, or a deletion recorded: deliver no baton
	lock        batonLock  // the baton this start decides on
}

// startPass is what one pass decided: the brief, and the records to write
// in one transaction with the claim among them.
type startPass struct {
	now     time.Time
	brief   gathered
	won     *wonClaim // a claim won at the arbiter and not recorded, to deliver
	res     StartResult
	sess    session.Record
	ups     []refstore.Update // the objective (when it changes), then the session
	objUp   refstore.Update
	sessUp  refstore.Update
	claimUp *refstore.Update
	note    *pendingClaim // a claim to push before the transaction
	held    held          // this pass's new objects, kept from gc while the arbiter decides
}

// newStarting resolves who starts, the session's id and agent, and takes
// credentials out of the objective.
func newStarting(ctx context.Context, st refstore.Clone, opts StartOptions, clock Clock) (*starting, error) {
	writeAhead(ctx, st) // the session's record, at least
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return nil, err
	}
	logAhead(st, who)
	id := opts.Session
	if id == "" {
		id = baton.NewID("s")
	}
	if _, err := refstore.SessionRef(id); err != nil {
		return nil, fmt.Errorf("session id %q: %w", id, err)
	}
	refsAhead(st, startMessage(id))
	harnessName, nativeID, err := startHarness(opts)
	if err != nil {
		return nil, err
	}
	s := &starting{st: st, opts: opts, clock: clock, id: id, who: who, arb: arbiter(opts.Arbiter), harnessName: harnessName, nativeID: nativeID}
	var hits []redact.Hit
	if s.opts.Objective, hits = scrubText(opts.Objective); len(hits) > 0 {
		s.notices.add(redactedNotice(hits) + " (the objective)")
	}
	return s, nil
}

// recordDecided records the deletions the arbiter took that this clone
// could not record (RecordDecided): their waiting copies would otherwise
// be claimed. One that cannot be recorded now leaves this start
// delivering no baton, as a claim that cannot be settled does.
func (s *starting) recordDecided(ctx context.Context) {
	if err := RecordDecided(ctx, s.st, s.arb); err != nil {
		s.notices.add(fmt.Sprintf("a baton was not claimed: %v; start again, or run `git handoff claim`, once this clone's refs can be written", err))
		s.skipClaim = true
	}
}

// refresh brings the batons this start may claim from where claims are
// decided, when the arbiter can (a Refresher).
func (s *starting) refresh(ctx context.Context) {
	r, ok := s.arb.(Refresher)
	if !ok {
		return
	}
	ns, cs := r.Refresh(ctx, s.st, s.who.Owner, s.who.Branch)
	s.notices.addAll(ns)
	s.conflicts = append(s.conflicts, cs...)
}

// endBound ends the active session this worktree is bound to, before this
// one is bound here (endBound).
func (s *starting) endBound(ctx context.Context) {
	s.notices.addAll(endBound(ctx, s.st, s.id, s.clock, &s.endedBound))
}

// readBrief starts a pass: it refuses a session id that is taken and reads
// what the brief is made of.
func (s *starting) readBrief(ctx context.Context) (*startPass, error) {
	p := &startPass{now: s.clock()}
	if _, err := session.Read(ctx, s.st, s.id); err == nil {
		return nil, &ExistsError{ID: s.id}
	} else if !errors.Is(err, refstore.ErrNotFound) {
		return nil, err
	}
	var err error
	if p.brief, err = gather(ctx, s.st, s.who, p.now); err != nil {
		return nil, err
	}
	p.brief.addLeases(ctx, s.st, s.id)
	s.notices.addAll(p.brief.notices)
	return p, nil
}

// recoverClaim finds a claim this clone won at the arbiter but never
// recorded (pending.go), whichever session made it: its baton is the one
// this pass delivers. A claim that cannot be settled (the arbiter cannot be
// asked) leaves this start delivering no baton.
func (s *starting) recoverClaim(ctx context.Context, p *startPass) {
	if s.skipClaim {
		return
	}
	won, err := settle(ctx, s.st, s.arb, s.who, s.id, true) // the session's record, written with the claim, holds it
	if err != nil {
		s.notices.add(fmt.Sprintf("a baton was not claimed: a claim made earlier in this clone could not be settled (%v); run `git handoff claim` once the remote is reachable", err))
		s.skipClaim = true
		return
	}
	if won == nil {
		return
	}
	p.won = won
	verifyBaton(ctx, s.st, &won.baton, s.who.Owner)
	in := &p.brief.input
	p.brief.handoff, in.Baton = &won.baton, &won.baton.Baton
	in.Signature, in.Fenced = won.baton.Signature, won.baton.Fenced
	in.Since, in.SinceTotal, in.SinceNote = since(ctx, s.st, won.baton.Head, s.who.Head)
}

// decide renders the brief and makes the pass's records: the objective set
// or cleared, the session, and the claim of the brief's baton (chooseClaim).
func (s *starting) decide(ctx context.Context, p *startPass, final bool) error {
	in := &p.brief.input
	objUp, changed, err := baton.ObjectiveUpdate(ctx, s.st, s.who.Owner, s.who.Branch, s.opts.Objective, s.id, p.now)
	if err != nil {
		return err
	}
	p.objUp = objUp
	if changed {
		p.ups = append(p.ups, objUp)
	}
	if s.opts.Objective != "" {
		o := baton.NewObjective(s.who.Owner, s.who.Branch, s.opts.Objective, s.id, p.now)
		in.Objective = &o
	} else {
		in.Objective = nil // start without one clears a stale one
	}
	if s.skipClaim || final && p.won == nil {
		// Shown but unclaimed, a baton could be delivered twice.
		in.Baton, p.brief.handoff = nil, nil
	}
	text, fits := brief.Render(*in, maxBytes(s.opts.MaxBytes))
	p.sess = s.sessionRecord(p.now)
	p.res = StartResult{Objective: in.Objective, Brief: text}
	if err := s.chooseClaim(ctx, p, fits); err != nil {
		return err
	}
	if p.sessUp, err = session.Written(ctx, s.st, p.sess, session.Stored{}); err != nil {
		return err
	}
	// Apply moves refs in this order and a kill can stop it after any
	// of them. The objective alone, or with the session, is harmless
	// (start again rewrites both). The session goes before the claim:
	// a session without its claim still holds the baton's notes in
	// ClaimedHandoff and the baton stays claimable, while a claim
	// without its session would name a session that never existed and
	// the notes would reach nobody.
	p.ups = append(p.ups, p.sessUp)
	return nil
}

// sessionRecord is the record of the session starting now.
func (s *starting) sessionRecord(now time.Time) session.Record {
	sess := session.Record{
		ID: s.id, Owner: s.who.Owner, Branch: s.who.Branch, Worktree: worktree(s.st), Host: hostname(),
		Harness: s.harnessName, Model: s.opts.Model, Status: session.StatusActive, Prompt: s.opts.Objective,
		StartHead: s.who.Head, CreatedAt: now, UpdatedAt: now,
	}
	if s.nativeID != "" {
		sess.Launched = map[string]session.Launched{s.harnessName: {NativeID: s.nativeID, First: now, Last: now}}
	}
	return sess
}

// chooseClaim decides what becomes of the brief's baton: a claim won
// already is recorded here, a baton that does not fit is left unclaimed
// with a notice, and any other is claimed for this session (the arbiter
// decides it before the transaction: arbitrate).
func (s *starting) chooseClaim(ctx context.Context, p *startPass, fits bool) error {
	h := p.brief.handoff
	if h == nil {
		return nil
	}
	p.res.Handoff = h
	switch {
	case p.won != nil:
		// Won already: deliver it even when it does not fit, or
		// nobody ever will.
		won := p.won
		p.res.Claimed = true
		p.sess.ClaimedHandoff, _ = baton.Marshal(&won.baton.Baton)
		up, ok, err := localUpdate(ctx, s.st, won)
		if err != nil {
			return fmt.Errorf("recording baton %s, claimed by session %s at the arbiter: %w", won.baton.ID, won.note.Session, err)
		}
		if ok {
			p.claimUp = &up
		}
		if x := won.crashed(s.id); x != "" {
			s.notices.add(fmt.Sprintf("baton %s was won by session %s, which stopped before receiving it: delivered to session %s instead", won.baton.ID, x, s.id))
		}
	case !fits:
		s.notices.add(fmt.Sprintf("baton %s does not fit in %d bytes with the objective, so it was left unclaimed: read it with `git handoff show`, or start again with a larger --max-bytes", h.ID, maxBytes(s.opts.MaxBytes)))
	default:
		claimed, up, err := baton.Claimed(ctx, s.st, *h, s.id, p.now)
		if err != nil {
			return err
		}
		claimed.Signature, claimed.Fenced = h.Signature, h.Fenced // the notes' author, not the claim's
		p.claimUp = &up
		p.note = &pendingClaim{Baton: h.ID, Ref: up.Ref, Old: up.Old, Claimed: up.New, Session: s.id}
		p.res.Handoff, p.res.Claimed = &claimed, true
		p.sess.ClaimedHandoff, _ = baton.Marshal(&claimed.Baton)
	}
	return nil
}

// arbitrate has the arbiter decide the pass's new claim before the
// transaction records it: the claim is noted first (pending.go) and its new
// objects held from gc (hold.go). A claim only the transaction decides
// needs neither. again says the pass is over and start decides once more:
// a claim lost, or one that could not reach the arbiter (the session then
// starts without a baton).
func (s *starting) arbitrate(ctx context.Context, p *startPass) (again bool, err error) {
	if p.note == nil {
		return false, nil
	}
	decider, local := pinned(ctx, s.st, s.arb, p.claimUp.Ref)
	if local {
		p.note = nil // the transaction decides: nothing to note
		return false, nil
	}
	// Another claim of this clone may be deciding it: wait for it, and
	// decide again from what it left here.
	if err := s.lock.lock(ctx, s.st, p.note.Baton); err != nil {
		return false, err
	}
	if cur, err := refstore.ResolveID(ctx, s.st, p.claimUp.Ref); err != nil || cur != p.claimUp.Old {
		return true, nil
	}
	news := []string{p.claimUp.New}
	for _, u := range p.ups {
		news = append(news, u.New)
	}
	if p.held, err = hold(ctx, s.st, "start", news...); err != nil {
		return false, err
	}
	p.note.Held = p.held.group
	if err := notePending(ctx, s.st, p.note); err != nil {
		p.held.release(ctx, s.st)
		return false, err
	}
	// A planted defect (package sim): false without the simdefects tag.
	if err = nil; !simdefect.On(simdefect.ClaimSkipsCAS) {
		err = decider.Arbitrate(ctx, s.st, *p.claimUp)
	}
	var ce *baton.ClaimedError
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &ce) && ce.Baton.ID == p.note.Baton && ce.Baton.ClaimedBySession == s.id:
		return true, nil // this session's claim from an earlier run: the next pass settles it
	case errors.Is(err, refstore.ErrConflict):
		dropPending(ctx, s.st, p.note)
		n, c := lostNotice(err, p.res.Handoff.ID)
		s.notices.add(n)
		if c != nil {
			s.conflicts = append(s.conflicts, *c)
		}
		return true, nil
	}
	if nothingLanded(err) {
		// Refused before any push, or the whole push refused: nothing is
		// left to settle, and a note kept would have the next claim here
		// complete it for a session that was told it was not claimed.
		dropPending(ctx, s.st, p.note)
	}
	// The session still starts; the baton waits for a claim that can
	// reach the remote (or an --offline one). The push may have landed:
	// the note stays to be settled.
	s.notices.add(fmt.Sprintf("baton %s is waiting but was not claimed: %v; run `git handoff claim` once the remote is reachable, or `git handoff claim --offline`", p.res.Handoff.ID, err))
	s.skipClaim = true
	return true, nil
}

// record writes the pass's records in one transaction: the objective, the
// session, the claim, and the release of the hold.
func (s *starting) record(ctx context.Context, p *startPass) error {
	ups := p.ups
	if p.claimUp != nil {
		ups = append(ups, *p.claimUp)
	}
	// The hold goes last: a kill before it leaves it for sweepHolds.
	ups = append(ups, p.held.releases()...)
	err := s.st.Apply(ctx, startMessage(s.id), ups...)
	if err == nil && p.note != nil {
		p.note.Held = "" // released by the transaction
	}
	return err
}

// started finishes a start whose records are written: the claim's notes
// go, the worktree is bound to the session, an agent's session is indexed
// here, and the baton's snapshot is offered.
func (s *starting) started(ctx context.Context, p *startPass) StartResult {
	if p.note != nil {
		dropPending(ctx, s.st, p.note)
	}
	if p.won != nil {
		dropPending(ctx, s.st, p.won.note)
	}
	res := p.res
	res.EndedBound = s.endedBound
	if n := objectiveCleared(ctx, s.st, p.objUp, s.opts.Objective, "a start without an objective clears it"); n != "" {
		s.notices.add(n)
	}
	if err := s.st.Bind(p.sessUp.Ref); err != nil {
		s.notices.add("this worktree was not bound to the session: " + err.Error())
	}
	if s.harnessName != "" {
		// An agent's session, whether its start hook or the agent
		// itself (told to by an instruction file) runs start: its
		// Stop hook needs the working tree it started from, or work
		// done before its first stop goes unseen.
		if err := rememberAgent(ctx, s.st, s.id, s.harnessName, s.nativeID, true); err != nil {
			s.notices.add("the agent's session was not indexed here, so a resume may start another session and its Stop hook may not see its work: " + err.Error())
		}
	}
	p.sess.Schema = session.Schema
	if res.Handoff != nil {
		var notes []string
		res.Snapshot, notes, res.SnapshotErr = offerSnapshot(ctx, s.st, wtOf(s.st), s.opts.ApplySnapshot, res.Handoff.SessionID)
		s.notices.addAll(notes)
		res.Brief += SnapshotSection(res.Snapshot)
	}
	res.Session, res.Notices, res.Conflicts = p.sess, s.notices.list, s.conflicts
	return res
}

// notRecorded sorts a transaction that failed: a session id taken, or a
// failure other than a lost swap, ends the start (the error returned); a
// claim lost to another session says so, and nil has start decide again.
func (s *starting) notRecorded(ctx context.Context, p *startPass, err error) error {
	var ce *refstore.ConflictError
	switch {
	case !errors.As(err, &ce):
		if p.res.Claimed {
			return fmt.Errorf("baton %s was claimed but not recorded here: %w (start again, or run `git handoff claim`, to receive it)", p.res.Handoff.ID, err)
		}
		return err
	case ce.Ref == p.sessUp.Ref:
		return &ExistsError{ID: s.id}
	case p.res.Claimed && p.claimUp != nil && ce.Ref == p.claimUp.Ref:
		var lost *baton.ClaimedError
		if errors.As(baton.LostClaim(ctx, s.st, *p.res.Handoff, err), &lost) && lost.Baton.ClaimedBySession != s.id {
			s.notices.add("another session claimed the baton first: " + lost.Error())
		}
	}
	return nil
}

// startMessage is the reflog message of session id's start.
func startMessage(id string) string { return "handoff: start " + id }

// startHarness names the agent of a starting session and its own id for it:
// the options' (an id must have that agent's shape, so it can be handed back
// to it on resume), else what the agent's environment says.
func startHarness(opts StartOptions) (name, nativeID string, err error) {
	if opts.Harness == "" && opts.NativeID == "" {
		name, nativeID = harness.DetectNative(os.Getenv)
		return name, nativeID, nil
	}
	name = HarnessName(opts.Harness)
	if opts.NativeID == "" {
		return name, "", nil
	}
	h, err := harness.Lookup(name)
	if err != nil {
		return "", "", fmt.Errorf("recording the agent's own session id: %w", err)
	}
	if err := h.ValidateNativeID(opts.NativeID); err != nil {
		return "", "", err
	}
	return h.Name, opts.NativeID, nil
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

func worktree(st refstore.Worktree) string {
	if st.Bare() {
		return ""
	}
	return st.Dir()
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}

// boundLive is the session this worktree is bound to, for a caller to
// whom a binding to a record that is gone is no binding (endBound has no
// session to end then): the git adapter can often answer that from what it
// asked git as it opened (refstore.Store.BoundLive), with no git process.
func boundLive(st refstore.Clone) (string, error) {
	if l, ok := st.(interface{ BoundLive() (string, error) }); ok {
		return l.BoundLive()
	}
	return st.BoundSession()
}

// endBound ends the active session this worktree is bound to, other than
// id, before id is bound here: one worktree, one active session. It says
// so in the notices it returns (with what the ended one handed on), and
// names the ended one in *ended. A session a switch holds is left as it is
// (the notice says so).
func endBound(ctx context.Context, st refstore.Clone, id string, clock Clock, ended *string) []string {
	bound, err := boundLive(st)
	if err != nil || bound == "" || bound == id {
		return nil
	}
	res, err := EndSession(ctx, st, bound, session.EndStartedHere, clock)
	var held *session.SwitchingError
	switch {
	case errors.As(err, &held):
		return []string{fmt.Sprintf("this worktree was bound to session %s, which is in the middle of a switch: it was left active", bound)}
	case errors.Is(err, refstore.ErrNotFound):
		return nil
	case err != nil:
		return []string{fmt.Sprintf("this worktree was bound to active session %s, which could not be ended: %v", bound, err)}
	case !res.Ended:
		return nil
	}
	*ended = bound
	return append([]string{fmt.Sprintf("this worktree was bound to active session %s: it was ended, and %s is bound here instead", bound, id)}, res.Handover.Notices...)
}
