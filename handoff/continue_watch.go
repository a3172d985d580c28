package handoff

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

// Watching an agent under tmux, for the two failures its hooks cannot
// report: its process dying, and its sitting at a prompt.
//
//   - Its process exits: tmux's pane-died hook runs `git-handoff continue
//     exited ID` (AgentExited) at once. While the session was not ended
//     (an agent's own end hook ends it before it exits) and the exit was
//     not clean, the session continues in the first fallback that starts,
//     in the same pane; otherwise it ends, as SessionExited always did.
//   - It waits for input longer than handoff.stallAfter: the process that
//     launched it leaves a watcher (Watch) that looks at the pane and
//     exits with it.
//
// Both decide through Continue, under the session's switch guard, with
// their reason checked again once the guard is theirs (Still), and hold
// the session's decision lock from reading it to their last try (a
// fallback that fails to start exits, which is a hook's exit to decide
// too): of any number of watchers and hooks, one continuation is made,
// and each fallback is tried in turn.

// StallAfterKey is the git config key of the time an agent under tmux may
// wait for input before its session continues in a fallback; unset or 0,
// never.
const StallAfterKey = "handoff.stallAfter"

// minStallAfter keeps a slip ("2ms" for two minutes) from continuing
// every session at the watcher's first look.
const minStallAfter = time.Second

// StallAfter reads handoff.stallAfter: 0 when unset.
func StallAfter(ctx context.Context, st refstore.Clone) (time.Duration, error) {
	vals, err := st.Config(ctx, StallAfterKey)
	if err != nil {
		return 0, err
	}
	v := strings.TrimSpace(vals[strings.ToLower(StallAfterKey)])
	if v == "" || v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s is %q: give a duration such as 20m", StallAfterKey, v)
	}
	if d < minStallAfter {
		return 0, fmt.Errorf("%s is %s: give at least %s", StallAfterKey, d, minStallAfter)
	}
	return d, nil
}

// WatchOptions are what a watcher passes to the continuations it makes.
type WatchOptions struct {
	ID               string
	By               string // who watches: host, process
	Launcher, Exited []string
	// Log receives what the watcher decided and why, one line each.
	Log func(string)
}

func (o WatchOptions) log(format string, args ...any) {
	if o.Log != nil {
		o.Log(fmt.Sprintf(format, args...))
	}
}

// AgentExitedResult is what became of a session whose agent exited.
type AgentExitedResult struct {
	// Continued: the session went on in a fallback agent.
	Continued *ContinueResult
	// Ended: what SessionExited did instead.
	Ended   EndSessionResult
	Notices []string
}

// AgentExited is tmux's report that the program of session opts.ID's pane
// exited. See above.
func AgentExited(ctx context.Context, st refstore.Clone, opts WatchOptions, clock Clock) (AgentExitedResult, error) {
	var res AgentExitedResult
	// The whole decision, ending the session included, is made holding
	// the decision lock: this may be the exit of a fallback that another
	// decider is trying (see Continue).
	unlock, err := lockDecisions(ctx, st, opts.ID)
	if err != nil {
		opts.log("session %s: its agent exited; not decided here: %v", opts.ID, err)
		return res, err
	}
	defer unlock()
	cur, err := session.Read(ctx, st, opts.ID)
	if err != nil {
		return res, err
	}
	co, why, err := exitContinuation(ctx, st, cur.Record, clock)
	if err != nil {
		res.Notices = append(res.Notices, err.Error())
	}
	if co != nil {
		co.By, co.Launcher, co.Exited = opts.By, opts.Launcher, opts.Exited
		k, err := continueTries(ctx, st, *co, clock)
		res.Notices = append(res.Notices, k.Notices...)
		for _, n := range k.Notices {
			opts.log("session %s: %s", opts.ID, n)
		}
		switch {
		case err == nil:
			opts.log("session %s: %s; it continues in %s", opts.ID, co.Why, k.Session.Harness)
			res.Continued = &k
			return res, nil
		case !failedToStart(err):
			// Another decider acts, or the agent runs again.
			opts.log("session %s: %s; not continued here: %v", opts.ID, co.Why, err)
			return res, nil
		}
		opts.log("session %s: %s; no fallback started (%v): it ends", opts.ID, co.Why, err)
		res.Notices = append(res.Notices, "no fallback agent started: "+err.Error())
	} else if why != "" {
		opts.log("session %s: %s", opts.ID, why)
	}
	res.Ended, err = SessionExited(ctx, st, opts.ID, clock)
	res.Notices = append(res.Notices, res.Ended.Notices...)
	if res.Ended.Ended {
		opts.log("session %s: its agent exited: the session ended", opts.ID)
	}
	return res, err
}

// exitContinuation decides whether session s, whose agent may have
// exited, continues in a fallback: the continuation to make, or nil and
// why not ("" when there is nothing to say: the agent runs, the session
// is not live).
func exitContinuation(ctx context.Context, st refstore.Clone, s session.Record, clock Clock) (*ContinueOptions, string, error) {
	if !s.Live() || s.Switching != nil {
		return nil, "", nil
	}
	rs := runtimeState(ctx, s)
	switch {
	case rs == nil || rs.State == tmuxrt.StateLive || rs.State == tmuxrt.StateUnknown:
		return nil, "", nil
	case rs.State == tmuxrt.StateGone:
		// Its tmux session was destroyed: a person's act, not a crash.
		return nil, "its tmux session is gone: not continued", nil
	case rs.ExitStatus == 0 && rs.Signal == 0:
		// A clean exit without the agent's end hook having ended the
		// session is a person quitting an agent whose hooks did not run
		// (not installed, not trusted): not a reason to start another.
		return nil, s.Harness + " exited cleanly: not continued", nil
	}
	from := HarnessName(s.Harness)
	why := fmt.Sprintf("%s exited (%s) without ending the session", from, exitText(rs))
	co, skipped, err := fallbackFor(ctx, st, s, from, why, clock)
	if co == nil {
		return nil, why + "; " + skipped, err
	}
	// A command that stops the agent on purpose (`session terminate`)
	// destroys its tmux session right after: an exit is believed once
	// the pane has stayed dead a moment, in a session nobody switches.
	time.Sleep(exitSettle)
	again, err := session.Read(ctx, st, s.ID)
	if err != nil || !again.Live() || again.Switching != nil || HarnessName(again.Harness) != from {
		return nil, "", err
	}
	if rs := runtimeState(ctx, again.Record); rs == nil || rs.State != tmuxrt.StateExited {
		return nil, why + "; its pane did not stay dead: not continued", nil
	}
	co.Still = func(ctx context.Context, r session.Record) error {
		if rs := runtimeState(ctx, r); rs == nil || rs.State != tmuxrt.StateExited {
			return errors.New("its agent's pane is no longer dead")
		}
		return nil
	}
	co.Run = exitRun(st, co)
	return co, "", nil
}

// exitSettle is how long a dead pane is left before it is believed.
const exitSettle = time.Second

// exitRun starts the fallback in the dead pane of the agent that exited,
// and nowhere else: a pane that is gone or runs again by then was acted
// on by someone else (*StaleError), and no other agent is tried.
func exitRun(st refstore.Clone, co *ContinueOptions) func(context.Context, session.Record, session.LaunchPlan) (*session.Runtime, error) {
	return func(ctx context.Context, cur session.Record, plan session.LaunchPlan) (*session.Runtime, error) {
		var notices []string
		rt, err := respawnDead(ctx, st, cur, plan, co.Launcher, co.Exited, &notices)
		if err != nil {
			return nil, err
		}
		if rt == nil {
			return nil, &StaleError{ID: cur.ID, Err: errors.New("its agent's pane is gone or runs again")}
		}
		window := co.StartWindow
		if window <= 0 {
			window = startWindow
		}
		return rt, started(ctx, server(rt), rt.Name, plan.Harness, window)
	}
}

// fallbackFor is the continuation of s in handoff.fallback's agents that
// can take over, nil when none can (and why).
func fallbackFor(ctx context.Context, st refstore.Clone, s session.Record, from, why string, clock Clock) (*ContinueOptions, string, error) {
	fallbacks, err := Fallbacks(ctx, st)
	if err != nil || len(fallbacks) == 0 {
		return nil, FallbackKey + " is not set", err
	}
	agents, skipped, err := ChooseFallbacks(st, s.Owner, from, fallbacks, clock())
	if err != nil || len(agents) == 0 {
		return nil, "no agent of " + FallbackKey + " can take over (" + skippedText(skipped) + ")", err
	}
	return &ContinueOptions{ID: s.ID, To: agents[0], Then: agents[1:], From: from, Why: why, Auto: true, Tmux: true}, "", nil
}

// stallBy marks the continuations Watch makes (ContinueOptions.By).
const stallBy = "the stall watcher"

// Watch watches session opts.ID's agent under tmux for a stall, until the
// session is no longer live or its tmux session is gone (or its pane
// stays dead: the pane-died hook decides an exit, and the watcher exits
// with the pane). Without handoff.stallAfter it only notices that, and
// asks tmux once a minute (idleLook).
//
// Waiting for input is judged from the pane alone: the agents draw a
// spinner, a timer or streaming text while they work, so a pane whose
// text (the last screenful and the scrollback above it) and program (its
// pid) stay exactly the same for handoff.stallAfter has an agent that does
// nothing, which is an agent at its prompt (or hung, which is no better).
// An agent the watcher continued for a stall is not judged again: when
// the next agent waits too, a person is wanted, not a third agent.
func Watch(ctx context.Context, st refstore.Clone, opts WatchOptions, clock Clock) error {
	opts.By = stallBy + " (" + opts.By + ")"
	var seen [sha256.Size]byte
	var seenPID int
	var since time.Time // when the pane last changed, by the real clock
	var deadSince time.Time
	looked := time.Now() // the launch has just seen the pane
	failures := 0
	for {
		poll := idlePoll
		cur, err := session.Read(ctx, st, opts.ID)
		if errors.Is(err, refstore.ErrNotFound) || err == nil && !cur.Live() {
			return nil
		}
		stall, serr := StallAfter(ctx, st)
		if serr != nil {
			opts.log("session %s: %v", opts.ID, serr)
		}
		if err == nil && stall <= 0 && time.Since(looked) < idleLook {
			// Nothing to judge: the session's record says when to stop,
			// and tmux is asked only now and then whether the pane is
			// still there.
			since = time.Time{}
			if err := sleep(ctx, idlePoll); err != nil {
				return err
			}
			continue
		}
		looked = time.Now()
		rs := (*RuntimeState)(nil)
		if err == nil {
			rs = runtimeState(ctx, cur.Record)
		}
		switch {
		case err != nil || rs == nil || rs.State == tmuxrt.StateUnknown:
			if failures++; failures > 20 {
				return fmt.Errorf("watching session %s: cannot tell its agent's state: %v", opts.ID, err)
			}
		case rs.State == tmuxrt.StateGone:
			return nil
		case rs.State == tmuxrt.StateExited:
			failures = 0
			if deadSince.IsZero() {
				deadSince = time.Now()
			} else if time.Since(deadSince) > 30*time.Second {
				return nil
			}
			poll = time.Second
		default:
			failures, deadSince = 0, time.Time{}
			screen, err := server(cur.Runtime).Capture(ctx, cur.Runtime.Name, captureLines)
			if err != nil {
				break
			}
			sum := sha256.Sum256(screen)
			if sum != seen || rs.PID != seenPID || since.IsZero() {
				seen, seenPID, since = sum, rs.PID, time.Now()
			}
			if stall <= 0 {
				break
			}
			poll = min(max(stall/4, 250*time.Millisecond), 5*time.Second)
			if time.Since(since) < stall || cur.Switching != nil || stalledBefore(cur.Record) {
				break
			}
			waited := time.Since(since).Round(time.Second)
			why := fmt.Sprintf("%s waited for input for %s (%s is %s)", HarnessName(cur.Harness), waited, StallAfterKey, stall)
			co, whyNot, err := fallbackFor(ctx, st, cur.Record, HarnessName(cur.Harness), why, clock)
			if co == nil {
				opts.log("session %s: %s; %s %v", opts.ID, why, whyNot, errOrNil(err))
				since = time.Now() // not again before another stallAfter
				break
			}
			pid, want := rs.PID, sum
			co.By, co.Launcher, co.Exited = opts.By, opts.Launcher, opts.Exited
			co.Still = func(ctx context.Context, r session.Record) error {
				rs := runtimeState(ctx, r)
				if rs == nil || rs.State != tmuxrt.StateLive || rs.PID != pid {
					return errors.New("its agent is no longer the one that waited")
				}
				screen, err := server(r.Runtime).Capture(ctx, r.Runtime.Name, captureLines)
				if err != nil || sha256.Sum256(screen) != want {
					return errors.New("its pane changed: the agent is not waiting")
				}
				return nil
			}
			stallContinue(ctx, st, opts, *co, why, clock)
			since = time.Now()
		}
		if err := sleep(ctx, poll); err != nil {
			return err
		}
	}
}

// stallContinue makes the continuation co of a stalled agent, and starts
// that agent again when no fallback took over, all under the session's
// decision lock: the exit of the stopped agent, or of a fallback that
// failed, has tmux run AgentExited, which is to find the session as this
// left it.
func stallContinue(ctx context.Context, st refstore.Clone, opts WatchOptions, co ContinueOptions, why string, clock Clock) {
	unlock, err := lockDecisions(ctx, st, opts.ID)
	if err != nil {
		opts.log("session %s: %s; not continued here: %v", opts.ID, why, err)
		return
	}
	defer unlock()
	k, err := continueTries(ctx, st, co, clock)
	for _, n := range k.Notices {
		opts.log("session %s: %s", opts.ID, n)
	}
	switch {
	case err == nil:
		opts.log("session %s: %s; it continues in %s", opts.ID, why, k.Session.Harness)
	case failedToStart(err):
		opts.log("session %s: %s; no fallback started: %v", opts.ID, why, err)
		restartStopped(ctx, st, opts, clock)
	default:
		opts.log("session %s: %s; not continued here: %v", opts.ID, why, err)
	}
}

// A watcher with no handoff.stallAfter reads the session's record and the
// config every idlePoll, and asks tmux whether the pane is there every
// idleLook.
const (
	idlePoll = 3 * time.Second
	idleLook = time.Minute
)

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func errOrNil(err error) string {
	if err == nil {
		return ""
	}
	return "(" + err.Error() + ")"
}

// stalledBefore reports whether s's last continuation was a stall's.
func stalledBefore(s session.Record) bool {
	k := s.Continued
	return k != nil && k.Auto && strings.HasPrefix(k.By, stallBy)
}

// restartStopped starts the session's own agent again when no fallback
// took over a stalled one that was stopped for it: the session is as it
// was, its agent resuming its conversation. An agent still running is
// left alone (the launch refuses it).
func restartStopped(ctx context.Context, st refstore.Clone, opts WatchOptions, clock Clock) {
	cur, err := session.Read(ctx, st, opts.ID)
	if err != nil || !cur.Live() {
		return
	}
	if rs := runtimeState(ctx, cur.Record); rs == nil || rs.State == tmuxrt.StateLive {
		return
	}
	if _, err := SessionLaunch(ctx, st, SessionLaunchOptions{ID: opts.ID, Tmux: true, Launcher: opts.Launcher, Exited: opts.Exited}, clock); err != nil {
		opts.log("session %s: its agent could not be started again: %v", opts.ID, err)
		return
	}
	opts.log("session %s: its agent was started again", opts.ID)
}

// WatchLog is where the watchers of a clone say what they decided (the
// common git dir's handoff/watch.log): they run with no terminal.
func WatchLog(st refstore.Clone) func(string) {
	path := st.Local().Path("watch.log")
	return func(line string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return
		}
		defer f.Close()
		fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), line)
	}
}
