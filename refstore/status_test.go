package refstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// What changed after a moment is told apart from what was already changed
// before it, for each kind of change git status lists.
func TestWorktreeChangedSince(t *testing.T) {
	ctx := context.Background()
	for _, change := range []struct {
		name string
		do   func(dir string)
	}{
		{"edit of a clean file", func(dir string) { os.WriteFile(filepath.Join(dir, "clean"), []byte("edited\n"), 0o644) }},
		{"edit of a file already changed", func(dir string) { os.WriteFile(filepath.Join(dir, "dirty"), []byte("again\n"), 0o644) }},
		{"new untracked file", func(dir string) { os.WriteFile(filepath.Join(dir, "new"), []byte("n\n"), 0o644) }},
		{"deletion", func(dir string) { os.Remove(filepath.Join(dir, "clean")) }},
		{"deletion in a subdirectory", func(dir string) { os.Remove(filepath.Join(dir, "sub", "deep")) }},
		{"chmod", func(dir string) { os.Chmod(filepath.Join(dir, "clean"), 0o755) }},
		{"rename", func(dir string) { gittest.Run(t, dir, "mv", "clean", "moved") }},
	} {
		t.Run(change.name, func(t *testing.T) {
			gittest.Isolate(t)
			dir := gittest.Init(t)
			os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
			for _, f := range []string{"clean", "dirty", "sub/deep"} {
				os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644)
			}
			gittest.Run(t, dir, "add", ".")
			gittest.Run(t, dir, "commit", "-q", "-m", "files")
			// Changed before the moment: an edit, an untracked file, a
			// staged edit, a deletion.
			os.WriteFile(filepath.Join(dir, "dirty"), []byte("changed before\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "untracked-before"), []byte("u\n"), 0o644)
			st, err := refstore.Open(ctx, dir, refstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			time.Sleep(30 * time.Millisecond) // past the coarse clock's tick
			since := time.Now().Add(-10 * time.Millisecond).UnixNano()
			if got, err := st.WorktreeChangedSince(ctx, since); err != nil || got {
				t.Fatalf("before any change: %v, %v", got, err)
			}
			// Staging an edit made before is not a change of the tree.
			gittest.Run(t, dir, "add", "dirty")
			if got, err := st.WorktreeChangedSince(ctx, since); err != nil || got {
				t.Fatalf("after staging an old edit: %v, %v", got, err)
			}
			change.do(dir)
			if got, err := st.WorktreeChangedSince(ctx, since); err != nil || !got {
				t.Fatalf("after the change: %v, %v", got, err)
			}
		})
	}
}

func TestWorktreeChangedSinceSkipsDirectories(t *testing.T) {
	ctx := context.Background()
	gittest.Isolate(t)
	dir := gittest.Init(t)
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte("{}\n"), 0o644)
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	time.Sleep(30 * time.Millisecond)
	since := time.Now().Add(-10 * time.Millisecond).UnixNano()
	os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), []byte("{}\n"), 0o644)
	if got, err := st.WorktreeChangedSince(ctx, since, ".claude/"); err != nil || got {
		t.Fatalf("a change in a skipped directory counted: %v, %v", got, err)
	}
	if got, err := st.WorktreeChangedSince(ctx, since); err != nil || !got {
		t.Fatalf("the same change, not skipped: %v, %v", got, err)
	}
	os.WriteFile(filepath.Join(dir, "work.go"), []byte("package p\n"), 0o644)
	if got, err := st.WorktreeChangedSince(ctx, since, ".claude/"); err != nil || !got {
		t.Fatalf("a change beside the skipped directory: %v, %v", got, err)
	}
}
