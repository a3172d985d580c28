package handoff_test

import (
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
)

// start and end clear the objective, as the design says; each says so,
// naming the objective it took away. A start given an objective says the
// old one was replaced; nothing is said when there was none to clear.
func TestStartAndEndNameTheObjectiveTheyClear(t *testing.T) {
	ctx := deadline(t)
	st := open(t)
	if _, err := handoff.Objective(ctx, st, handoff.ObjectiveOptions{Text: "ship the parser"}, clock); err != nil {
		t.Fatal(err)
	}
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s1", Harness: "claude-code"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !hasNotice(res.Notices, `objective "ship the parser" was cleared (a start without an objective clears it)`) {
		t.Errorf("start notices = %q, want the cleared objective named", res.Notices)
	}
	if o, err := handoff.Objective(ctx, st, handoff.ObjectiveOptions{}, clock); err != nil || o.Objective != nil {
		t.Fatalf("objective after start = %+v, %v; want none", o.Objective, err)
	}

	if _, err := handoff.Objective(ctx, st, handoff.ObjectiveOptions{Text: "write the docs"}, clock); err != nil {
		t.Fatal(err)
	}
	end, err := handoff.End(ctx, st, handoff.EndOptions{Session: "s1", Next: []string{"review the docs"}}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !hasNotice(end.Notices, `objective "write the docs" was cleared (a session's end clears it)`) {
		t.Errorf("end notices = %q, want the cleared objective named", end.Notices)
	}

	// Nothing to clear: nothing said.
	end, err = handoff.End(ctx, st, handoff.EndOptions{Session: "s1", Next: []string{"again"}}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if hasNotice(end.Notices, "objective") {
		t.Errorf("end without an objective: notices = %q", end.Notices)
	}

	// A start given another objective replaces the one there.
	if _, err := handoff.Objective(ctx, st, handoff.ObjectiveOptions{Text: "old aim"}, clock); err != nil {
		t.Fatal(err)
	}
	if err := st.Unbind(ctx); err != nil {
		t.Fatal(err)
	}
	res, err = handoff.Start(ctx, st, handoff.StartOptions{Session: "s2", Harness: "claude-code", Objective: "new aim"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !hasNotice(res.Notices, `objective "old aim" was replaced by the one given to this session`) {
		t.Errorf("start with an objective: notices = %q", res.Notices)
	}
}
