package teamsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/git-handoff/git-handoff/refstore"
)

// A remote's gc racing a push (git's documented race of gc --prune=now
// with writers) can remove an object a ref there names. Every fetch of
// that ref then fails ("not our ref"), and git fetch fails whole: with
// one such ref, no clone could sync at all (found by the soak: every sync
// of every clone failed until the end). And a push cannot bring it back:
// git sends no object the remote advertises, taking the remote to hold it.
//
// So a fetch that meets one fetches the rest without it (a negative
// refspec, git >= 2.29), and sync heals it from a clone that holds the
// object: it deletes the ref there under a lease on the lost object, then
// pushes it again, which sends the object. A heal note (heal/<hash>) is
// written first: a kill between the two pushes leaves the ref deleted
// there, and the next sync here pushes it back. Meanwhile the other clones
// see the ref gone, which they withhold rather than drop (seen.go).

// byOwnName lists a remote's refs under refs/ao/ keyed by their names
// there (an identity refspec; RemoteIDs keys by destination).
const byOwnName = refstore.Root + "*:" + refstore.Root + "*"

// lostSpec lists the marks of lost objects (LostPrefix) by their names.
var lostSpec = refstore.LostPrefix + "*:" + refstore.LostPrefix + "*"

var notOurRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`not our ref ([0-9a-f]{40,64})`) })

// lostThere is the object a fetch failed on because the remote lacks it,
// "" when it failed otherwise.
func lostThere(err error) string {
	if err == nil {
		return ""
	}
	if m := notOurRef().FindStringSubmatch(err.Error()); m != nil {
		return m[1]
	}
	return ""
}

// corruptThere reports a fetch that failed because the remote lacks an
// object below the one a ref names: the remote's pack-objects dies on it
// ("bad tree object", "unable to read") and git says so, without naming
// the ref.
func corruptThere(err error) bool {
	return err != nil && strings.Contains(err.Error(), "possible repository corruption on the remote side")
}

var badObjectRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`bad object (refs/ao/\S+)`) })

// lostAtPush returns the refs of remote (ref → object) that a push
// refused as a whole named, in git's words, as reaching an object the
// remote lacks: the check of what a push brings walks every ref there.
func lostAtPush(ctx context.Context, st refstore.Remote, remote string, err error) map[string]string {
	var pe *refstore.PushError
	if !errors.As(err, &pe) {
		return nil
	}
	var refs []string
	for _, line := range pe.Remote {
		if m := badObjectRef().FindStringSubmatch(line); m != nil {
			refs = append(refs, m[1])
		}
	}
	if len(refs) == 0 {
		return nil
	}
	ids, lerr := st.RemoteIDs(ctx, remote, byOwnName)
	if lerr != nil {
		return nil
	}
	var lost map[string]string
	for _, ref := range refs {
		if oid := ids[ref]; oid != "" {
			lost = mapWith(lost, ref, oid)
		}
	}
	return lost
}

// fetchResult is what fetchPatiently did besides fetching: stale locks and
// dangling refs removed (notes, in words) and the remote's refs left out
// because they name objects it lost (ref → object).
type fetchResult struct {
	notes []string
	lost  map[string]string
}

// leaveOut adds to specs a negative refspec for each ref of remote (under
// refs/ao/, where every spec of ours fetches from) that names oid, and records them in f. It returns false when no ref of the
// specs names it that is not left out already (nothing more to leave out:
// the fetch fails for good).
func (f *fetchResult) leaveOut(ctx context.Context, st refstore.Remote, remote, oid string, specs *[]string) bool {
	ids, err := st.RemoteIDs(ctx, remote, byOwnName)
	if err != nil {
		return false
	}
	found := false
	for ref, id := range ids {
		if _, left := f.lost[ref]; id == oid && !left {
			f.leave(ref, oid, specs)
			found = true
		}
	}
	return found
}

// leave leaves ref, which names oid at the remote, out of the fetch of
// specs, as a ref naming an object the remote lost.
func (f *fetchResult) leave(ref, oid string, specs *[]string) {
	f.lost = mapWith(f.lost, ref, oid)
	*specs = append(*specs, "^"+ref)
}

// leaveOutDamaged finds the refs of remote that reach an object it lost
// below their own, after a fetch failed on one (corruptThere): the gc
// that raced a push lost an archive month's tree and kept its commit
// (found by the soak on git 2.55: every fetch of the clones that lacked
// the month failed, to the end, while the clone that held it, whose
// fetches needed nothing of it, never noticed). Only a ref naming a
// commit reaches objects of its own: each such ref here (an archive month,
// a snapshot) whose commit this clone lacks is fetched alone, and each
// that fails so is left out and recorded as a ref naming a lost object,
// its commit for the object, which the heal deletes there and a clone
// holding it pushes back, sending what is below it again. It returns false
// when it found none.
func (f *fetchResult) leaveOutDamaged(ctx context.Context, st refstore.Clone, remote string, specs *[]string) bool {
	ids, err := st.RemoteIDs(ctx, remote, byOwnName)
	if err != nil {
		return false
	}
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return false
	}
	found := false
	for _, ref := range slices.Sorted(maps.Keys(ids)) {
		if !strings.HasPrefix(ref, refstore.ArchivePrefix) && !strings.HasPrefix(ref, refstore.SnapshotPrefix) {
			continue
		}
		if _, left := f.lost[ref]; left || len(f.lost) >= maxLost {
			continue
		}
		if _, err := st.ReadObject(ctx, ids[ref]); err == nil {
			continue // held here: a fetch needs nothing below it
		}
		if corruptThere(st.Fetch(ctx, remote, false, "+"+ref+":"+trackingRef(tp, ref))) {
			f.leave(ref, ids[ref], specs)
			found = true
		}
	}
	return found
}

// track points the tracking ref of each ref left out at the object the
// remote names, when this clone holds it: the copy is then what the
// remote holds, as a fetch would have left it.
func (f *fetchResult) track(ctx context.Context, st refstore.Clone, remote string) {
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return
	}
	for ref, oid := range f.lost {
		if _, err := st.ReadObject(ctx, oid); err != nil {
			continue
		}
		tracking := trackingRef(tp, ref)
		cur, err := refstore.ResolveID(ctx, st, tracking)
		if err != nil && !errors.Is(err, refstore.ErrNotFound) || cur == oid {
			continue
		}
		_ = st.Apply(ctx, "handoff: fetched from "+remote+" (an object it lost, held here)", refstore.Update{Ref: tracking, New: oid, Old: cur})
	}
}

// unknown is an error when the fetch left ref out and this clone lacks the
// object the remote names there: what the remote holds cannot be read, and
// must not be taken for what the copy here says.
func (f *fetchResult) unknown(ctx context.Context, st refstore.Records, remote, ref string) error {
	oid, ok := f.lost[ref]
	if !ok {
		return nil
	}
	if _, err := st.ReadObject(ctx, oid); err == nil {
		return nil
	}
	return &UnreachableError{Remote: remote, Err: fmt.Errorf("its %s names object %s, which it has lost (its gc raced a push): what it holds there cannot be read until a clone that has the object heals it with a sync", ref, oid)}
}

// healDir holds the heals in flight (refstore/local.go).
const healDir = "heal"

func healName(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return healDir + "/" + hex.EncodeToString(sum[:8])
}

// markRef is the mark of ref's lost object oid at the remote: it names
// both, so a clone holding the object knows where it goes.
func markRef(ref, oid string) string {
	return refstore.LostPrefix + oid + "/" + strings.TrimPrefix(ref, refstore.Root)
}

// parseMark is the ref and object a mark names.
func parseMark(mark string) (ref, oid string, ok bool) {
	rest, ok := strings.CutPrefix(mark, refstore.LostPrefix)
	if !ok {
		return "", "", false
	}
	oid, rel, ok := strings.Cut(rest, "/")
	if !ok || !refstore.IsID(oid, len(oid)) || refstore.CheckRef(refstore.Root+rel) != nil {
		return "", "", false
	}
	return refstore.Root + rel, oid, true
}

// heal settles the refs of remote that name objects it lost (ref →
// object). While one is there the remote takes no push but a deletion
// (its check of what a push brings walks every ref, and fails on it), so
// each is first deleted under a lease on the lost object; then what this
// clone holds is pushed again, which sends it, and the rest is marked lost
// at the remote (LostPrefix), where a clone that holds it, whose own
// fetches need nothing of it and so never fail, finds the mark and pushes
// it back (healMarked). A heal note per ref, written before the deletion,
// lets the next sync here finish a heal a kill cut short; a ref pushed
// back keeps its note until a later sync sees it there, since a copy of
// the deletion arriving late would find the same object under the lease
// and delete it again (found by the simulation, seed 10 of the widened
// run); found gone, it goes back only when the remote's archive holds
// nothing of it retired (seed 24). It returns what it did and what it
// could not, in words.
func (s *syncRun) heal(ctx context.Context, lost map[string]string) []string {
	st, remote := s.st, s.opts.Remote
	l := st.Local()
	notes, pushedBack := withHealNotes(l, lost)
	if len(notes) == 0 {
		return nil
	}
	ids, err := st.RemoteIDs(ctx, remote, byOwnName)
	if err != nil {
		return []string{fmt.Sprintf("healing what %s lost: %v", remote, err)}
	}
	// Every ref there naming a lost object goes with it: the remote takes
	// no push while one is left (the all-clear and the marks all name the
	// empty blob).
	lostOIDs := map[string]bool{}
	for _, oid := range lost {
		lostOIDs[oid] = true
	}
	for ref, oid := range ids {
		if lostOIDs[oid] && notes[ref] == "" {
			notes[ref] = oid
		}
	}
	var said, refs []string
	var gone []refstore.Update
	for _, ref := range slices.Sorted(maps.Keys(notes)) {
		oid := notes[ref]
		_, lostNow := lost[ref]
		lostNow = lostNow || lostOIDs[oid]
		switch {
		case pushedBack[ref] && !lostNow && ids[ref] == oid, ids[ref] != "" && ids[ref] != oid:
			// Pushed back and there, or moved on since: healed. A note
			// this sync pushed back stays until a later sync sees the ref
			// there (a late copy of the deletion, above); but it is not
			// deleted again: a second heal in the same sync (the fetch
			// after resumeHeals, or a push that met another lost object)
			// took the ref it had just put back for one still naming a
			// lost object, and deleted it again with no all-clear to guard
			// it (found by the simulation, seed 20071 of the widened run:
			// the ref emptied, its baton pushed back from a clone that had
			// pushed it in doubt, then dismissed there after its delivery).
			if !s.pushedBack[ref] || ids[ref] != oid {
				_ = l.Remove(healName(ref))
			}
			// Out of what this heal holds lost: a note of the all-clear's
			// that is settled so would keep the deletion below from taking
			// the all-clear with it (deleteLost), and have it put back as
			// one lost.
			delete(notes, ref)
			continue
		case pushedBack[ref] && !lostNow && ids[ref] == "":
			// Pushed back, and gone there since: a late copy of a
			// deletion leased on this very object took it (put back
			// below), or the team moved the ref on from it and retired
			// it. The archive tells them apart; pushing back a version
			// the remote retired brings it back to life: a baton claimed
			// and retired there was delivered a second time (found by
			// the simulation, seed 24: a clone that had healed its
			// waiting baton synced next after the claim's key was
			// retired, and pushed the waiting copy back). While the
			// archive cannot say (a month of it lost too, or the remote
			// unreachable), the note stays and nothing goes back.
			retired, err := s.archivedThere(ctx, ref, oid)
			if err != nil {
				said = append(said, fmt.Sprintf("%s's %s, pushed back from here after %s lost its object, is gone there again; not pushed back until its archive says whether it was retired: %v", remote, ref, remote, err))
				delete(notes, ref)
				continue
			}
			if retired {
				_ = l.Remove(healName(ref))
				delete(notes, ref)
				continue
			}
		case ids[ref] == oid:
			// Deleted under the lease, with a note first.
			if err := l.Write(ctx, healName(ref), []byte(ref+" "+oid+"\n")); err != nil {
				said = append(said, fmt.Sprintf("%s's %s names object %s, which %s has lost (its gc raced a push); not healed: %v", remote, ref, oid, remote, err))
				continue
			}
			gone = append(gone, refstore.Update{Ref: ref, Old: oid})
		}
		// Gone there already (a heal cut short, or a late deletion): put
		// back below.
		refs = append(refs, ref)
	}
	clear, took, stop := s.deleteLost(ctx, ids, notes, gone)
	if stop != "" {
		return append(said, stop)
	}
	if len(refs) > 0 && clear.underway && !took {
		// Gone there, with the all-clear, and not by this clone: a
		// teammate's heal is half done, and the ref may be one it
		// deleted, naming a newer version than the one noted here, which
		// it is putting back. This clone's version pushed back there
		// would write over it, and bring back one the team has retired
		// since (found by the simulation, seed 1035 of the widened run
		// with continuations: a heal note that outlived the ref's moving
		// on). The notes stay: a sync after that heal finds the ref there
		// (healed) or still gone (put back then).
		return append(said, healUnderway(remote))
	}
	// An all-clear whose own object was lost is put back fresh, never
	// with its old blob: a late copy of a deletion leased on that blob
	// (this heal's, or an earlier one's, after an echo of the push that
	// first wrote it) would find it again and delete it, and every clone
	// would wait on a heal nobody holds (found by the simulation, seed
	// 1796571007).
	clearLost := notes[allClearRef] != "" || notes[trackedRef] != ""
	if clearLost {
		refs = slices.DeleteFunc(refs, func(ref string) bool { return ref == allClearRef || ref == trackedRef })
	}
	putsClear := clearLost || (took || !clear.there && !clear.underway)
	return append(said, s.putBack(ctx, refs, notes, putsClear)...)
}

// archivedThere reports whether the remote's archive holds ref's version
// oid retired, or a version written after seeing it: a baton archived, or
// the key's floor descending from it (archiveView.stale); any other
// record at that version or after it (archiveView.behind). A version this
// clone cannot read as a record, or of a kind never archived, is not.
func (s *syncRun) archivedThere(ctx context.Context, ref, oid string) (bool, error) {
	return archivedAt(ctx, s.st, s.opts.Remote, ref, oid)
}

// archivedAt is archivedThere for remote.
func archivedAt(ctx context.Context, st refstore.Clone, remote, ref, oid string) (bool, error) {
	k := kindOf(ref)
	if k == nil {
		return false, nil
	}
	v := versionOf(ctx, st, k, ref, oid)
	if v == nil {
		return false, nil
	}
	if k.prefix == refstore.HandoffsPrefix {
		return staleThere(ctx, st, remote, ref, v)
	}
	av, err := remoteArchive(ctx, st, remote)
	if err != nil {
		return false, err
	}
	return av.behind(ctx, k, v)
}

// deleteLost deletes the refs gone names (their heal notes written) at
// the remote, under leases on their lost objects. The all-clear goes with
// them, in one atomic push, and comes back with the marks (allclear.go):
// while this clone holds it away (a took note), its heals put it back;
// while another does, when it is gone and was seen, this one deletes
// nothing until that finishes. It returns what the remote showed of the
// all-clear, whether this clone holds it away, and, when the heal stops
// here, why.
func (s *syncRun) deleteLost(ctx context.Context, ids, notes map[string]string, gone []refstore.Update) (clearView, bool, string) {
	st, remote, l := s.st, s.opts.Remote, s.st.Local()
	clear := observeClear(ctx, l, remote, ids)
	took := tookClear(l, remote)
	if len(gone) == 0 {
		return clear, took, ""
	}
	switch {
	case clear.there:
		// Taken away by this heal, and noted so first, whether it goes
		// with the deletions or is one of them (its own object lost:
		// heal put it in gone). Without the note, a heal of a lost
		// all-clear whose putting back failed left this clone, like every
		// other, waiting on "a teammate's heal" that was its own, while a
		// ref naming a lost object kept the remote from taking the
		// all-clear back: every push held for good (found by the
		// simulation, seed 10: its all-clear's blob lost at the push
		// putting it back, the lease that push healed lost again).
		// The note names the deletion's leases (holdNote): a sync that
		// finds the all-clear there again ends the hold once the
		// deletion can no longer land (heldNoMore).
		if notes[allClearRef] == "" {
			gone = append(gone, refstore.Update{Ref: allClearRef, Old: ids[allClearRef]})
		}
		if err := l.Write(ctx, tookName(remote), holdNote(gone)); err != nil {
			forget(l, gone)
			return clear, took, fmt.Sprintf("healing what %s lost: %v (the next sync tries again)", remote, err)
		}
		took = true
	case clear.underway && !took:
		forget(l, gone)
		return clear, took, healUnderway(remote)
	}
	if err := st.Push(ctx, remote, gone, refstore.PushOptions{NoVerify: true, Atomic: true}); err != nil {
		if staleLease(err) && !allGone(ctx, st, remote, gone) {
			// Refused whole, and something of it is still there: nothing
			// of this push landed.
			forget(l, gone)
			if clear.there {
				_ = l.Remove(tookName(remote))
			}
		}
		return clear, took, fmt.Sprintf("healing what %s lost: deleting the refs that name lost objects: %v (the next sync tries again)", remote, err)
	}
	return clear, took, ""
}

// healUnderway is what a heal says when it waits on a teammate's.
func healUnderway(remote string) string {
	return fmt.Sprintf("%s lost objects its refs name (its gc raced a push), and a teammate's heal of them is under way: this sync waits for it", remote)
}

// allGone reports whether the remote now shows none of the refs gone
// deletes. A deletion refused as stale may have landed all the same: a
// push whose answer was lost and that was sent again is refused by its
// own first landing (found by the simulation, seed 1796553708284203774:
// the all-clear gone for good, every clone's pushes held). The remote
// cannot say whose deletion it was, so this clone keeps its notes and
// finishes the heal at its next sync: by then a teammate's heal of the
// same refs, which deleted the same set, has put its own back, and
// pushing back what is there already is refused as stale, harmlessly. A
// listing that fails is taken for "gone": the notes kept cost one more
// look at the next sync.
func allGone(ctx context.Context, st refstore.Remote, remote string, gone []refstore.Update) bool {
	ids, err := st.RemoteIDs(ctx, remote, byOwnName)
	if err != nil {
		return true
	}
	for _, u := range gone {
		if ids[u.Ref] != "" {
			return false
		}
	}
	return true
}

// putBack pushes back each of refs (gone at the remote, their lost
// objects in notes) whose object this clone holds, marks the rest lost
// there, and with putsClear puts the all-clear back, in one push.
func (s *syncRun) putBack(ctx context.Context, refs []string, notes map[string]string, putsClear bool) []string {
	st, remote, l := s.st, s.opts.Remote, s.st.Local()
	var said []string
	var back, marks []refstore.Update
	if putsClear {
		ups, err := putClear(ctx, st)
		if err != nil {
			return append(said, err.Error())
		}
		marks = append(marks, ups...)
	}
	empty := ""
	for _, ref := range refs {
		oid := notes[ref]
		if strings.HasPrefix(ref, refstore.LostPrefix) {
			_, _ = st.WriteBlob(ctx, nil) // what every ref there names: anyone holds it
		}
		if _, err := st.ReadObject(ctx, oid); err == nil {
			back = append(back, refstore.Update{Ref: ref, New: oid})
			said = append(said, fmt.Sprintf("healed %s's %s: it named object %s, which %s had lost (its gc raced a push); pushed again from here", remote, ref, oid, remote))
			continue
		}
		if empty == "" {
			var err error
			if empty, err = st.WriteBlob(ctx, nil); err != nil {
				return append(said, err.Error())
			}
		}
		marks = append(marks, refstore.Update{Ref: markRef(ref, oid), New: empty})
		said = append(said, fmt.Sprintf("%s's %s named object %s, which %s has lost (its gc raced a push): marked lost there; a clone that holds the object pushes it back with its next sync", remote, ref, oid, remote))
	}
	if err := st.Push(ctx, remote, append(back, marks...), refstore.PushOptions{NoVerify: true}); err != nil && !staleLease(err) {
		if more := lostAtPush(ctx, st, remote, err); len(more) > 0 && !s.healingMore {
			// Another ref there names a lost object, which no fetch of
			// ours met: healed with these, once (found by the simulation,
			// seed 6084: an archive month's tree lost beside a session).
			s.healingMore = true
			defer func() { s.healingMore = false }()
			return append(said, s.heal(ctx, more)...)
		}
		return append(said, fmt.Sprintf("healing what %s lost: %v (the next sync here tries again)", remote, err))
	}
	if putsClear {
		_ = l.Remove(tookName(remote))
	}
	for _, u := range back {
		_ = l.Write(ctx, healName(u.Ref), []byte(u.Ref+" "+u.New+" "+healPushedBack+"\n"))
		s.pushedBack = mapWithTrue(s.pushedBack, u.Ref)
	}
	for _, u := range marks {
		if ref, oid, ok := parseMark(u.Ref); ok {
			if l.Write(ctx, markedName(ref), []byte(ref+" "+oid+"\n")) == nil {
				_ = l.Remove(healName(ref))
			}
		}
	}
	return said
}

// markedDir holds a note per ref this clone marked lost at the remote,
// until a sync finds the mark gone: the ref is absent there meanwhile,
// but not unknown to the remote (knewRef).
const markedDir = "marked"

func markedName(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return markedDir + "/" + hex.EncodeToString(sum[:8])
}

// markedHere reports whether this clone marked ref lost at a remote and
// has not seen the mark go.
func markedHere(l refstore.Local, ref string) bool {
	data, err := l.Read(markedName(ref))
	return err == nil && strings.HasPrefix(string(data), ref+" ")
}

// dropGoneMarks removes the notes of marks the remote no longer holds
// (marks, as marked returns them).
func dropGoneMarks(l refstore.Local, marks map[string]lostMark) {
	names, err := l.List(markedDir)
	if err != nil || len(names) == 0 {
		return
	}
	held := map[string]bool{}
	for _, m := range marks {
		held[markedName(m.ref)] = true
	}
	for _, n := range names {
		if !held[markedDir+"/"+n] {
			_ = l.Remove(markedDir + "/" + n)
		}
	}
}

// forget drops the heal notes of deletions that did not happen.
func forget(l refstore.Local, gone []refstore.Update) {
	for _, u := range gone {
		if u.Ref != allClearRef {
			_ = l.Remove(healName(u.Ref))
		}
	}
}

// resumeHeals finishes the heals this clone's earlier syncs left noted,
// once the remote answered (listErr nil): a deletion may have landed, and
// then no fetch meets the lost object again, while the ref stays gone
// there (found by the simulation, seed 6105). It reports whether there
// were any.
func (s *syncRun) resumeHeals(ctx context.Context, listErr error) bool {
	if s.opts.DryRun || listErr != nil {
		return false
	}
	pending, _ := withHealNotes(s.st.Local(), nil)
	if len(pending) == 0 {
		return false
	}
	s.noteUnhealed(ctx, pending)
	s.fetchNotes = append(s.fetchNotes, s.heal(ctx, nil)...)
	return true
}

// healPushedBack marks a heal note whose object was pushed back: the next
// sync that sees it there drops the note.
const healPushedBack = "pushed-back"

// withHealNotes is lost with the heals this clone's syncs left noted, and
// which of those were pushed back already.
func withHealNotes(l refstore.Local, lost map[string]string) (map[string]string, map[string]bool) {
	out := maps.Clone(lost)
	var pushedBack map[string]bool
	names, err := l.List(healDir)
	if err != nil {
		return out, nil
	}
	for _, n := range names {
		data, err := l.Read(healDir + "/" + n)
		fields := strings.Fields(string(data))
		if err != nil || len(fields) < 2 {
			_ = l.Remove(healDir + "/" + n)
			continue
		}
		ref, oid := fields[0], fields[1]
		if _, isLost := out[ref]; isLost {
			continue
		}
		out = mapWith(out, ref, oid)
		if len(fields) > 2 && fields[2] == healPushedBack {
			pushedBack = mapWithTrue(pushedBack, ref)
		}
	}
	return out, pushedBack
}

func mapWithTrue(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

func mapWith(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// lostMark is a mark of a lost object at the remote: the ref and object
// it names, and the blob the mark itself names (its deletion's lease).
type lostMark struct{ ref, oid, at string }

// marked returns the marks of lost objects among what the remote lists
// (ids, keyed as RemoteIDs keys them, by mark ref), and takes them out of
// ids.
func marked(ids map[string]string) map[string]lostMark {
	var out map[string]lostMark
	for mark, at := range ids {
		if !strings.HasPrefix(mark, refstore.LostPrefix) {
			continue
		}
		delete(ids, mark)
		if ref, oid, ok := parseMark(mark); ok {
			if out == nil {
				out = map[string]lostMark{}
			}
			out[mark] = lostMark{ref: ref, oid: oid, at: at}
		}
	}
	return out
}

// healMarked pushes back each object a mark names that this clone holds,
// to its ref when the remote has none there (a ref written anew since is
// healed), and removes the mark.
func healMarked(ctx context.Context, st refstore.Clone, remote string, marks map[string]lostMark) []string {
	// The versions of each ref lost there that this clone holds: more than
	// one when a ref was lost, written anew and lost again (found by the
	// simulation, seed 1 with continuation: both pushed to one ref). The
	// join picks the one that goes back; every mark of the ref goes.
	held := map[string][]string{} // ref -> marks held here
	for _, mark := range slices.Sorted(maps.Keys(marks)) {
		if _, err := st.ReadObject(ctx, marks[mark].oid); err == nil {
			held[marks[mark].ref] = append(held[marks[mark].ref], mark)
		}
	}
	var ups, done []refstore.Update
	var notes []string
	for _, ref := range slices.Sorted(maps.Keys(held)) {
		oid := bestHeld(ctx, st, ref, marks, held[ref])
		// A version the remote's archive holds, or one written after
		// it, was moved on from and retired there since it was lost:
		// pushed back, it would come back to life over the record's
		// retired history (found by the simulation, seed 1478 of the
		// widened run with continuations: a session's first version
		// lost, the session replaced and retired, and the lost version
		// pushed back read replacedBy "" for good). Its marks go, with
		// nothing pushed back; while the archive cannot say, they stay.
		retired, err := archivedAt(ctx, st, remote, ref, oid)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s's %s named object %s, which %s lost; not pushed back until its archive says whether it was retired: %v", remote, ref, oid, remote, err))
			continue
		}
		for _, mark := range held[ref] {
			done = append(done, refstore.Update{Ref: mark, Old: marks[mark].at})
		}
		if retired {
			notes = append(notes, fmt.Sprintf("%s's %s named object %s, which %s lost (its gc raced a push); not pushed back: the record was retired there since", remote, ref, oid, remote))
			continue
		}
		ups = append(ups, refstore.Update{Ref: ref, New: oid})
		notes = append(notes, fmt.Sprintf("healed %s's %s: a teammate found it naming object %s, which %s had lost (its gc raced a push); pushed again from here", remote, ref, oid, remote))
	}
	if len(ups) == 0 && len(done) == 0 {
		return notes
	}
	if len(ups) > 0 {
		if err := st.Push(ctx, remote, ups, refstore.PushOptions{NoVerify: true}); err != nil && !staleLease(err) {
			return append(notes, fmt.Sprintf("healing what %s lost: %v", remote, err))
		}
	}
	if err := st.Push(ctx, remote, done, refstore.PushOptions{NoVerify: true}); err != nil && !staleLease(err) {
		notes = append(notes, fmt.Sprintf("removing the marks of what %s lost: %v", remote, err))
	}
	return notes
}

// healHeldMarks is healMarked for the marks remote holds now whose
// objects this clone holds, outside a sync's fetch: its notes, none when
// there were none to heal or the remote could not be asked.
func healHeldMarks(ctx context.Context, st refstore.Clone, remote string) []string {
	ids, err := st.RemoteIDs(ctx, remote, lostSpec)
	if err != nil {
		return nil
	}
	marks := marked(ids)
	for mark, m := range marks {
		if _, err := st.ReadObject(ctx, m.oid); err != nil {
			delete(marks, mark)
		}
	}
	if len(marks) == 0 {
		return nil
	}
	return healMarked(ctx, st, remote, marks)
}

// healForNotes is what a sync heals before it settles the deletions noted
// here (Sync): the marks this clone can heal (healHeldMarks) and its own
// heals left unfinished (resumeHeals). It reports whether there were
// any; what it did is in s.fetchNotes.
func (s *syncRun) healForNotes(ctx context.Context) bool {
	n := len(s.fetchNotes)
	s.fetchNotes = append(s.fetchNotes, healHeldMarks(ctx, s.st, s.opts.Remote)...)
	resumed := s.resumeHeals(ctx, nil)
	return resumed || len(s.fetchNotes) > n
}

// bestHeld is the version of ref, among the lost ones the marks name,
// that the join keeps: the first, when they cannot be read as records.
func bestHeld(ctx context.Context, st refstore.Clone, ref string, marks map[string]lostMark, held []string) string {
	k := kindOf(ref)
	var best *version
	for _, mark := range held {
		e, err := st.ReadObject(ctx, marks[mark].oid)
		if err != nil || k == nil {
			continue
		}
		v, err := read(k, ref, e)
		if err != nil {
			continue
		}
		if best == nil {
			best = v
			continue
		}
		if w := decide(k, ref, best, v, storeLookup(ctx, st)).winner; w != nil {
			best = w
		}
	}
	if best == nil {
		return marks[held[0]].oid
	}
	return best.oid
}

// unhealed are the refs marks name whose objects this clone lacks (ref →
// object).
func unhealed(ctx context.Context, st refstore.Records, marks map[string]lostMark) map[string]string {
	var out map[string]string
	for _, m := range marks {
		if _, err := st.ReadObject(ctx, m.oid); err != nil {
			out = mapWith(out, m.ref, m.oid)
		}
	}
	return out
}

// noteUnhealed adds to s.unhealed the refs of lost whose objects this
// clone lacks: heal marks them lost, and this sync pushes nothing there.
func (s *syncRun) noteUnhealed(ctx context.Context, lost map[string]string) {
	for ref, oid := range lost {
		if _, err := s.st.ReadObject(ctx, oid); err != nil {
			s.unhealed = mapWith(s.unhealed, ref, oid)
		}
	}
}

// leaveUnhealed takes the refs marked lost at the remote that this clone
// cannot heal out of this sync's join, with a warning: the ref is absent
// there for now, and a version pushed from here would replace the lost
// one, which a teammate still holds and pushes back; nor is the absence
// news (seen.go keeps what the remote held before).
func (s *syncRun) leaveUnhealed(ids refIDs) {
	for _, ref := range slices.Sorted(maps.Keys(s.unhealed)) {
		_, here := ids.local[ref]
		delete(ids.local, ref)
		delete(ids.remote, ref)
		if here {
			s.fetchNotes = append(s.fetchNotes, fmt.Sprintf("%s not synced: %s lost the object %s it named there (its gc raced a push), and a clone that holds it is to push it back first", ref, s.opts.Remote, s.unhealed[ref]))
		}
	}
}

// markedLost is an error when remote marks ref lost (its object lost
// there, the ref deleted until a clone holding it pushes it back): what
// the remote holds there cannot be known, so nothing may be decided there.
func markedLost(ctx context.Context, st refstore.Clone, remote, ref string) error {
	lost, err := lostThereNow(ctx, st, remote, func(r string) bool { return r == ref })
	if err != nil {
		return err
	}
	if len(lost) == 0 {
		return nil
	}
	m := lost[slices.Min(slices.Collect(maps.Keys(lost)))] // the same one each time: the simulation replays by its words
	return errMarkedLost(remote, m.ref, m.oid)
}

func errMarkedLost(remote, ref, oid string) error {
	return &UnreachableError{Remote: remote, Err: fmt.Errorf("its %s named object %s, which it lost (its gc raced a push): nothing is decided there until a clone that holds the object pushes it back with a sync", ref, oid)}
}

// lostThereNow is the marks of the refs of remote that match, lost there
// (mark → what it names), asked of the remote now. It is an error when
// what the remote holds cannot be known at all: a heal of this clone's own
// that deleted a matching ref there and has not yet marked it or pushed it
// back (the remote shows nothing there, and a decision taking that for
// "never held" would create the ref anew over a lost claim: found by the
// simulation, seed 6045, a baton delivered twice), or a teammate's heal
// half done.
func lostThereNow(ctx context.Context, st refstore.Clone, remote string, match func(ref string) bool) (map[string]lostMark, error) {
	notes, back := withHealNotes(st.Local(), nil)
	for _, ref := range slices.Sorted(maps.Keys(notes)) {
		if match(ref) && !back[ref] {
			return nil, &UnreachableError{Remote: remote, Err: fmt.Errorf("its %s named object %s, which it lost (its gc raced a push), and this clone's heal of it is not finished: nothing is decided there until a sync finishes it", ref, notes[ref])}
		}
	}
	ids, err := st.RemoteIDs(ctx, remote, lostSpec)
	if err != nil {
		return nil, &UnreachableError{Remote: remote, Err: err}
	}
	if observeClear(ctx, st.Local(), remote, ids).underway {
		return nil, errHealUnderway(remote)
	}
	lost := marked(ids)
	maps.DeleteFunc(lost, func(_ string, m lostMark) bool { return !match(m.ref) })
	return lost, nil
}

// staleLease reports a push refused only because the remote's ref was not
// what the lease said: another push got there first.
func staleLease(err error) bool {
	var pe *refstore.PushError
	if !errors.As(err, &pe) || len(pe.Rejected) == 0 {
		return false
	}
	for _, ref := range pe.Rejected {
		if !strings.Contains(pe.Reasons[ref], "stale info") {
			return false
		}
	}
	return true
}
