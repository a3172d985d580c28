package handoff

import (
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// PRShowOptions are what `pr show` was asked.
type PRShowOptions struct {
	Repo    string // owner/name
	Number  int    // 0 = the pull request Session owns
	Session string // "" = GIT_HANDOFF_SESSION, else this worktree's
}

// NoPRError says that no pull request was named and the session owns none.
type NoPRError struct{ Session string }

func (e *NoPRError) Error() string {
	return fmt.Sprintf("name a pull request: the current session (%q) owns none", e.Session)
}

// PRShow reads the ownership record of a pull request, from git alone. On
// error the record still names the pull request looked for, if it got that
// far.
func PRShow(ctx context.Context, st *refstore.Store, opts PRShowOptions) (prown.Stored, error) {
	n := opts.Number
	if n == 0 {
		id, err := SessionID(st, opts.Session)
		if err != nil {
			return prown.Stored{}, err
		}
		p, err := sessionPR(ctx, st, id)
		if err != nil {
			return prown.Stored{}, fmt.Errorf("finding the pull request of session %q: %w", id, err)
		}
		if p == nil {
			return prown.Stored{}, &NoPRError{Session: id}
		}
		n = p.Number
	}
	rec, err := prown.Read(ctx, st, opts.Repo, n)
	if err != nil {
		return prown.Stored{Record: prown.Record{Repo: opts.Repo, Number: n}}, fmt.Errorf("showing #%d: %w", n, err)
	}
	return rec, nil
}
