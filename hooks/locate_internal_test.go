package hooks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// A command refreshes the commit hook with the layout its Store found
// (RefreshIn): it must find the same hooks directory, common dir and top
// as finding the repository again from the Store's directory would, from a
// subdirectory, a linked worktree with a relative core.hooksPath, and a
// bare repository.
func TestLocateInAgreesWithLocate(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	dir := gittest.Init(t)
	git := func(dir string, args ...string) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(dir, "commit", "-q", "--allow-empty", "-m", "first")
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	wt := filepath.Join(t.TempDir(), "wt")
	git(dir, "worktree", "add", "-q", "-b", "other", wt)
	git(wt, "config", "core.hooksPath", ".githooks")
	bare := filepath.Join(t.TempDir(), "bare.git")
	git(dir, "clone", "-q", "--bare", dir, bare)
	git(bare, "config", "core.hooksPath", "myhooks")
	for _, from := range []string{dir, sub, wt, bare, filepath.Join(bare, "refs")} {
		st, err := refstore.Open(ctx, from, refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := locate(ctx, st.Dir())
		if err != nil {
			t.Fatal(err)
		}
		got, err := locateIn(ctx, st.Dir(), st.Layout())
		if err != nil || got != want {
			t.Errorf("from %s: locateIn = %+v, %v; locate = %+v", from, got, err, want)
		}
		st.Close()
	}
}
