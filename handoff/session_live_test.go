package handoff_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/tmuxrt/tmuxrttest"
)

// In the gap of a live switch — the old agent stopped, its pane dead, the
// new one not started — the listing says exited for the runtime but keeps
// the session active: the switch guard explains the dead pane. Once the
// agent is gone outside a switch, the session shows terminated.
func TestSessionListDuringTheSwitchGap(t *testing.T) {
	tmuxrttest.Socket(t)
	tmuxrttest.Agents(t, "claude", "codex")
	ctx := context.Background()
	st := open(t)
	if _, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s-gap", Harness: "claude-code", Objective: "fix it"}, clock); err != nil {
		t.Fatal(err)
	}
	res, err := handoff.SessionLaunch(ctx, st, handoff.SessionLaunchOptions{ID: "s-gap", Tmux: true}, clock)
	if err != nil {
		t.Fatal(err)
	}
	srv := tmuxrt.Server{Path: res.Runtime.Socket}
	name := res.Runtime.Name
	tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool { return ok && strings.Contains(s, "stand-in claude") })
	listed := func() handoff.SessionListed {
		t.Helper()
		l, err := handoff.SessionList(ctx, st, handoff.SessionListOptions{All: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range l.Sessions {
			if s.ID == "s-gap" {
				return s
			}
		}
		t.Fatal("s-gap is not listed")
		return handoff.SessionListed{}
	}
	_, err = session.Switch(ctx, st, session.RelaunchOptions{ID: "s-gap", Harness: "codex", By: "test",
		Briefer: handoff.SessionBriefer(ctx, st, clock),
		Run: func(ctx context.Context, cur session.Record, plan session.LaunchPlan) (*session.Runtime, error) {
			if err := srv.Stop(ctx, name, time.Minute); err != nil {
				return nil, err
			}
			mid := listed()
			if mid.Status != session.StatusActive || mid.Runtime == nil || mid.Runtime.State != tmuxrt.StateExited {
				t.Errorf("in the gap: status %s, runtime %+v", mid.Status, mid.Runtime)
			}
			return cur.Runtime, srv.Respawn(ctx, name, tmuxrt.Spec{Dir: plan.Dir, Argv: plan.Argv})
		}}, clock())
	if err != nil {
		t.Fatal(err)
	}
	if s := listed(); s.Status != session.StatusActive || s.Harness != "codex" || s.Runtime.State != tmuxrt.StateLive {
		t.Errorf("after the switch: status %s harness %s runtime %+v", s.Status, s.Harness, s.Runtime)
	}
	if err := srv.Stop(ctx, name, time.Minute); err != nil {
		t.Fatal(err)
	}
	if s := listed(); s.Status != session.StatusTerminated || s.Runtime.State != tmuxrt.StateExited {
		t.Errorf("after the agent stopped: status %s runtime %+v", s.Status, s.Runtime)
	}
	shown, err := handoff.SessionShow(ctx, st, "s-gap")
	if err != nil {
		t.Fatal(err)
	}
	if shown.Status != session.StatusTerminated || shown.Session.Status != session.StatusActive {
		t.Errorf("show: %s (recorded %s): ls and show only read", shown.Status, shown.Session.Status)
	}
	if err := srv.Kill(ctx, name); err != nil {
		t.Fatal(err)
	}
	if s := listed(); s.Status != session.StatusTerminated || s.Runtime.State != tmuxrt.StateGone {
		t.Errorf("after its tmux session was killed: status %s runtime %+v", s.Status, s.Runtime)
	}
}
