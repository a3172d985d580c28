package session

import (
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
)

// memClone is the in-memory twin of a clone that the session workflows
// (Replace, Switch, Restore) run over in these tests: memstore's, with one
// worktree and no commits.
type memClone = memstore.Clone

// memRepo is a memClone of a fresh in-memory repository.
func memRepo(t *testing.T) *memClone {
	t.Helper()
	st, err := memstore.New(refstore.FormatSHA1)
	if err != nil {
		t.Fatal(err)
	}
	st.Configure("user.email", "t@example.com")
	c, err := memstore.NewClone(st, "/mem/worktree", nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
