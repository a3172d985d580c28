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
func Show(ctx context.Context, st *refstore.Store, opts ShowOptions) (ShowResult, error) {
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
func List(ctx context.Context, st *refstore.Store, opts ListOptions) (ListResult, error) {
	f := baton.Filter{All: opts.All}
	// The owner is needed with All too: it decides whose notes are
	// fenced as someone else's.
	who, err := Resolve(ctx, st, opts.Owner, "")
	if err != nil {
		return ListResult{}, err
	}
	if !f.All {
		f.Owner = who.Owner
	}
	list, warns, err := baton.List(ctx, st, f)
	if err != nil {
		return ListResult{}, fmt.Errorf("listing batons: %w", err)
	}
	// Waiting batons only: a claimed one is delivered to nobody again,
	// and checking it means reading the version before its claim, for
	// every claimed baton a long history holds.
	for i := range list {
		if list[i].Live() {
			verifyBaton(ctx, st, &list[i], who.Owner)
		}
	}
	return ListResult{Handoffs: list, Notices: warningLines(warns), Snapshots: snapshotsOf(ctx, st, list)}, nil
}
