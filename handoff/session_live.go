package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

// StopGrace is how long a stopped agent gets to exit on SIGTERM before it
// is killed.
const StopGrace = 10 * time.Second

// maxGrace keeps a live switch well inside its guard: a guard past its
// expiry may be taken over by another switch.
const maxGrace = session.GuardTTL / 2

// captureLines bounds how much of a pane a replacement reads; the handoff
// package keeps only its end anyway.
const captureLines = 2000

// RuntimeState is what the runtime says of a session's agent now.
type RuntimeState struct {
	session.Runtime
	State      string // tmuxrt.StateLive, StateExited, StateGone, StateUnknown
	ExitStatus int    // exited: its status
	Signal     int    // exited: the signal that killed it, if one did
	PID        int    // live: the pane's program
	Pane       string // the pane id, while the tmux session exists
	Why        string // unknown: why tmux could not tell
}

// Gone reports whether the agent is known to have stopped.
func (r *RuntimeState) Gone() bool {
	return r != nil && (r.State == tmuxrt.StateExited || r.State == tmuxrt.StateGone)
}

func server(rt *session.Runtime) tmuxrt.Server { return tmuxrt.Server{Path: rt.Socket} }

// RuntimeStates asks tmux about every session of records that has a
// runtime: one question per tmux server (in practice one), none when no
// session has a runtime. A runtime on another host, or of a kind this
// build does not know, is unknown.
func RuntimeStates(ctx context.Context, records []session.Record) map[string]*RuntimeState {
	out := map[string]*RuntimeState{}
	host := hostname()
	bySocket := map[string][]session.Record{}
	for _, s := range records {
		rt := s.Runtime
		if rt == nil {
			continue
		}
		switch {
		case rt.Kind != tmuxrt.Kind:
			out[s.ID] = &RuntimeState{Runtime: *rt, State: tmuxrt.StateUnknown, Why: fmt.Sprintf("runtime kind %q is not known here", rt.Kind)}
		case rt.Host != "" && rt.Host != host:
			out[s.ID] = &RuntimeState{Runtime: *rt, State: tmuxrt.StateUnknown, Why: "it runs on " + rt.Host}
		default:
			bySocket[rt.Socket] = append(bySocket[rt.Socket], s)
		}
	}
	for sock, ss := range bySocket {
		panes, err := tmuxrt.Server{Path: sock}.Panes(ctx)
		for _, s := range ss {
			st := &RuntimeState{Runtime: *s.Runtime}
			p, ok := panes[s.Runtime.Name]
			switch {
			case err != nil:
				st.State, st.Why = tmuxrt.StateUnknown, err.Error()
			case !ok:
				st.State = tmuxrt.StateGone
			default:
				st.State, st.Pane = p.State(), p.ID
				if p.Dead {
					st.ExitStatus, st.Signal = p.ExitStatus, p.Signal
				} else {
					st.PID = p.PID
				}
			}
			out[s.ID] = st
		}
	}
	return out
}

// runtimeState is RuntimeStates of one record (nil without a runtime).
func runtimeState(ctx context.Context, s session.Record) *RuntimeState {
	return RuntimeStates(ctx, []session.Record{s})[s.ID]
}

// settleRuntimes decides which sessions' agents are gone. A switch stops the old
// agent and starts the new one while it holds the session's guard, so a
// pane seen dead is only believed when a record read after it shows no
// switch and tmux, asked once more after that record, still sees it dead:
// whatever switch was under way when the pane was seen dead has then both
// released its guard and started its agent. It returns the states and the
// records (re-read where they were).
func settleRuntimes(ctx context.Context, st refstore.Records, records []session.Record) (map[string]*RuntimeState, []session.Record) {
	states := RuntimeStates(ctx, records)
	var again []session.Record
	for i, s := range records {
		if !states[s.ID].Gone() || s.Status != session.StatusActive || s.Switching != nil {
			continue
		}
		if fresh, err := session.Read(ctx, st, s.ID); err == nil {
			records[i] = fresh.Record
		}
		if r := records[i]; r.Switching == nil && r.Runtime != nil && r.Status == session.StatusActive {
			again = append(again, r)
		}
	}
	if len(again) > 0 {
		for id, rs := range RuntimeStates(ctx, again) {
			states[id] = rs
		}
	}
	return states, records
}

// effectiveStatus is the status a surface shows: an active session whose
// agent is gone, outside a switch, is terminated.
func effectiveStatus(s session.Record, rs *RuntimeState) string {
	if s.Status == session.StatusActive && s.Switching == nil && rs.Gone() {
		return session.StatusTerminated
	}
	return s.Status
}

// ProgramNotFoundError refuses to run an agent whose program is not on PATH.
type ProgramNotFoundError struct{ Harness, Program string }

func (e *ProgramNotFoundError) Error() string {
	return fmt.Sprintf("%s's program %q is not on PATH", e.Harness, e.Program)
}

// LiveError refuses to start an agent where one already runs.
type LiveError struct {
	ID   string
	Name string // the tmux session
}

func (e *LiveError) Error() string {
	return fmt.Sprintf("session %q already runs in tmux session %s", e.ID, e.Name)
}

func (e *LiveError) Unwrap() error { return refstore.ErrConflict }

// NotLiveError refuses what needs a running agent.
type NotLiveError struct {
	ID    string
	State *RuntimeState // nil: no runtime recorded
}

func (e *NotLiveError) Error() string {
	if e.State == nil {
		return fmt.Sprintf("session %q runs in no tmux session git-handoff started", e.ID)
	}
	switch e.State.State {
	case tmuxrt.StateExited:
		return fmt.Sprintf("the agent of session %q exited (%s); its tmux session %s lingers", e.ID, exitText(e.State), e.State.Name)
	case tmuxrt.StateGone:
		return fmt.Sprintf("the tmux session %s of session %q is gone", e.State.Name, e.ID)
	}
	return fmt.Sprintf("the tmux session %s of session %q cannot be reached: %s", e.State.Name, e.ID, e.State.Why)
}

func exitText(rs *RuntimeState) string {
	if rs.Signal != 0 {
		return fmt.Sprintf("killed by signal %d", rs.Signal)
	}
	return fmt.Sprintf("status %d", rs.ExitStatus)
}

// spec turns a launch plan into what tmux runs: the program resolved on
// this PATH (so what was checked is what runs), with PATH and the plan's
// variables set for it. The rest of the environment is the tmux server's:
// passing all of this process's variables would put them on tmux's
// command line, where other users can read them.
func spec(st refstore.Writer, plan session.LaunchPlan, launcher, exited []string) (tmuxrt.Spec, error) {
	if len(plan.Argv) == 0 {
		return tmuxrt.Spec{}, &NoLaunchError{ID: plan.Session, Note: plan.Note}
	}
	prog, err := exec.LookPath(plan.Argv[0])
	if err != nil {
		return tmuxrt.Spec{}, &ProgramNotFoundError{Harness: plan.Harness, Program: plan.Argv[0]}
	}
	if plan.Dir != "" {
		if fi, err := os.Stat(plan.Dir); err != nil || !fi.IsDir() {
			return tmuxrt.Spec{}, &WorktreeGoneError{ID: plan.Session, Dir: plan.Dir}
		}
	}
	argv := append([]string{prog}, plan.Argv[1:]...)
	env := append([]string{"PATH=" + os.Getenv("PATH")}, plan.Env...)
	sp := tmuxrt.Spec{Dir: plan.Dir, Env: env, Argv: argv, Launcher: launcher}
	if len(exited) > 0 {
		// tmux tells git-handoff when the agent exits (SessionExited).
		sp.OnExit = append(slices.Clone(exited), plan.Session)
	}
	if len(launcher) > 0 {
		// Launch files live next to the briefs, in the common git dir.
		sp.LaunchDir = st.Local().Path("launch")
		if err := os.MkdirAll(sp.LaunchDir, 0o700); err != nil {
			return tmuxrt.Spec{}, err
		}
	}
	return sp, nil
}

// startFresh starts plan in a new tmux session for id, first destroying a
// lingering one of the same name whose agent is gone; a live one refuses.
func startFresh(ctx context.Context, srv tmuxrt.Server, id string, sp tmuxrt.Spec) (*session.Runtime, []string, error) {
	name := tmuxrt.SessionName(id)
	var notices []string
	p, ok, err := srv.Pane(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if ok && !p.Dead {
		return nil, nil, &LiveError{ID: id, Name: name}
	}
	if ok {
		if err := srv.Kill(ctx, name); err != nil {
			return nil, nil, err
		}
		notices = append(notices, fmt.Sprintf("destroyed the lingering tmux session %s (its agent had exited with status %d)", name, p.ExitStatus))
	}
	sock, err := srv.Start(ctx, name, sp)
	if err != nil {
		return nil, notices, err
	}
	return &session.Runtime{Kind: tmuxrt.Kind, Socket: sock, Name: name, Host: hostname()}, notices, nil
}

// launchTmux runs a session's planned launch in tmux and records where.
func launchTmux(ctx context.Context, st refstore.Clone, cur session.Stored, plan session.LaunchPlan, launcher, exited []string, clock Clock) (*session.Runtime, []string, error) {
	sp, err := spec(st, plan, launcher, exited)
	if err != nil {
		return nil, nil, err
	}
	srv := tmuxrt.FromEnv()
	if rt := cur.Runtime; rt != nil && rt.Kind == tmuxrt.Kind && (rt.Host == "" || rt.Host == hostname()) {
		srv = server(rt)
		if rs := runtimeState(ctx, cur.Record); rs != nil && rs.State == tmuxrt.StateLive {
			return nil, nil, &LiveError{ID: cur.ID, Name: rt.Name}
		}
	}
	rt, notices, err := startFresh(ctx, srv, cur.ID, sp)
	if err != nil {
		return nil, notices, err
	}
	now := clock()
	_, err = session.Modify(ctx, st, cur.ID, "handoff: launched "+cur.ID+" in tmux", func(s *session.Record) error {
		if err := session.Launchable(*s); err != nil {
			return err
		}
		s.Runtime, s.UpdatedAt = rt, now
		if s.Status == session.StatusTerminated {
			s.Status, s.EndedAt = session.StatusActive, nil
		}
		return nil
	})
	if err != nil {
		return rt, notices, fmt.Errorf("the agent runs in tmux session %s, but recording it failed: %w", rt.Name, err)
	}
	if err := session.MarkLaunched(ctx, st, cur.ID, now); err != nil {
		notices = append(notices, fmt.Sprintf("the launch was not recorded: %v", err))
	}
	return rt, notices, nil
}

// liveRun is the relaunch step of a switch or a restore of a session that
// runs under tmux. Everything that can refuse is checked first (the plan was
// built already; here: a program to run, found on PATH, and the worktree);
// only then is a live agent stopped (SIGTERM, then SIGKILL after grace) and
// the new one started in the same pane. An agent that is gone is
// relaunched in a new tmux session, a lingering one of the same name
// destroyed first.
func liveRun(st refstore.Writer, grace time.Duration, launcher, exited []string, notices *[]string) func(context.Context, session.Record, session.LaunchPlan) (*session.Runtime, error) {
	return func(ctx context.Context, cur session.Record, plan session.LaunchPlan) (*session.Runtime, error) {
		sp, err := spec(st, plan, launcher, exited)
		if err != nil {
			return nil, err
		}
		rt := cur.Runtime
		srv := tmuxrt.FromEnv()
		if rt != nil && rt.Kind == tmuxrt.Kind && (rt.Host == "" || rt.Host == hostname()) {
			srv = server(rt)
			p, ok, err := srv.Pane(ctx, rt.Name)
			if err != nil {
				return nil, err
			}
			if ok && !p.Dead {
				if err := srv.Stop(ctx, rt.Name, grace); err != nil {
					return nil, err
				}
				if err := srv.Respawn(ctx, rt.Name, sp); err != nil {
					return nil, err
				}
				*notices = append(*notices, fmt.Sprintf("stopped %s and started %s in tmux session %s", cur.Harness, plan.Harness, rt.Name))
				next := *rt
				return &next, nil
			}
		}
		next, more, err := startFresh(ctx, srv, cur.ID, sp)
		*notices = append(*notices, more...)
		if err == nil {
			*notices = append(*notices, fmt.Sprintf("started %s in tmux session %s", plan.Harness, next.Name))
		}
		return next, err
	}
}

// relaunchLive fills opts.Run for a session that runs under tmux, and
// records a session whose agent is gone as terminated first, so that a
// restore relaunches it instead of finding it active.
func relaunchLive(ctx context.Context, st refstore.Clone, id string, grace time.Duration, launcher, exited []string, clock Clock, ro *session.RelaunchOptions) (*[]string, error) {
	notices := new([]string)
	cur, err := session.Read(ctx, st, id)
	if err != nil || cur.Runtime == nil {
		return notices, nil
	}
	if grace <= 0 {
		grace = StopGrace
	}
	if grace > maxGrace {
		return notices, fmt.Errorf("a stop timeout of %s is too long: the switch guard lasts %s, so stay at or under %s", grace, session.GuardTTL, maxGrace)
	}
	if rs := runtimeState(ctx, cur.Record); rs.Gone() && cur.Status == session.StatusActive && cur.Switching == nil {
		if _, _, err := session.Terminate(ctx, st, id, "", clock()); err != nil {
			return notices, err
		}
		*notices = append(*notices, fmt.Sprintf("its agent had gone (%s): marked terminated", rs.State))
	}
	ro.Run = liveRun(st, grace, launcher, exited, notices)
	return notices, nil
}

// SessionAttachResult is the command that attaches a terminal to a
// session's running agent.
type SessionAttachResult struct {
	Argv  []string
	State *RuntimeState
}

// SessionAttach finds the tmux session of id's agent, refusing when it has
// none or its agent is not running.
func SessionAttach(ctx context.Context, st refstore.Clone, id string) (SessionAttachResult, error) {
	cur, err := session.Read(ctx, st, id)
	if err != nil {
		return SessionAttachResult{}, err
	}
	rs := runtimeState(ctx, cur.Record)
	if rs == nil || rs.State != tmuxrt.StateLive {
		return SessionAttachResult{State: rs}, &NotLiveError{ID: id, State: rs}
	}
	return SessionAttachResult{Argv: server(cur.Runtime).AttachArgv(cur.Runtime.Name, os.Getenv("TMUX")), State: rs}, nil
}

// captureFor reads the recent output of a session's pane, when it has one
// (live, or lingering after its agent exited).
func captureFor(ctx context.Context, s session.Record) ([]byte, error) {
	rs := runtimeState(ctx, s)
	if rs == nil || (rs.State != tmuxrt.StateLive && rs.State != tmuxrt.StateExited) {
		return nil, nil
	}
	return server(s.Runtime).Capture(ctx, s.Runtime.Name, captureLines)
}

// stopReplaced ends a replaced session's agent and its tmux session.
func stopReplaced(ctx context.Context, s session.Record, grace time.Duration) (bool, error) {
	rs := runtimeState(ctx, s)
	switch {
	case rs == nil:
		return false, fmt.Errorf("session %q runs in no tmux session git-handoff started", s.ID)
	case rs.State == tmuxrt.StateUnknown:
		return false, errors.New(rs.Why)
	case rs.State == tmuxrt.StateGone:
		return false, nil
	}
	if grace <= 0 {
		grace = StopGrace
	}
	srv := server(s.Runtime)
	if err := srv.Stop(ctx, s.Runtime.Name, grace); err != nil {
		return false, err
	}
	return true, srv.Kill(ctx, s.Runtime.Name)
}

// SessionExited is what tmux reports when the program of a session's pane
// exits (its pane-died hook runs `git-handoff session exited ID`): when
// tmux, asked again, still sees the pane dead (a live switch starts the
// next agent in it at once), the session ends (EndSession). A switch that
// holds the session's guard keeps it (*session.SwitchingError).
func SessionExited(ctx context.Context, st refstore.Clone, id string, clock Clock) (EndSessionResult, error) {
	cur, err := session.Read(ctx, st, id)
	if err != nil {
		return EndSessionResult{}, err
	}
	if rs := runtimeState(ctx, cur.Record); !rs.Gone() {
		return EndSessionResult{Session: cur}, nil
	}
	return EndSession(ctx, st, id, session.EndAgentExit, clock)
}
