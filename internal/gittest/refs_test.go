package gittest_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// The reflog and lock helpers answer the same on the files backend and on
// reftable (make test-git runs this package in every row), for refs that
// point at blobs, as the records do.
func TestReflogHelpers(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	blob := func(s string) string {
		c := exec.Command("git", "hash-object", "-w", "--stdin")
		c.Dir, c.Stdin = dir, strings.NewReader(s)
		out, err := c.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	a, b, c := blob("a"), blob("b"), blob("c")
	ref := "refs/ao/handoffs/private/dev@example.com/main"
	gittest.Run(t, dir, "update-ref", "--create-reflog", "-m", "handoff: one", ref, a)
	gittest.Run(t, dir, "update-ref", "--create-reflog", "-m", "handoff: two  words", ref, b, a)
	gittest.Run(t, dir, "update-ref", "--create-reflog", "-m", "handoff: three", ref, c, b)
	if got, want := gittest.ReflogOIDs(t, dir, ref), []string{a, b, c}; !slices.Equal(got, want) {
		t.Errorf("ReflogOIDs = %q, want %q", got, want)
	}
	if got, want := gittest.ReflogMessages(t, dir, ref), []string{"handoff: one", "handoff: two words", "handoff: three"}; !slices.Equal(got, want) {
		t.Errorf("ReflogMessages = %q, want %q", got, want)
	}
	if !gittest.ReflogExists(t, dir, ref) {
		t.Error("ReflogExists = false")
	}

	// No reflog, and no ref at all.
	gittest.Run(t, dir, "update-ref", "refs/ao/sessions/unlogged", a)
	for _, r := range []string{"refs/ao/sessions/unlogged", "refs/ao/sessions/absent"} {
		if ids, msgs := gittest.ReflogOIDs(t, dir, r), gittest.ReflogMessages(t, dir, r); ids != nil || msgs != nil {
			t.Errorf("%s: ReflogOIDs = %q, ReflogMessages = %q, want nil", r, ids, msgs)
		}
	}

	// The backend's lock stops git writing the ref, and RefLocks lists it.
	if l := gittest.RefLocks(t, dir); len(l) != 0 {
		t.Fatalf("RefLocks = %q before any lock", l)
	}
	lock := gittest.RefLock(t, dir, ref)
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if l := gittest.RefLocks(t, dir); !slices.Equal(l, []string{lock}) {
		t.Errorf("RefLocks = %q, want %q", l, lock)
	}
	upd := exec.Command("git", "update-ref", ref, a, c)
	upd.Dir = dir
	if err := upd.Run(); err == nil {
		t.Errorf("git update-ref wrote %s past %s", ref, lock)
	}
	os.Remove(lock)
	gittest.Run(t, dir, "update-ref", ref, a, c)
	if got := gittest.ReflogOIDs(t, dir, ref); len(got) != 4 || got[3] != a {
		t.Errorf("after the lock went: ReflogOIDs = %q", got)
	}
}

// RefFormat says what make test-git's row made.
func TestRefFormatIsTheRows(t *testing.T) {
	row, ok, err := gittest.MatrixRow()
	if err != nil || !ok {
		t.Skipf("not a make test-git run (%v)", err)
	}
	gittest.Isolate(t)
	if got := gittest.RefFormat(t, gittest.Init(t)); got != row.RefFormat {
		t.Fatalf("RefFormat = %s, the row wants %s", got, row.RefFormat)
	}
}
