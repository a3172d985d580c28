package handoff_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// TestReplaceSnapshotsTheSessionsWorktree: a replace run from the main
// worktree keeps the uncommitted work of the old session's linked
// worktree (not of the worktree it runs in), names it in the handoff
// package, and a clean worktree or --no-snapshot keeps none.
func TestReplaceSnapshotsTheSessionsWorktree(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Run(t, st.Dir(), "worktree", "add", "-q", "-b", "side", wt)
	ws, err := refstore.Open(ctx, wt, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	start(t, ws, "s-old")
	if err := os.WriteFile(filepath.Join(wt, "work.txt"), []byte("half done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.Dir(), "main-only.txt"), []byte("not the session's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{ReplaceOptions: session.ReplaceOptions{OldID: "s-old", NewID: "s-new"}}, clock)
	if err != nil {
		t.Fatal(err)
	}
	snap := res.Snapshot.Snapshot
	if snap == nil {
		t.Fatalf("no snapshot: %+v %v", res.Snapshot, res.Notices)
	}
	files := gittest.Run(t, st.Dir(), "ls-tree", "-r", "--name-only", snap.Commit)
	if !strings.Contains(files, "work.txt") || strings.Contains(files, "main-only.txt") {
		t.Fatalf("snapshot of the wrong worktree:\n%s", files)
	}
	if !strings.Contains(res.Package, snap.Commit) || !strings.Contains(res.Package, "git handoff session launch s-new --apply-snapshot") {
		t.Fatalf("the package does not name the snapshot:\n%s", res.Package)
	}
	// In its own worktree the work is there already: the brief says so.
	br, err := handoff.Brief(ctx, ws, handoff.BriefOptions{Session: "s-new"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(br.Brief, "are in this worktree") {
		t.Fatalf("brief in the session's worktree:\n%s", br.Brief)
	}

	// --no-snapshot: none taken.
	res, err = handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{ReplaceOptions: session.ReplaceOptions{OldID: "s-new", NewID: "s-3"}, NoSnapshot: true}, clock)
	if err != nil || res.Snapshot.Snapshot != nil {
		t.Fatalf("--no-snapshot: %+v %v", res.Snapshot, err)
	}
	// Clean: none taken, and nothing said.
	os.Remove(filepath.Join(wt, "work.txt"))
	res, err = handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{ReplaceOptions: session.ReplaceOptions{OldID: "s-3", NewID: "s-4"}}, clock)
	if err != nil || res.Snapshot.Snapshot != nil || !res.Snapshot.Clean {
		t.Fatalf("clean worktree: %+v %v", res.Snapshot, err)
	}
	if _, err := st.ReadSnapshot(ctx, "s-3"); err == nil {
		t.Fatal("a clean worktree got a snapshot")
	}
}

// TestEndSnapshotNeedsSession: end --snapshot without a session refuses
// before anything is written.
func TestEndSnapshotNeedsSession(t *testing.T) {
	st := open(t)
	_, err := handoff.End(context.Background(), st, handoff.EndOptions{Next: []string{"x"}, Snapshot: true}, clock)
	if err == nil || !strings.Contains(err.Error(), "no session") {
		t.Fatalf("got %v", err)
	}
	if out := gittest.Run(t, st.Dir(), "for-each-ref", "refs/ao/"); out != "" {
		t.Fatalf("something was written: %s", out)
	}
}
