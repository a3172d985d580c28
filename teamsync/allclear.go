package teamsync

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// A heal (lost.go) deletes a ref that names an object the remote lost,
// then, by a second push, marks it lost or pushes it back: while a ref
// names a lost object the remote takes no push but a deletion, so the
// two cannot be one. Between them the remote shows nothing there, just
// as for a ref never written, and a decision creating the ref anew would
// decide over a holding nobody can see: a claim of a baton already
// claimed, a lease already held (found by the simulation, seeds 6045 and
// 6093: the healer killed, or its second push lost, between the two).
//
// The all-clear closes that window. It is a ref at the remote, present
// whenever no heal there is half done: a heal deletes it in the same
// atomic push as the refs it deletes (a deletion, so the remote takes
// it), and puts it back with its marks. A decision that would create a
// ref anew first looks: with the all-clear gone, nothing new is decided
// there until the heal finishes. A remote that never had one (new, or
// written by an older git-handoff) is told apart by a second ref written
// with the first and deleted by no heal but of its own object
// (trackedRef), and by memory: a clone that has seen the all-clear at a
// remote knows its absence is a heal's.
//
// Each putting back names a blob of its own (a random line), and a heal
// deletes it under a lease on that id: a late copy of a heal's deletion
// (a push echoed by the network) then finds another all-clear there and
// is refused whole, refs and all. Were it the same blob each time, the
// copy would delete the all-clear again after its heal put it back, and
// with it the ref pushed back with the same object: the all-clear gone
// for good, every clone's pushes held (found by the simulation, seed
// 1796558440929616849). Putting it back where a teammate already did is
// refused as stale, harmlessly.
const allClearRef = refstore.LostPrefix + "clear"

// trackedRef says the remote keeps an all-clear: written with its first,
// never deleted by a heal of another ref.
const trackedRef = refstore.LostPrefix + "tracked"

// allClearDir holds, per remote, what this clone knows of its
// all-clear: "seen", or "seen absent <unix seconds>" once a listing found
// it gone, from then on.
const allClearDir = "allclear"

// abandonedAfter is how long an all-clear may stay gone before a clone
// takes the heal that removed it for abandoned (its clone gone for good)
// and puts it back, with a warning: otherwise a remote whose healer never
// returned would decide nothing new and heal nothing else, ever.
const abandonedAfter = time.Hour

// clearView is what one listing of a remote showed of its all-clear, read
// against this clone's memory of it.
type clearView struct {
	there bool
	// underway: gone, and seen before, for less than abandonedAfter: a
	// teammate's heal is half done.
	underway bool
	// abandoned: gone for abandonedAfter or longer since it was seen.
	abandoned bool
}

func allClearNote(remote string) (string, error) {
	enc, err := refstore.EncodeComponent(remote)
	if err != nil {
		return "", err
	}
	return allClearDir + "/" + enc, nil
}

// observeClear reads what a listing of remote (ids, keyed by the refs'
// own names) shows of its all-clear and notes it here: the note changes
// only when what was seen changes, so a listing costs no write.
func observeClear(ctx context.Context, l refstore.Local, remote string, ids map[string]string) clearView {
	name, err := allClearNote(remote)
	if err != nil {
		return clearView{}
	}
	data, _ := l.Read(name)
	seen, absentSince := parseClearNote(string(data))
	_, tracked := ids[trackedRef]
	seen = seen || tracked
	if _, there := ids[allClearRef]; there {
		if !seen || !absentSince.IsZero() {
			_ = l.Write(ctx, name, []byte("seen\n"))
		}
		return clearView{there: true}
	}
	if !seen {
		return clearView{}
	}
	now := time.Now()
	if absentSince.IsZero() {
		absentSince = now
		_ = l.Write(ctx, name, fmt.Appendf(nil, "seen absent %d\n", now.Unix()))
	}
	if now.Sub(absentSince) >= abandonedAfter {
		return clearView{abandoned: true}
	}
	return clearView{underway: true}
}

func parseClearNote(s string) (seen bool, absentSince time.Time) {
	f := strings.Fields(s)
	if len(f) == 0 || f[0] != "seen" {
		return false, time.Time{}
	}
	if len(f) == 3 && f[1] == "absent" {
		if sec, err := strconv.ParseInt(f[2], 10, 64); err == nil {
			return true, time.Unix(sec, 0)
		}
	}
	return true, time.Time{}
}

// errHealUnderway is the refusal of a decision while a teammate's heal is
// half done at remote.
func errHealUnderway(remote string) error {
	return &UnreachableError{Remote: remote, Err: fmt.Errorf("a teammate's sync is healing a ref that names an object it lost (its gc raced a push) and has not finished: nothing new is decided there until it does (its next sync finishes it)")}
}

// tookName is the note this clone keeps while an all-clear it deleted is
// not yet back: the heal that holds it away is this clone's, which puts it
// back once its deletions are marked or pushed back, whatever else the
// remote shows by then.
func tookName(remote string) string {
	name, err := allClearNote(remote)
	if err != nil {
		return ""
	}
	return name + ".took"
}

// tookClear reports whether this clone holds remote's all-clear away.
func tookClear(l refstore.Local, remote string) bool {
	_, err := l.Read(tookName(remote))
	return err == nil
}

// holdNote is a took note's content: the leases of the deletion that
// takes the all-clear away, a line "<ref> <object>" each.
func holdNote(gone []refstore.Update) []byte {
	var b strings.Builder
	for _, u := range gone {
		b.WriteString(u.Ref + " " + u.Old + "\n")
	}
	return []byte(b.String())
}

// heldNoMore ends this clone's hold of the all-clear (its took note) when
// a sync's listing (ids, keyed by the refs' own names) shows the all-clear
// there and the deletion that took it can no longer land: an all-clear of
// another blob is there (each putting back names a fresh one), or a ref
// the deletion is leased on names something else now (it is atomic). Such
// a hold outlived its deletion: it said so still when a teammate's heal
// took the all-clear later, and this clone's sync took that heal for its
// own, put the all-clear back in the middle of it and a stale version of
// its own with it (found by the simulation, seed 1035 of the widened run
// with continuations: a claimed baton's waiting copy came back, and was
// cancelled). A deletion that can land yet keeps the hold: a late copy of
// it may take the all-clear away after this listing, and then no clone
// but this one puts it back (seed 952 of the widened run, where a hold
// dropped at the sight of the all-clear left every clone waiting on a
// heal nobody held). A note naming no leases (an older git-handoff's)
// keeps it too.
func (s *syncRun) heldNoMore(ctx context.Context, ids map[string]string) {
	l, remote := s.st.Local(), s.opts.Remote
	data, err := l.Read(tookName(remote))
	if err != nil {
		return
	}
	leases := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if ref, oid, ok := strings.Cut(line, " "); ok {
			leases[ref] = oid
		}
	}
	held, there := ids[allClearRef]
	if !there || leases[allClearRef] == "" {
		return
	}
	if held == leases[allClearRef] {
		own, err := s.st.RemoteIDs(ctx, remote, byOwnName)
		if err != nil {
			return
		}
		landable := true
		for ref, oid := range leases {
			landable = landable && own[ref] == oid
		}
		if landable {
			return
		}
	}
	_ = l.Remove(tookName(remote))
}

// putClear are the updates that put the all-clear back at the remote,
// with trackedRef (up to date where it is).
func putClear(ctx context.Context, st refstore.Writer) ([]refstore.Update, error) {
	nonce, err := refstore.Nonce(st, 12)
	if err != nil {
		return nil, err
	}
	clear, err := st.WriteBlob(ctx, []byte("all-clear "+hex.EncodeToString(nonce)+"\n"))
	if err != nil {
		return nil, err
	}
	empty, err := st.WriteBlob(ctx, nil)
	if err != nil {
		return nil, err
	}
	return []refstore.Update{{Ref: allClearRef, New: clear}, {Ref: trackedRef, New: empty}}, nil
}

// settleClear, at a sync, writes the all-clear at a remote that never
// had one (or whose healer abandoned its heal), once no heal of this
// clone's is pending: from then on a heal there can be seen by its
// absence. It returns what to say.
func (s *syncRun) settleClear(ctx context.Context, v clearView) []string {
	took := tookClear(s.st.Local(), s.opts.Remote)
	if v.there || v.underway && !took || s.opts.DryRun {
		return nil
	}
	if pending, _ := withHealNotes(s.st.Local(), nil); len(pending) > 0 {
		return nil // the heal puts it back when it finishes
	}
	ups, err := putClear(ctx, s.st)
	if err == nil {
		err = s.st.Push(ctx, s.opts.Remote, ups, refstore.PushOptions{NoVerify: true})
	}
	if err == nil || staleLease(err) {
		_ = s.st.Local().Remove(tookName(s.opts.Remote))
	}
	if err != nil && !staleLease(err) {
		return []string{fmt.Sprintf("writing %s's all-clear of heals: %v (the next sync tries again)", s.opts.Remote, err)}
	}
	if v.abandoned {
		return []string{fmt.Sprintf("a teammate's heal of what %s lost was left half done for over %s: taken for abandoned; a record it deleted there is gone unless its clone syncs again", s.opts.Remote, abandonedAfter)}
	}
	return nil
}
