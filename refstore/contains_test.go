package refstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// RemoteTracking names a remote-tracking ref that holds the commit, and
// none for a commit no remote-tracking ref reaches.
func TestRemoteTracking(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	gittest.Isolate(t)
	dir := gittest.Init(t)
	remote := gittest.Init(t, "--bare")
	gittest.Run(t, dir, "remote", "add", "origin", remote)
	gittest.Run(t, dir, "push", "-q", "-u", "origin", "main")
	pushed := gittest.Run(t, dir, "rev-parse", "HEAD")
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "later")
	later := gittest.Run(t, dir, "rev-parse", "HEAD")
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if ref, err := st.RemoteTracking(ctx, pushed); err != nil || ref != "refs/remotes/origin/main" {
		t.Errorf("pushed commit: %q, %v", ref, err)
	}
	if ref, err := st.RemoteTracking(ctx, later); err != nil || ref != "" {
		t.Errorf("unpushed commit: %q, %v", ref, err)
	}
	if _, err := st.RemoteTracking(context.Background(), strings.Repeat("0", len(later))); err == nil {
		t.Errorf("a commit that does not exist: no error")
	}
}
