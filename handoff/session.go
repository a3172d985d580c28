package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/git-handoff/git-handoff/agentconf"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

// SessionBriefer renders a session's brief as `git handoff brief --session
// ID` would (no pull request facts), and writes a first message to a file
// in the common git dir for agents that read only files.
func SessionBriefer(ctx context.Context, st refstore.Clone, clock Clock) session.Briefer {
	return session.Briefer{
		Brief: func(s session.Record) (string, error) {
			res, err := Brief(ctx, st, BriefOptions{Session: s.ID, Owner: s.Owner, Branch: s.Branch, Claimed: true, Record: &s}, clock)
			if err != nil {
				return "", err
			}
			return withNotes(res.Brief, res.Notices), nil
		},
		File: func(s session.Record, text string) (string, error) {
			name, err := refstore.EncodeComponent(s.ID)
			if err != nil {
				return "", err
			}
			note := "briefs/" + name + ".md"
			return st.Local().Path(note), st.Local().Write(ctx, note, []byte(text))
		},
		Hooks: func(dir, harnessName string) ([]harness.Hook, bool, string) {
			if dir == "" {
				return nil, false, ""
			}
			l := agentconf.LaunchFor(dir, harnessName, agentconf.Options{})
			return l.Hooks, l.BypassTrust, l.Note
		},
	}
}

// SessionRelaunchOptions are what `session switch` and `session restore`
// were asked.
type SessionRelaunchOptions struct {
	ID      string
	Harness string // switch: the harness to run (canonical name)
	Model   string
	Prompt  string // saved as the session's prompt when given
	By      string // who holds the switch guard: user, host, process
	// NoSnapshot (switch) skips the snapshot of uncommitted work taken by
	// default when the session's worktree is here and dirty.
	NoSnapshot bool
	// Grace is how long a live agent under tmux gets to exit on SIGTERM
	// before it is killed (0: StopGrace).
	Grace time.Duration
	// LiveOnly (switch) refuses a session that is not active
	// (*NotActiveError): reviving an ended or terminated one is `session
	// restore`'s, never a side effect of changing its agent (the status
	// page's Agent dropdown).
	LiveOnly bool
	// Launcher runs a launch file in a tmux pane (tmuxrt.Spec.Launcher):
	// `git-handoff session exec-launch`, from the CLI.
	Launcher []string
	// Exited is the command tmux runs, with the session id appended, when
	// the agent exits (tmuxrt.Spec.OnExit): `git-handoff session exited`,
	// from the CLI, which ends the session (SessionExited).
	Exited []string
}

// SessionSwitch hands a session to another coding agent in the same
// worktree (session.Switch).
//
// A session whose agent runs under tmux is switched live: the new launch is
// checked first (harness, plan, program on PATH, worktree) and only then
// the old agent stopped and the new one started in the same pane, all
// under the switch guard. A refused switch leaves the running agent alone.
// One whose agent is gone is relaunched in tmux with the new agent.
func SessionSwitch(ctx context.Context, st refstore.Clone, opts SessionRelaunchOptions, clock Clock) (session.RelaunchResult, error) {
	ro := session.RelaunchOptions{
		ID: opts.ID, Harness: opts.Harness, Model: opts.Model, Prompt: opts.Prompt,
		By: opts.By, Briefer: SessionBriefer(ctx, st, clock),
	}
	if opts.LiveOnly {
		cur, err := session.Read(ctx, st, opts.ID)
		if err != nil {
			return session.RelaunchResult{}, err
		}
		if cur.Status == session.StatusEnded || cur.Status == session.StatusTerminated {
			return session.RelaunchResult{}, &NotActiveError{ID: opts.ID, Status: cur.Status}
		}
	}
	// The snapshot first: a live switch stops the agent that made the
	// changes, and a refused one has lost nothing by it.
	_, notes := relaunchSnapshot(ctx, st, opts.ID, opts.NoSnapshot)
	notices, err := relaunchLive(ctx, st, opts.ID, opts.Grace, opts.Launcher, opts.Exited, clock, &ro)
	if err != nil {
		return session.RelaunchResult{}, err
	}
	ro.EndBound = endBoundFor(st, clock)
	res, err := session.Switch(ctx, st, ro, clock())
	res.Notices = append(append(notes, *notices...), res.Notices...)
	return res, err
}

// NotActiveError refuses to switch the agent of a session that is not
// active: reviving it is an explicit `session restore`.
type NotActiveError struct{ ID, Status string }

func (e *NotActiveError) Error() string {
	return fmt.Sprintf("session %q is %s: revive it with `git handoff session restore %s` first; changing its agent does not revive it", e.ID, e.Status, e.ID)
}

func (e *NotActiveError) Unwrap() error { return refstore.ErrConflict }

// SessionRestore revives a session under its own id (session.Restore).
// A session that ran under tmux and whose agent is gone is relaunched there.
func SessionRestore(ctx context.Context, st refstore.Clone, opts SessionRelaunchOptions, clock Clock) (session.RelaunchResult, error) {
	ro := session.RelaunchOptions{
		ID: opts.ID, Prompt: opts.Prompt, By: opts.By, Briefer: SessionBriefer(ctx, st, clock),
	}
	notices, err := relaunchLive(ctx, st, opts.ID, opts.Grace, opts.Launcher, opts.Exited, clock, &ro)
	if err != nil {
		return session.RelaunchResult{}, err
	}
	ro.EndBound = endBoundFor(st, clock)
	res, err := session.Restore(ctx, st, ro, clock())
	res.Notices = append(*notices, res.Notices...)
	return res, err
}

// SessionLaunchOptions are what `session launch` was asked.
type SessionLaunchOptions struct {
	ID string
	// Exec: the caller is about to run the plan. Then a plan nobody can
	// run and a missing worktree are errors, and the launch is recorded.
	Exec bool
	// Tmux: run the plan in a tmux session of its own (tmuxrt.FromEnv's
	// server) and record it as the session's runtime. A lingering tmux
	// session whose agent exited is destroyed first; a live one refuses.
	Tmux bool
	// Launcher and Exited: see SessionRelaunchOptions.
	Launcher, Exited []string
}

// SessionLaunchResult is the command that starts or resumes the agent.
type SessionLaunchResult struct {
	Plan    session.LaunchPlan
	Runtime *session.Runtime // Tmux: where the agent now runs
	Notices []string
}

// NoLaunchError says that the plan has no command to run.
type NoLaunchError struct{ ID, Note string }

func (e *NoLaunchError) Error() string { return e.Note }

// WorktreeGoneError says that the session's worktree is missing.
type WorktreeGoneError struct{ ID, Dir string }

func (e *WorktreeGoneError) Error() string { return fmt.Sprintf("its worktree %s is gone", e.Dir) }

// SessionLaunch plans the launch of a session's agent; with Exec it checks
// that the plan can run and records the launch.
func SessionLaunch(ctx context.Context, st refstore.Clone, opts SessionLaunchOptions, clock Clock) (SessionLaunchResult, error) {
	cur, err := session.Read(ctx, st, opts.ID)
	if err == nil {
		err = session.Launchable(cur.Record)
	}
	if err != nil {
		return SessionLaunchResult{}, err
	}
	br := SessionBriefer(ctx, st, clock)
	// A continuation waiting for its agent: that agent learns why it
	// takes over even when it resumes a conversation of its own.
	br.Continuing = cur.Waiting()
	plan, err := session.PlanLaunch(cur.Record, br)
	if err != nil {
		return SessionLaunchResult{}, err
	}
	res := SessionLaunchResult{Plan: plan}
	if opts.Tmux {
		res.Runtime, res.Notices, err = launchTmux(ctx, st, cur, plan, opts.Launcher, opts.Exited, clock)
		return res, err
	}
	if !opts.Exec {
		return res, nil
	}
	if len(plan.Argv) == 0 {
		return res, &NoLaunchError{ID: opts.ID, Note: plan.Note}
	}
	if plan.Dir != "" {
		if fi, err := os.Stat(plan.Dir); err != nil || !fi.IsDir() {
			return res, &WorktreeGoneError{ID: opts.ID, Dir: plan.Dir}
		}
	}
	if err := session.MarkLaunched(ctx, st, opts.ID, clock()); err != nil {
		res.Notices = append(res.Notices, fmt.Sprintf("the launch was not recorded: %v", err))
	}
	return res, nil
}

// SessionNative records a coding agent's own session id for a session.
func SessionNative(ctx context.Context, st refstore.Clone, id, harnessName, nativeID string, clock Clock) (session.Stored, error) {
	return session.RecordNative(ctx, st, id, harnessName, nativeID, clock())
}

// SessionTerminateResult is what terminating a session did.
type SessionTerminateResult struct {
	Session session.Stored
	Changed bool   // false: it was already terminated
	Stopped string // the tmux session whose running agent was stopped first
	Unbound string // the worktree that was bound to it and no longer is
	Notices []string
}

// SessionTerminate marks a session whose agent is dead, or is to be: an
// agent still running under tmux (a runtime git-handoff started) is
// stopped first (SIGTERM, then SIGKILL after StopGrace) and its tmux
// session destroyed. A switch in flight refuses (*session.SwitchingError)
// before anything is stopped, as a replaced or merged session does. The
// worktree bound to the session is unbound.
func SessionTerminate(ctx context.Context, st refstore.Clone, id, summary string, clock Clock) (SessionTerminateResult, error) {
	cur, err := session.Read(ctx, st, id)
	if err != nil {
		return SessionTerminateResult{}, err
	}
	var res SessionTerminateResult
	if cur.Status != session.StatusReplaced && cur.Status != session.StatusMerged && cur.ReplacedBy == "" {
		if g := cur.Switching; g != nil && clock().Before(g.Until) {
			return res, &session.SwitchingError{ID: id, Guard: *g}
		}
		if rs := runtimeState(ctx, cur.Record); rs != nil {
			switch rs.State {
			case tmuxrt.StateLive:
				stopped, err := stopReplaced(ctx, cur.Record, StopGrace)
				if err != nil {
					return res, fmt.Errorf("stopping its agent in tmux session %s: %w", rs.Name, err)
				}
				if stopped {
					res.Stopped = rs.Name
				}
			case tmuxrt.StateUnknown:
				res.Notices = append(res.Notices, fmt.Sprintf("its agent may still run in tmux session %s, which cannot be reached from here: %s", rs.Name, rs.Why))
			}
		}
	}
	summary, hits := scrubText(summary)
	if n := redactedNotice(hits); n != "" {
		res.Notices = append(res.Notices, n)
	}
	s, changed, err := session.Terminate(ctx, st, id, summary, clock())
	res.Session, res.Changed = s, changed
	if err != nil || !changed {
		return res, err
	}
	var notes []string
	res.Unbound, notes = unbindEnded(ctx, st, "handoff: terminate "+id, s, "terminated")
	res.Notices = append(res.Notices, notes...)
	return res, nil
}

// SessionSummaryResult is the session with its summary recorded.
type SessionSummaryResult struct {
	Session  session.Stored
	Redacted []redact.Hit // taken out before it was written
	Notices  []string
}

// SessionSummary records the latest summary of a session's work,
// redacted.
func SessionSummary(ctx context.Context, st refstore.Clone, id, summary string, clock Clock) (SessionSummaryResult, error) {
	summary, hits := scrubText(summary)
	s, err := session.SetSummary(ctx, st, id, summary, clock())
	res := SessionSummaryResult{Session: s, Redacted: hits}
	if n := redactedNotice(hits); n != "" {
		res.Notices = append(res.Notices, n)
	}
	return res, err
}

// SessionShowResult is one session record and its place in the lineage.
type SessionShowResult struct {
	Session session.Stored
	Lineage string // its line in one line: "a ← b ← [c]"; the id when the line cannot be read
	// Runtime is what tmux says of its agent (nil: no runtime recorded);
	// Status is the status to show: terminated when its agent is gone
	// outside a switch, else the recorded one.
	Runtime *RuntimeState
	Status  string
}

// SessionShow reads one session record.
func SessionShow(ctx context.Context, st refstore.Clone, id string) (SessionShowResult, error) {
	cur, err := session.Read(ctx, st, id)
	if err != nil {
		return SessionShowResult{}, err
	}
	res := SessionShowResult{Session: cur, Lineage: id}
	states, recs := settleRuntimes(ctx, st, []session.Record{cur.Record})
	res.Session.Record, res.Runtime = recs[0], states[id]
	res.Status = effectiveStatus(recs[0], res.Runtime)
	if g, err := session.LineGraph(ctx, st, id); err == nil {
		res.Lineage = lineage.Summary(g, id)
	}
	return res, nil
}

// SessionListOptions are what `session ls` was asked.
type SessionListOptions struct {
	All bool // ended, terminated, replaced and merged sessions too
	// Recent, with All, lists after the others the archived sessions
	// (with no live record here) that ended on or after it: final
	// sessions retire at once, and a listing of all reaches back the
	// retention age (teamsync.Retention). Zero: none.
	Recent time.Time
	// Archived lists, after the others, every session retirement moved
	// to the archive (and that have no live record here); it implies All.
	Archived bool
}

// Where says whether a session's recorded worktree and host are the ones
// st works in; a session that records none is taken to be here.
type Where struct{ Worktree, Host bool }

// Here tells where s runs against where st works, for a listing to mark
// the sessions of other worktrees and hosts.
func Here(st refstore.Clone, s *session.Record) Where {
	w := Where{Worktree: true, Host: s.Host == "" || s.Host == thisHost()}
	if s.Worktree != "" {
		w.Worktree = !st.Bare() && (s.Worktree == st.Dir() || sameDir(s.Worktree, st.Dir()))
	}
	return w
}

var thisHost = sync.OnceValue(hostname)

// SessionListed is one session of a listing with its lineage summary.
type SessionListed struct {
	session.Record
	Lineage string
	// Runtime is what tmux says of its agent (nil: no runtime recorded).
	// Status in the record is the status to show: terminated when its
	// agent is gone outside a switch.
	Runtime *RuntimeState
}

// SessionListResult is a listing of sessions.
type SessionListResult struct {
	Sessions []SessionListed
	Notices  []string // unreadable records and lineage problems
}

// SessionList lists the sessions, active ones unless All.
func SessionList(ctx context.Context, st refstore.Clone, opts SessionListOptions) (SessionListResult, error) {
	items, notices, err := SessionListEach(ctx, st, opts, func(s *session.Record) session.Record { return s.Clone() })
	if err != nil {
		return SessionListResult{}, err
	}
	res := SessionListResult{Notices: notices}
	if len(items) > 0 {
		res.Sessions = make([]SessionListed, 0, len(items))
	}
	for _, it := range items {
		res.Sessions = append(res.Sessions, SessionListed{Record: it.V, Lineage: it.Lineage, Runtime: it.Runtime})
	}
	return res, nil
}

// SessionItem is one session of SessionListEach: what conv made of its
// record, its lineage summary and what tmux says of its agent.
type SessionItem[T any] struct {
	V       T
	Lineage string
	Runtime *RuntimeState // nil: no runtime recorded
	// Archived is the archive month of a session listed from the archive
	// (SessionListOptions.Archived), and ArchivedAs the revision it was
	// read as (refs/ao/archive/<month>:sessions/<id>); "" for a live one.
	Archived, ArchivedAs string
}

// SessionListEach is SessionList for a surface that writes each session
// out (conv turns a record, its Status the one to show, into what the
// surface keeps): the records are read one at a time and only what conv
// returns is kept, with the lineage nodes, so a hundred thousand records
// are never held whole. conv is handed the same variable for every
// record: it copies what it keeps of it that it does not own (a pointer
// to it). Sessions whose agent runs in a runtime git-handoff
// started are kept whole until tmux has been asked about them (their
// status may change). In ref order, as SessionList.
func SessionListEach[T any](ctx context.Context, st refstore.Clone, opts SessionListOptions, conv func(*session.Record) T) ([]SessionItem[T], []string, error) {
	type kept struct {
		id   string // the node's copy
		v    T
		live *session.Record // a runtime to settle: converted afterwards
	}
	var (
		out   blocks[kept]
		live  []session.Record
		nodes = session.NodeSet{LinksOnly: true} // for Summary and Problems
		warns []session.Warning
	)
	err := session.Each(ctx, st, func(s *session.Stored) {
		id := nodes.Add(&s.Record)
		if !opts.All && !opts.Archived && s.Status != session.StatusActive {
			return
		}
		if s.Runtime != nil {
			// s is reused for the next record: this one is
			// copied.
			rec := s.Record.Clone()
			live = append(live, rec)
			out.add(kept{id: id, live: &rec})
			return
		}
		// No runtime: the status shown is the recorded one
		// (effectiveStatus).
		out.add(kept{id: id, v: conv(&s.Record)})
	}, &warns)
	if err != nil {
		return nil, nil, err
	}
	g := lineage.FromNodes(nodes.Nodes())
	notices := listNotices(ctx, st, warns, g)
	var states map[string]*RuntimeState
	fresh := map[string]session.Record{}
	if len(live) > 0 {
		var settled []session.Record
		states, settled = settleRuntimes(ctx, st, live)
		for _, s := range settled {
			fresh[s.ID] = s
		}
	}
	items := make([]SessionItem[T], 0, out.n)
	lines := g.Summarizer() // the items are in ref order
	out.each(func(k *kept) {
		rs := states[k.id]
		if k.live != nil {
			s := *k.live
			if f, ok := fresh[k.id]; ok {
				s = f
			}
			// Selected again on the fresh record: one terminated
			// meanwhile is not active any more.
			if !opts.All && !opts.Archived && s.Status != session.StatusActive {
				return
			}
			s.Status = effectiveStatus(s, rs)
			k.v = conv(&s)
		}
		items = append(items, SessionItem[T]{V: k.v, Lineage: lines.Summary(k.id), Runtime: rs})
	})
	if opts.Archived || opts.All && !opts.Recent.IsZero() {
		since := opts.Recent
		if opts.Archived {
			since = time.Time{}
		}
		var more []string
		if items, more, err = appendArchived(ctx, st, since, items, conv); err != nil {
			return nil, nil, err
		}
		notices = append(notices, more...)
	}
	return items, notices, nil
}

// listNotices are a session list's notices: the records that could not be
// read, and the lineage's problems other than links into the archive.
func listNotices(ctx context.Context, st refstore.Records, warns []session.Warning, g *lineage.Graph) []string {
	var notices []string
	for _, w := range warns {
		notices = append(notices, w.String())
	}
	for _, p := range g.Problems() {
		if retiredLink(ctx, st, p) {
			continue // the other end is in the archive, not missing
		}
		notices = append(notices, fmt.Sprintf("lineage: %s", p))
	}
	return notices
}

// appendArchived adds the archived sessions (that ended since since; zero:
// all) to a session list.
func appendArchived[T any](ctx context.Context, st refstore.Clone, since time.Time, items []SessionItem[T], conv func(*session.Record) T) ([]SessionItem[T], []string, error) {
	old, notices, err := SessionListArchived(ctx, st, since)
	if err != nil {
		return nil, nil, err
	}
	for i := range old {
		items = append(items, SessionItem[T]{V: conv(&old[i].Record), Lineage: old[i].ID, Archived: old[i].Archived, ArchivedAs: old[i].Ref})
	}
	return items, notices, nil
}

// blocks is a list appended to a hundred thousand times, kept in blocks
// that double up to a fixed size: a slice grown by append is allocated
// about five times over by the time it holds them all, and each growth
// copies it whole.
type blocks[T any] struct {
	b [][]T
	n int
}

const blockLen = 4096

func (l *blocks[T]) add(v T) {
	last := len(l.b) - 1
	if last < 0 || len(l.b[last]) == cap(l.b[last]) {
		// Small first, for a listing of a few.
		size := 16
		if last >= 0 {
			size = min(2*cap(l.b[last]), blockLen)
		}
		l.b = append(l.b, make([]T, 0, size))
		last++
	}
	l.b[last] = append(l.b[last], v)
	l.n++
}

// each calls fn with each element in the order added.
func (l *blocks[T]) each(fn func(*T)) {
	for _, b := range l.b {
		for i := range b {
			fn(&b[i])
		}
	}
}

// SessionLineageResult is a session's line drawn in one of lineage.Formats.
type SessionLineageResult struct {
	Drawing string
	Notices []string // problems of the line (cycles, forks, missing records)
}

// SessionLineage draws the predecessors and successors of a session.
func SessionLineage(ctx context.Context, st refstore.Clone, id, format string) (SessionLineageResult, error) {
	g, err := session.LineGraph(ctx, st, id)
	if err != nil {
		return SessionLineageResult{}, err
	}
	var res SessionLineageResult
	for _, p := range g.Problems() {
		res.Notices = append(res.Notices, fmt.Sprintf("lineage: %s", p))
	}
	if res.Drawing, err = lineage.Render(g, id, format); err != nil {
		return res, fmt.Errorf("drawing the lineage: %w", err)
	}
	return res, nil
}

// retiredLink reports a link whose missing end is a session retention moved
// to the archive: a live session's predecessor that ended long ago is
// archived, not lost.
func retiredLink(ctx context.Context, st refstore.Records, p *lineage.LinkError) bool {
	if !errors.Is(p, lineage.ErrDangling) || len(p.IDs) < 2 {
		return false
	}
	s, err := session.Find(ctx, st, p.IDs[1])
	return err == nil && s.Archived != ""
}

// endBoundFor is session.RelaunchOptions.EndBound: a session ended because
// a switch or restore binds another in its worktree is ended as every
// session that ends without `end` is, its work handed on (EndSession), as
// endBound does for a start.
func endBoundFor(st refstore.Clone, clock Clock) func(context.Context, string) (bool, []string, error) {
	return func(ctx context.Context, id string) (bool, []string, error) {
		res, err := EndSession(ctx, st, id, session.EndStartedHere, clock)
		return res.Ended, res.Notices, err
	}
}
