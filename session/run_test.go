package session

import (
	"context"
	"errors"
	"testing"
)

// A switch's Run step runs with the guard held and the plan built; its
// error leaves the record as it was with the guard released, and the
// runtime it returns is recorded with the switch.
func TestSwitchRunStep(t *testing.T) {
	ctx := context.Background()
	st := memRepo(t)
	rt := &Runtime{Kind: "tmux", Socket: "/tmp/sock", Name: "handoff-app-1"}
	create(t, st, Record{ID: "app-1", Harness: "claude-code", Prompt: "fix it", Runtime: rt})
	before, err := Read(ctx, st, "app-1")
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("program not found")
	_, err = Switch(ctx, st, RelaunchOptions{ID: "app-1", Harness: "codex", By: "me",
		Run: func(ctx context.Context, cur Record, plan LaunchPlan) (*Runtime, error) {
			if cur.Switching == nil || cur.Switching.By != "me" {
				t.Errorf("Run without the guard: %+v", cur.Switching)
			}
			if plan.Harness != "codex" || len(plan.Argv) == 0 || plan.Argv[0] != "codex" {
				t.Errorf("Run got plan %+v", plan)
			}
			return nil, refused
		}}, t0)
	if !errors.Is(err, refused) {
		t.Fatalf("err = %v, want Run's", err)
	}
	after, err := Read(ctx, st, "app-1")
	if err != nil {
		t.Fatal(err)
	}
	if after.Harness != "claude-code" || after.Switching != nil || after.Runtime == nil || *after.Runtime != *rt {
		t.Errorf("after a refused Run: %+v (was %+v)", after.Record, before.Record)
	}

	next := &Runtime{Kind: "tmux", Socket: "/tmp/sock", Name: "handoff-app-1", Host: "h"}
	res, err := Switch(ctx, st, RelaunchOptions{ID: "app-1", Harness: "codex", By: "me",
		Run: func(context.Context, Record, LaunchPlan) (*Runtime, error) { return next, nil }}, t0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(ctx, st, "app-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Harness != "codex" || got.Switching != nil || got.Runtime == nil || *got.Runtime != *next || res.Session.Runtime != next {
		t.Errorf("after the switch: %+v", got.Record)
	}
}
