package teamsync

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// Snapshots of uncommitted work (refs/ao/snapshots/<session>) travel with
// sync too, but they are commits, not JSON records: they are fetched to
// <tracking prefix>snapshots/ and joined here by ancestry instead of by the
// records' causal join. A newer snapshot of a session has the older one as
// a parent, so the usual case is a fast-forward either way; two snapshots
// taken without seeing each other keep the later (committer time, then the
// larger id), and the other is named in a warning with how to get it back.
// Pushes are forced with a lease on what was fetched, as records are: a
// remote refuses a non-fast-forward otherwise, and the lease keeps it a
// swap.

func snapshotRefspec(tp string) string {
	rel := strings.TrimPrefix(refstore.SnapshotPrefix, refstore.Root)
	return "+" + refstore.SnapshotPrefix + "*:" + tp + rel + "*"
}

// isSnapshotCopy reports whether ref is a fetched snapshot under tp.
func isSnapshotCopy(tp, ref string) bool {
	rest, ok := strings.CutPrefix(ref, tp)
	return ok && strings.HasPrefix(rest, snapshotRel)
}

// snapshotRel is where snapshots are, below refs/ao/ and below a tracking
// prefix alike.
var snapshotRel = strings.TrimPrefix(refstore.SnapshotPrefix, refstore.Root)

// syncSnapshots joins the local snapshot refs (local, ref → commit) with
// the copies just fetched from remote (fetched, under tp), both from the
// sync's one listing of refs/ao/, moves the local refs and pushes what the
// remote lacks. Failures are warnings: the records' sync stands, and the
// next sync tries again. A ref moved here since the listing fails its
// compare-and-swap, and the next sync joins it.
//
// retired, when not nil, names the sessions whose snapshots retire with
// them (by their ref component): those go on both sides, with no join.
func syncSnapshots(ctx context.Context, st refstore.Clone, remote, tp string, local, fetched map[string]string, dryRun bool, retired func(enc string) bool) ([]Change, []string) {
	changes := []Change{}
	var warns []string
	copies := tp + snapshotRel
	keys := map[string]bool{}
	for ref := range local {
		keys[strings.TrimPrefix(ref, refstore.SnapshotPrefix)] = true
	}
	for ref := range fetched {
		keys[strings.TrimPrefix(ref, copies)] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var localUps, pushes []refstore.Update
	for _, k := range names {
		ref := refstore.SnapshotPrefix + k
		l, r := local[ref], fetched[copies+k]
		if retired != nil && retired(k) {
			what := "snapshot of session " + sessionOf(k) + ", retired with it"
			if l != "" {
				localUps = append(localUps, refstore.Update{Ref: ref, Old: l})
				changes = append(changes, Change{Ref: ref, Old: l, Reason: "retired", What: what})
			}
			if r != "" {
				pushes = append(pushes, refstore.Update{Ref: ref, Old: r})
				changes = append(changes, Change{Ref: ref, Old: r, Reason: "retired", What: what})
			}
			continue
		}
		if l == r {
			continue
		}
		winner, why, err := joinSnapshots(ctx, st, l, r)
		if err != nil {
			warns = append(warns, fmt.Sprintf("skipping %s: %v", ref, err))
			continue
		}
		if why != "" {
			warns = append(warns, fmt.Sprintf("%s: %s", ref, why))
		}
		if winner != l {
			localUps = append(localUps, refstore.Update{Ref: ref, New: winner, Old: l})
			changes = append(changes, Change{Ref: ref, Old: l, New: winner, Reason: "merged", What: "snapshot of session " + sessionOf(k)})
		}
		if winner != r {
			pushes = append(pushes, refstore.Update{Ref: ref, New: winner, Old: r})
			changes = append(changes, Change{Ref: ref, Old: r, New: winner, Reason: "pushed", What: "snapshot of session " + sessionOf(k)})
		}
	}
	if dryRun {
		return changes, warns
	}
	return changes, writeSnapshots(ctx, st, remote, copies, localUps, pushes, warns)
}

// writeSnapshots moves the snapshot refs here, pushes those the remote
// lacks and moves their copies, adding what failed to warns.
func writeSnapshots(ctx context.Context, st refstore.Clone, remote, copies string, localUps, pushes []refstore.Update, warns []string) []string {
	for _, u := range localUps {
		// Each on its own: a snapshot taken here meanwhile wins its ref
		// and goes out with the next sync.
		if err := st.Apply(ctx, "handoff: snapshot from "+remote, u); err != nil {
			warns = append(warns, fmt.Sprintf("%s not updated: %v", u.Ref, err))
		}
	}
	if len(pushes) > 0 {
		if err := st.Push(ctx, remote, pushes, refstore.PushOptions{NoVerify: true}); err != nil {
			return append(warns, fmt.Sprintf("snapshots not pushed to %s (the next sync tries again): %v", remote, err))
		}
		// git moves the copies itself only where the remote's fetch
		// refspecs map them; a lost swap here means it did.
		for _, u := range pushes {
			cp := copies + strings.TrimPrefix(u.Ref, refstore.SnapshotPrefix)
			if err := st.Apply(ctx, "handoff: pushed to "+remote, refstore.Update{Ref: cp, New: u.New, Old: u.Old}); err != nil && !errors.Is(err, refstore.ErrConflict) {
				warns = append(warns, fmt.Sprintf("%s not updated: %v", cp, err))
			}
		}
	}
	return warns
}

// joinSnapshots picks between a local and a fetched snapshot commit of one
// session ("" = none on that side). why is set when neither had seen the
// other.
func joinSnapshots(ctx context.Context, st refstore.Clone, l, r string) (winner, why string, err error) {
	switch {
	case l == "":
		return r, "", nil
	case r == "":
		return l, "", nil
	}
	if ok, err := st.IsAncestor(ctx, r, l); err != nil {
		return "", "", err
	} else if ok {
		return l, "", nil
	}
	if ok, err := st.IsAncestor(ctx, l, r); err != nil {
		return "", "", err
	} else if ok {
		return r, "", nil
	}
	lt, err := st.CommitTime(ctx, l)
	if err != nil {
		return "", "", err
	}
	rt, err := st.CommitTime(ctx, r)
	if err != nil {
		return "", "", err
	}
	winner, loser := l, r
	if rt.After(lt) || rt.Equal(lt) && r > l {
		winner, loser = r, l
	}
	return winner, fmt.Sprintf("two snapshots taken without seeing each other: kept %s, dropped %s (`git diff %s %s` shows it; `git update-ref` can bring it back while it is unpruned)",
		short(winner), short(loser), loser+"^", loser), nil
}

func sessionOf(enc string) string {
	if id, err := refstore.DecodeComponent(enc); err == nil {
		return id
	}
	return enc
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
