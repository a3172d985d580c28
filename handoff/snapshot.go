package handoff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// Snapshots of uncommitted work: `end --snapshot`, and `session replace` /
// `session switch` unless told not to, record the session's worktree
// changes as a commit at refs/ao/snapshots/<id> (refstore.TakeSnapshot);
// `start`, `session restore` and `session launch` elsewhere say one exists
// and, with --apply-snapshot, bring it into their worktree
// (refstore.ApplySnapshot).

// SnapshotTaken is a snapshot a workflow recorded, or why none was.
type SnapshotTaken struct {
	Snapshot *refstore.Snapshot // nil: none taken
	Clean    bool               // nothing was uncommitted
	Worktree string             // the worktree it was taken of
}

// takeSnapshot records the uncommitted work of session rec's worktree (st's
// own when rec names none here) as the session's snapshot.
func takeSnapshot(ctx context.Context, st refstore.Clone, id string, rec *session.Record) (SnapshotTaken, error) {
	wt, done, err := sessionWorktree(ctx, st, rec)
	if err != nil {
		return SnapshotTaken{}, err
	}
	if wt == nil {
		return SnapshotTaken{}, fmt.Errorf("no worktree of session %q here to take a snapshot of", id)
	}
	defer done()
	snap, err := wt.TakeSnapshot(ctx, id)
	if errors.Is(err, refstore.ErrClean) {
		return SnapshotTaken{Clean: true, Worktree: wt.Dir()}, nil
	}
	if err != nil {
		return SnapshotTaken{}, err
	}
	return SnapshotTaken{Snapshot: &snap, Worktree: wt.Dir()}, nil
}

// sessionWorktree opens the session's worktree when it is a worktree of
// st's repository here; else st's own (another clone continues the work
// where it runs). nil when st is bare and the session's is not here.
func sessionWorktree(ctx context.Context, st refstore.Clone, rec *session.Record) (refstore.Clone, func(), error) {
	if rec != nil && rec.Worktree != "" && !sameDir(st.Dir(), rec.Worktree) {
		if wt, done, err := st.OpenWorktree(ctx, rec.Worktree); err == nil && wt != nil {
			return wt, done, nil
		}
	}
	if st.Bare() {
		return nil, func() {}, nil
	}
	return st, func() {}, nil
}

func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// TakenNotice says what a workflow's snapshot did, for the user.
func (t SnapshotTaken) notice(id string) string {
	switch {
	case t.Snapshot != nil:
		return fmt.Sprintf("uncommitted work of session %s kept as snapshot %s at %s (on %s); another clone gets it with `git handoff sync` and applies it with --apply-snapshot", id, short(t.Snapshot.Commit), t.Snapshot.Ref, headName(t.Snapshot.Head))
	case t.Clean:
		return fmt.Sprintf("nothing uncommitted in %s: no snapshot of session %s taken", t.Worktree, id)
	}
	return ""
}

func headName(id string) string {
	if id == "" {
		return "an unborn branch"
	}
	return short(id)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// SnapshotOffer is a snapshot a starting or relaunched session could take
// over, and what became of it.
type SnapshotOffer struct {
	Snapshot refstore.Snapshot
	Present  bool              // the worktree holds it already
	Applied  *refstore.Applied // set when --apply-snapshot applied it
}

// findOffer looks for the snapshot of the first of ids that has one.
func findOffer(ctx context.Context, st refstore.Clone, ids ...string) (*refstore.Snapshot, error) {
	for _, id := range ids {
		if id == "" {
			continue
		}
		snap, err := st.FindSnapshot(ctx, id)
		if errors.Is(err, refstore.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &snap, nil
	}
	return nil, nil
}

// offerSnapshot finds the snapshot of the first of ids with one and, with
// apply, applies it to wt. Without apply it is only named: in a notice,
// and in the section of the brief it returns. A refused apply changes
// nothing and is returned as the error.
func offerSnapshot(ctx context.Context, st, wt refstore.Clone, apply bool, ids ...string) (*SnapshotOffer, []string, error) {
	snap, err := findOffer(ctx, st, ids...)
	if err != nil {
		return nil, []string{"snapshots not read: " + err.Error()}, nil
	}
	if snap == nil || wt == nil {
		return nil, nil, nil
	}
	off := &SnapshotOffer{Snapshot: *snap}
	if apply {
		a, err := wt.ApplySnapshot(ctx, *snap)
		if err != nil {
			return off, nil, fmt.Errorf("applying snapshot %s of session %s: %w", short(snap.Commit), snap.Session, err)
		}
		off.Applied, off.Present = &a, true
		if a.Already {
			return off, []string{fmt.Sprintf("snapshot %s of session %s is in this worktree already", short(snap.Commit), snap.Session)}, nil
		}
		how := ""
		if a.Rebased {
			how = " (merged onto this HEAD)"
		}
		return off, []string{fmt.Sprintf("applied snapshot %s of session %s%s: %d path%s restored, staged changes staged again, untracked files untracked", short(snap.Commit), snap.Session, how, len(a.Paths), plural(len(a.Paths)))}, nil
	}
	if present, err := wt.SnapshotPresent(ctx, *snap); err == nil && present {
		off.Present = true
		return off, nil, nil
	}
	where := ""
	if h, err := wt.Head(ctx); err == nil && h.Commit != snap.Head {
		if ok, _ := wt.IsAncestor(ctx, snap.Head, h.Commit); ok && snap.Head != "" {
			where = fmt.Sprintf("; HEAD here, %s, has moved on: its changes are merged onto it unless they conflict", headName(h.Commit))
		} else {
			where = fmt.Sprintf("; HEAD here is %s: check out %s first", headName(h.Commit), headName(snap.Head))
		}
	}
	return off, []string{fmt.Sprintf("session %s left uncommitted work: snapshot %s (on %s%s); bring it into this worktree with --apply-snapshot or `%s`", snap.Session, short(snap.Commit), headName(snap.Head), where, ApplyCommand(snap.Session))}, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// SnapshotSection is what a brief says of a snapshot the session can take
// over: that it exists, its commit and how to apply it.
func SnapshotSection(off *SnapshotOffer) string {
	if off == nil {
		return ""
	}
	s := off.Snapshot
	text := "\n## Uncommitted work\n\n"
	if off.Applied != nil || off.Present {
		return text + fmt.Sprintf("Session %s's uncommitted changes (snapshot %s) are in this worktree: `git status` shows them.\n", s.Session, short(s.Commit))
	}
	return text + fmt.Sprintf("Session %s left uncommitted changes in snapshot `%s` (%s, taken on %s). "+
		"Apply them with `%s` (on that HEAD, or merged onto a HEAD that moved on from it; refused, changing nothing, on a conflict or when local changes are in the way), "+
		"or look first: `git diff %s %s`.\n", s.Session, s.Commit, s.Ref, headName(s.Head), ApplyCommand(s.Session), orEmptyTree(s.Head), s.Commit)
}

// orEmptyTree is the base to diff a snapshot against: its HEAD, or for a
// snapshot taken before the first commit the empty tree, named so that git
// gives its id in the repository's object format.
func orEmptyTree(head string) string {
	if head == "" {
		return "$(git hash-object -t tree /dev/null)"
	}
	return head
}

// SnapshotApplyOptions are what `--apply-snapshot` of restore and launch
// was asked: the session whose snapshot (or its predecessor's) to apply.
type SnapshotApplyOptions struct {
	Session string
	Apply   bool // false: only say whether one exists
}

// SessionSnapshot finds the snapshot a relaunched session can take over
// (its own, else the one of the session it replaced) and, with Apply,
// applies it to the session's worktree here (or this one).
func SessionSnapshot(ctx context.Context, st refstore.Clone, opts SnapshotApplyOptions) (*SnapshotOffer, []string, error) {
	cur, err := session.Read(ctx, st, opts.Session)
	if err != nil {
		return nil, nil, err
	}
	wt, done, err := sessionWorktree(ctx, st, &cur.Record)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	return offerSnapshot(ctx, st, wt, opts.Apply, cur.ID, cur.Supersedes)
}

// endSnapshot takes the snapshot `end --snapshot` asks for, before the
// session is ended: a snapshot that fails ends nothing.
func endSnapshot(ctx context.Context, st refstore.Clone, id string, want bool) (SnapshotTaken, error) {
	if !want {
		return SnapshotTaken{}, nil
	}
	if id == "" {
		return SnapshotTaken{}, fmt.Errorf("taking a snapshot: no session to keep it for (name one with --session)")
	}
	var rec *session.Record
	if cur, err := session.Read(ctx, st, id); err == nil {
		rec = &cur.Record
	}
	t, err := takeSnapshot(ctx, st, id, rec)
	if err != nil {
		return SnapshotTaken{}, fmt.Errorf("taking a snapshot of session %s: %w", id, err)
	}
	return t, nil
}

// relaunchSnapshot takes the snapshot a replace or switch takes by
// default: only when the worktree is dirty and here, and a failure is a
// notice (the replace or switch goes on).
func relaunchSnapshot(ctx context.Context, st refstore.Clone, id string, skip bool) (SnapshotTaken, []string) {
	if skip {
		return SnapshotTaken{}, nil
	}
	cur, err := session.Read(ctx, st, id)
	if err != nil {
		return SnapshotTaken{}, nil // the workflow reports it
	}
	if cur.Worktree == "" || !st.HasWorktree(cur.Worktree) {
		return SnapshotTaken{}, nil // on another host, or gone
	}
	wt, done, err := sessionWorktree(ctx, st, &cur.Record)
	if err != nil || wt == nil || !sameDir(wt.Dir(), cur.Worktree) {
		done()
		return SnapshotTaken{}, nil // not a worktree of this repository
	}
	done()
	t, err := takeSnapshot(ctx, st, id, &cur.Record)
	if err != nil {
		return SnapshotTaken{}, []string{fmt.Sprintf("no snapshot of session %s's uncommitted work was taken: %v", id, err)}
	}
	if t.Snapshot == nil {
		return t, nil
	}
	return t, []string{t.notice(id)}
}

// replaceSnapshotSection is what the handoff package says of the old
// session's snapshot: in the same worktree the changes are still there;
// elsewhere they are applied by commit.
func replaceSnapshotSection(s refstore.Snapshot, newID string) string {
	return fmt.Sprintf("\n## Uncommitted work\n\nSession %s's uncommitted changes were kept as snapshot `%s` (%s, taken on %s). "+
		"In its worktree they are still there; elsewhere, on the same HEAD, apply them with "+
		"`git handoff session launch %s --apply-snapshot` or `%s` (or `git diff %s %s` to look first).\n",
		s.Session, s.Commit, s.Ref, headName(s.Head), newID, ApplyCommand(s.Session), orEmptyTree(s.Head), s.Commit)
}

// ApplyCommand is the command that applies session id's snapshot here.
func ApplyCommand(id string) string { return "git handoff snapshot apply " + id }

// SnapshotApplyResult is what `snapshot apply` did.
type SnapshotApplyResult struct {
	Snapshot refstore.Snapshot
	Applied  refstore.Applied
}

// ApplySnapshot applies the snapshot of session id (this clone's, or one
// fetched from a remote) to this worktree.
func ApplySnapshot(ctx context.Context, st refstore.Clone, id string) (SnapshotApplyResult, error) {
	snap, err := st.FindSnapshot(ctx, id)
	if err != nil {
		return SnapshotApplyResult{}, err
	}
	a, err := st.ApplySnapshot(ctx, snap)
	if err != nil {
		return SnapshotApplyResult{Snapshot: snap}, fmt.Errorf("applying snapshot %s of session %s: %w", short(snap.Commit), id, err)
	}
	return SnapshotApplyResult{Snapshot: snap, Applied: a}, nil
}

// ShowSnapshot reads the snapshot of session id and whether this worktree
// holds it.
func ShowSnapshot(ctx context.Context, st refstore.Clone, id string) (SnapshotOffer, error) {
	snap, err := st.FindSnapshot(ctx, id)
	if err != nil {
		return SnapshotOffer{}, err
	}
	off := SnapshotOffer{Snapshot: snap}
	off.Present, _ = st.SnapshotPresent(ctx, snap)
	return off, nil
}

func wtOf(st refstore.Clone) refstore.Clone {
	if st.Bare() {
		return nil
	}
	return st
}

// briefSnapshot is the brief's section on uncommitted work left for this
// session: by the session it replaced, by itself before a move, or by the
// session that left the eligible baton.
func briefSnapshot(ctx context.Context, st refstore.Clone, sessionFlag string, h *baton.Stored, notices *[]string) string {
	var ids []string
	if id, err := SessionID(st, sessionFlag); err == nil && id != "" {
		ids = append(ids, id)
		if s, err := session.Read(ctx, st, id); err == nil && s.Supersedes != "" {
			ids = append(ids, s.Supersedes)
		}
	}
	if h != nil {
		ids = append(ids, h.SessionID)
	}
	if len(ids) == 0 {
		return ""
	}
	off, notes, _ := offerSnapshot(ctx, st, wtOf(st), false, ids...)
	*notices = append(*notices, notes...)
	return SnapshotSection(off)
}

// TakeSnapshot keeps the uncommitted work of session id's worktree (this
// one when the session's is not here) as its snapshot.
func TakeSnapshot(ctx context.Context, st refstore.Clone, id string) (SnapshotTaken, error) {
	return endSnapshot(ctx, st, id, true)
}

// SnapshotsOf looks up the snapshots sessions left: this clone's and
// those a plain `git fetch` brought are listed once (one git process
// each), then only the commits of sessions that have one are read, once
// each. A listing calls it for every baton as it is written.
func SnapshotsOf(ctx context.Context, st refstore.Clone) func(sessionID string) (refstore.Snapshot, bool) {
	var have map[string]bool
	found := map[string]*refstore.Snapshot{}
	return func(id string) (refstore.Snapshot, bool) {
		if id == "" {
			return refstore.Snapshot{}, false // no session, no snapshot: nothing to list for it
		}
		if have == nil {
			have = map[string]bool{}
			for _, pattern := range []string{refstore.SnapshotPrefix, refstore.RemotesPrefix + "*/snapshots/"} {
				refs, err := st.SnapshotRefs(ctx, pattern)
				if err != nil {
					break
				}
				for ref := range refs {
					i := strings.LastIndexByte(ref, '/')
					if sid, err := refstore.DecodeComponent(ref[i+1:]); err == nil {
						have[sid] = true
					}
				}
			}
		}
		if !have[id] {
			return refstore.Snapshot{}, false
		}
		snap, done := found[id]
		if !done {
			if s, err := st.FindSnapshot(ctx, id); err == nil {
				snap = &s
			}
			found[strings.Clone(id)] = snap // id may be a borrowed baton's (ListEach)
		}
		if snap == nil {
			return refstore.Snapshot{}, false
		}
		return *snap, true
	}
}

// snapshotsOf is SnapshotsOf for a whole list, by session id.
func snapshotsOf(ctx context.Context, st refstore.Clone, list []baton.Stored) map[string]refstore.Snapshot {
	out := map[string]refstore.Snapshot{}
	if len(list) == 0 {
		return out
	}
	lookup := SnapshotsOf(ctx, st)
	for _, b := range list {
		if snap, ok := lookup(b.SessionID); ok {
			out[b.SessionID] = snap
		}
	}
	return out
}
