package teamsync

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

var bin = []byte{0, 1, 2, 0xff, 0xfe, 0, 'x', '\n', 0x80}

// worktreeState is what a user sees of uncommitted work.
func worktreeState(t *testing.T, dir string) string {
	t.Helper()
	return git(t, dir, "status", "--porcelain=v1", "--untracked-files=all") + "\n--cached--\n" +
		git(t, dir, "diff", "--cached", "--binary") + "\n--unstaged--\n" + git(t, dir, "diff", "--binary")
}

// TestSnapshotRoundTrip: a session ends with --snapshot in clone A, sync
// carries the commit through the bare remote, and start --apply-snapshot
// in clone B brings back every kind of change, staged as it was.
func TestSnapshotRoundTrip(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ad, bd := a.Dir(), b.Dir()
	gittest.WriteFile(t, ad, ".gitignore", []byte("*.log\n"))
	gittest.WriteFile(t, ad, "img.bin", bin)
	gittest.WriteFile(t, ad, "old.txt", []byte("renamed\n"))
	gittest.WriteFile(t, ad, "gone.txt", []byte("deleted\n"))
	gittest.WriteFile(t, ad, "a.txt", []byte("one\n"))
	git(t, ad, "add", "-A")
	git(t, ad, "commit", "-q", "-m", "files")
	git(t, ad, "push", "-q", "origin", "main")
	git(t, bd, "pull", "-q", "origin", "main")

	if _, err := handoff.Start(ctx, a, handoff.StartOptions{Session: "s-a", Owner: "dev", Branch: "main"}, clock(1)); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, ad, "a.txt", []byte("one\ntwo\n"))
	git(t, ad, "add", "a.txt")
	gittest.WriteFile(t, ad, "a.txt", []byte("one\ntwo\nthree\n"))
	gittest.WriteFile(t, ad, "img.bin", append(append([]byte{}, bin...), 9, 9))
	git(t, ad, "mv", "old.txt", "new.txt")
	os.Remove(filepath.Join(ad, "gone.txt"))
	gittest.WriteFile(t, ad, "untracked.txt", []byte("loose\n"))
	gittest.WriteFile(t, ad, "debug.log", []byte("ignored\n"))
	want := worktreeState(t, ad)
	cachedBefore := git(t, ad, "diff", "--cached")

	res, err := handoff.End(ctx, a, handoff.EndOptions{Session: "s-a", Owner: "dev", Branch: "main", Next: []string{"finish it"}, Snapshot: true}, clock(2))
	if err != nil {
		t.Fatal(err)
	}
	if res.Snapshot.Snapshot == nil {
		t.Fatalf("end --snapshot took none: %+v", res.Snapshot)
	}
	if got := worktreeState(t, ad); got != want || git(t, ad, "diff", "--cached") != cachedBefore {
		t.Fatalf("end --snapshot changed clone A:\nbefore:\n%s\nafter:\n%s", want, got)
	}
	first := res.Snapshot.Snapshot.Commit

	sa := syncAt(t, a, 3)
	if len(sa.Snapshots) != 1 || sa.Snapshots[0].New != first || sa.Snapshots[0].Reason != "pushed" {
		t.Fatalf("sync of A moved snapshots %+v", sa.Snapshots)
	}
	if got := git(t, tm.dir, "--git-dir", tm.remote, "rev-parse", "refs/ao/snapshots/s-a"); got != first {
		t.Fatalf("remote holds %s, want %s", got, first)
	}
	sb := syncAt(t, b, 4)
	if len(sb.Snapshots) != 1 || sb.Snapshots[0].Reason != "merged" {
		t.Fatalf("sync of B moved snapshots %+v", sb.Snapshots)
	}
	for _, w := range append(sa.Warnings, sb.Warnings...) {
		if strings.Contains(w, "snapshot") {
			t.Errorf("warning: %s", w)
		}
	}

	list, err := handoff.List(ctx, b, handoff.ListOptions{Owner: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := list.Snapshots["s-a"]; !ok || s.Commit != first {
		t.Fatalf("list in B names no snapshot: %+v", list.Snapshots)
	}
	br, err := handoff.Brief(ctx, b, handoff.BriefOptions{Owner: "dev", Branch: "main"}, clock(5))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(br.Brief, first) || !strings.Contains(br.Brief, "git handoff snapshot apply s-a") {
		t.Fatalf("brief in B does not say a snapshot exists:\n%s", br.Brief)
	}

	st, err := handoff.Start(ctx, b, handoff.StartOptions{Session: "s-b", Owner: "dev", Branch: "main", ApplySnapshot: true}, clock(6))
	if err != nil || st.SnapshotErr != nil {
		t.Fatalf("start --apply-snapshot: %v, %v", err, st.SnapshotErr)
	}
	if st.Snapshot == nil || st.Snapshot.Applied == nil || st.Snapshot.Applied.Already {
		t.Fatalf("start applied nothing: %+v", st.Snapshot)
	}
	if got := worktreeState(t, bd); got != want {
		t.Fatalf("clone B after apply:\nwant:\n%s\ngot:\n%s", want, got)
	}
	if data, _ := os.ReadFile(filepath.Join(bd, "img.bin")); !bytes.Equal(data, append(append([]byte{}, bin...), 9, 9)) {
		t.Fatal("binary file differs")
	}
	if _, err := os.Stat(filepath.Join(bd, "debug.log")); !os.IsNotExist(err) {
		t.Fatal("the ignored file travelled")
	}

	// s-a's baton is claimed: s-a and its snapshot are history now, and
	// retire with the next sync that sees it.
	syncAt(t, b, 7)
	if out := git(t, tm.dir, "--git-dir", tm.remote, "for-each-ref", "refs/ao/snapshots/"); out != "" {
		t.Fatalf("the snapshot of s-a, whose baton was claimed, is still live: %s", out)
	}

	// Two snapshots of one live session taken without seeing each other:
	// the later wins everywhere, and reaching the remote takes a forced
	// push (it is no fast-forward), under a lease.
	syncAt(t, a, 7)
	gittest.WriteFile(t, ad, "untracked.txt", []byte("A again\n"))
	ta, err := handoff.TakeSnapshot(ctx, a, "s-b")
	if err != nil {
		t.Fatal(err)
	}
	syncAt(t, a, 8)
	gittest.WriteFile(t, bd, "untracked.txt", []byte("B meanwhile\n"))
	t.Setenv("GIT_COMMITTER_DATE", "2035-01-01T00:00:00Z")
	tb, err := handoff.TakeSnapshot(ctx, b, "s-b")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_COMMITTER_DATE", "")
	if tb.Snapshot.Previous == ta.Snapshot.Commit {
		t.Fatalf("B's snapshot builds on A's %s, which it never saw", ta.Snapshot.Commit)
	}
	sb = syncAt(t, b, 8)
	if got := git(t, tm.dir, "--git-dir", tm.remote, "rev-parse", "refs/ao/snapshots/s-b"); got != tb.Snapshot.Commit {
		t.Fatalf("remote holds %s after B's sync, want B's later snapshot %s (warnings %v)", got, tb.Snapshot.Commit, sb.Warnings)
	}
	found := false
	for _, w := range sb.Warnings {
		found = found || strings.Contains(w, "without seeing each other")
	}
	if !found {
		t.Fatalf("no warning about concurrent snapshots: %v", sb.Warnings)
	}
	syncAt(t, a, 9)
	if got, _ := refstore.ResolveID(ctx, a, "refs/ao/snapshots/s-b"); got != tb.Snapshot.Commit {
		t.Fatalf("A holds %s, want %s", got, tb.Snapshot.Commit)
	}
	if out := git(t, tm.dir, "--git-dir", tm.remote, "for-each-ref", "refs/ao/preserved/"); out != "" {
		t.Fatalf("refs/ao/preserved touched: %s", out)
	}
}

// TestSnapshotApplyRefusedLeavesAll: a conflicting local change refuses
// --apply-snapshot with nothing changed; the session starts.
func TestSnapshotApplyRefusedLeavesAll(t *testing.T) {
	ctx := context.Background()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	if _, err := handoff.Start(ctx, a, handoff.StartOptions{Session: "s-a", Owner: "dev", Branch: "main"}, clock(1)); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, a.Dir(), "work.txt", []byte("A's\n"))
	if _, err := handoff.End(ctx, a, handoff.EndOptions{Session: "s-a", Owner: "dev", Branch: "main", Next: []string{"go on"}, Snapshot: true}, clock(2)); err != nil {
		t.Fatal(err)
	}
	syncAt(t, a, 3)
	// A fetch of the records is enough: the baton is merged as every
	// command merges it, the snapshot is read from the fetched copy.
	fetchRecords(t, b)
	if _, err := Lazy(ctx, b); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, b.Dir(), "work.txt", []byte("B's own\n"))
	before := worktreeState(t, b.Dir())
	res, err := handoff.Start(ctx, b, handoff.StartOptions{Session: "s-b", Owner: "dev", Branch: "main", ApplySnapshot: true}, clock(4))
	if err != nil {
		t.Fatal(err)
	}
	var we *refstore.WorktreeConflictError
	if !errors.As(res.SnapshotErr, &we) || !errors.Is(res.SnapshotErr, refstore.ErrConflict) {
		t.Fatalf("apply over a local change: %v", res.SnapshotErr)
	}
	if got := worktreeState(t, b.Dir()); got != before {
		t.Fatalf("refused apply changed B:\n%s\n%s", before, got)
	}
	if res.Snapshot == nil || !strings.HasPrefix(res.Snapshot.Snapshot.Ref, "refs/ao/remotes/origin/snapshots/") {
		t.Fatalf("snapshot not read from the fetched copy: %+v", res.Snapshot)
	}
	if !strings.Contains(res.SnapshotErr.Error(), "work.txt") {
		t.Fatalf("the refusal does not name the path: %v", res.SnapshotErr)
	}
}
