package refstore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

var binary = []byte{0, 1, 2, 0xff, 0xfe, 0, 'x', '\n', 0x80}

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// state is what a user sees of uncommitted work: the status and the staged
// and unstaged diffs (binary included).
func state(t *testing.T, dir string) string {
	t.Helper()
	return gittest.Run(t, dir, "status", "--porcelain=v1", "--untracked-files=all") + "\n--cached--\n" +
		gittest.Run(t, dir, "diff", "--cached", "--binary") + "\n--unstaged--\n" +
		gittest.Run(t, dir, "diff", "--binary")
}

// dirtyRepo makes a repository with every kind of uncommitted change: a
// staged and further unstaged edit, a changed binary file, a staged
// rename, an unstaged deletion, a staged new file, an untracked file and an
// ignored one.
func dirtyRepo(t *testing.T) string {
	t.Helper()
	a := gittest.Init(t)
	gittest.WriteFile(t, a, ".gitignore", []byte("*.log\n"))
	gittest.WriteFile(t, a, "a.txt", []byte("one\n"))
	gittest.WriteFile(t, a, "img.bin", binary)
	gittest.WriteFile(t, a, "old.txt", []byte("to be renamed\n"))
	gittest.WriteFile(t, a, "gone.txt", []byte("to be deleted\n"))
	gittest.Run(t, a, "add", "-A")
	gittest.Run(t, a, "commit", "-q", "-m", "files")

	gittest.WriteFile(t, a, "a.txt", []byte("one\ntwo\n"))
	gittest.Run(t, a, "add", "a.txt")
	gittest.WriteFile(t, a, "a.txt", []byte("one\ntwo\nthree (unstaged)\n"))
	gittest.WriteFile(t, a, "img.bin", append(append([]byte{}, binary...), 0, 0, 7))
	gittest.Run(t, a, "mv", "old.txt", "new.txt")
	os.Remove(filepath.Join(a, "gone.txt"))
	gittest.WriteFile(t, a, "dir/staged.txt", []byte("new and staged\n"))
	gittest.Run(t, a, "add", "dir/staged.txt")
	gittest.WriteFile(t, a, "untracked.txt", []byte("never added\n"))
	gittest.WriteFile(t, a, "build.log", []byte("ignored\n"))
	return a
}

func TestSnapshotLeavesIndexAndWorktreeAlone(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	a := dirtyRepo(t)
	before := state(t, a)
	indexBefore := read(t, a, ".git/index")
	st := open(t, a, refstore.Options{})
	snap, err := st.TakeSnapshot(ctx, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	if after := state(t, a); after != before {
		t.Fatalf("taking a snapshot changed the worktree or index:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if !bytes.Equal(read(t, a, ".git/index"), indexBefore) {
		t.Fatal("taking a snapshot rewrote .git/index")
	}
	head := gittest.Run(t, a, "rev-parse", "HEAD")
	if snap.Head != head || gittest.Run(t, a, "rev-parse", snap.Commit+"^1") != head {
		t.Fatalf("snapshot head %s, first parent %s; HEAD is %s", snap.Head, gittest.Run(t, a, "rev-parse", snap.Commit+"^1"), head)
	}
	if got := gittest.Run(t, a, "rev-parse", "refs/ao/snapshots/s-1"); got != snap.Commit {
		t.Fatalf("refs/ao/snapshots/s-1 = %s, want %s", got, snap.Commit)
	}
	files := gittest.Run(t, a, "ls-tree", "-r", "--name-only", snap.Commit)
	for _, want := range []string{"a.txt", "img.bin", "new.txt", "dir/staged.txt", "untracked.txt", ".gitignore"} {
		if !strings.Contains("\n"+files+"\n", "\n"+want+"\n") {
			t.Errorf("snapshot lacks %s:\n%s", want, files)
		}
	}
	for _, gone := range []string{"old.txt", "gone.txt", "build.log"} {
		if strings.Contains("\n"+files+"\n", "\n"+gone+"\n") {
			t.Errorf("snapshot has %s:\n%s", gone, files)
		}
	}
	if out := gittest.Run(t, a, "for-each-ref", "refs/ao/preserved/"); out != "" {
		t.Fatalf("refs/ao/preserved/ touched: %s", out)
	}

	// A second snapshot of the same session keeps the first as a parent,
	// so the ref moves forward.
	gittest.WriteFile(t, a, "untracked.txt", []byte("changed again\n"))
	again, err := st.TakeSnapshot(ctx, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	if again.Previous != snap.Commit {
		t.Fatalf("second snapshot's previous = %q, want %s", again.Previous, snap.Commit)
	}
	if ok, err := st.IsAncestor(ctx, snap.Commit, again.Commit); err != nil || !ok {
		t.Fatalf("first snapshot is not an ancestor of the second: %v %v", ok, err)
	}
}

func TestSnapshotCleanWorktree(t *testing.T) {
	gittest.Isolate(t)
	a := gittest.Init(t)
	gittest.WriteFile(t, a, "ignored.log", []byte("x"))
	gittest.WriteFile(t, a, ".git/info/exclude", []byte("*.log\n"))
	st := open(t, a, refstore.Options{})
	if _, err := st.TakeSnapshot(context.Background(), "s-clean"); !errors.Is(err, refstore.ErrClean) {
		t.Fatalf("clean worktree: got %v, want ErrClean", err)
	}
	if out := gittest.Run(t, a, "for-each-ref", refstore.SnapshotPrefix); out != "" {
		t.Fatalf("a clean worktree got a snapshot: %s", out)
	}
}

// cloneWithSnapshot clones a into a second repository and fetches its
// snapshots, as a teammate's clone would get them.
func cloneWithSnapshot(t *testing.T, a string) string {
	t.Helper()
	b := filepath.Join(t.TempDir(), "b")
	gittest.Run(t, "", "clone", "-q", a, b)
	gittest.Run(t, b, "fetch", "-q", a, "+refs/ao/snapshots/*:refs/ao/snapshots/*")
	return b
}

func TestSnapshotAppliesInAnotherClone(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	a := dirtyRepo(t)
	want := state(t, a)
	if _, err := open(t, a, refstore.Options{}).TakeSnapshot(ctx, "s-1"); err != nil {
		t.Fatal(err)
	}
	b := cloneWithSnapshot(t, a)
	st := open(t, b, refstore.Options{})
	snap, err := st.ReadSnapshot(ctx, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	applied, err := st.ApplySnapshot(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	if got := state(t, b); got != want {
		t.Fatalf("applied state differs:\nwant:\n%s\ngot:\n%s", want, got)
	}
	if !bytes.Equal(read(t, b, "img.bin"), read(t, a, "img.bin")) {
		t.Fatal("binary file differs")
	}
	if _, err := os.Stat(filepath.Join(b, "build.log")); !os.IsNotExist(err) {
		t.Fatalf("the ignored file travelled: %v", err)
	}
	if applied.Staged == 0 || len(applied.Paths) == 0 {
		t.Fatalf("applied = %+v", applied)
	}
	// Again: it is there already.
	again, err := st.ApplySnapshot(ctx, snap)
	if err != nil || !again.Already {
		t.Fatalf("second apply: %+v, %v", again, err)
	}
}

func TestSnapshotApplyRefusesConflicts(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	a := dirtyRepo(t)
	if _, err := open(t, a, refstore.Options{}).TakeSnapshot(ctx, "s-1"); err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(b string){
		"local edit":       func(b string) { gittest.WriteFile(t, b, "a.txt", []byte("mine\n")) },
		"untracked in way": func(b string) { gittest.WriteFile(t, b, "untracked.txt", []byte("mine\n")) },
		"ignored in way": func(b string) {
			gittest.WriteFile(t, b, ".git/info/exclude", []byte("new.txt\n"))
			gittest.WriteFile(t, b, "new.txt", []byte("mine\n"))
		},
		"staged other file": func(b string) {
			gittest.WriteFile(t, b, "gone.txt", []byte("mine\n"))
			gittest.Run(t, b, "add", "gone.txt")
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := cloneWithSnapshot(t, a)
			spoil(b)
			before := state(t, b)
			st := open(t, b, refstore.Options{})
			snap, err := st.ReadSnapshot(ctx, "s-1")
			if err != nil {
				t.Fatal(err)
			}
			_, err = st.ApplySnapshot(ctx, snap)
			var we *refstore.WorktreeConflictError
			if !errors.As(err, &we) || !errors.Is(err, refstore.ErrConflict) {
				t.Fatalf("got %v, want a worktree conflict", err)
			}
			if after := state(t, b); after != before {
				t.Fatalf("a refused apply changed things:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}

	t.Run("other HEAD", func(t *testing.T) {
		b := cloneWithSnapshot(t, a)
		gittest.Run(t, b, "checkout", "-q", "--orphan", "elsewhere")
		gittest.Run(t, b, "commit", "-q", "-m", "another line")
		before := state(t, b)
		st := open(t, b, refstore.Options{})
		snap, _ := st.ReadSnapshot(ctx, "s-1")
		_, err := st.ApplySnapshot(ctx, snap)
		var he *refstore.HeadMismatchError
		if !errors.As(err, &he) {
			t.Fatalf("got %v, want a HEAD mismatch", err)
		}
		if after := state(t, b); after != before {
			t.Fatalf("a refused apply changed things")
		}
	})

	t.Run("HEAD moved on, conflicting", func(t *testing.T) {
		b := cloneWithSnapshot(t, a)
		gittest.WriteFile(t, b, "a.txt", []byte("committed elsewhere\n"))
		gittest.Run(t, b, "commit", "-q", "-am", "moved on")
		before := state(t, b)
		st := open(t, b, refstore.Options{})
		snap, _ := st.ReadSnapshot(ctx, "s-1")
		_, err := st.ApplySnapshot(ctx, snap)
		var me *refstore.MergeConflictError
		if !errors.As(err, &me) || !errors.Is(err, refstore.ErrConflict) || !strings.Contains(err.Error(), "a.txt") {
			t.Fatalf("got %v, want a merge conflict in a.txt", err)
		}
		if after := state(t, b); after != before {
			t.Fatalf("a refused apply changed things:\n%s\n%s", before, after)
		}
	})
}

// TestSnapshotOntoLaterHead: HEAD moved on by a commit the snapshot's
// changes do not touch: they are merged onto it, staged as they were.
func TestSnapshotOntoLaterHead(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	a := dirtyRepo(t)
	want := state(t, a)
	if _, err := open(t, a, refstore.Options{}).TakeSnapshot(ctx, "s-1"); err != nil {
		t.Fatal(err)
	}
	b := cloneWithSnapshot(t, a)
	gittest.WriteFile(t, b, "other.txt", []byte("unrelated\n"))
	gittest.Run(t, b, "add", "other.txt")
	gittest.Run(t, b, "commit", "-q", "-m", "moved on")
	st := open(t, b, refstore.Options{})
	snap, _ := st.ReadSnapshot(ctx, "s-1")
	applied, err := st.ApplySnapshot(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	if !applied.Rebased {
		t.Fatalf("not marked as merged onto a later HEAD: %+v", applied)
	}
	if got := state(t, b); got != want {
		t.Fatalf("merged apply:\nwant:\n%s\ngot:\n%s", want, got)
	}
	if again, err := st.ApplySnapshot(ctx, snap); err != nil || !again.Already {
		t.Fatalf("second apply: %+v %v", again, err)
	}
}

func TestSnapshotUnbornBranch(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	a := filepath.Join(t.TempDir(), "a")
	gittest.Run(t, "", "init", "-q", "-b", "main", a)
	gittest.WriteFile(t, a, "staged.txt", []byte("staged\n"))
	gittest.Run(t, a, "add", "staged.txt")
	gittest.WriteFile(t, a, "loose.bin", binary)
	want := state(t, a)
	snap, err := open(t, a, refstore.Options{}).TakeSnapshot(ctx, "s-unborn")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Head != "" {
		t.Fatalf("unborn snapshot names head %q", snap.Head)
	}
	if state(t, a) != want {
		t.Fatal("taking the snapshot changed the unborn worktree")
	}
	b := filepath.Join(t.TempDir(), "b")
	gittest.Run(t, "", "init", "-q", "-b", "main", b)
	gittest.Run(t, b, "fetch", "-q", a, "+refs/ao/snapshots/*:refs/ao/snapshots/*")
	st := open(t, b, refstore.Options{})
	got, err := st.ReadSnapshot(ctx, "s-unborn")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApplySnapshot(ctx, got); err != nil {
		t.Fatal(err)
	}
	if s := state(t, b); s != want {
		t.Fatalf("unborn apply:\nwant:\n%s\ngot:\n%s", want, s)
	}
}

// TestSnapshotLinkedWorktrees: taken in one linked worktree (its own
// index, the shared refs), applied in another; the main worktree and the
// first one's index are left as they were.
func TestSnapshotLinkedWorktrees(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	main := gittest.Init(t)
	gittest.WriteFile(t, main, "a.txt", []byte("one\n"))
	gittest.Run(t, main, "add", "a.txt")
	gittest.Run(t, main, "commit", "-q", "-m", "a")
	w1 := filepath.Join(t.TempDir(), "w1")
	w2 := filepath.Join(t.TempDir(), "w2")
	gittest.Run(t, main, "worktree", "add", "-q", "--detach", w1)
	gittest.Run(t, main, "worktree", "add", "-q", "--detach", w2)
	gittest.WriteFile(t, w1, "a.txt", []byte("one\nstaged\n"))
	gittest.Run(t, w1, "add", "a.txt")
	gittest.WriteFile(t, w1, "new.txt", []byte("untracked\n"))
	mainBefore, w1Before := state(t, main), state(t, w1)
	snap, err := open(t, w1, refstore.Options{}).TakeSnapshot(ctx, "s-w")
	if err != nil {
		t.Fatal(err)
	}
	if state(t, main) != mainBefore || state(t, w1) != w1Before {
		t.Fatal("taking a snapshot in a linked worktree changed a worktree")
	}
	st := open(t, w2, refstore.Options{})
	got, err := st.ReadSnapshot(ctx, "s-w")
	if err != nil || got.Commit != snap.Commit {
		t.Fatalf("the other worktree reads %+v, %v", got, err)
	}
	if _, err := st.ApplySnapshot(ctx, got); err != nil {
		t.Fatal(err)
	}
	if s := state(t, w2); s != w1Before {
		t.Fatalf("w2 after apply:\nwant:\n%s\ngot:\n%s", w1Before, s)
	}
	if state(t, main) != mainBefore {
		t.Fatal("applying in w2 changed the main worktree")
	}
}

// TestSnapshotInsideHook: a git hook's environment names the index with a
// relative GIT_INDEX_FILE; the snapshot still leaves that index alone.
func TestSnapshotInsideHook(t *testing.T) {
	gittest.Isolate(t)
	a := dirtyRepo(t)
	before := state(t, a)
	index := read(t, a, ".git/index")
	wd, _ := os.Getwd()
	if err := os.Chdir(a); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	t.Setenv("GIT_INDEX_FILE", ".git/index")
	if _, err := open(t, a, refstore.Options{}).TakeSnapshot(context.Background(), "s-hook"); err != nil {
		t.Fatal(err)
	}
	os.Unsetenv("GIT_INDEX_FILE")
	if state(t, a) != before || !bytes.Equal(read(t, a, ".git/index"), index) {
		t.Fatal("a snapshot taken with GIT_INDEX_FILE set changed the index or worktree")
	}
}
