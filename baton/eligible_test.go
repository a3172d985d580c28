package baton

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

func testStore(t *testing.T) (*refstore.Store, string) {
	t.Helper()
	gittest.Isolate(t)
	dir := gittest.Init(t)
	st, err := refstore.Open(context.Background(), dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

// putShared writes a waiting shared baton of owner on branch, created at
// t0 plus min minutes, through the same swap end uses.
func putShared(t *testing.T, st *refstore.Store, owner, branch string, min int) Stored {
	t.Helper()
	return putBaton(t, st, true, owner, branch, min)
}

func putBaton(t *testing.T, st *refstore.Store, shared bool, owner, branch string, min int) Stored {
	t.Helper()
	ctx := context.Background()
	b, err := New(Draft{Owner: owner, Branch: branch, Shared: shared, NextSteps: []string{"step of " + branch}}, t0.Add(time.Duration(min)*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	s, up, err := Written(ctx, st, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: end", up); err != nil {
		t.Fatal(err)
	}
	return s
}

// claimByGit claims s the way another process would, behind this Store's
// back: a claimed blob and a swap through git itself.
func claimByGit(t *testing.T, dir string, s Stored) string {
	t.Helper()
	c := s.Baton
	at := t0.Add(time.Hour)
	c.Claimed, c.ClaimedAt, c.ClaimedBySession = true, &at, "other-session"
	data, err := refstore.Encode(&c)
	if err != nil {
		t.Fatal(err)
	}
	f := t.TempDir() + "/blob"
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	oid := gittest.Run(t, dir, "hash-object", "-w", f)
	gittest.Run(t, dir, "update-ref", "-m", "claimed elsewhere", s.Ref, oid, s.OID)
	return oid
}

func eligibleID(t *testing.T, st *refstore.Store) (string, []Warning) {
	t.Helper()
	b, warns, err := Eligible(context.Background(), st, "reader", "main")
	if err != nil {
		t.Fatal(err)
	}
	if b == nil {
		return "", warns
	}
	if !b.Live() {
		t.Fatalf("delivered %s, which is not waiting: %+v", b.ID, b.Baton)
	}
	return b.ID, warns
}

// The note of shared batons makes a second start decode nothing it has
// seen; a claim made elsewhere moves the ref to a blob the note does not
// know, and the claimed baton is never delivered.
func TestEligibleSharedFollowsClaimsElsewhere(t *testing.T) {
	st, dir := testStore(t)
	old := putShared(t, st, "alice", "a", 1)
	newest := putShared(t, st, "bob", "b", 2)
	if id, _ := eligibleID(t, st); id != newest.ID {
		t.Fatalf("eligible = %q, want the newest shared %s", id, newest.ID)
	}
	if _, err := os.Stat(sharedNotePath(st)); err != nil {
		t.Fatalf("no note of shared batons after a start: %v", err)
	}
	claimByGit(t, dir, newest)
	if id, _ := eligibleID(t, st); id != old.ID {
		t.Fatalf("after the newest was claimed elsewhere, eligible = %q, want %s", id, old.ID)
	}
	claimByGit(t, dir, old)
	if id, _ := eligibleID(t, st); id != "" {
		t.Fatalf("every shared baton claimed, eligible = %q", id)
	}
	// A private baton of the reader's own still comes first.
	putShared(t, st, "carol", "c", 3)
	priv := putBaton(t, st, false, "reader", "main", 0)
	if id, _ := eligibleID(t, st); id != priv.ID {
		t.Fatalf("eligible = %q, want %s", id, priv.ID)
	}
}

// Unreadable shared records are never noted: each start reports them, as
// before there was a note; a record at the wrong ref is one of them.
func TestEligibleSharedWarnsEveryTime(t *testing.T) {
	st, dir := testStore(t)
	want := putShared(t, st, "alice", "a", 1)
	gittest.Run(t, dir, "update-ref", refstore.SharedPrefix+"zed/broken", gittest.Run(t, dir, "hash-object", "-w", "--stdin"))
	misplaced := putShared(t, st, "bob", "b", 2)
	gittest.Run(t, dir, "update-ref", refstore.SharedPrefix+"bob/elsewhere", misplaced.OID)
	gittest.Run(t, dir, "update-ref", "-d", misplaced.Ref)
	for run := 0; run < 2; run++ {
		id, warns := eligibleID(t, st)
		if id != want.ID {
			t.Fatalf("run %d: eligible = %q, want %s", run, id, want.ID)
		}
		var refs []string
		for _, w := range warns {
			if !errors.Is(w.Err, refstore.ErrInvalidRecord) {
				t.Errorf("run %d: warning %v is not an invalid record", run, w)
			}
			refs = append(refs, w.Ref)
		}
		if got := strings.Join(refs, " "); got != refstore.SharedPrefix+"bob/elsewhere "+refstore.SharedPrefix+"zed/broken" {
			t.Fatalf("run %d: warnings for %q", run, got)
		}
	}
}

// More new blobs than bulkDecode go through one git process; fewer are read
// one by one. Both give the same answer, loose or packed, and after a
// pack-refs the note still serves (ids did not change).
func TestEligibleSharedManyBatons(t *testing.T) {
	st, dir := testStore(t)
	all := writeShared(t, st, bulkDecode+40, func(i int) (Draft, int) {
		return Draft{Owner: fmt.Sprintf("o%d", i%7), Branch: fmt.Sprintf("b%03d", i)}, i % 50
	})
	newest := func(skip map[string]bool) string {
		var best *Stored
		for i := range all {
			if !skip[all[i].ID] && (best == nil || Newer(&all[i].Baton, &best.Baton)) {
				best = &all[i]
			}
		}
		return best.ID
	}
	claimedIDs := map[string]bool{}
	for round := 0; round < 4; round++ {
		if round == 2 {
			gittest.Run(t, dir, "pack-refs", "--all")
		}
		want := newest(claimedIDs)
		if id, _ := eligibleID(t, st); id != want {
			t.Fatalf("round %d: eligible = %q, want %s", round, id, want)
		}
		for i := range all {
			if all[i].ID == want {
				claimByGit(t, dir, all[i])
			}
		}
		claimedIDs[want] = true
	}
	// Packed by then, most refs are in the packed notes; those claimed
	// since are loose too.
	known := map[string]bool{}
	for o := 0; o < 7; o++ {
		d := fmt.Sprintf("%so%d/", refstore.SharedPrefix, o)
		for name := range readDirNote(dirNotePath(st, d), d).ents {
			known[d+name] = true
		}
		pn := readPackedNote(packedNotePath(st, d), d)
		if pn == nil {
			t.Fatalf("no packed note of %s", d)
		}
		ents, ok := pn.all()
		if !ok {
			t.Fatalf("the packed note of %s is damaged", d)
		}
		for _, e := range ents {
			known[e.ref.Ref] = true
		}
	}
	if len(known) != len(all) {
		t.Fatalf("the directory notes know %d refs, want %d", len(known), len(all))
	}
}

// settle waits until every stamp taken so far is settled, then starts
// once so that the head holds settled stamps: the next start trusts them
// and lists nothing that did not change.
func settle(t *testing.T, st *refstore.Store) {
	t.Helper()
	time.Sleep(80 * time.Millisecond)
	eligibleID(t, st)
}

// blobOf writes b as a record through git itself and returns its id.
func blobOf(t *testing.T, dir string, b Baton) string {
	t.Helper()
	data, err := refstore.Encode(&b)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return gittest.Run(t, dir, "hash-object", "-w", f)
}

// addPacked adds ref to packed-refs the way git writes that file: a new
// sorted file renamed over the old one.
func addPacked(t *testing.T, dir, ref, oid string) {
	t.Helper()
	path := filepath.Join(dir, ".git", "packed-refs")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(old), "\n"), "\n")
	if !strings.Contains(lines[0], " sorted") {
		t.Fatalf("packed-refs is not sorted: %q", lines[0])
	}
	out := []string{lines[0]}
	added := false
	for _, l := range lines[1:] {
		if _, name, _ := strings.Cut(l, " "); !added && l[0] != '^' && name > ref {
			out, added = append(out, oid+" "+ref), true
		}
		out = append(out, l)
	}
	if !added {
		out = append(out, oid+" "+ref)
	}
	if err := os.WriteFile(path+".new", []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if got := gittest.Run(t, dir, "rev-parse", ref); got != oid {
		t.Fatalf("git reads %s as %s after the rewrite, want %s", ref, got, oid)
	}
}

func draft(t *testing.T, owner, branch string, min int) Baton {
	t.Helper()
	b, err := New(Draft{Owner: owner, Branch: branch, Shared: true, NextSteps: []string{"step of " + branch}}, t0.Add(time.Duration(min)*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sharedRef(owner, branch string) string {
	ref, _ := refstore.HandoffRef(true, owner, branch)
	return ref
}

// A shared baton that arrives by any route is found at the next start,
// the notes warm and their stamps settled, loose or packed; one deleted or
// claimed is never delivered. Run on the files (stamps trusted where the
// filesystem allows) and through git alone (every directory listed).
func TestEligibleSharedArrivals(t *testing.T) {
	for _, cli := range []bool{false, true} {
		t.Run(fmt.Sprintf("cli=%v", cli), func(t *testing.T) {
			gittest.Isolate(t)
			dir := gittest.Init(t)
			st, err := refstore.Open(context.Background(), dir, refstore.Options{ForceCLI: cli})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if !cli && !st.Watchable() {
				t.Log("stamps are not trusted on this filesystem: every directory is listed")
			}
			for i := 0; i < 12; i++ {
				s := putShared(t, st, fmt.Sprintf("o%d", i%3), fmt.Sprintf("b%d", i), i)
				if i%4 == 0 {
					claimByGit(t, dir, s)
				}
			}
			min := 100
			newer := func() int { min++; return min }
			expect := func(step, want string) {
				t.Helper()
				if id, _ := eligibleID(t, st); id != want {
					t.Fatalf("%s: eligible = %q, want %s", step, id, want)
				}
			}
			settle(t, st)
			// Nothing changed: a settled start rewrites no note.
			head := sharedNotePath(st)
			before, _ := os.Stat(head)
			eligibleID(t, st)
			if after, _ := os.Stat(head); !cli && st.Watchable() && (before == nil || after == nil || !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after)) {
				t.Errorf("a start with nothing changed rewrote the head")
			}

			// Our own end --shared, into a directory that exists.
			s := putShared(t, st, "o1", "ours", newer())
			expect("end --shared", s.ID)
			settle(t, st)

			// A plain git update-ref, in a new directory.
			b := draft(t, "newcomer", "x", newer())
			gittest.Run(t, dir, "update-ref", sharedRef("newcomer", "x"), blobOf(t, dir, b))
			expect("update-ref, new directory", b.ID)
			newcomer := b.ID
			settle(t, st)

			// A plain git update-ref moving a claimed ref to a waiting baton.
			b = draft(t, "o0", "b0", newer())
			gittest.Run(t, dir, "update-ref", sharedRef("o0", "b0"), blobOf(t, dir, b))
			expect("update-ref over a claimed baton", b.ID)
			settle(t, st)

			// pack-refs moves every loose ref into packed-refs and
			// removes the directories; the answer stays.
			gittest.Run(t, dir, "pack-refs", "--all")
			expect("pack-refs", b.ID)
			settle(t, st)

			// Claimed behind our back while packed: a loose ref shadows
			// the packed one.
			claimByGit(t, dir, Stored{Baton: b, Ref: sharedRef("o0", "b0"), OID: gittest.Run(t, dir, "rev-parse", sharedRef("o0", "b0"))})
			expect("claimed over packed", newcomer)
			settle(t, st)

			// Into a directory pack-refs removed, and one it never had.
			b = draft(t, "o2", "after-pack", newer())
			gittest.Run(t, dir, "update-ref", sharedRef("o2", "after-pack"), blobOf(t, dir, b))
			expect("update-ref after pack-refs", b.ID)
			settle(t, st)

			// git gc packs and prunes; a deletion of the newest
			// (packed, so packed-refs is rewritten) leaves the next.
			gittest.Run(t, dir, "gc", "-q", "--prune=now")
			expect("gc", b.ID)
			settle(t, st)
			gittest.Run(t, dir, "update-ref", "-d", sharedRef("o2", "after-pack"))
			expect("packed ref deleted", newcomer)
			settle(t, st)

			// Written straight into packed-refs, as git clone does: no
			// directory of loose refs moves, packed-refs does.
			b = draft(t, "cloned", "y", newer())
			addPacked(t, dir, sharedRef("cloned", "y"), blobOf(t, dir, b))
			expect("packed-refs rewritten", b.ID)
			settle(t, st)
			b2 := draft(t, "o1", "packed-too", newer())
			addPacked(t, dir, sharedRef("o1", "packed-too"), blobOf(t, dir, b2))
			expect("packed-refs rewritten, into a known directory", b2.ID)
			settle(t, st)

			// A loose ref deleted.
			s = putShared(t, st, "o1", "gone-soon", newer())
			expect("end --shared after gc", s.ID)
			settle(t, st)
			gittest.Run(t, dir, "update-ref", "-d", s.Ref)
			expect("loose ref deleted", b2.ID)
			settle(t, st)

			// Two arrivals in one directory within one clock tick of
			// each other and of the start between them.
			s1 := putShared(t, st, "o1", "tick-a", newer())
			expect("first of a tick", s1.ID)
			s2 := putShared(t, st, "o1", "tick-b", newer())
			expect("second of a tick", s2.ID)
		})
	}
}

func headDir(t *testing.T, h *sharedHead, dir string) *sharedDir {
	t.Helper()
	for _, u := range h.dirs {
		if u.dir == dir {
			return u
		}
	}
	t.Fatalf("the head has no %s", dir)
	return nil
}

// Notes that lie (here: forged to say a claimed blob waits, and is the
// newest) can reorder candidates but not deliver a claimed baton: the one
// chosen is re-read from its ref. That holds for the head, whose stamps
// are made to match so that it is trusted, and for a directory's note.
func TestEligibleSharedNoteThatLiesDeliversNoClaimedBaton(t *testing.T) {
	st, dir := testStore(t)
	waiting := putShared(t, st, "alice", "a", 1)
	claimed := putShared(t, st, "bob", "b", 2)
	claimedOID := claimByGit(t, dir, claimed)
	settle(t, st)
	path := sharedNotePath(st)
	lie := candidate{ref: claimed.Ref, oid: claimedOID, info: sharedInfo{live: true, created: t0.Add(48 * time.Hour), id: claimed.ID}}

	h, ok := readHead(path)
	if !ok {
		t.Fatal("no head after a start")
	}
	bob := headDir(t, &h, refstore.SharedPrefix+"bob/")
	lie.dir = bob.dir
	bob.top, bob.live = []candidate{lie}, 1
	writeHead(context.Background(), st, path, &h)
	if id, _ := eligibleID(t, st); id != waiting.ID {
		t.Fatalf("lying head: eligible = %q, want %s (the claimed %s must not come out)", id, waiting.ID, claimed.ID)
	}

	// The directory's note says the claimed blob waits; the head is
	// gone, so the directory is listed and its note believed.
	os.Remove(path)
	writeDirNote(context.Background(), st, dirNotePath(st, bob.dir), bob.dir, &dirNote{dir: bob.dir}, []dirEntry{{ref: refstore.DirRef{Ref: claimed.Ref, OID: claimedOID}, info: lie.info}})
	if got := readDirNote(dirNotePath(st, bob.dir), bob.dir); !got.ents[strings.TrimPrefix(claimed.Ref, bob.dir)].info.live {
		t.Fatal("the forged directory note did not read back")
	}
	if id, _ := eligibleID(t, st); id != waiting.ID {
		t.Fatalf("lying directory note: eligible = %q, want %s", id, waiting.ID)
	}
}

// A head whose stamp of a directory is not settled (taken within a clock
// tick of the directory's last change, so a change after it could have
// kept the same time) is not trusted: the directory is listed again.
// Here the head is forged to hold the directory's current stamp and an
// old list, as a start racing a write in one tick would have written it.
func TestEligibleSharedUnsettledStampIsListedAgain(t *testing.T) {
	st, _ := testStore(t)
	old := putShared(t, st, "alice", "a", 1)
	settle(t, st)
	path := sharedNotePath(st)
	h, ok := readHead(path)
	if !ok {
		t.Fatal("no head after a start")
	}
	arrived := putShared(t, st, "alice", "z", 2)
	alice := headDir(t, &h, refstore.SharedPrefix+"alice/")
	now, err := st.DirStamp(alice.dir)
	if err != nil {
		t.Fatal(err)
	}
	forge := func(at int64) {
		alice.stamp = now
		alice.stamp.At = at
		writeHead(context.Background(), st, path, &h)
	}
	forge(max(now.Mtime, now.Ctime) + int64(time.Millisecond))
	if id, _ := eligibleID(t, st); id != arrived.ID {
		t.Fatalf("unsettled stamp: eligible = %q, want %s", id, arrived.ID)
	}
	// The same forgery with a settled stamp is believed (what makes the
	// check above one that can fail): the head is what hides it.
	if !st.Watchable() {
		return
	}
	forge(max(now.Mtime, now.Ctime) + int64(time.Hour))
	if id, _ := eligibleID(t, st); id != old.ID {
		t.Fatalf("settled forged stamp: eligible = %q; the forged head was not what was read", id)
	}
}

// Damaged notes are no notes: the answer is the same, and they are
// written again whole.
func TestEligibleSharedCorruptNotes(t *testing.T) {
	st, _ := testStore(t)
	putShared(t, st, "alice", "a", 1)
	want := putShared(t, st, "bob", "b", 2)
	if id, _ := eligibleID(t, st); id != want.ID {
		t.Fatalf("eligible = %q, want %s", id, want.ID)
	}
	bobDir := refstore.SharedPrefix + "bob/"
	for _, note := range []struct {
		name, path, magic string
		ok                func() bool
	}{
		{"head", sharedNotePath(st), headMagic, func() bool { h, ok := readHead(sharedNotePath(st)); return ok && h.whole }},
		{"directory", dirNotePath(st, bobDir), dirMagic, func() bool { n := readDirNote(dirNotePath(st, bobDir), bobDir); return n.whole && len(n.ents) == 1 }},
	} {
		good, err := os.ReadFile(note.path)
		if err != nil {
			t.Fatal(err)
		}
		flipped := append([]byte(nil), good...)
		flipped[len(note.magic)+3] ^= 0x40
		for name, data := range map[string][]byte{
			"garbage":   []byte("not a note at all"),
			"empty":     nil,
			"truncated": good[:len(good)/2],
			"torn":      good[:len(good)-1],
			"flipped":   flipped,
			"magic":     []byte(note.magic),
			"longer":    append(append([]byte(nil), good...), 0),
		} {
			if err := os.WriteFile(note.path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if note.ok() {
				t.Errorf("%s %s: a damaged note reads", note.name, name)
			}
			// The head stays damaged too when the directory's is, so
			// that the directory is listed and its note read.
			if note.name == "directory" {
				os.WriteFile(sharedNotePath(st), nil, 0o644)
			}
			if id, _ := eligibleID(t, st); id != want.ID {
				t.Errorf("%s %s: eligible = %q, want %s", note.name, name, id, want.ID)
			}
			if !note.ok() {
				t.Errorf("%s %s: not written again", note.name, name)
			}
		}
		if err := os.Remove(note.path); err != nil {
			t.Fatal(err)
		}
		if id, _ := eligibleID(t, st); id != want.ID {
			t.Errorf("no %s note: eligible = %q, want %s", note.name, id, want.ID)
		}
	}
}

// A directory's note grows by a record per listing that found something
// changed, says what the last listing found, and is written again whole
// once it holds far more records than refs.
func TestEligibleSharedDirNoteAppends(t *testing.T) {
	st, dir := testStore(t)
	d := refstore.SharedPrefix + "alice/"
	path := dirNotePath(st, d)
	var last Stored
	sizes := []int64{}
	for i := 0; i < 40; i++ {
		last = putShared(t, st, "alice", fmt.Sprintf("b%02d", i%3), i)
		if id, _ := eligibleID(t, st); id != last.ID {
			t.Fatalf("round %d: eligible = %q, want %s", i, id, last.ID)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
		n := readDirNote(path, d)
		if !n.whole || len(n.ents) != min(i+1, 3) {
			t.Fatalf("round %d: the note reads whole %v with %d refs", i, n.whole, len(n.ents))
		}
		if e, _ := n.entry(last.Ref); e.ref.OID != last.OID || !e.info.live || e.info.id != last.ID {
			t.Fatalf("round %d: the note says %+v of %s, want %s", i, e, last.Ref, last.OID)
		}
		if n.records > 2*len(n.ents)+64+3 {
			t.Fatalf("round %d: %d records for %d refs: never written again whole", i, n.records, len(n.ents))
		}
	}
	grewAndShrank(t, "note", sizes)
	gittest.Run(t, dir, "update-ref", "-d", last.Ref)
	if n := readDirNote(path, d); len(n.ents) != 3 {
		t.Fatalf("before the next listing the note holds %d refs", len(n.ents))
	}
	eligibleID(t, st)
	if n := readDirNote(path, d); len(n.ents) != 2 || !n.whole {
		t.Fatalf("a deleted ref: the note holds %d refs (whole %v), want 2", len(n.ents), n.whole)
	}
}

// grewAndShrank fails unless a note of these sizes, one after each start,
// was appended to and written again whole.
func grewAndShrank(t *testing.T, what string, sizes []int64) {
	t.Helper()
	grew, shrank := false, false
	for i := 1; i < len(sizes); i++ {
		grew = grew || sizes[i] > sizes[i-1]
		shrank = shrank || sizes[i] < sizes[i-1]
	}
	if !grew || !shrank {
		t.Errorf("%s sizes %v: want appends, and a rewrite", what, sizes)
	}
}
