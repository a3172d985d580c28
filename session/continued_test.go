package session

import (
	"context"
	"strings"
	"testing"
	"time"
)

// After an agent switch the session's handoff package, which heads the new
// agent's first message, says the session continues under that agent; a
// replacement keeps "you replace session …", and a restore under the same
// agent changes nothing.
func TestSwitchRetitlesTheHandoffPackage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := memRepo(t)
	create(t, st, Record{ID: "app-7", Harness: "claude-code", Prompt: "fix it"})
	rep, err := Replace(ctx, st, ReplaceOptions{OldID: "app-7", NewID: "app-12", Reason: "stuck", Harness: "codex"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Package, "## 🔁 Handoff package: you replace session app-7\n") {
		t.Fatalf("replacement package: %q", strings.SplitN(rep.Package, "\n", 2)[0])
	}

	res, err := Switch(ctx, st, RelaunchOptions{ID: "app-12", Harness: "gemini", By: "test"}, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := "## 🔁 Handoff package: session app-12 continues under gemini (until now codex); it replaced session app-7\n"
	stored, err := Read(ctx, st, "app-12")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored.HandoffPackage, want) {
		t.Errorf("stored package title: %q, want %q", strings.SplitN(stored.HandoffPackage, "\n", 2)[0], want)
	}
	if res.Plan.Mode != ModeFresh || !strings.Contains(strings.Join(res.Plan.Argv, " "), strings.TrimSuffix(want, "\n")) {
		t.Errorf("the launch's first message lacks the new title: %q", res.Plan.Argv)
	}
	if strings.Contains(strings.Join(res.Plan.Argv, " "), "you replace session") {
		t.Errorf("the switched agent is told it replaces a session: %q", res.Plan.Argv)
	}

	// A restore under the same agent leaves the package as it is.
	if _, _, err := Terminate(ctx, st, "app-12", "", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, st, RelaunchOptions{ID: "app-12", By: "test"}, t0.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	after, err := Read(ctx, st, "app-12")
	if err != nil {
		t.Fatal(err)
	}
	if after.HandoffPackage != stored.HandoffPackage {
		t.Errorf("restore changed the package title to %q", strings.SplitN(after.HandoffPackage, "\n", 2)[0])
	}
}
