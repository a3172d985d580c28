package teamsync

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// A clone that stays away longer than the tombstone age would push a
// cancelled baton back: the remote has collected the tombstone, and the
// clone still holds the live baton it never saw cancelled. So sync keeps,
// per remote, what the remote held when this clone last synced with it. A
// record the remote has dropped since, which this clone has not changed
// since, is withheld: kept here, never pushed back, and reported.
//
// The note is keyed by the remote's URL as well as its name: a remote
// pointed somewhere new starts with no note, so an empty new remote does
// not look like one that dropped every record.

// remoteNote names the local note dir/<remote, encoded>: seen/ (what the
// remote held at the last sync), doubt/ (doubt.go).
func remoteNote(dir, remote string) (string, error) {
	enc, err := refstore.EncodeComponent(remote)
	if err != nil {
		return "", err
	}
	return dir + "/" + enc, nil
}

// readSeen returns ref → blob id of what remote held after the last sync,
// or nil when there is no note for this remote at this URL. A note that
// cannot be read is no note: the guard is lost, never a record.
func readSeen(st refstore.Writer, remote, url string) map[string]string {
	p, err := remoteNote("seen", remote)
	if err != nil {
		return nil
	}
	return readRefNote(st, p, url)
}

// readRefNote reads a note of refs and blob ids kept for the remote at
// url (the seen note, the doubt note): nil when there is none, it is for
// another URL, or it cannot be read.
func readRefNote(st refstore.Writer, p, url string) map[string]string {
	b, err := st.Local().Read(p)
	if err != nil {
		return nil
	}
	// One string, cut into lines that share its memory: the seen note
	// names every live ref, read by every sync.
	first, rest, _ := strings.Cut(string(b), "\n")
	if first != "url "+url {
		return nil
	}
	seen := make(map[string]string, strings.Count(rest, "\n"))
	for line := range strings.Lines(rest) {
		ref, oid, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if !ok || !strings.HasPrefix(ref, refstore.Root) {
			return nil
		}
		seen[ref] = oid
	}
	return seen
}

// remoteNotes is what this clone knows of what remote holds: its note of
// what the remote held after the last sync (seen), and of what pushes
// with no answer may have left there (doubt, doubt.go).
func remoteNotes(ctx context.Context, st refstore.Clone, remote string) (seen, doubt map[string]string) {
	rc, err := checkRemote(ctx, st, remote)
	if err != nil {
		return nil, nil
	}
	return readSeen(st, remote, rc.URL), readDoubt(st, remote, rc.URL)
}

// writeSeen replaces remote's note with seen.
func writeSeen(st refstore.Writer, remote, url string, seen map[string]string) error {
	p, err := remoteNote("seen", remote)
	if err != nil {
		return err
	}
	return writeRefNote(st, p, url, seen)
}

// writeRefNote replaces the note at p with url and refs.
func writeRefNote(st refstore.Writer, p, url string, seen map[string]string) error {
	if strings.ContainsAny(url, "\n\r") {
		return fmt.Errorf("remote URL %q has a line break", url)
	}
	refs := make([]string, 0, len(seen))
	for ref := range seen {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	var b bytes.Buffer
	b.WriteString("url " + url + "\n")
	for _, ref := range refs {
		b.WriteString(ref + " " + seen[ref] + "\n")
	}
	return st.Local().Write(context.Background(), p, b.Bytes())
}

// withhold marks the decisions whose record the remote dropped since it
// was seen there, unchanged here since: they stay as they are locally and
// are not pushed.
func withhold(ds []decision, seen map[string]string) {
	if seen == nil {
		return
	}
	for i := range ds {
		d := &ds[i]
		if d.local != nil && d.remote == nil && d.winner == d.local && seen[d.ref] == d.local.oid {
			d.withheld = true
		}
	}
}

// holdUnsettled marks the decisions that would push, to a ref the remote
// does not hold, the waiting version a claim made here started from while
// that claim is unsettled (unsettled: ref → that version,
// handoff.UnsettledClaims): the claim may have won there and the baton
// been retired since. They wait here until a start settles the claim, and
// say so.
func holdUnsettled(ds []decision, unsettled map[string]string) []string {
	var notes []string
	for i := range ds {
		d := &ds[i]
		if d.local != nil && d.remote == nil && d.winner == d.local && unsettled[d.ref] == d.local.oid {
			d.unsettled = true
			notes = append(notes, fmt.Sprintf("%s not pushed: a claim of it made here is not settled (its start died or could not record it); the next start here settles it", d.ref))
		}
	}
	return notes
}

// seenAfter is what remote holds once a sync that decided ds has pushed:
// every winner, the keys both sides held alike (settled), the withheld
// records (so they stay withheld), and for the keys this sync could not
// read (unread), what the remote holds there, else their old entries: a
// malformed record at the remote is no move of the remote at the next
// sync (movedSince), which would read every record again each time.
func seenAfter(old map[string]string, ds []decision, settled, unread map[string]string) map[string]string {
	decided := make(map[string]bool, len(ds)+len(settled))
	seen := make(map[string]string, len(ds)+len(settled))
	for ref, oid := range settled {
		decided[ref] = true
		seen[ref] = oid
	}
	for _, d := range ds {
		decided[d.ref] = true
		switch {
		case d.withheld:
			seen[d.ref] = d.local.oid
		case d.unsettled: // not pushed: the remote holds nothing there
		case d.winner != nil:
			seen[d.ref] = d.winner.oid
		}
	}
	for ref, oid := range unread {
		if oid != "" && !decided[ref] {
			decided[ref] = true
			seen[ref] = oid
		}
	}
	for ref, oid := range old {
		if !decided[ref] {
			seen[ref] = oid
		}
	}
	return seen
}

// seenFetched is what remote held when a sync fetched it, for a sync that
// joined it here and then could not push: each decision's remote version
// (none where the remote held none), the keys both sides held alike, the
// withheld records (so they stay withheld), and the unread keys as
// seenAfter keeps them. It is as true as seenAfter's after a push, of an
// earlier moment: a record this sync joined with the remote's version and
// retired here is then no teammate's news at the next sync, when the
// remote still holds that version (found by the simulation, seed
// 1796640100: a session replaced here and released concurrently in
// another clone, joined and retired by a sync whose push failed, came
// back at the next one reading replacedBy="").
func seenFetched(old map[string]string, ds []decision, settled, unread map[string]string) map[string]string {
	seen := seenAfter(old, ds, settled, unread)
	for _, d := range ds {
		switch {
		case d.withheld:
		case d.remote != nil:
			seen[d.ref] = d.remote.oid
		default:
			delete(seen, d.ref)
		}
	}
	return seen
}

// movedSince reports whether the remote holds a record other than what it
// held after the last sync (seen; nil: no note), by the tracking copies
// of this fetch: a claim, cancel or dismissal decided there (by this
// clone's commands too, which leave the two sides alike) made a record
// final, which a sync with nothing differing retires all the same. Keys
// the note holds that the remote does not (withheld) are no move.
func movedSince(remote, seen map[string]string) bool {
	if seen == nil {
		return true
	}
	for ref, oid := range remote {
		if seen[ref] != oid {
			return true
		}
	}
	return false
}
