package refstore_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// A git gc --prune=now that deletes the tree write-tree just wrote, before
// commit-tree names it, failed the archiving with "is not a valid object"
// (found by the soak: a user's end failed so). The prune is played by a
// git on PATH that, on the first commit-tree, deletes its tree's loose
// object as a prune would, then runs the real git: BuildTree builds again.
func TestBuildTreeOutlivesAPruneBeforeCommitTree(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := gittest.Init(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	flag := filepath.Join(t.TempDir(), "pruned")
	script := `#!/bin/sh
case " $* " in *" commit-tree "*) ct=1 ;; *) ct= ;; esac
if [ -n "$ct" ] && [ ! -e '` + flag + `' ]; then
	for a in "$@"; do tree=$a; done
	obj=$('` + real + `' rev-parse --git-path objects)/$(echo "$tree" | cut -c1-2)/$(echo "$tree" | cut -c3-)
	rm -f "$obj" && : >'` + flag + `'
fi
exec '` + real + `' "$@"
`
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	st := open(t, dir, refstore.Options{})
	blob, err := st.WriteBlob(ctx, []byte(`{"schema":"handoff/v1","id":"h-1"}`))
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.BuildTree(ctx, "", []refstore.TreeEntry{{Path: "handoffs/h-1", OID: blob}})
	if err != nil {
		t.Fatalf("BuildTree with its tree pruned before commit-tree: %v", err)
	}
	if _, err := os.Stat(flag); err != nil {
		t.Fatal("the prune was never played: the test proves nothing")
	}
	if out := gittest.Run(t, dir, "ls-tree", "-r", id); !strings.Contains(out, blob+"\thandoffs/h-1") {
		t.Fatalf("the built tree lists %q", out)
	}
}
