package teamsync

import (
	"context"
	"fmt"
	"slices"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// A worktree is bound to a session (refs/worktree/ao/session, a symbolic
// ref to the session's record) only while the session is live. The clone
// that ends a session unbinds it there (handoff.End), but a session started
// here and ended on another clone reaches this clone only through sync,
// which then retires it at once (retire.go). Left alone, the binding would
// name a ref that no longer exists: git fsck fails on it ("invalid sha1
// pointer"), and the next end in this worktree would name that long-ended
// session as its baton's source. So sync removes the binding, before the
// record's ended version or its retirement lands here, by compare-and-swap
// on the local version the binding resolves to (refstore UnbindFrom): a
// worktree rebound meanwhile keeps its new binding. Before, not after: git
// cannot compare a dangling symbolic ref with anything.

// unbinding is a local session record the join ends or removes: its ref,
// the version here (what a binding to it resolves to) and the worktree it
// started in.
type unbinding struct {
	ref, oid, worktree string
}

// endedHere is the unbinding d calls for: a local session record replaced
// by one that is not live, or removed (retired).
func endedHere(d *decision) (unbinding, bool) {
	if kindOf(d.ref).prefix != refstore.SessionPrefix || d.local == nil || !d.localChange() {
		return unbinding{}, false
	}
	if d.winner != nil {
		if w, ok := d.winner.rec.(session.Record); !ok || w.Live() {
			return unbinding{}, false
		}
	}
	u := unbinding{ref: d.ref, oid: d.local.oid}
	if l, ok := d.local.rec.(session.Record); ok {
		u.worktree = l.Worktree
	}
	return u, true
}

// unbindEnded removes the bindings to the sessions of us: this worktree's
// and that of each session's own worktree, where it is one of this
// repository's. It returns the worktrees unbound, and a warning for each
// binding it could not remove (the sync itself goes on).
func unbindEnded(ctx context.Context, st refstore.Clone, msg string, us []unbinding) (unbound, warns []string) {
	if len(us) == 0 {
		return nil, nil
	}
	byRef := map[string]unbinding{}
	dirs := []string{st.Dir()}
	for _, u := range us {
		byRef[u.ref] = u
		if u.worktree != "" && !slices.Contains(dirs, u.worktree) {
			dirs = append(dirs, u.worktree)
		}
	}
	for _, dir := range dirs {
		wt, done, err := st.OpenWorktree(ctx, dir)
		if err != nil || wt == nil {
			done()
			continue // not a worktree here: a session started on another machine
		}
		id, err := wt.BoundSession()
		if u, ok := byRef[refstore.SessionPrefix+id]; ok && err == nil && id != "" {
			if ok, err := wt.UnbindFrom(ctx, msg, u.oid); err != nil {
				warns = append(warns, fmt.Sprintf("worktree %s is still bound to session %s, which ended: %v", wt.Dir(), id, err))
			} else if ok {
				unbound = append(unbound, wt.Dir())
			}
		}
		done()
	}
	return unbound, warns
}
