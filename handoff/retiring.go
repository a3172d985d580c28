package handoff

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// An end over a baton already final at its ref (claimed, cancelled or
// dismissed, and not retired yet: no sync has seen it) replaces it there,
// and the final baton leaves the live refs with no retirement to archive
// it: its ref's reflog kept it until the ref retired, then a prune took
// it, and `git handoff log` lost its creation and its claim (found by the
// soak's check that every baton ends up held at the remote). Archiving it
// in the end's own transaction costs every end after a claim a tree build
// (four git processes), so the end notes it instead (RetiringDir), before
// its transaction (and archives it itself only when the note cannot be
// written), and the next sync archives what is noted
// (ArchiveRetiring) before it retires anything: the reflog keeps the blob
// until then, since only a sync takes a ref's history. An end that finds
// many notes waiting archives them itself (archiveRetiringWhenMany): a
// clone with no remote never syncs.

// RetiringDir holds the notes of final batons an end replaced, one file
// each (refstore.Local).
const RetiringDir = "retiring"

// Retiring is one such note: the entries of the final version, in the
// month its retirement would have put it in.
type Retiring struct {
	Month   string          `json:"month"`
	Entries []archive.Entry `json:"entries"`
}

// replacedFinal notes b, the final baton (another than the one written)
// that up replaces at its ref. A note that cannot be written is returned,
// for the writing command to archive it in its own transaction instead
// (archiveReplaced).
func replacedFinal(ctx context.Context, st refstore.Writer, up refstore.Update, b baton.Baton) (unnoted *Retiring) {
	n := Retiring{Month: archive.Month(b.FinalAt()), Entries: archive.BatonEntries(up.Ref, b.ID, up.Old)}
	if len(n.Entries) == 0 {
		return nil
	}
	data, err := json.Marshal(n)
	if err == nil {
		sum := sha256.Sum256([]byte(up.Ref + "\x00" + up.Old))
		err = st.Local().Write(ctx, RetiringDir+"/"+hex.EncodeToString(sum[:8]), data)
	}
	if err != nil {
		return &n
	}
	return nil
}

// ArchiveRetiring archives the final batons ends noted replacing, a month
// at a time, and drops each note its month now holds; a note that cannot
// be read goes (what it named stays in the reflog, as before), one whose
// month cannot be written stays for the next sync, and says why.
func ArchiveRetiring(ctx context.Context, st refstore.Clone) []string {
	as, ok := st.(archive.Store)
	if !ok {
		return nil
	}
	l := st.Local()
	names, err := l.List(RetiringDir)
	if err != nil || len(names) == 0 {
		return nil
	}
	byMonth := map[string][]archive.Entry{}
	notesOf := map[string][]string{}
	for _, name := range names {
		var n Retiring
		data, err := l.Read(RetiringDir + "/" + name)
		if err == nil {
			err = json.Unmarshal(data, &n)
		}
		if err != nil || n.Month == "" || !readable(ctx, st, n.Entries) {
			// Torn, or naming a blob gone already: nothing left to keep.
			_ = l.Remove(RetiringDir + "/" + name)
			continue
		}
		byMonth[n.Month] = append(byMonth[n.Month], n.Entries...)
		notesOf[n.Month] = append(notesOf[n.Month], name)
	}
	var warns []string
	months := make([]string, 0, len(byMonth))
	for m := range byMonth {
		months = append(months, m)
	}
	sort.Strings(months) // the same order on every run (the simulation replays it)
	for _, month := range months {
		err := archive.Put(ctx, as, month, "handoff: archived batons an end replaced once final", archive.Dedupe(byMonth[month]))
		if err != nil {
			warns = append(warns, fmt.Sprintf("batons an end replaced once claimed or deleted were not archived in %s yet (%v): the next sync tries again", month, err))
			continue
		}
		for _, name := range notesOf[month] {
			_ = l.Remove(RetiringDir + "/" + name)
		}
	}
	return warns
}

// retiringMany is how many notes an end leaves before it archives them
// itself: a clone that never syncs (one with no remote) would otherwise
// keep a file for every end after a claim, and a sync pays for the notes
// a month at a time anyway.
const retiringMany = 64

// archiveRetiringWhenMany archives the noted batons (ArchiveRetiring) once
// retiringMany notes wait, for an end that has just noted one: one tree
// build per month for every 64 ends, and the notes of a clone that never
// syncs stay fewer than that.
func archiveRetiringWhenMany(ctx context.Context, st refstore.Clone) []string {
	if names, err := st.Local().List(RetiringDir); err != nil || len(names) < retiringMany {
		return nil
	}
	return ArchiveRetiring(ctx, st)
}

// readable reports whether no entry's blob is known to be gone (a read
// that fails otherwise leaves the note to Put, and to the next sync).
func readable(ctx context.Context, st refstore.Clone, entries []archive.Entry) bool {
	for _, e := range entries {
		if _, err := st.ReadObject(ctx, e.OID); errors.Is(err, refstore.ErrNotFound) {
			return false
		}
	}
	return len(entries) > 0
}
