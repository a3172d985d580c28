package session

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
)

// memClone is the in-memory twin of a clone that the session workflows
// (Replace, Switch, Restore) run over in these tests: the records and the
// writer are memstore's, and the clone has one worktree, dir, whose
// binding is kept in memory. Its branch has no commits (TrailerLog lists
// none). The roles nothing here uses stay nil: a call to one panics.
type memClone struct {
	*memstore.Store
	refstore.Trees
	refstore.Snapshots
	refstore.Remote
	refstore.Worktree

	dir   string
	mu    sync.Mutex
	bound string // the session ref the worktree is bound to
}

var _ refstore.Clone = (*memClone)(nil)

// memRepo is a memClone whose worktree is a fresh directory.
func memRepo(t *testing.T) *memClone {
	t.Helper()
	st, err := memstore.New(refstore.FormatSHA1)
	if err != nil {
		t.Fatal(err)
	}
	st.Configure("user.email", "t@example.com")
	return &memClone{Store: st, dir: t.TempDir()}
}

func (c *memClone) Dir() string { return c.dir }
func (c *memClone) Bare() bool  { return false }

func (c *memClone) TrailerLog(context.Context, string, string, int) ([]refstore.TrailerCommit, error) {
	return nil, nil
}

// OpenWorktree opens the clone's one worktree: itself.
func (c *memClone) OpenWorktree(_ context.Context, dir string) (refstore.Clone, func(), error) {
	if dir != c.dir {
		return nil, func() {}, nil
	}
	return c, func() {}, nil
}

func (c *memClone) BoundSession() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bound == "" {
		return "", nil
	}
	return refstore.DecodeComponent(strings.TrimPrefix(c.bound, refstore.SessionPrefix))
}

func (c *memClone) Bind(sessionRef string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bound = sessionRef
	return nil
}

// UnbindFrom unbinds the worktree while its binding resolves to the blob
// session, as the git store's compare-and-swap does.
func (c *memClone) UnbindFrom(ctx context.Context, _ string, session string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bound == "" || session == "" {
		return false, nil
	}
	if e, err := c.Get(ctx, c.bound); err != nil || e.OID != session {
		return false, nil
	}
	c.bound = ""
	return true, nil
}
