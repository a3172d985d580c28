package handoff

import (
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// ShowOptions are what `git handoff show` was asked.
type ShowOptions struct {
	Owner  string
	Branch string
}

// ShowResult is the baton waiting for owner on branch.
type ShowResult struct {
	Handoff baton.Stored
	Notices []string
}

// Show reads the baton a session starting now would claim. None waiting
// is refstore.ErrNotFound (with the notices of what was skipped).
func Show(ctx context.Context, st refstore.Clone, opts ShowOptions) (ShowResult, error) {
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return ShowResult{}, err
	}
	h, warns, refused, err := eligible(ctx, st, who)
	if err != nil {
		return ShowResult{}, fmt.Errorf("reading batons: %w", err)
	}
	res := ShowResult{Notices: append(warningLines(warns), refused...)}
	if h == nil {
		return res, fmt.Errorf("no baton is waiting for %s on %q: %w", who.Owner, who.Branch, refstore.ErrNotFound)
	}
	res.Handoff = *h
	return res, nil
}

// ListOptions are what `git handoff list` was asked.
type ListOptions struct {
	All   bool   // every owner's batons, claimed ones too
	Owner string // "" = the default owner; ignored with All
}

// ListResult is a listing of batons.
type ListResult struct {
	Handoffs []baton.Stored
	Notices  []string
	// Snapshots are the uncommitted work the batons' sessions left, by
	// session id (snapshot.go).
	Snapshots map[string]refstore.Snapshot
}

// List lists the batons waiting for the owner, or with All every one.
func List(ctx context.Context, st refstore.Clone, opts ListOptions) (ListResult, error) {
	list, notices, err := ListEach(ctx, st, opts, func(s *baton.Stored) baton.Stored { return *s })
	if err != nil {
		return ListResult{}, err
	}
	return ListResult{Handoffs: list, Notices: notices, Snapshots: snapshotsOf(ctx, st, list)}, nil
}

// ListEach is List for a surface that writes each baton out as it is read
// (conv turns it into what the surface keeps, its output for one): a
// hundred thousand batons are not held whole. The results are newest
// first; the notices are List's.
func ListEach[T any](ctx context.Context, st refstore.Clone, opts ListOptions, conv func(*baton.Stored) T) ([]T, []string, error) {
	f := baton.Filter{All: opts.All}
	// The owner is needed with All too: it decides whose notes are
	// fenced as someone else's.
	who, err := Resolve(ctx, st, opts.Owner, "")
	if err != nil {
		return nil, nil, err
	}
	if !f.All {
		f.Owner = who.Owner
	}
	list, warns, err := baton.ListEach(ctx, st, f, func(s *baton.Stored) T {
		// Waiting batons only: a claimed one is delivered to nobody
		// again, and checking it means reading the version before its
		// claim, for every claimed baton a long history holds.
		if s.Live() {
			verifyBaton(ctx, st, s, who.Owner)
		}
		return conv(s)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listing batons: %w", err)
	}
	return list, warningLines(warns), nil
}
