package session_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// replace is killed right after its transaction's first rename, before any
// later command could finish it from the journal: the new session must
// exist by then, so the old one is never replacedBy a session that does not
// (the lineage would be wedged: replace and restore of it refused).
func TestReplaceKilledAfterFirstRename(t *testing.T) {
	if dir := os.Getenv("LINEAGE_ORDER_CHILD"); dir != "" {
		ctx := context.Background()
		st, err := refstore.Open(ctx, dir, refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = session.Replace(ctx, st, session.ReplaceOptions{OldID: "old", NewID: "new", Context: session.ContextNone}, time.Now())
		t.Fatalf("Replace was not killed: %v", err)
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
	if _, err := session.Create(ctx, st, session.Record{ID: "old", Owner: "dev", Branch: "main", Status: session.StatusActive, CreatedAt: now, UpdatedAt: now}, "test"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	gittest.RunKilled(t, "TestReplaceKilledAfterFirstRename", "LINEAGE_ORDER_CHILD="+dir, "GIT_HANDOFF_TEST_KILL_AFTER_RENAMES=1")
	// Read with git: Open would settle the transaction.
	var old struct{ ReplacedBy string }
	json.Unmarshal([]byte(gittest.Run(t, dir, "cat-file", "blob", "refs/ao/sessions/old")), &old)
	newExists := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "refs/ao/sessions/new").Run() == nil
	if old.ReplacedBy != "" && !newExists {
		t.Fatal("the kill left the old session replacedBy a session that does not exist: it was marked before the new one was written")
	}
	if !newExists {
		t.Fatal("the first rename was not the new session's")
	}
	// The next command finishes the replacement.
	st, err = refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := session.Read(ctx, st, "old")
	if err != nil || s.ReplacedBy != "new" || s.Status != session.StatusReplaced {
		t.Errorf("after the next Open the old session is %+v, %v; want replaced by new", s.Record, err)
	}
}
