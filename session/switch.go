package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/refstore"
)

// GuardTTL is how long a switch guard holds before anyone may take it over:
// a switch that crashed must not lock the session for good.
const GuardTTL = 2 * time.Minute

// SwitchingError refuses a switch while another one holds the guard.
type SwitchingError struct {
	ID    string
	Guard Switching
}

func (e *SwitchingError) Error() string {
	to := e.Guard.To
	if to == "" {
		to = "another agent"
	}
	return fmt.Sprintf("session %q is being switched to %s by %s since %s (the guard expires at %s)",
		e.ID, to, e.Guard.By, e.Guard.Since.UTC().Format(time.RFC3339), e.Guard.Until.UTC().Format(time.RFC3339))
}

func (e *SwitchingError) Unwrap() error { return refstore.ErrConflict }

// ErrNoFirstMessage refuses a fresh launch with nothing to tell the agent.
var ErrNoFirstMessage = errors.New("nothing to start with")

// Launch modes.
const (
	ModeResume = "resume" // the harness reopens its own conversation by its native id
	ModeFresh  = "fresh"  // a new conversation, given the brief
	ModeNone   = "none"   // the harness has no launcher (a person)
)

// LaunchPlan is the exact command that starts or resumes a session's
// current harness in its worktree.
type LaunchPlan struct {
	Session  string
	Harness  string
	Mode     string
	NativeID string   // the id resumed, in resume mode
	Dir      string   // where to run it: the session's worktree
	Argv     []string // program first; never passed through a shell
	Env      []string // KEY=value to add, GIT_HANDOFF_SESSION first
	Note     string
}

// Briefer supplies the texts a fresh launch needs: Brief renders the
// session's brief (its handoff package on top); File writes a first message
// to a file for agents that read it only from one.
type Briefer struct {
	Brief func(Record) (string, error)
	File  func(Record, string) (string, error)
	// Hooks says what a launch of harnessName in dir must carry for the
	// hooks installed there to run (Codex keeps them from untrusted
	// paths); nil adds nothing.
	Hooks func(dir, harnessName string) (hooks []harness.Hook, bypassTrust bool, note string)
	// Continuing marks a continuation's launch (or the launch of one
	// waiting for its agent): the brief, headed by the continuation's
	// automatic handoff, is the first message even with no saved prompt,
	// and a resumed conversation is given it too, as its next prompt: the
	// agent must learn why it took over even when it ran this session
	// before.
	Continuing bool
}

// PlanLaunch builds the command for s's current harness. A harness that ran
// this session before and whose native id is known resumes with its own id;
// otherwise it starts fresh with the brief and the saved prompt. A fresh
// launch with no saved prompt and no handoff package is refused.
func PlanLaunch(s Record, br Briefer) (LaunchPlan, error) {
	if s.Harness == "" {
		return LaunchPlan{}, fmt.Errorf("session %q records no harness: pick one with `git handoff session switch %s --harness H`", s.ID, s.ID)
	}
	h, err := harness.Lookup(s.Harness)
	if err != nil {
		return LaunchPlan{}, err
	}
	p := LaunchPlan{Session: s.ID, Harness: h.Name, Dir: s.Worktree, Env: []string{"GIT_HANDOFF_SESSION=" + s.ID}}
	if h.Binary == "" {
		p.Mode, p.Note = ModeNone, fmt.Sprintf("%s has no launcher: hand the brief over by hand (`git handoff brief --session %s`)", h.Name, s.ID)
		return p, nil
	}
	base := harness.LaunchOptions{Model: s.Model}
	if br.Hooks != nil {
		base.Hooks, base.BypassHookTrust, p.Note = br.Hooks(s.Worktree, h.Name)
	}
	if l := s.Launched[h.Name]; l.NativeID != "" && h.CanResume {
		opts := base
		if br.Continuing {
			msg, err := FirstMessage(s, br)
			if err != nil {
				return LaunchPlan{}, err
			}
			opts.Prompt = msg
		}
		launch, err := h.Resume(l.NativeID, opts)
		if err != nil {
			return LaunchPlan{}, err
		}
		p.Mode, p.NativeID = ModeResume, l.NativeID
		return withLaunch(p, launch), nil
	}
	if strings.TrimSpace(s.Prompt) == "" && strings.TrimSpace(s.HandoffPackage) == "" && !br.Continuing {
		why := "has no saved native id to resume"
		if !h.CanResume {
			why = "cannot resume a conversation"
		}
		// No command is named here: launch, switch and restore each take
		// the task their own way, and the surface that was asked knows
		// which one to suggest.
		return LaunchPlan{}, fmt.Errorf("launching %s for session %q: %w: the session has no saved prompt and %s %s",
			h.Name, s.ID, ErrNoFirstMessage, h.Name, why)
	}
	msg, err := FirstMessage(s, br)
	if err != nil {
		return LaunchPlan{}, err
	}
	opts := base
	opts.Prompt = msg
	launch, err := h.Fresh(opts)
	if (errors.Is(err, harness.ErrNoPrompt) || errors.Is(err, harness.ErrBadArg)) && br.File != nil {
		file, ferr := br.File(s, msg)
		if ferr != nil {
			return LaunchPlan{}, fmt.Errorf("writing the brief for %s: %w", h.Name, ferr)
		}
		opts.Prompt, opts.PromptFile = "", file
		launch, err = h.Fresh(opts)
	}
	if err != nil {
		return LaunchPlan{}, err
	}
	p.Mode = ModeFresh
	if br.Brief != nil {
		// The agent's session-start hook would give the same brief
		// again: this tells it the first prompt holds it.
		p.Env = append(p.Env, BriefedEnv+"="+s.ID)
	}
	return withLaunch(p, launch), nil
}

// BriefedEnv, set to the session's id in a fresh launch whose first
// message is the session's whole brief, tells the agent's session-start
// hook that the brief is in the prompt already: the hook names the session
// and does not repeat it (an agent given its baton twice reads it as two).
const BriefedEnv = "GIT_HANDOFF_BRIEFED"

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func withLaunch(p LaunchPlan, l harness.Launch) LaunchPlan {
	p.Argv, p.Note = l.Argv, joinNotes(l.Note, p.Note)
	p.Env = append(p.Env, l.Env...)
	return p
}

// FirstMessage is what a fresh launch tells the agent: the brief (which the
// handoff package heads), then the session's task when the brief lacks it.
func FirstMessage(s Record, br Briefer) (string, error) {
	text := s.HandoffPackage
	if br.Brief != nil {
		b, err := br.Brief(s)
		if err != nil {
			return "", fmt.Errorf("building the brief of %q: %w", s.ID, err)
		}
		text = b
	}
	if p := strings.TrimSpace(s.Prompt); p != "" && !strings.Contains(text, p) {
		// The task goes right under the handoff package, above the rest of
		// the brief.
		head, rest := "", text
		if s.HandoffPackage != "" && strings.HasPrefix(text, s.HandoffPackage) {
			head, rest = s.HandoffPackage, text[len(s.HandoffPackage):]
		}
		text = head + "## Task\n\n" + p + "\n\n" + rest
	}
	return strings.TrimLeft(text, "\n"), nil
}

// RelaunchOptions are what a switch or a restore was asked.
type RelaunchOptions struct {
	ID      string
	Harness string // switch: the harness to run; "" (restore) keeps the current one
	Model   string
	Prompt  string // saved as the session's prompt when given
	By      string // who holds the guard: user, host, process
	Restore bool
	Briefer Briefer
	// Run, when set, starts the planned agent while the switch guard is
	// held: after the launch was planned and the worktree is in place, and
	// before the switch is recorded. Its error leaves the record as it was
	// (the guard released); the runtime it returns is recorded with the
	// switch. A live agent is stopped and replaced inside it, so nothing
	// reading the record meanwhile takes the gap for a crash.
	Run func(ctx context.Context, cur Record, plan LaunchPlan) (*Runtime, error)
	// EndBound, when set, ends the active session the worktree is bound
	// to before this one is bound there, and returns what it says: the
	// workflow's end, which hands that session's work on (its automatic
	// handoff) where End alone would drop it. Unset: End.
	EndBound func(ctx context.Context, id string) (ended bool, notices []string, err error)

	// Expect, when set, is checked on the record each time the guard is
	// about to be taken: its error refuses the relaunch. A continuation
	// asks that the session still runs the agent it decided to leave, so
	// that of two deciders the second finds the work done.
	Expect func(Record) error
	// Prepare, when set, runs once the guard is held, before the launch is
	// planned: what only the holder may do (a continuation's snapshot and
	// its automatic handoff). Its error releases the guard and refuses; the
	// edit it returns is applied to the record last, over the relaunch's
	// own changes.
	Prepare func(ctx context.Context, guarded Record) (edit func(*Record), err error)

	hold func() // tests: runs while the guard is held
}

// RelaunchResult is what a switch or a restore did.
type RelaunchResult struct {
	Session   Stored
	From      string // the harness before
	Plan      LaunchPlan
	Recreated string // a worktree re-created with git worktree add
	Bound     string // a worktree bound to the session
	NoOp      bool   // restore of an active session: nothing changed
	// EndedBound is the active session the worktree was bound to, ended
	// so that this one is bound there (one worktree, one active session).
	EndedBound string
	Notices    []string
}

// Switch hands a session to another harness in the same worktree. An
// unknown harness is refused before anything changes. The switch takes the
// session's switching guard by compare-and-swap (a second concurrent switch
// gets *SwitchingError; a guard past its expiry is taken over), records the
// launch under the new harness and releases the guard in the same final
// swap. A merged session is read-only; a replaced one names its successor.
// A terminated or ended session is relaunched, its worktree re-created if
// it is gone.
func Switch(ctx context.Context, st refstore.Clone, opts RelaunchOptions, now time.Time) (RelaunchResult, error) {
	if strings.TrimSpace(opts.Harness) == "" {
		return RelaunchResult{}, fmt.Errorf("switching session %q: name the harness to switch to", opts.ID)
	}
	opts.Restore = false
	return relaunch(ctx, st, opts, now)
}

// relaunch is Switch and Restore: it takes the session's guard, plans the
// launch, re-creates the worktree if it is gone, runs the agent when asked,
// records the launch (releasing the guard in the same swap) and binds the
// worktree to the session.
func relaunch(ctx context.Context, st refstore.Clone, opts RelaunchOptions, now time.Time) (RelaunchResult, error) {
	doing := "switch"
	if opts.Restore {
		doing = "restore"
	}
	var h harness.Harness
	if opts.Harness != "" {
		var err error
		if h, err = harness.Lookup(opts.Harness); err != nil {
			return RelaunchResult{}, err
		}
	}
	cur, err := Read(ctx, st, opts.ID)
	if errors.Is(err, refstore.ErrNotFound) && opts.Restore {
		cur, err = unarchive(ctx, st, opts.ID)
	}
	if err != nil {
		return RelaunchResult{}, err
	}
	if err := writableLine(ctx, st, cur.Record, doing); err != nil {
		return RelaunchResult{}, err
	}
	if opts.Restore && runningAsIs(ctx, st, cur.Record) {
		return RelaunchResult{Session: cur, From: cur.Harness, NoOp: true}, nil
	}
	if opts.Harness == "" {
		if h, err = recordedHarness(cur.Record); err != nil {
			return RelaunchResult{}, err
		}
	}
	r := &relaunching{st: st, opts: opts, doing: doing, h: h, now: now, res: RelaunchResult{From: canonical(cur.Harness)}}
	if err := r.takeGuard(ctx); err != nil {
		return RelaunchResult{}, err
	}
	if opts.Prepare != nil {
		edit, err := opts.Prepare(ctx, r.guarded.Record)
		if err != nil {
			return r.res, r.fail(ctx, err)
		}
		r.edit = edit
	}
	next := r.guarded.Record
	r.change(&next)
	if err := r.launch(ctx, &next); err != nil {
		return r.res, err
	}
	if err := r.record(ctx, next); err != nil {
		return r.res, err
	}
	if bound, notes := bindWorktree(ctx, st, r.res.Session.Record, opts.EndBound, now, &r.res.EndedBound); bound != "" || len(notes) > 0 {
		r.res.Bound = bound
		r.res.Notices = append(r.res.Notices, notes...)
	}
	return r.res, nil
}

// unarchive makes a session that retired to the archive (an ended one:
// final records retire at the first sync that sees them) live again for a
// restore: its archived version goes back to its live ref as it is, by
// compare-and-swap on an absent ref, and the restore then writes after it
// as after any ended session, so sync orders the revived session after
// the archived one. A restore that stops before writing leaves the
// archived version live, which the next sync retires again.
func unarchive(ctx context.Context, st refstore.Clone, id string) (Stored, error) {
	arch, err := Find(ctx, st, id)
	if err != nil {
		return Stored{}, err
	}
	if arch.Archived == "" {
		return arch, nil // made live between the two reads
	}
	ref, err := refstore.SessionRef(id)
	if err != nil {
		return Stored{}, err
	}
	if err := st.Apply(ctx, "handoff: restored "+id+" from the archive of "+arch.Archived, refstore.Update{Ref: ref, New: arch.OID}); err != nil {
		return Stored{}, fmt.Errorf("restoring session %q from the archive: %w", id, err)
	}
	return Read(ctx, st, id)
}

// runningAsIs reports whether a restore of s would change nothing: it is
// active, no switch holds it, its worktree is there and no other active
// session is bound to it.
func runningAsIs(ctx context.Context, st refstore.Clone, s Record) bool {
	return s.Status == StatusActive && s.Switching == nil && (s.Worktree == "" || st.HasWorktree(s.Worktree)) &&
		!boundElsewhere(ctx, st, s)
}

// recordedHarness is the harness s records, which a restore runs again.
func recordedHarness(s Record) (harness.Harness, error) {
	if s.Harness == "" {
		return harness.Harness{}, fmt.Errorf("restoring session %q: it records no harness: use `git handoff session switch %s --harness H`", s.ID, s.ID)
	}
	return harness.Lookup(s.Harness)
}

// relaunching is a switch or a restore once it holds the session's guard.
type relaunching struct {
	st       refstore.Clone
	opts     RelaunchOptions
	doing    string // "switch" or "restore"
	h        harness.Harness
	now      time.Time
	worktree string
	guarded  Stored // the record as last read with our guard on it
	// rt is the runtime opts.Run returned, recorded with the launch once
	// ran is set.
	rt   *Runtime
	ran  bool
	edit func(*Record) // what opts.Prepare returned
	res  RelaunchResult
}

// takeGuard takes the session's switching guard and settles the worktree
// the session runs in: its own, else this clone's when it has one.
func (r *relaunching) takeGuard(ctx context.Context) error {
	guarded, note, err := takeGuard(ctx, r.st, r.opts.ID, r.opts.By, r.h.Name, r.doing, r.now, r.opts.Expect)
	if err != nil {
		return err
	}
	if note != "" {
		r.res.Notices = append(r.res.Notices, note)
	}
	r.guarded = guarded
	r.worktree = guarded.Worktree
	if r.worktree == "" && !r.st.Bare() {
		r.worktree = r.st.Dir()
	}
	return nil
}

// change makes s the record of the relaunched session.
func (r *relaunching) change(s *Record) {
	h, opts, now := r.h, r.opts, r.now
	from := s.Harness
	s.Harness = h.Name
	if !opts.Restore && canonical(from) != h.Name {
		// The package told the agent before that it replaces someone;
		// the next one takes this session over from that agent.
		s.HandoffPackage = brief.Continued(s.HandoffPackage, s.ID, s.Supersedes, from, h.Name)
	}
	if opts.Model != "" {
		s.Model = opts.Model
	} else if canonical(from) != h.Name {
		s.Model = "" // a model name belongs to its agent
	}
	if opts.Prompt != "" {
		// Kept in the record, which every clone reads, and briefed from:
		// a credential typed into a prompt goes no further than here.
		var hits []redact.Hit
		s.Prompt, hits = redact.Text(opts.Prompt)
		if n := redact.Describe(hits); n != "" {
			r.res.Notices = append(r.res.Notices, n+" (the prompt)")
		}
	}
	s.Worktree = r.worktree
	s.Status, s.EndedAt, s.UpdatedAt = StatusActive, nil, now
	s.launched(h.Name, now, func(l *Launched) { l.Last = now })
	s.Switching = nil
	if r.ran {
		s.Runtime = r.rt
	}
	if r.edit != nil {
		r.edit(s)
	}
}

// fail releases the guard, noting when that fails, and returns err.
func (r *relaunching) fail(ctx context.Context, err error) error {
	if rerr := releaseGuard(ctx, r.st, r.guarded); rerr != nil {
		r.res.Notices = append(r.res.Notices, "the switch guard was left in place (it expires by itself): "+rerr.Error())
	}
	return err
}

// launch plans the launch of next, re-creates its worktree if it is gone
// and runs the agent when opts.Run asks, next then recording its runtime.
// An error releases the guard.
func (r *relaunching) launch(ctx context.Context, next *Record) error {
	plan, err := PlanLaunch(*next, r.opts.Briefer)
	if err != nil {
		return r.fail(ctx, err)
	}
	r.res.Plan = plan
	if r.worktree != "" && !r.st.HasWorktree(r.worktree) {
		if err := r.st.AddWorktree(ctx, r.worktree, next.Branch); err != nil {
			return r.fail(ctx, err)
		}
		r.res.Recreated = r.worktree
	}
	if r.opts.hold != nil {
		r.opts.hold()
	}
	if r.opts.Run != nil {
		rt, err := r.opts.Run(ctx, r.guarded.Record, plan)
		if err != nil {
			return r.fail(ctx, err)
		}
		r.rt, r.ran = rt, true
		r.change(next)
	}
	return nil
}

// record writes next, releasing the guard in the same swap. A lost swap
// is applied again on the fresh record while the guard is still ours.
func (r *relaunching) record(ctx context.Context, next Record) error {
	opts, doing := r.opts, r.doing
	msg := fmt.Sprintf("handoff: %s %s to %s", doing, opts.ID, r.h.Name)
	for attempt := 0; ; attempt++ {
		up, err := Written(ctx, r.st, next, r.guarded)
		if err != nil {
			return r.fail(ctx, err)
		}
		err = r.st.Apply(ctx, msg, up)
		if err == nil {
			next.Schema = Schema
			r.res.Session = Stored{Record: next, Ref: up.Ref, OID: up.New}
			return nil
		}
		if !errors.Is(err, refstore.ErrConflict) || attempt == 4 {
			return r.fail(ctx, err)
		}
		// Someone else wrote the record (a summary, a native id): keep
		// theirs and apply ours again, as long as the guard is still ours.
		fresh, rerr := Read(ctx, r.st, opts.ID)
		if rerr != nil {
			return rerr
		}
		if !holds(fresh.Record, r.guarded.Switching) {
			if fresh.Switching != nil {
				return &SwitchingError{ID: opts.ID, Guard: *fresh.Switching}
			}
			return fmt.Errorf("%s of session %q: the switch guard was taken away meanwhile: %w", doing, opts.ID, refstore.ErrConflict)
		}
		r.guarded, next = fresh, fresh.Record
		r.change(&next)
	}
}

// writableLine is writable with the end of the line named for a replaced
// session.
func writableLine(ctx context.Context, st refstore.Records, s Record, doing string) error {
	err := writable(s, doing)
	var re *ReplacedError
	if errors.As(err, &re) {
		if g, gerr := LineGraph(ctx, st, s.ID); gerr == nil {
			re.Live = g.Live(s.ID)
		}
	}
	return err
}

func canonical(name string) string {
	if h, err := harness.Lookup(name); err == nil {
		return h.Name
	}
	return name
}

// takeGuard sets the session's switching guard by compare-and-swap. A live
// guard held by someone else refuses; an expired one is taken over.
func takeGuard(ctx context.Context, st refstore.Writer, id, by, to, doing string, now time.Time, expect func(Record) error) (Stored, string, error) {
	for attempt := 0; ; attempt++ {
		cur, err := Read(ctx, st, id)
		if err != nil {
			return Stored{}, "", err
		}
		if err := writableLine(ctx, st, cur.Record, doing); err != nil {
			return Stored{}, "", err
		}
		if expect != nil && (cur.Switching == nil || !now.Before(cur.Switching.Until)) {
			// Checked only when the guard is free to take: while another
			// holds it, the SwitchingError below says who is at it.
			if err := expect(cur.Record); err != nil {
				return Stored{}, "", err
			}
		}
		note := ""
		if g := cur.Switching; g != nil {
			if now.Before(g.Until) {
				return Stored{}, "", &SwitchingError{ID: id, Guard: *g}
			}
			note = fmt.Sprintf("took over a stale switch guard held by %s since %s", g.By, g.Since.UTC().Format(time.RFC3339))
		}
		next := cur.Record
		next.Switching = &Switching{By: by, Since: now, Until: now.Add(GuardTTL), To: to}
		up, err := Written(ctx, st, next, cur)
		if err != nil {
			return Stored{}, "", err
		}
		err = st.Apply(ctx, fmt.Sprintf("handoff: %s %s: guard", doing, id), up)
		if err == nil {
			next.Schema = Schema
			return Stored{Record: next, Ref: up.Ref, OID: up.New}, note, nil
		}
		if !errors.Is(err, refstore.ErrConflict) || attempt == 4 {
			return Stored{}, "", err
		}
	}
}

// holds reports whether s still carries the guard g.
func holds(s Record, g *Switching) bool {
	return s.Switching != nil && g != nil && s.Switching.By == g.By && s.Switching.Since.Equal(g.Since)
}

// releaseGuard clears a guard that is still ours and changes nothing else.
func releaseGuard(ctx context.Context, st refstore.Writer, guarded Stored) error {
	_, err := Modify(ctx, st, guarded.ID, "handoff: release switch guard of "+guarded.ID, func(s *Record) error {
		if !holds(*s, guarded.Switching) {
			return errUnchanged
		}
		s.Switching = nil
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
}

// boundElsewhere reports whether s's worktree is bound to another session
// that is active.
func boundElsewhere(ctx context.Context, st refstore.Clone, s Record) bool {
	wt, done, err := st.OpenWorktree(ctx, s.Worktree)
	defer done()
	if err != nil || wt == nil {
		return false
	}
	bound, _ := wt.BoundSession()
	if bound == "" || bound == s.ID {
		return false
	}
	other, err := Read(ctx, st, bound)
	return err == nil && other.Live()
}

// bindWorktree binds the session's worktree to it. Another active session
// bound there is ended first (End: one worktree, one active session; its
// id goes to *ended and the note says so), unless a switch holds it: then
// the worktree stays bound to it.
func bindWorktree(ctx context.Context, st refstore.Clone, s Record, endBound func(context.Context, string) (bool, []string, error), now time.Time, ended *string) (string, []string) {
	wt, done, err := st.OpenWorktree(ctx, s.Worktree)
	defer done()
	if err != nil || wt == nil {
		return "", nil
	}
	bound, _ := wt.BoundSession()
	if bound == s.ID {
		return "", nil
	}
	if endBound == nil {
		endBound = func(ctx context.Context, id string) (bool, []string, error) {
			_, ok, err := End(ctx, st, id, EndStartedHere, now)
			return ok, nil, err
		}
	}
	var notes []string
	if bound != "" {
		if other, err := Read(ctx, st, bound); err == nil && other.Live() {
			ok, said, err := endBound(ctx, bound)
			if err != nil {
				return "", []string{fmt.Sprintf("worktree %s stays bound to session %s, which is active and could not be ended: %v", wt.Dir(), bound, err)}
			}
			if ok {
				*ended = bound
				notes = append([]string{fmt.Sprintf("worktree %s was bound to active session %s: it was ended, and %s is bound there instead", wt.Dir(), bound, s.ID)}, said...)
			}
		}
	}
	ref, err := refstore.SessionRef(s.ID)
	if err != nil {
		return "", append(notes, err.Error())
	}
	if err := wt.Bind(ref); err != nil {
		return "", append(notes, fmt.Sprintf("worktree %s was not bound to session %s: %v", wt.Dir(), s.ID, err))
	}
	return wt.Dir(), notes
}

// RecordNative remembers a harness's own session id for this session, next
// to that harness's name: it is only ever handed back to the same harness.
func RecordNative(ctx context.Context, st refstore.Writer, id, harnessName, nativeID string, now time.Time) (Stored, error) {
	h, err := harness.Lookup(harnessName)
	if err != nil {
		return Stored{}, err
	}
	if err := h.ValidateNativeID(nativeID); err != nil {
		return Stored{}, err
	}
	return Modify(ctx, st, id, fmt.Sprintf("handoff: %s native id of %s", h.Name, id), func(s *Record) error {
		if s.Status == StatusMerged {
			return &ReadOnlyError{ID: s.ID, Doing: "record a native id for"}
		}
		s.launched(h.Name, now, func(l *Launched) {
			if l.Last.IsZero() {
				l.Last = now
			}
			l.NativeID = nativeID
		})
		s.UpdatedAt = now
		return nil
	})
}

// launched edits what harness name did for s, stamping its first launch
// when it has none. The map is copied first: s may share it with the
// record it was read from.
func (s *Record) launched(name string, now time.Time, edit func(*Launched)) {
	l := s.Launched[name]
	if l.First.IsZero() {
		l.First = now
	}
	edit(&l)
	s.Launched = maps.Clone(s.Launched)
	if s.Launched == nil {
		s.Launched = map[string]Launched{}
	}
	s.Launched[name] = l
}

// MarkLaunched records that the session's current harness was just run.
func MarkLaunched(ctx context.Context, st refstore.Writer, id string, now time.Time) error {
	_, err := Modify(ctx, st, id, "handoff: launched "+id, func(s *Record) error {
		s.launched(canonical(s.Harness), now, func(l *Launched) { l.Last = now })
		s.UpdatedAt = now
		return nil
	})
	return err
}

// Launchable refuses to launch an agent for a session whose work is over
// (merged) or lives on elsewhere (replaced).
func Launchable(s Record) error { return writable(s, "launch") }
