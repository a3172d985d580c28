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
	// Shared from init on, with no commit: a directory git made before
	// the setting (the first commit's objects/xx, one time in 86) would
	// fail the test for git's doing, not ours.
	dir := gittest.Init(t, "--shared=group")
	ctx := context.Background()
	st := open(t, dir, refstore.Options{})
	body := []byte(`{"schema":"session/v1","id":"s1"}`)
	if _, err := os.Stat(filepath.Join(dir, ".git", "objects", gittestHashBody(t, dir, body)[:2])); err == nil {
		t.Fatal("the blob's object directory exists before the Store writes it: the test would prove nothing")
	}
	oid, err := st.WriteBlob(ctx, body)
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

// gittestHashBody is body's object name in dir's hash, written nowhere.
func gittestHashBody(t *testing.T, dir string, body []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "body")
	if err := os.WriteFile(f, body, 0o644); err != nil {
		t.Fatal(err)
	}
	return gittest.Run(t, dir, "hash-object", f)
}
