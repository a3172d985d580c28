package baton

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// writeShared writes n waiting shared batons in one ApplyEach, the i-th
// of draft(i), created at t0 plus the minutes it gives.
func writeShared(t *testing.T, st *refstore.Store, n int, draft func(i int) (Draft, int)) []Stored {
	t.Helper()
	ctx := context.Background()
	var all []Stored
	var ups []refstore.Update
	for i := 0; i < n; i++ {
		d, min := draft(i)
		d.Shared, d.NextSteps = true, []string{"x"}
		b, err := New(d, t0.Add(time.Duration(min)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		s, up, err := Written(ctx, st, b)
		if err != nil {
			t.Fatal(err)
		}
		all, ups = append(all, s), append(ups, up)
	}
	if err := st.ApplyEach(ctx, "test: many", ups...); err != nil {
		t.Fatal(err)
	}
	return all
}

// packedShared writes n waiting shared batons of owner, a minute apart
// (the last newest), and packs every ref, as gc would.
func packedShared(t *testing.T, st *refstore.Store, dir, owner string, n int) []Stored {
	t.Helper()
	all := writeShared(t, st, n, func(i int) (Draft, int) { return Draft{Owner: owner, Branch: fmt.Sprintf("b%03d", i)}, i })
	gittest.Run(t, dir, "pack-refs", "--all")
	return all
}

// A directory of packed shared batons is listed, once packed-refs' sum is
// known, by its loose files alone: its packed note says what the packed
// ones are. The newest waiting one comes out however many of the newest
// packed ones a loose claim hides, and a refusal of all but the oldest
// walks the note to its end.
func TestEligibleSharedPackedNote(t *testing.T) {
	st, dir := testStore(t)
	if !st.Watchable() {
		t.Skip("stamps are not trusted on this filesystem: no packed notes")
	}
	alice := refstore.SharedPrefix + "alice/"
	all := packedShared(t, st, dir, "alice", 3*packedChunk+5)
	newestID := all[len(all)-1].ID
	if id, _ := eligibleID(t, st); id != newestID {
		t.Fatalf("packed: eligible = %q, want %s", id, newestID)
	}
	settle(t, st)
	pn := readPackedNote(packedNotePath(st, alice), alice)
	if pn == nil {
		t.Fatal("no packed note after a start")
	}
	ents, ok := pn.all()
	if !ok || pn.total != len(all) || pn.live != len(all) || len(ents) != len(all) {
		t.Fatalf("packed note: ok %v, %d refs, %d waiting, %d read; want %d of each", ok, pn.total, pn.live, len(ents), len(all))
	}
	for i, e := range ents {
		if want := all[len(all)-1-i]; e.ref.Ref != want.Ref || e.ref.OID != want.OID || e.info.id != want.ID {
			t.Fatalf("packed note entry %d is %s %s, want %s %s (newest first)", i, e.ref.Ref, e.info.id, want.Ref, want.ID)
		}
	}

	// Claimed elsewhere, loose, one after another: more of the newest
	// packed batons are hidden than the head keeps of a directory.
	for k := 1; k <= topN+3; k++ {
		claimByGit(t, dir, all[len(all)-k])
		want := all[len(all)-1-k].ID
		if id, _ := eligibleID(t, st); id != want {
			t.Fatalf("%d newest claimed loose: eligible = %q, want %s", k, id, want)
		}
		settle(t, st)
	}
	if _, err := os.Stat(packedNotePath(st, alice)); err != nil {
		t.Fatal(err)
	}

	// Every candidate but the oldest refused: the walk reads every chunk.
	oldest := all[0].ID
	onlyOldest := func(s *Stored) bool { return s.ID == oldest }
	b, _, err := EligibleWhere(context.Background(), st, "reader", "main", onlyOldest)
	if err != nil || b == nil || b.ID != oldest {
		t.Fatalf("refusing all but the oldest: got %v, %v; want %s", b, err, oldest)
	}

	// The note is what is read: forged with the same sum to leave out
	// the newest waiting one, a start after a loose change passes it by.
	// (A note that lies can hide a baton; one that lies and matches the
	// sum is not damage, which is all the checksums are against.)
	newest := all[len(all)-1-(topN+3)]
	pn = readPackedNote(packedNotePath(st, alice), alice)
	ents, _ = pn.all()
	var forged []dirEntry
	for _, e := range ents {
		if e.ref.Ref != newest.Ref {
			forged = append(forged, e)
		}
	}
	writePackedNote(context.Background(), st, packedNotePath(st, alice), packedNoteOf(alice, pn.sum, forged, nil))
	putShared(t, st, "alice", "old-loose", -10)
	if id, _ := eligibleID(t, st); id == newest.ID {
		t.Fatalf("forged packed note: eligible = %s; the note was not what was read", id)
	}
	// A change to packed-refs' shared range makes it be read again.
	gittest.Run(t, dir, "pack-refs", "--all")
	if id, _ := eligibleID(t, st); id != newest.ID {
		t.Fatalf("after pack-refs: eligible = %q, want %s", id, newest.ID)
	}
}

// A damaged packed note, in its header or in a chunk past the first read,
// is no note: the answer is the same, and it is written again.
func TestEligibleSharedPackedNoteDamaged(t *testing.T) {
	st, dir := testStore(t)
	if !st.Watchable() {
		t.Skip("stamps are not trusted on this filesystem: no packed notes")
	}
	alice := refstore.SharedPrefix + "alice/"
	// Long branch names, so that the note is longer than its first read.
	ctx := context.Background()
	all := writeShared(t, st, 4*packedChunk, func(i int) (Draft, int) { return Draft{Owner: "alice", Branch: fmt.Sprintf("%0200d", i)}, i })
	gittest.Run(t, dir, "pack-refs", "--all")
	eligibleID(t, st)
	settle(t, st)
	path := packedNotePath(st, alice)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(good) <= packedFirstRead+100 {
		t.Fatalf("the note is %d bytes: no chunk past the first read", len(good))
	}
	oldest := all[0].ID
	onlyOldest := func(s *Stored) bool { return s.ID == oldest }
	for name, at := range map[string]int{"header": len(packedMagic) + 3, "late chunk": len(good) - 10} {
		for _, cut := range []bool{false, true} {
			bad := slices.Clone(good)
			if cut {
				bad = bad[:at]
			} else {
				bad[at] ^= 0x40
			}
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			// A loose change, so that the directory is listed and its
			// packed note read.
			s := putShared(t, st, "alice", fmt.Sprintf("loose-%s-%v", name[:1], cut), -100)
			b, _, err := EligibleWhere(ctx, st, "reader", "main", onlyOldest)
			if err != nil || b == nil || b.ID != oldest {
				t.Fatalf("%s damaged (cut %v): got %v, %v; want %s", name, cut, b, err, oldest)
			}
			if now, _ := os.ReadFile(path); bytes.Equal(now, bad) {
				t.Fatalf("%s damaged (cut %v): the note was left as it was", name, cut)
			}
			pn := readPackedNote(path, alice)
			if pn == nil {
				t.Fatalf("%s damaged (cut %v): the note was not written again", name, cut)
			}
			if ents, ok := pn.all(); !ok || len(ents) != len(all) {
				t.Fatalf("%s damaged (cut %v): written again with %d entries (ok %v), want %d", name, cut, len(ents), ok, len(all))
			}
			gittest.Run(t, dir, "update-ref", "-d", s.Ref)
			eligibleID(t, st)
			settle(t, st)
		}
	}
}

// pack-refs landing after a start took packed-refs' sum and before it
// listed the loose files moves a new baton out of the files it lists into
// a packed-refs whose sum it does not hold: the start reads that
// packed-refs for the directory, finds the baton, and leaves a head that
// the next start does not trust.
func TestEligibleSharedPackRefsDuringStart(t *testing.T) {
	st, dir := testStore(t)
	if !st.Watchable() {
		t.Skip("stamps are not trusted on this filesystem: no packed notes")
	}
	packedShared(t, st, dir, "alice", 10)
	eligibleID(t, st)
	settle(t, st)
	arrived := draft(t, "alice", "arrived", 60)
	gittest.Run(t, dir, "update-ref", sharedRef("alice", "arrived"), blobOf(t, dir, arrived))
	testHookStamped = func() {
		testHookStamped = nil
		gittest.Run(t, dir, "pack-refs", "--all")
	}
	defer func() { testHookStamped = nil }()
	if id, _ := eligibleID(t, st); id != arrived.ID {
		t.Fatalf("pack-refs during the start: eligible = %q, want %s", id, arrived.ID)
	}
	if h, ok := readHead(sharedNotePath(st)); !ok || h.watched {
		t.Fatalf("the head after packed-refs moved under the start: read %v, trusted %v", ok, h.watched)
	}
	if id, _ := eligibleID(t, st); id != arrived.ID {
		t.Fatalf("the start after: eligible = %q, want %s", id, arrived.ID)
	}
}

// Whatever bytes a note holds (a teammate's disk, a torn write, another
// version), reading it neither panics nor believes a note whose entries
// are not the ones its header counts; the notes this writes read back as
// written.
func FuzzSharedNotes(f *testing.F) {
	gittest.Isolate(f)
	repo := gittest.Init(f)
	st, err := refstore.Open(context.Background(), repo, refstore.Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	dir := refstore.SharedPrefix + "alice/"
	var ents []dirEntry
	for i := 0; i < packedChunk+3; i++ {
		e := dirEntry{ref: refstore.DirRef{Ref: fmt.Sprintf("%sb%02d", dir, i), OID: fmt.Sprintf("%040x", i)}}
		if i%3 != 0 {
			e.info = sharedInfo{live: true, created: t0.Add(time.Duration(i%7) * time.Minute), id: fmt.Sprintf("h-%02d", i)}
		}
		ents = append(ents, e)
	}
	written := packedNoteOf(dir, 42, ents, []string{dir + "unreadable"})
	path := f.TempDir() + "/note"
	writePackedNote(ctx, st, path, written)
	packed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	back := readPackedNote(path, dir)
	if back == nil {
		f.Fatal("a written packed note does not read")
	}
	got, ok := back.all()
	if !ok || back.sum != 42 || !slices.EqualFunc(got, written.ents, dirEntry.same) || !slices.Equal(back.reread, written.reread) {
		f.Fatalf("the packed note read back as %+v, want %+v", got, written.ents)
	}
	writeDirNote(ctx, st, path, dir, &dirNote{dir: dir}, ents)
	loose, _ := os.ReadFile(path)
	writeHead(ctx, st, path, &sharedHead{watched: true, dirs: []*sharedDir{{dir: dir, live: 1, top: []candidate{{ref: dir + "b01", oid: ents[1].ref.OID, info: ents[1].info, dir: dir}}}}})
	head, _ := os.ReadFile(path)
	for _, seed := range [][]byte{packed, loose, head, packed[:len(packed)/2], nil} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "note")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		readHead(p)
		readDirNote(p, dir)
		n := readPackedNote(p, dir)
		if n == nil {
			return
		}
		defer n.closeFile()
		got, ok := n.all()
		if !ok {
			return
		}
		live := 0
		for _, e := range got {
			if e.info.live {
				live++
			}
		}
		if len(got) != n.total || live != n.live {
			t.Fatalf("a note read whole holds %d entries, %d waiting, where its header says %d and %d", len(got), live, n.total, n.live)
		}
	})
}

// A packed note reads back whole at every length around its first read,
// the length that ends exactly there included.
func TestPackedNoteReadsAtEveryLength(t *testing.T) {
	st, _ := testStore(t)
	ctx := context.Background()
	dir := refstore.SharedPrefix + "alice/"
	path := filepath.Join(t.TempDir(), "note")
	hit := false
	for pad := 0; pad < 400; pad++ {
		var ents []dirEntry
		for i := 0; i < 148; i++ {
			name := fmt.Sprintf("b%03d", i)
			if i == 0 {
				name += strings.Repeat("x", pad)
			}
			ents = append(ents, dirEntry{
				ref:  refstore.DirRef{Ref: dir + name, OID: fmt.Sprintf("%040x", i)},
				info: sharedInfo{live: i%2 == 0, created: t0.Add(time.Duration(i) * time.Second), id: fmt.Sprintf("h-%03d", i)},
			})
			if !ents[i].info.live {
				ents[i].info = sharedInfo{}
			}
		}
		want := packedNoteOf(dir, 7, ents, nil)
		writePackedNote(ctx, st, path, want)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		hit = hit || fi.Size() == packedFirstRead
		n := readPackedNote(path, dir)
		if n == nil {
			t.Fatalf("%d bytes: does not read", fi.Size())
		}
		got, ok := n.all()
		if !ok || !slices.EqualFunc(got, want.ents, dirEntry.same) {
			t.Fatalf("%d bytes: read back ok %v with %d entries, want %d", fi.Size(), ok, len(got), len(want.ents))
		}
	}
	if !hit {
		t.Fatal("no note was exactly as long as the first read")
	}
}
