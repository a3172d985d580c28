package handoff_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// end is killed right after its transaction's first rename, before any
// later command could finish it from the journal: what it leaves must
// already be harmless — the baton there, the session not yet ended — never
// an ended session whose baton is lost.
func TestEndKilledAfterFirstRename(t *testing.T) {
	if dir := os.Getenv("HANDOFF_ORDER_CHILD"); dir != "" {
		ctx := context.Background()
		st, err := refstore.Open(ctx, dir, refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = handoff.End(ctx, st, handoff.EndOptions{Session: "s1", Owner: "dev", Branch: "main", Next: []string{"the next step"}}, time.Now)
		t.Fatalf("End was not killed: %v", err)
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := context.Background()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if _, err := session.Create(ctx, st, session.Record{ID: "s1", Owner: "dev", Branch: "main", Status: session.StatusActive, CreatedAt: now, UpdatedAt: now}, "test"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	gittest.RunKilled(t, "TestEndKilledAfterFirstRename", "HANDOFF_ORDER_CHILD="+dir, "GIT_HANDOFF_TEST_KILL_AFTER_RENAMES=1")
	// Read with git: Open would settle the transaction.
	status := func() string {
		var s struct{ Status string }
		json.Unmarshal([]byte(gittest.Run(t, dir, "cat-file", "blob", "refs/ao/sessions/s1")), &s)
		return s.Status
	}
	baton, _ := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(refname)", refstore.HandoffsPrefix).Output()
	if status() == session.StatusEnded && len(strings.TrimSpace(string(baton))) == 0 {
		t.Fatal("the kill left the session ended and its baton lost: the session was written before the baton")
	}
	if len(strings.TrimSpace(string(baton))) == 0 {
		t.Fatal("the first rename was not the baton's")
	}
	// The next command finishes the end.
	st, err = refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := status(); got != session.StatusEnded {
		t.Errorf("after the next Open the session is %q, want ended (%v)", got, st.Recovered())
	}
}
