package gittest_test

import (
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// TestMatrix: under `make test-git`, the git the tests run is the row's,
// and the repositories it makes (init, a bare remote, two clones of it)
// have the row's formats; the clones trade a record-like ref through the
// remote by git push and git fetch alone. Outside the matrix it only says
// which git it found.
func TestMatrix(t *testing.T) {
	row, ok, err := gittest.MatrixRow()
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		v, err := gittest.Git("--version")
		t.Skipf("not a make test-git run (%s, %v)", v, err)
	}
	gittest.Isolate(t)
	if err := row.CheckGit(gittest.Git); err != nil {
		t.Fatal(err)
	}
	repo := gittest.Init(t)
	remote := gittest.Init(t, "--bare")
	a, b := t.TempDir()+"/a", t.TempDir()+"/b"
	gittest.Run(t, "", "clone", "-q", remote, a)
	gittest.Run(t, "", "clone", "-q", remote, b)
	for _, dir := range []string{repo, remote, a, b} {
		if err := row.CheckRepo(gittest.Git, dir); err != nil {
			t.Error(err)
		}
	}
	gittest.WriteFile(t, a, "record.json", []byte(`{"schema":"test/v1"}`+"\n"))
	id := gittest.Run(t, a, "hash-object", "-w", "record.json")
	if want := map[string]int{"sha1": 40, "sha256": 64}[row.Hash]; len(id) != want {
		t.Errorf("blob id %s in a %s repository", id, row.Hash)
	}
	gittest.Run(t, a, "update-ref", "refs/ao/test", id)
	gittest.Run(t, a, "push", "-q", "origin", "refs/ao/test")
	gittest.Run(t, b, "fetch", "-q", "origin", "+refs/ao/test:refs/ao/test")
	if got := gittest.Run(t, b, "rev-parse", "refs/ao/test"); got != id {
		t.Errorf("clone b has refs/ao/test at %s, clone a pushed %s", got, id)
	}
}
