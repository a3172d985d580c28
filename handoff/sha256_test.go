package handoff_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// Found trying a SHA-256 repository: every write went through git, which
// refused the SHA-1 "no object" id, so end and start failed there. A baton
// is now left, claimed and logged as in any repository, and git finds the
// repository sound after.
func TestSHA256Repository(t *testing.T) {
	ctx := context.Background()
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	dir := filepath.Join(t.TempDir(), "repo")
	gittest.Run(t, "", "init", "-q", "-b", "main", "--object-format=sha256", dir)
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	first := leaveBaton(t, st, "first")
	second := leaveBaton(t, st, "second, superseding the first")
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s-sha256"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Claimed || res.Handoff == nil || res.Handoff.ID != second.Handoff.ID {
		t.Fatalf("start claimed %+v, want %s", res.Handoff, second.Handoff.ID)
	}
	if id := gittest.Run(t, dir, "rev-parse", "refs/ao/sessions/s-sha256"); len(id) != 64 {
		t.Fatalf("the session's ref holds %q, want a SHA-256 id", id)
	}
	events, err := baton.Events(ctx, st, 100)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range events {
		kinds[e.Kind]++
		if e.ID == "" {
			t.Fatalf("an event without its baton: %+v", e)
		}
	}
	if kinds["created"] != 2 || kinds["claimed"] != 1 {
		t.Fatalf("events %+v (of %s and %s), want two created and one claimed", kinds, first.Handoff.ID, second.Handoff.ID)
	}
	gittest.Run(t, dir, "fsck", "--strict", "--no-dangling")
}
