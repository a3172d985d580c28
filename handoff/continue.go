package handoff

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

// Continue carries a session on in another agent in the same worktree
// (`git handoff continue`, the MCP tool session_continue, and the agents'
// failure hooks). It is a switch (session.Switch, under the same guard)
// that first writes the session's automatic handoff for the new agent:
// the reason it takes over, the last summary, the claimed task, the
// commits, the end of the transcript and the uncommitted work as a
// snapshot. That handoff is a baton claimed at once by the session itself
// (`log` shows it as "continued"), and it heads the brief the new agent is
// launched with.
//
// Exactly once: the decision is the compare-and-swap that takes the
// session's switch guard, and it is taken only while the session still
// runs the agent the decider saw (From). Of two deciders racing, one holds
// the guard and the other gets *session.SwitchingError; one coming after
// gets *AlreadyContinuedError.
//
// The guard is the session's for one agent's try only: it is released
// when a fallback fails to start, before the next is tried. In that gap
// the session looks as the decider found it, an agent's pane dead and no
// switch, and the failed fallback's own exit has tmux run another
// decider (AgentExited) that would take the gap for a decision of its
// own: end the session (its agent exited, no switch holds it), or
// continue it for the fallback's exit as if the first agent had failed
// again, refusing the first decider its next try. So the deciders of one
// session on this host also take its decision lock (lockDecisions) for
// all their tries, and read the session only once they hold it.

// ContinueOptions are what a continuation was asked.
type ContinueOptions struct {
	ID string
	To string // the agent to continue in
	// Then are the agents to try next, in order, when To fails to start
	// (handoff.fallback's others): each failure leaves the session as it
	// was and is said in the notices.
	Then  []string
	Model string // its model ("" its default)
	By    string // who decides: user, host, process
	// From is the agent the decider saw stop; "" is the one the session
	// runs when read. A session that runs another by the time the guard is
	// taken was continued already (*AlreadyContinuedError).
	From string
	// Why is what the new agent is told first; "" says it was by hand.
	Why  string
	Auto bool // decided by a hook
	// Preview renders the brief the new agent would get and writes
	// nothing at all.
	Preview bool
	// Tmux starts the new agent under tmux now: in the session's pane when
	// its agent runs there (stopped first), else in a tmux session of its
	// own. Without it the continuation is recorded and the new agent
	// started by the caller or the user (ContinueResult.Command).
	Tmux bool
	// Grace, Launcher and Exited: as for a switch (SessionRelaunchOptions).
	Grace            time.Duration
	Launcher, Exited []string
	// Still, when set, is a watcher's own reason checked again once the
	// guard is taken (the agent's pane still dead, or still unchanged):
	// an error refuses the continuation as *StaleError, and no other
	// agent is tried.
	Still func(context.Context, session.Record) error
	// Run, when set, starts the new agent in place of Tmux's way (the
	// simulation's stand-in for a process); an error is a failed start.
	Run func(context.Context, session.Record, session.LaunchPlan) (*session.Runtime, error)
	// StartWindow is how long a new agent started under tmux must keep
	// running to count as started (0: startWindow). One that exits
	// sooner failed to start (*StartError).
	StartWindow time.Duration
}

// startWindow: an agent that cannot start (a broken install, a missing
// credential that makes its CLI exit at once) is gone within a second in
// practice; one that runs longer is taken to have started.
const startWindow = 1500 * time.Millisecond

// StaleError refuses a watcher's continuation whose reason no longer
// holds under the guard: the agent came back, or someone acted first.
type StaleError struct {
	ID  string
	Err error
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("session %q: the reason to continue it no longer holds: %v", e.ID, e.Err)
}

func (e *StaleError) Unwrap() error { return refstore.ErrConflict }

// StartError is a new agent that did not keep running under tmux.
type StartError struct {
	Agent string
	Exit  string // how it ended: "status 1", "killed by signal 9"
}

func (e *StartError) Error() string {
	return fmt.Sprintf("%s exited at once (%s): it failed to start", e.Agent, e.Exit)
}

// ContinueResult is what a continuation did, or would do (Preview).
type ContinueResult struct {
	Session session.Record
	From    string
	Why     string
	Plan    session.LaunchPlan
	// Brief is the first message the new agent gets.
	Brief string
	// Baton is the automatic handoff written (nil: a waiting baton kept
	// its place, or Preview).
	Baton *baton.Stored
	// Started: the new agent runs under tmux. Otherwise Command is the one
	// command that starts it.
	Started bool
	Command string
	Notices []string
}

// AlreadyContinuedError refuses a continuation of a session that no longer
// runs the agent the decider saw stop: another decider was first.
type AlreadyContinuedError struct {
	ID, From, Now string
	By            string // the continuation that was first, when recorded
}

func (e *AlreadyContinuedError) Error() string {
	by := ""
	if e.By != "" {
		by = " by " + e.By
	}
	return fmt.Sprintf("session %q no longer runs %s: it was continued in %s%s", e.ID, e.From, e.Now, by)
}

func (e *AlreadyContinuedError) Unwrap() error { return refstore.ErrConflict }

// ElsewhereError refuses to continue a session that runs on another host.
type ElsewhereError struct{ ID, Host string }

func (e *ElsewhereError) Error() string {
	return fmt.Sprintf("session %q runs on %s: continue it there", e.ID, e.Host)
}

// LiveUnderTmux reports whether session id's agent runs under tmux now,
// where a continuation starts the new agent in its pane.
func LiveUnderTmux(ctx context.Context, st refstore.Clone, id string) bool {
	cur, err := session.Read(ctx, st, id)
	if err != nil {
		return false
	}
	rs := runtimeState(ctx, cur.Record)
	return rs != nil && rs.State == tmuxrt.StateLive
}

// LaunchCommand is the one command that starts session id's recorded agent
// in the foreground of a terminal.
func LaunchCommand(id string) string { return "git handoff session launch " + id + " --exec" }

// Continue runs a continuation (see above): in To, else in the first of
// Then that starts.
func Continue(ctx context.Context, st refstore.Clone, opts ContinueOptions, clock Clock) (ContinueResult, error) {
	if !opts.Preview {
		unlock, err := lockDecisions(ctx, st, opts.ID)
		if err != nil {
			return ContinueResult{}, err
		}
		defer unlock()
	}
	return continueTries(ctx, st, opts, clock)
}

// decisionWait bounds the wait for another decider of the session: one
// that takes longer than a few stops (StopGrace) and starts is stuck, and
// the guard it may hold expires by then.
const decisionWait = 2 * session.GuardTTL

// lockDecisions takes session id's decision lock (see above), waiting for
// the decider that holds it; the lock is the kernel's, so a decider that
// is killed leaves none behind.
func lockDecisions(ctx context.Context, st refstore.Clone, id string) (func(), error) {
	name, err := refstore.EncodeComponent(id)
	if err != nil {
		return nil, err
	}
	wait, cancel := context.WithTimeout(ctx, decisionWait)
	defer cancel()
	unlock, err := st.Local().Lock(wait, "continue/"+name+".lock")
	switch {
	case err == nil:
		return unlock, nil
	case ctx.Err() == nil && wait.Err() != nil:
		return nil, fmt.Errorf("session %q: another continuation of it has been under way for over %s: %w", id, decisionWait, err)
	}
	return nil, err
}

// continueTries is Continue under the session's decision lock.
func continueTries(ctx context.Context, st refstore.Clone, opts ContinueOptions, clock Clock) (ContinueResult, error) {
	agents := append([]string{opts.To}, opts.Then...)
	var failed []string
	for i := 0; ; i++ {
		to := agents[i]
		o := opts
		o.To, o.Then = to, nil
		res, err := continueIn(ctx, st, o, clock)
		res.Notices = append(failed, res.Notices...)
		if err == nil || opts.Preview || i == len(agents)-1 || !failedToStart(err) {
			return res, err
		}
		failed = append(res.Notices, fmt.Sprintf("%s did not take over: %v; the session stays as it was, trying %s next", to, err, agents[i+1]))
		var se *StartError
		var pnf *ProgramNotFoundError
		if cur, rerr := session.Read(ctx, st, opts.ID); rerr == nil && (errors.As(err, &se) || errors.As(err, &pnf)) {
			// Not to be picked again by the next watcher while it
			// would fail the same way.
			_ = RememberLimit(ctx, st, cur.Owner, to, Limit{Until: clock().Add(failedStartHold), Why: "it failed to start: " + err.Error()}, clock())
		}
	}
}

// failedStartHold is how long an agent that failed to start is passed
// over as a fallback: long enough that the watchers of one failure do not
// try it again, short enough that a fixed install is used soon.
const failedStartHold = 10 * time.Minute

// failedToStart tells an error of starting the new agent (another may
// start) from one that says the continuation is not this decider's to
// make: another was first, the session is not live, the reason is stale,
// or the context ended.
func failedToStart(err error) bool {
	var already *AlreadyContinuedError
	var sw *session.SwitchingError
	var na *NotActiveError
	var stale *StaleError
	var elsewhere *ElsewhereError
	switch {
	case errors.As(err, &already), errors.As(err, &sw), errors.As(err, &na), errors.As(err, &stale), errors.As(err, &elsewhere),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, refstore.ErrNotFound):
		return false
	}
	return true
}

// continueIn is one continuation, in opts.To.
func continueIn(ctx context.Context, st refstore.Clone, opts ContinueOptions, clock Clock) (ContinueResult, error) {
	to, cur, from, err := continuable(ctx, st, opts)
	if err != nil {
		return ContinueResult{}, err
	}
	now := clock()
	why := opts.Why
	if why == "" {
		why = fmt.Sprintf("continued by hand from %s (%s)", from, opts.By)
	}
	k := continuation{Continuation: session.Continuation{From: from, FromModel: cur.Model, To: to.Name, Why: why, Auto: opts.Auto, By: opts.By, At: now}}
	br := SessionBriefer(ctx, st, clock)
	br.Continuing = true
	ro := session.RelaunchOptions{
		ID: opts.ID, Harness: to.Name, Model: opts.Model, By: opts.By, Briefer: br,
		Expect: func(r session.Record) error {
			if HarnessName(r.Harness) != from {
				return alreadyContinued(r, from)
			}
			if !r.Live() {
				return &NotActiveError{ID: r.ID, Status: r.Status}
			}
			return nil
		},
	}
	res := ContinueResult{From: from, Why: why}
	if opts.Preview {
		return previewContinue(ctx, st, ro, k, res, clock)
	}
	var written *baton.Stored
	ro.Prepare = func(ctx context.Context, guarded session.Record) (func(*session.Record), error) {
		// Under the guard: only the decider that won writes anything.
		if opts.Still != nil {
			if err := opts.Still(ctx, guarded); err != nil {
				return nil, &StaleError{ID: guarded.ID, Err: err}
			}
		}
		if err := dropReceivedNotes(ctx, st, guarded); err != nil {
			return nil, err
		}
		t, notes := relaunchSnapshot(ctx, st, guarded.ID, false)
		if t.Snapshot != nil {
			k.snapshot = t.Snapshot.Commit
		}
		b, head, more := continuationBaton(ctx, st, guarded, k, now)
		notes = append(notes, more...)
		k.Head = head
		if b != nil {
			stored, n, err := writeClaimed(ctx, st, *b, guarded.ID)
			notes = append(notes, n...)
			if err != nil {
				return nil, err
			}
			written = stored
		}
		res.Notices = append(res.Notices, notes...)
		return continuedEdit(k, written, guarded), nil
	}
	notices := new([]string) // a live start's, under tmux
	ro.Run = opts.Run
	if opts.Tmux && opts.Run == nil {
		if ro.Run, err = inPlace(st, opts, notices); err != nil {
			return res, err
		}
	}
	ro.EndBound = endBoundFor(st, clock)
	rr, err := session.Switch(ctx, st, ro, now)
	res.Notices = append(append(res.Notices, *notices...), rr.Notices...)
	if err != nil {
		if written != nil {
			// The new agent did not start: the session stays as it was,
			// its baton too.
			if n := restoreBaton(ctx, st, *written, clock); n != "" {
				res.Notices = append(res.Notices, n)
			}
		}
		return res, err
	}
	res.Session, res.Plan, res.Baton = rr.Session.Record, rr.Plan, written
	res.Brief, _ = session.FirstMessage(rr.Session.Record, br)
	res.Started = rr.Session.Runtime != nil && opts.Tmux
	if !res.Started {
		res.Command = LaunchCommand(opts.ID)
	}
	return res, nil
}

// continuable checks that opts names a live session that runs another
// agent than the one to continue in (and, for a watcher, still the one it
// saw stop): the agent to continue in, the session, and the agent left.
func continuable(ctx context.Context, st refstore.Clone, opts ContinueOptions) (harness.Harness, session.Stored, string, error) {
	to, err := harness.Lookup(opts.To)
	if err != nil {
		return to, session.Stored{}, "", err
	}
	cur, err := session.Read(ctx, st, opts.ID)
	if err != nil {
		return to, cur, "", err
	}
	if !cur.Live() {
		return to, cur, "", &NotActiveError{ID: opts.ID, Status: cur.Status}
	}
	if h := hostname(); cur.Host != "" && h != "" && cur.Host != h {
		// Its worktree, and its agent, are there: the guard is a swap in
		// this clone's records, which a decider there does not see, so a
		// continuation made here could be a second one.
		return to, cur, "", &ElsewhereError{ID: cur.ID, Host: cur.Host}
	}
	from := HarnessName(opts.From, cur.Harness)
	if opts.From != "" && HarnessName(cur.Harness) != from {
		return to, cur, "", alreadyContinued(cur.Record, from)
	}
	if from == to.Name {
		return to, cur, "", fmt.Errorf("session %q runs %s already: name another agent to continue in", opts.ID, to.Name)
	}
	return to, cur, from, nil
}

// dropReceivedNotes removes the notes of claims session s made here and
// received (pending.go): a note whose removal failed after its claim was
// recorded is known as received only by the baton s holds, which a
// continuation replaces; left, it would have the next start here deliver
// that baton again (found by the simulation). A note that cannot be
// removed refuses the continuation: the session stays as it was.
func dropReceivedNotes(ctx context.Context, st refstore.Clone, s session.Record) error {
	for _, n := range pendingClaims(st) {
		if n.Session != s.ID && n.taker != s.ID || !received(ctx, st, n) {
			continue
		}
		if err := st.Local().Remove(n.path); err != nil {
			return fmt.Errorf("the note of session %s's claim of baton %s could not be removed: %w", s.ID, n.Baton, err)
		}
		if n.Held != "" {
			releaseGroup(ctx, st, n.Held)
		}
	}
	return nil
}

// inPlace is the run that stops the agent in its tmux pane and starts the
// new one there, within the switch guard's time.
func inPlace(st refstore.Clone, opts ContinueOptions, notices *[]string) (func(context.Context, session.Record, session.LaunchPlan) (*session.Runtime, error), error) {
	grace := opts.Grace
	if grace <= 0 {
		grace = StopGrace
	}
	if grace > maxGrace {
		return nil, fmt.Errorf("a stop timeout of %s is too long: the switch guard lasts %s, so stay at or under %s", grace, session.GuardTTL, maxGrace)
	}
	window := opts.StartWindow
	if window <= 0 {
		window = startWindow
	}
	live := liveRun(st, grace, opts.Launcher, opts.Exited, notices)
	return func(ctx context.Context, cur session.Record, plan session.LaunchPlan) (*session.Runtime, error) {
		rt, err := respawnDead(ctx, st, cur, plan, opts.Launcher, opts.Exited, notices)
		if err == nil && rt == nil {
			rt, err = live(ctx, cur, plan)
		}
		if err != nil {
			return rt, err
		}
		return rt, started(ctx, server(rt), rt.Name, plan.Harness, window)
	}, nil
}

// respawnDead starts the new agent in the pane of a session whose agent
// exited, that pane lingering (remain-on-exit): the same pane, and whoever
// is attached to it, see the new agent. nil, nil when the pane is not
// there or not dead (liveRun's cases).
func respawnDead(ctx context.Context, st refstore.Writer, cur session.Record, plan session.LaunchPlan, launcher, exited []string, notices *[]string) (*session.Runtime, error) {
	rt := cur.Runtime
	if rt == nil || rt.Kind != tmuxrt.Kind || (rt.Host != "" && rt.Host != hostname()) {
		return nil, nil
	}
	srv := server(rt)
	p, ok, err := srv.Pane(ctx, rt.Name)
	if err != nil || !ok || !p.Dead {
		return nil, err
	}
	sp, err := spec(st, plan, launcher, exited)
	if err != nil {
		return nil, err
	}
	if err := srv.Respawn(ctx, rt.Name, sp); err != nil {
		return nil, err
	}
	*notices = append(*notices, fmt.Sprintf("started %s in the pane %s's agent had left, in tmux session %s", plan.Harness, cur.Harness, rt.Name))
	next := *rt
	return &next, nil
}

// started waits window for the agent just started in tmux session name:
// gone before, it failed to start.
func started(ctx context.Context, srv tmuxrt.Server, name, agent string, window time.Duration) error {
	deadline := time.Now().Add(window)
	for {
		p, ok, err := srv.Pane(ctx, name)
		switch {
		case err != nil:
			return err
		case !ok:
			// Destroyed by someone else: not the agent's failure.
			return &StaleError{ID: name, Err: fmt.Errorf("its tmux session %s was destroyed as %s started", name, agent)}
		case p.Dead && p.Signal != 0:
			return &StartError{Agent: agent, Exit: fmt.Sprintf("killed by signal %d", p.Signal)}
		case p.Dead:
			return &StartError{Agent: agent, Exit: fmt.Sprintf("status %d", p.ExitStatus)}
		}
		if !time.Now().Before(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// previewContinue renders what Continue would give the new agent, from a
// baton built and never written. The one thing it cannot show is the
// snapshot's commit id: taking a snapshot writes a ref.
func previewContinue(ctx context.Context, st refstore.Clone, ro session.RelaunchOptions, k continuation, res ContinueResult, clock Clock) (ContinueResult, error) {
	cur, err := session.Read(ctx, st, ro.ID)
	if err != nil {
		return res, err
	}
	now := clock()
	b, head, notes := continuationBaton(ctx, st, cur.Record, k, now)
	k.Head = head
	var shown *baton.Stored
	if b != nil {
		c := *b
		c.Claimed, c.ClaimedAt, c.ClaimedBySession = true, &now, cur.ID
		shown = &baton.Stored{Baton: c}
	}
	next, plan, err := session.SwitchPreview(ctx, st, ro, continuedEdit(k, shown, cur.Record), now)
	if err != nil {
		return res, err
	}
	res.Session, res.Plan, res.Notices = next, plan, notes
	res.Brief, err = session.FirstMessage(next, ro.Briefer)
	return res, err
}

func alreadyContinued(r session.Record, from string) error {
	e := &AlreadyContinuedError{ID: r.ID, From: from, Now: HarnessName(r.Harness)}
	if k := r.Continued; k != nil {
		e.By = k.By
	}
	return e
}

// continuation is the record of a continuation being made, with the
// snapshot taken for it.
type continuation struct {
	session.Continuation
	snapshot string
}

// continuedEdit is what a continuation changes in the session record, over
// the switch's own changes: the claimed baton is the continuation's
// automatic handoff, and the record remembers what it replaced.
func continuedEdit(k continuation, b *baton.Stored, before session.Record) func(*session.Record) {
	rec := k.Continuation
	rec.PrevClaimed = append([]byte(nil), before.ClaimedHandoff...)
	rec.PrevPackage = before.HandoffPackage
	if b != nil {
		rec.Baton = b.ID
	}
	return func(s *session.Record) {
		c := rec
		s.Continued = &c
		if b != nil {
			if data, err := baton.Marshal(&b.Baton); err == nil {
				s.ClaimedHandoff = data
			}
		}
	}
}

// continuationBaton builds the automatic handoff of session s for the
// agent that takes it over: claimed by s itself, so that nobody else is
// offered it. nil when a baton waits on s's branch already (it keeps its
// place; the brief points at it). It also returns the worktree's HEAD.
func continuationBaton(ctx context.Context, st refstore.Clone, s session.Record, k continuation, now time.Time) (*baton.Baton, string, []string) {
	ref, err := refstore.HandoffRef(false, s.Owner, s.Branch)
	if err != nil {
		return nil, "", []string{err.Error()}
	}
	if cur, err := baton.Read(ctx, st, ref); err == nil && cur.Live() {
		return nil, "", []string{fmt.Sprintf("baton %s waits on `%s`: it keeps its place, and no automatic handoff was written for the continuation", cur.ID, s.Branch)}
	}
	wt, done, err := sessionWorktree(ctx, st, &s)
	if err != nil || wt == nil {
		wt, done = st, func() {}
	}
	defer done()
	var notes []string
	head, err := wt.Head(ctx)
	if err != nil {
		return nil, "", []string{"no automatic handoff for the continuation: " + err.Error()}
	}
	a := &baton.Auto{Session: s.ID, Why: k.Why, Summary: session.Cap(s.Summary, autoSummaryBytes), StartHead: s.StartHead, Continued: k.To, Snapshot: k.snapshot}
	if s.StartHead != "" && head.Commit != "" && head.Commit != s.StartHead {
		if commits, total, err := wt.Log(ctx, head.Commit, s.StartHead, autoCommits); err == nil {
			a.CommitTotal = total
			for _, c := range commits {
				a.Commits = append(a.Commits, baton.AutoCommit{ID: c.ID, Subject: c.Subject})
			}
		}
	}
	var n string
	a.Transcript, n = transcriptQuote(s.Harness, noteOf(ctx, st, &s).Transcript)
	if n != "" {
		notes = append(notes, n)
	}
	d := baton.Draft{Owner: s.Owner, Branch: s.Branch, Harness: s.Harness, SessionID: s.ID, Head: head.Commit, Auto: a}
	task, err := claimedTask(s)
	if err != nil {
		notes = append(notes, err.Error())
	}
	if task != nil {
		a.Task = task.ID
		d.NextSteps, d.FailedApproaches, d.OpenQuestions = task.NextSteps, task.FailedApproaches, task.OpenQuestions
	}
	if len(d.NextSteps) == 0 {
		d.NextSteps = []string{fmt.Sprintf("Carry on with the work of session %s: read its summary and commits here, then check `git status` and the tests.", s.ID)}
	}
	if n := redactedNotice(scrubAuto(&d)); n != "" {
		notes = append(notes, n)
	}
	b, err := baton.New(d, now)
	if err != nil {
		return nil, head.Commit, append(notes, "no automatic handoff for the continuation: "+err.Error())
	}
	b.Claimed, b.ClaimedAt, b.ClaimedBySession = true, &now, s.ID
	return &b, head.Commit, notes
}

// writeClaimed stores b in place of what its ref holds, unless a baton
// came to wait there meanwhile (then nothing is written).
func writeClaimed(ctx context.Context, st refstore.Clone, b baton.Baton, id string) (*baton.Stored, []string, error) {
	for attempt := 0; ; attempt++ {
		stored, up, err := baton.Written(ctx, st, b)
		if err != nil {
			return nil, nil, err
		}
		if cur, err := baton.Read(ctx, st, stored.Ref); err == nil && cur.Live() {
			return nil, []string{fmt.Sprintf("baton %s came to wait on `%s`: it keeps its place", cur.ID, b.Branch)}, nil
		}
		// A final baton it replaces is archived, as an end's is
		// (replacing).
		r := replacing(ctx, st, up, b.ID, false)
		err = st.Apply(ctx, fmt.Sprintf("handoff: automatic handoff %s: session %s continues in %s", b.ID, id, b.Auto.Continued), append([]refstore.Update{up}, r.archive...)...)
		if err == nil {
			return &stored, nil, nil
		}
		if !errors.Is(err, refstore.ErrConflict) || attempt == 3 {
			return nil, nil, fmt.Errorf("writing the continuation's automatic handoff: %w", err)
		}
	}
}

// restoreBaton puts back what the ref of b held before b was written, while
// it still holds b: the version before it when that is the claim of b's
// session (the task the session had claimed, most often), or else b as a
// tombstone ("cancelled").
func restoreBaton(ctx context.Context, st refstore.Clone, b baton.Stored, clock Clock) string {
	cur, err := baton.Read(ctx, st, b.Ref)
	if err != nil || cur.ID != b.ID {
		return ""
	}
	back := cur.Baton
	back.Deleted = &baton.Deletion{Reason: "cancelled", At: clock().UTC()}
	// Withdrawn, it was never delivered: no claim stays on it (found by
	// the simulation, seed 12 with continuation: a withdrawn handoff
	// reached the remote still saying its session had claimed it).
	back.Claimed, back.ClaimedAt, back.ClaimedBySession = false, nil, ""
	if cur.Auto != nil {
		if prior, ok := ownClaimBefore(ctx, st, cur, cur.Auto.Session); ok {
			back = prior.Baton
			back.Cause = refstore.Cause{}
		}
	}
	oid, _, err := refstore.WriteVersion(ctx, st, b.Ref, cur.OID, &back.Cause, &back)
	if err == nil {
		err = st.Apply(ctx, fmt.Sprintf("handoff: withdraw %s (the continuation is undone)", b.ID), refstore.Update{Ref: b.Ref, New: oid, Old: cur.OID})
	}
	if err != nil {
		return fmt.Sprintf("the continuation's automatic handoff %s could not be withdrawn: %v", b.ID, err)
	}
	return ""
}

// ownClaimBefore is the version cur was written over, when it is a claim
// by session sid: what a withdrawal of cur may write again, as the version
// that follows it. Any other version there (a tombstone, another session's
// claim) is this clone's copy of a word the team may have moved past since
// (the baton undismissed and claimed elsewhere): written again, with the
// rev of a newer version, it would win the join over what the remote holds
// now, and a delivered baton would read dismissed (the widened
// simulation's seed 20215 with continuations). The withdrawal cancels cur
// then, and the ref says of that baton nothing it did not already.
func ownClaimBefore(ctx context.Context, st refstore.Clone, cur baton.Stored, sid string) (baton.Stored, bool) {
	if cur.Prev == "" || sid == "" {
		return baton.Stored{}, false
	}
	e, err := st.ReadObject(ctx, cur.Prev)
	if err != nil {
		return baton.Stored{}, false
	}
	e.Ref = cur.Ref
	prior, err := baton.Decode(e)
	if err != nil || !prior.Claimed || prior.ClaimedBySession != sid {
		return baton.Stored{}, false
	}
	return prior, true
}
