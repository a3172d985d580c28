package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/brief"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// The workflows a coding agent's own hooks run (package agenthook turns
// each agent's JSON into these options and the results back into that
// agent's answer). An agent session is found again by the agent's own id
// for it, through a small index in the git directory, or else through the
// worktree's binding; nothing here reads every record.

// DefaultAgentChars is the most text given to an agent when its cap is not
// known: Claude Code's, the smallest checked (over it, the model sees a
// 2,000-character preview and a path it is not told to read).
const DefaultAgentChars = 10000

// agentBriefBytes is the budget the agent's brief is rendered in before it
// is fitted to the agent's cap: large enough for the largest baton, so a
// hook never leaves a baton unclaimed for want of room (what does not fit
// the cap is written to a file the context points at).
const agentBriefBytes = 4 * refstore.MaxRecord

// Agent hook sources, as Claude Code names them; the others' are mapped
// onto these by agenthook.
const (
	SourceStartup = "startup"
	SourceResume  = "resume"
	SourceClear   = "clear"
	SourceCompact = "compact"
)

// AgentStartOptions are what an agent's session-start hook was told.
type AgentStartOptions struct {
	Harness  string // the agent, by catalogue name or alias
	NativeID string // the agent's own id for its session; "" when it gave none
	Source   string // startup, resume, clear or compact ("" = startup)
	MaxChars int    // the most text the agent takes in; 0 = DefaultAgentChars
	// Transcript is the agent's transcript file, when its hook names it.
	Transcript string
	Arbiter    Arbiter
}

// AgentStartResult is what the agent is given.
type AgentStartResult struct {
	Session session.Record
	// Continued is set when an existing session goes on (resume, compact,
	// clear, or an agent launched for it): the baton it claimed before is
	// given again and nothing new is claimed.
	Continued bool
	Claimed   bool          // a baton was claimed just now
	Baton     *baton.Baton  // the baton in the context, claimed now or before; nil when none
	Handoff   *baton.Stored // as claimed now (nil when Continued)
	Context   string        // the text for the agent, at most MaxChars characters
	// BriefFile holds the whole brief when Context had to be cut.
	BriefFile string
	Notices   []string
}

// AgentStart starts a session for an agent, or continues the one the agent
// is already in, and returns the context to give it: the brief, baton
// first, fitted to the agent's cap.
func AgentStart(ctx context.Context, st refstore.Clone, opts AgentStartOptions, clock Clock) (AgentStartResult, error) {
	h, err := harness.Lookup(opts.Harness)
	if err != nil {
		return AgentStartResult{}, err
	}
	if opts.NativeID != "" {
		if err := h.ValidateNativeID(opts.NativeID); err != nil {
			return AgentStartResult{}, err
		}
	}
	maxChars := opts.MaxChars
	if maxChars <= 0 {
		maxChars = DefaultAgentChars
	}
	unlock, err := lockAgent(ctx, st, opts.NativeID)
	if err != nil {
		return AgentStartResult{}, err
	}
	defer unlock()
	if s, ok, err := agentSession(ctx, st, h.Name, opts.NativeID, opts.Source, clock()); err != nil {
		return AgentStartResult{}, err
	} else if ok {
		if id, _ := indexedSession(st, h.Name, opts.NativeID); id == s.ID && sourceName(opts.Source) == SourceStartup {
			// The agent's new conversation already started this session
			// here: the same hooks ran twice (a plugin beside the
			// project's committed configuration, one after the other
			// under the lock). The first gave the brief; a second copy
			// would only repeat it.
			return AgentStartResult{Session: s.Record, Continued: true}, nil
		}
		return continueAgent(ctx, st, s, h.Name, opts, maxChars, clock)
	}
	if s, notes, ok, err := resumedSession(ctx, st, h.Name, opts.NativeID, opts.Source, clock); err != nil {
		return AgentStartResult{}, err
	} else if ok {
		res, err := continueAgent(ctx, st, s, h.Name, opts, maxChars, clock)
		res.Notices = append(notes, res.Notices...)
		return res, err
	}
	res, err := Start(ctx, st, StartOptions{
		Harness: h.Name, NativeID: opts.NativeID, MaxBytes: agentBriefBytes, Arbiter: opts.Arbiter,
	}, clock)
	if err != nil {
		return AgentStartResult{}, err
	}
	out := AgentStartResult{Session: res.Session, Claimed: res.Claimed, Handoff: res.Handoff, Notices: res.Notices}
	if res.Claimed && res.Handoff != nil {
		out.Baton = &res.Handoff.Baton
	}
	// Start indexed the session under the agent's id and noted its working
	// tree; what the hook adds is noted beside it.
	if _, err := noteAgent(ctx, st, res.Session.ID, agentNote{transcript: opts.Transcript, claimed: res.Claimed}); err != nil {
		out.Notices = append(out.Notices, "the agent's session was not noted here: "+err.Error())
	}
	header := fmt.Sprintf("_git-handoff session %s started for this %s session._\n\n", res.Session.ID, h.Name)
	out.Context, out.BriefFile, err = agentContext(ctx, st, res.Session.ID, header+res.Brief, out.Notices, maxChars)
	return out, err
}

// continueAgent gives a session that goes on what it was given when it
// started: its claimed baton, its handoff package and the objective, with
// fresh commits. A baton waiting now is pointed at, never claimed: a
// resumed conversation already holds the one it claimed.
func continueAgent(ctx context.Context, st refstore.Clone, s session.Stored, harnessName string, opts AgentStartOptions, maxChars int, clock Clock) (AgentStartResult, error) {
	now := clock()
	out := AgentStartResult{Session: s.Record, Continued: true}
	if opts.NativeID != "" && s.Launched[harnessName].NativeID != opts.NativeID {
		// clear and compact may hand out a new id, and a launch for this
		// session gives the agent's first: resume must find the latest.
		if upd, err := session.RecordNative(ctx, st, s.ID, harnessName, opts.NativeID, now); err != nil {
			out.Notices = append(out.Notices, "the agent's session id was not recorded: "+err.Error())
		} else {
			out.Session = upd.Record
		}
	}
	if err := rememberAgent(ctx, st, s.ID, harnessName, opts.NativeID, false); err != nil {
		out.Notices = append(out.Notices, "the agent's session was not indexed here: "+err.Error())
	} else if _, err := noteAgent(ctx, st, s.ID, agentNote{transcript: opts.Transcript}); err != nil {
		out.Notices = append(out.Notices, "the agent's session was not noted here: "+err.Error())
	}
	if sourceName(opts.Source) == SourceStartup && os.Getenv(session.BriefedEnv) == s.ID {
		// Launched fresh with the whole brief as its first prompt, which
		// the agent reads right after this context.
		out.Context = fmt.Sprintf("_You are continuing git-handoff session %s (%s): its brief comes in your first prompt. Do not run `git handoff start`._\n", s.ID, SourceStartup)
		return out, nil
	}
	sb, err := goingOnBrief(ctx, st, s.Record, now, sourceName(opts.Source))
	if err != nil {
		return AgentStartResult{}, err
	}
	out.Baton = sb.baton
	out.Notices = append(out.Notices, sb.notices...)
	header := fmt.Sprintf("_You are continuing git-handoff session %s (%s)", s.ID, sourceName(opts.Source))
	if out.Baton != nil {
		header += fmt.Sprintf(": the baton it claimed (%s) is repeated below. It was claimed once; do not run `git handoff start` again", out.Baton.ID)
	}
	header += "._\n\n"
	out.Context, out.BriefFile, err = agentContext(ctx, st, s.ID, header+sb.text, out.Notices, maxChars)
	return out, err
}

// sessionBrief is the brief of a session that goes on, with what came of
// making it.
type sessionBrief struct {
	text    string
	baton   *baton.Baton // the baton it claimed; nil when none
	notices []string
}

// goingOnBrief renders what a session that goes on is given again: its
// claimed baton, its handoff package and the objective, with fresh
// commits. A baton waiting now is pointed at (a notice naming when, as
// on), never claimed: the session holds the one it claimed.
func goingOnBrief(ctx context.Context, st refstore.Clone, s session.Record, now time.Time, on string) (sessionBrief, error) {
	who, err := Resolve(ctx, st, s.Owner, s.Branch)
	if err != nil {
		return sessionBrief{}, err
	}
	g, err := gather(ctx, st, who, now)
	if err != nil {
		return sessionBrief{}, err
	}
	g.addLeases(ctx, st, s.ID)
	waiting := withClaimed(ctx, st, s, &g, who)
	out := sessionBrief{baton: g.input.Baton, notices: g.notices}
	g.input.Package = s.HandoffPackage
	if waiting != nil {
		out.notices = append(out.notices, fmt.Sprintf("baton %s is waiting on `%s` too; this session did not claim it again on %s: run `git handoff claim` to take it", waiting.ID, waiting.Branch, on))
	}
	out.text, _ = brief.Render(g.input, agentBriefBytes)
	return out, nil
}

func sourceName(source string) string {
	if source == "" {
		return SourceStartup
	}
	return source
}

// resumedSession revives the session of a conversation the agent resumes
// after its exit ended that session (session.Revive): the work goes on in
// the same session, its claimed baton given again, and the worktree is
// bound to it (another active session bound here is ended, as a start
// ends it). A session that ended otherwise, or an agent starting a new
// conversation, gets none: ok is false.
func resumedSession(ctx context.Context, st refstore.Clone, harnessName, nativeID, source string, clock Clock) (session.Stored, []string, bool, error) {
	if nativeID == "" || sourceName(source) == SourceStartup {
		return session.Stored{}, nil, false, nil
	}
	id, err := indexedSession(st, harnessName, nativeID)
	if err != nil || id == "" {
		return session.Stored{}, nil, false, nil
	}
	s, ok, err := session.Revive(ctx, st, id, clock())
	if err != nil || !ok {
		return session.Stored{}, nil, false, err
	}
	notes := []string{fmt.Sprintf("session %s ended when its agent exited; the agent resumed its conversation, so the session goes on", id)}
	if n := withdrawAuto(ctx, st, s.Record, clock); n != "" {
		notes = append(notes, n)
	}
	var ended string
	notes = append(notes, endBound(ctx, st, id, clock, &ended)...)
	if err := st.Bind(s.Ref); err != nil {
		notes = append(notes, "this worktree was not bound to the session: "+err.Error())
	}
	return s, notes, true, nil
}

// agentSession finds the live session an agent's hook belongs to: the one
// indexed under the agent's own id, else the session GIT_HANDOFF_SESSION or
// the worktree's binding names when it
// runs the same agent (or is being switched to it: switchingTo) and either has no id of that agent yet (a session
// launched or switched to an agent that cannot be told its id) or the agent
// says its conversation goes on (resume, clear, compact). A new
// conversation of the agent in a worktree still bound to an older one of
// its conversations gets a session of its own.
func agentSession(ctx context.Context, st refstore.Clone, harnessName, nativeID, source string, now time.Time) (session.Stored, bool, error) {
	if nativeID != "" {
		if id, err := indexedSession(st, harnessName, nativeID); err == nil && id != "" {
			s, err := session.Read(ctx, st, id)
			switch {
			case err == nil && s.Live():
				return s, true, nil
			case err != nil && !errors.Is(err, refstore.ErrNotFound):
				return session.Stored{}, false, err
			}
		}
	}
	// A session launched for this agent (`session launch`) names itself in
	// the agent's environment; otherwise the worktree's binding does.
	id, err := SessionID(st, "")
	if err != nil || id == "" {
		return session.Stored{}, false, err
	}
	s, err := session.Read(ctx, st, id)
	if errors.Is(err, refstore.ErrNotFound) {
		return session.Stored{}, false, nil
	}
	if err != nil || !s.Live() || HarnessName(s.Harness) != harnessName && !switchingTo(s.Record, harnessName, now) {
		return session.Stored{}, false, err
	}
	known := s.Launched[harnessName].NativeID
	if known == "" || known == nativeID || sourceName(source) != SourceStartup {
		return s, true, nil
	}
	return session.Stored{}, false, nil
}

// switchingTo reports whether s is being switched to harnessName right
// now: a switch or a continuation starts the new agent while it holds the
// session's guard and records the new agent only once it runs, so the
// agent's session-start hook can read the record before that write lands
// (found with the real Codex continuing Claude Code's session on a loaded
// machine: the hook saw claude-code, made a session of its own, and the
// continued session never learned Codex's id). The guard names the agent
// it is switching to.
func switchingTo(s session.Record, harnessName string, now time.Time) bool {
	g := s.Switching
	return g != nil && now.Before(g.Until) && HarnessName(g.To) == harnessName
}

// agentDir holds the hooks' local notes: per worktree, because what they
// compare (HEAD, the working tree) is per worktree.
const agentDir = "agent"

// indexPath is where the session of an agent's own id is noted. Ids are
// validated against the agent's shape (UUIDs, "ses_…"), so they are safe
// file names.
func indexPath(harnessName, nativeID string) string {
	return agentDir + "/native/" + harnessName + "." + nativeID
}

// lockAgent serializes the hooks of one agent session: run twice at once
// (Codex runs a hook given on its command line and the same one in the
// project's file), its start makes one session and its stop asks once.
// Without the agent's id there is nothing to key the lock on.
//
// The lock is one per worktree, held by every agent's hooks there, not one
// per conversation: a hook holds it for milliseconds, agents rarely share a
// worktree, and a file made for each conversation stayed behind forever and
// cost each new one a file creation, the dearest step of a hook on a busy
// filesystem.
func lockAgent(ctx context.Context, st refstore.Clone, nativeID string) (func(), error) {
	if nativeID == "" {
		return func() {}, nil
	}
	return st.WorktreeLocal().Lock(ctx, agentDir+"/hooks.lock")
}

func statePath(id string) string {
	return agentDir + "/session/" + id + ".json"
}

func indexedSession(st refstore.Clone, harnessName, nativeID string) (string, error) {
	data, err := st.WorktreeLocal().Read(indexPath(harnessName, nativeID))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return strings.TrimSpace(string(data)), err
}

// agentState is what the Stop hook compares against: the working tree as
// the session found it, and whether it was already asked for a baton.
type agentState struct {
	// Since is when the working tree was noted (ns since the epoch, one
	// coarse clock tick early): a path git status lists at a stop that was
	// changed after it is the session's work. Noting a time costs nothing;
	// noting the tree itself cost a `git status` at every session start.
	Since int64 `json:"since,omitempty"`
	// StartTree is the working tree's digest, as states noted before Since
	// existed hold it (and a stop with neither notes one).
	StartTree string `json:"startTree,omitempty"`
	Nudged    bool   `json:"nudged,omitempty"`
	// Transcript is the agent's transcript file, as its hooks last named
	// it: the automatic handoff quotes its end.
	Transcript string `json:"transcript,omitempty"`
	// SummaryFromTranscript: the agent's stops give no last message, so
	// its summary is read from its transcript, which the agent may not
	// have finished writing when the stop hook ran (seen with Copilot);
	// the session's end reads it once more (finalSummary).
	SummaryFromTranscript bool `json:"summaryFromTranscript,omitempty"`
	// Delivery is how the baton the start hook claimed reached the agent:
	// deliveryPending from the claim until the hook has written its
	// answer, then deliveryDone. "" for a session whose start no hook
	// made (the agent or a person ran `git handoff start` and read it).
	Delivery string `json:"delivery,omitempty"`
}

// Deliveries of a claimed baton to an agent (agentState.Delivery).
const (
	deliveryPending = "pending"
	deliveryDone    = "delivered"
)

// clockSlack is how far a file's time may lag the clock that noted Since:
// file times come from the kernel's coarse clock, one tick (1–10 ms)
// behind at most. A change made that little before the start counts as the
// session's: it may be asked for a baton it did not need, never missed.
const clockSlack = 10 * time.Millisecond

func noteSince() int64 { return time.Now().Add(-clockSlack).UnixNano() }

func readAgentState(st refstore.Clone, id string) (agentState, bool, error) {
	data, err := st.WorktreeLocal().Read(statePath(id))
	if errors.Is(err, os.ErrNotExist) {
		return agentState{}, false, nil
	}
	if err != nil {
		return agentState{}, false, err
	}
	var s agentState
	if err := json.Unmarshal(data, &s); err != nil {
		return agentState{}, false, fmt.Errorf("reading %s: %w", statePath(id), err)
	}
	return s, true, nil
}

func writeAgentState(ctx context.Context, st refstore.Clone, id string, s agentState) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return st.WorktreeLocal().Write(ctx, statePath(id), data)
}

// rememberAgent indexes the session under the agent's id and, for a new
// session (or one first seen by a hook), notes the working tree it starts
// from.
func rememberAgent(ctx context.Context, st refstore.Clone, id, harnessName, nativeID string, fresh bool) error {
	var errs []error
	if nativeID != "" {
		errs = append(errs, st.WorktreeLocal().Write(ctx, indexPath(harnessName, nativeID), []byte(id+"\n")))
	}
	if _, ok, err := readAgentState(st, id); fresh || !ok || err != nil {
		errs = append(errs, writeAgentState(ctx, st, id, agentState{Since: noteSince()}))
	}
	return errors.Join(errs...)
}

// agentNote is what a hook learnt of the agent's session.
type agentNote struct {
	transcript string // its transcript file, "" when the hook names none
	// claimed: the start hook claimed a baton it has yet to hand the
	// agent (AgentDelivered ends that).
	claimed bool
	// summaryFromTranscript: a stop that gave no last message read the
	// summary from the transcript (agentState.SummaryFromTranscript).
	summaryFromTranscript bool
}

// noteAgent keeps n beside what was noted of session id before, and
// returns the whole: one read, and a write only when something changed.
func noteAgent(ctx context.Context, st refstore.Clone, id string, n agentNote) (agentState, error) {
	state, _, err := readAgentState(st, id)
	if err != nil {
		return state, err
	}
	changed := false
	if n.transcript != "" && n.transcript != state.Transcript {
		state.Transcript, changed = n.transcript, true
	}
	if n.claimed {
		state.Delivery, changed = deliveryPending, true
	}
	if n.summaryFromTranscript && !state.SummaryFromTranscript {
		state.SummaryFromTranscript, changed = true, true
	}
	if !changed {
		return state, nil
	}
	return state, writeAgentState(ctx, st, id, state)
}

// AgentDelivered notes that the start hook of session id has written its
// answer, the brief with the baton it claimed, for the agent to read: a
// claim whose hook never got that far (killed by the agent's timeout, or
// the agent gone) may be offered again when the session ends (handOver).
func AgentDelivered(ctx context.Context, st refstore.Clone, id string) error {
	state, ok, err := readAgentState(st, id)
	if err != nil || !ok || state.Delivery != deliveryPending {
		return err
	}
	state.Delivery = deliveryDone
	return writeAgentState(ctx, st, id, state)
}

// agentContext fits the brief and notices to the agent's cap; when cut,
// the whole text is written where the context says.
func agentContext(ctx context.Context, st refstore.Clone, id, text string, notices []string, maxChars int) (string, string, error) {
	text = withNotes(text, notices)
	note := agentDir + "/brief/" + id + ".md"
	file := st.WorktreeLocal().Path(note)
	out, cut := brief.Fit(text, maxChars, file)
	if !cut {
		return out, "", nil
	}
	if err := st.WorktreeLocal().Write(ctx, note, []byte(text)); err != nil {
		// Say so in what the agent reads: the file it would be sent to
		// does not exist.
		out, _ = brief.Fit(text, maxChars, "`git handoff show` (the brief file could not be written: "+err.Error()+")")
		return out, "", nil
	}
	return out, file, nil
}

// withNotes ends a text for an agent with what git-handoff has to say about
// it (brief.WithNotes), where the agent reads it: it has no stderr to watch.
func withNotes(text string, notices []string) string { return brief.WithNotes(text, notices) }

// AgentStopOptions are what an agent's Stop hook was told.
type AgentStopOptions struct {
	Harness  string
	NativeID string
	// Active is set when the agent is already going on because of a
	// stop hook (Claude's stop_hook_active, Cursor's loop_count > 0).
	Active bool
	// LastMessage is the agent's last reply (Claude's and Codex's
	// last_assistant_message, Gemini's prompt_response); "" when the hook
	// gives none, when it is read from Transcript instead.
	LastMessage string
	Transcript  string
	// Compacting: the agent is about to compact its context (its
	// PreCompact hook); its summary is kept and nothing is asked.
	Compacting bool
}

// AgentStopResult says whether to keep the agent going, and why.
type AgentStopResult struct {
	Session string // "" when the agent is in no session
	Block   bool
	Reason  string // for the agent, when Block
	// Redelivered: Reason holds the brief the session's start hook
	// claimed a baton for and never finished giving; tell AgentDelivered
	// once the answer is written, as the start hook does.
	Redelivered bool
	Why         string // why it was not blocked, for logs
	Notices     []string
}

// AgentStop asks an agent that is stopping for a baton, once: only when its
// session is live, has done work (HEAD moved, or the working tree changed,
// since it started) and left no baton, and it was not asked before or is
// not already answering a stop hook.
func AgentStop(ctx context.Context, st refstore.Clone, opts AgentStopOptions, clock Clock) (AgentStopResult, error) {
	h, err := harness.Lookup(opts.Harness)
	if err != nil {
		return AgentStopResult{}, err
	}
	unlock, err := lockAgent(ctx, st, opts.NativeID)
	if err != nil {
		return AgentStopResult{}, err
	}
	defer unlock()
	s, ok, err := agentSession(ctx, st, h.Name, opts.NativeID, SourceResume, clock())
	if err != nil || !ok {
		return AgentStopResult{Why: "no live session for this agent here"}, err
	}
	res := AgentStopResult{Session: s.ID}
	res.Notices = agentTurn(ctx, st, s.Record, h.Name, opts, clock)
	if opts.Compacting {
		res.Why = "the agent is compacting its context"
		return res, nil
	}
	if opts.Active {
		res.Why = "the agent is already answering a stop hook"
		return res, nil
	}
	state, noted, err := readAgentState(st, s.ID)
	if err != nil {
		return res, err
	}
	if state.Delivery == deliveryPending {
		// The start hook claimed a baton and was cut short (the agent's
		// hook timeout, its answer dropped): the agent went on without
		// it. This first stop gives it, and the agent goes on with it.
		text, err := redelivery(ctx, st, s.Record, clock())
		if err == nil {
			res.Block, res.Reason, res.Redelivered = true, text, true
			return res, nil
		}
		res.Notices = append(res.Notices, "the baton this session claimed at its start could not be given again: "+err.Error())
	}
	if state.Nudged {
		res.Why = "the agent was asked for a baton once already"
		return res, nil
	}
	worked, err := didWork(ctx, st, s.Record, state, noted)
	if err != nil {
		return res, err
	}
	if !noted {
		// A session no hook saw start (`git handoff start` run by the
		// agent): its commits count from its record, its changes to the
		// working tree from now on.
		state.Since = noteSince()
		if err := writeAgentState(ctx, st, s.ID, state); err != nil {
			return res, err
		}
	}
	if !worked {
		res.Why = "no commits and no changed files since the session started"
		return res, nil
	}
	if left, err := leftBaton(ctx, st, s.Record); err != nil || left {
		res.Why = "the session left a baton"
		return res, err
	}
	// Noted before answering: if the note cannot be written, do not ask,
	// or the agent could be asked at every stop.
	state.Nudged = true
	if err := writeAgentState(ctx, st, s.ID, state); err != nil {
		return res, err
	}
	res.Block, res.Reason = true, stopReason(s.ID)
	return res, nil
}

// didWork compares HEAD with the session's start and, when the start was
// noted, asks whether any path git status lists now changed after it (by
// Since, or by the digest of states noted before Since existed).
func didWork(ctx context.Context, st refstore.Clone, s session.Record, state agentState, noted bool) (bool, error) {
	head, err := st.Head(ctx)
	if err != nil {
		return false, err
	}
	if head.Commit != s.StartHead {
		return true, nil
	}
	switch {
	case !noted:
		return false, nil
	case state.Since != 0:
		return st.WorktreeChangedSince(ctx, state.Since, agentStateDirs...)
	case state.StartTree != "":
		tree, err := st.WorktreeDigest(ctx)
		return tree != state.StartTree, err
	}
	return false, nil
}

// agentStateDirs are the agents' own directories in a project: their
// settings (which init writes) and what they keep there while they run.
// A change under them is the agent's bookkeeping, not the session's work:
// Claude Code touches .claude/ in a session that did nothing.
var agentStateDirs = []string{".claude/", ".codex/", ".gemini/", ".cursor/", ".opencode/", ".goose/"}

// leftBaton reports whether a baton of session s waits on its branch (an
// `end` that found the session ended it too, so a live one rarely has).
func leftBaton(ctx context.Context, st refstore.Records, s session.Record) (bool, error) {
	for _, shared := range []bool{false, true} {
		ref, err := refstore.HandoffRef(shared, s.Owner, s.Branch)
		if err != nil {
			return false, err
		}
		b, err := baton.Read(ctx, st, ref)
		if errors.Is(err, refstore.ErrNotFound) {
			continue
		}
		if err == nil && b.SessionID == s.ID {
			return true, nil
		}
	}
	return false, nil
}

// redelivery is the stop answer that gives a session the brief its start
// hook claimed a baton for and never finished giving.
func redelivery(ctx context.Context, st refstore.Clone, s session.Record, now time.Time) (string, error) {
	sb, err := goingOnBrief(ctx, st, s, now, "this stop")
	if err != nil {
		return "", err
	}
	header := fmt.Sprintf("_git-handoff: this session (%s) claimed a baton when it started, but the session-start hook was cut short before it could show it to you. Here is the brief it was to give", s.ID)
	if sb.baton != nil {
		header += fmt.Sprintf(", with baton %s. It was claimed once, for you: work from it, and do not run `git handoff start` again", sb.baton.ID)
	}
	header += "._\n\n"
	text, _, err := agentContext(ctx, st, s.ID, header+sb.text, sb.notices, DefaultAgentChars)
	return text, err
}

// stopReason tells the agent exactly how to leave a baton.
func stopReason(id string) string {
	return "Before you stop: this git-handoff session (" + id + ") changed the repository but left no baton for the next session. " +
		"Leave one now, while you remember what you did, with one shell command:\n\n" +
		"    git handoff end --next \"<next step>\" --failed \"<an approach that did not work, and why>\" --question \"<an open question>\"\n\n" +
		"Repeat a flag for each item and leave out the ones that do not apply; give at least one --next. Then stop. " +
		"You will not be asked again in this session."
}

// AgentEndOptions are what an agent's SessionEnd hook was told.
type AgentEndOptions struct {
	Harness  string
	NativeID string
	// Reason is why the agent says its session ends, in its own words:
	// Claude Code's "clear" goes on in the same process with a new
	// conversation (its SessionStart follows, source clear) and ends nothing.
	Reason     string
	Transcript string
	// Later leaves the session's handover (its automatic handoff) noted
	// as due, for FinishHandovers to run in a process of its own: the
	// agent gives its end hook a second or two, less on a busy machine
	// than a snapshot and a baton take.
	Later bool
}

// ReasonClear is the session-end reason of a conversation that goes on
// (Claude Code's /clear).
const ReasonClear = "clear"

// AgentEnd is what happens when an agent's process ends: the time it last
// ran is kept for `session ls`, and its session ends (EndSession: ended,
// its worktree unbound, no baton asked for) unless a switch holds the
// session (the switch stopped this agent to start another) or the agent
// goes on with a cleared conversation. A later resume of the conversation
// goes on in this session (resumedSession); `session restore` revives it
// from anywhere.
func AgentEnd(ctx context.Context, st refstore.Clone, opts AgentEndOptions, clock Clock) (string, error) {
	h, err := harness.Lookup(opts.Harness)
	if err != nil {
		return "", err
	}
	s, ok, err := agentSession(ctx, st, h.Name, opts.NativeID, SourceResume, clock())
	if err != nil || !ok {
		return "", err
	}
	if err := session.MarkLaunched(ctx, st, s.ID, clock()); err != nil {
		return s.ID, err
	}
	if opts.Reason == ReasonClear {
		return s.ID, nil
	}
	state, err := noteAgent(ctx, st, s.ID, agentNote{transcript: opts.Transcript})
	if err != nil {
		return s.ID, err
	}
	finalSummary(ctx, st, s.ID, h.Name, state, clock)
	var held *session.SwitchingError
	if _, err := endSession(ctx, st, s.ID, session.EndAgentExit, clock, opts.Later); err != nil && !errors.As(err, &held) {
		return s.ID, err
	}
	return s.ID, nil
}
