package baton

import (
	"context"
	"errors"
	"fmt"
	"os"
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

// A note that lies (here: written to say a claimed blob waits, and is the
// newest) can reorder candidates but not deliver a claimed baton: the one
// chosen is re-read from its ref.
func TestEligibleSharedNoteThatLiesDeliversNoClaimedBaton(t *testing.T) {
	st, dir := testStore(t)
	waiting := putShared(t, st, "alice", "a", 1)
	claimed := putShared(t, st, "bob", "b", 2)
	claimedOID := claimByGit(t, dir, claimed)
	writeSharedNote(context.Background(), st, sharedNotePath(st), map[string]sharedInfo{
		claimedOID: {live: true, created: t0.Add(48 * time.Hour), id: claimed.ID, home: strings.TrimPrefix(claimed.Ref, refstore.SharedPrefix)},
	})
	if id, _ := eligibleID(t, st); id != waiting.ID {
		t.Fatalf("eligible = %q, want %s (the claimed %s must not come out)", id, waiting.ID, claimed.ID)
	}
}

// A damaged note is no note: the answer is the same, and it is written
// again whole.
func TestEligibleSharedCorruptNote(t *testing.T) {
	st, _ := testStore(t)
	putShared(t, st, "alice", "a", 1)
	want := putShared(t, st, "bob", "b", 2)
	if id, _ := eligibleID(t, st); id != want.ID {
		t.Fatalf("eligible = %q, want %s", id, want.ID)
	}
	path := sharedNotePath(st)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(sharedNoteMagic)+3] ^= 0x40
	for name, data := range map[string][]byte{
		"garbage":   []byte("not a note at all"),
		"empty":     nil,
		"truncated": good[:len(good)/2],
		"flipped":   flipped,
		"magic":     []byte(sharedNoteMagic),
	} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readSharedNote(path); len(got) != 0 {
			t.Errorf("%s: a damaged note read as %d entries", name, len(got))
		}
		if id, _ := eligibleID(t, st); id != want.ID {
			t.Errorf("%s note: eligible = %q, want %s", name, id, want.ID)
		}
		if got := readSharedNote(path); len(got) != 2 {
			t.Errorf("%s note: rewritten with %d entries, want 2", name, len(got))
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if id, _ := eligibleID(t, st); id != want.ID {
		t.Errorf("no note: eligible = %q, want %s", id, want.ID)
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
	ctx := context.Background()
	var all []Stored
	var ups []refstore.Update
	for i := 0; i < bulkDecode+40; i++ {
		b, err := New(Draft{Owner: fmt.Sprintf("o%d", i%7), Branch: fmt.Sprintf("b%03d", i), Shared: true, NextSteps: []string{"x"}}, t0.Add(time.Duration(i%50)*time.Minute))
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
	if n := len(readSharedNote(sharedNotePath(st))); n != len(all) {
		t.Fatalf("note holds %d blobs, want %d", n, len(all))
	}
}
