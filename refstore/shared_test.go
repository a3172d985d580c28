package refstore_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// In a core.sharedRepository=group repository, what git-handoff creates in
// process (object directories, its own directory, and in the files backend
// the worktree binding, the refs' directories and the transaction
// journal's directory) is group-writable under a umask of 022, as git
// makes its own: a teammate's git can write beside it.
func TestSharedRepositoryGroupWritable(t *testing.T) {
	gittest.Isolate(t)
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := gittest.Init(t)
	gittest.Run(t, dir, "config", "core.sharedRepository", "group")
	ctx := context.Background()
	st := open(t, dir, refstore.Options{})

	oid, err := st.WriteBlob(ctx, []byte(`{"schema":"session/v1","id":"s1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Bind("refs/ao/sessions/s1"); err != nil {
		t.Fatal(err)
	}
	a := gittestHashObject(t, dir, `{"n":"a"}`)
	if err := st.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/s1", New: a}, refstore.Update{Ref: "refs/ao/objectives/o/b", New: a}); err != nil {
		t.Fatal(err)
	}
	g := filepath.Join(dir, ".git")
	paths := []string{"objects/" + oid[:2], "handoff"}
	if gittest.RefFormat(t, dir) == "files" {
		// Loose refs and their directories, and the journal refstore
		// keeps only where a transaction can be torn; reftable keeps
		// every ref in its tables, which git writes.
		paths = append(paths,
			"refs/worktree", "refs/worktree/ao", "refs/worktree/ao/session",
			"handoff/txn",
			"refs/ao/objectives/o", "refs/ao/objectives/o/b")
	}
	for _, p := range paths {
		fi, err := os.Stat(filepath.Join(g, p))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if fi.Mode().Perm()&0o020 == 0 {
			t.Errorf("%s is %v: not group-writable in a shared repository", p, fi.Mode())
		}
		if fi.IsDir() && fi.Mode()&os.ModeSetgid == 0 {
			t.Errorf("%s is %v: git sets the setgid bit on shared directories", p, fi.Mode())
		}
	}
	if fi, err := os.Stat(filepath.Join(g, "objects", oid[:2], oid[2:])); err != nil || fi.Mode().Perm()&0o040 == 0 {
		t.Errorf("object %s: %v, %v: not group-readable", oid, fi.Mode(), err)
	}
	gittest.Run(t, dir, "fsck", "--no-progress")
}
