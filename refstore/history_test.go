package refstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// TestHistoryWalksPrev: a record's history is the chain of versions its
// "prev" fields name, as far as the objects are here, on every backend
// (the matrix runs this under reftable too); gc keeps the replaced
// versions, which the refs' reflogs hold.
func TestHistoryWalksPrev(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	const ref = "refs/ao/handoffs/private/a/b"
	v1 := put(t, st, ref, "", `{"rev":1,"n":1}`)
	v2 := put(t, st, ref, v1, fmt.Sprintf(`{"rev":2,"prev":%q,"n":2}`, v1))
	v3 := put(t, st, ref, v2, fmt.Sprintf(`{"rev":3,"prev":%q,"n":3}`, v2))
	gittest.Run(t, dir, "gc", "-q", "--prune=now")

	var got []string
	if err := st.History(ctx, v3, func(e refstore.Entry) bool { got = append(got, e.OID); return true }); err != nil {
		t.Fatal(err)
	}
	if want := []string{v3, v2, v1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("History = %v, want %v", got, want)
	}
	// fn stops the walk; a prev naming an object this clone lacks ends it.
	got = nil
	st.History(ctx, v3, func(e refstore.Entry) bool { got = append(got, e.OID); return false })
	if len(got) != 1 {
		t.Fatalf("History after stop = %v", got)
	}
	missing := "1234567890123456789012345678901234567890"
	if len(v1) == 64 {
		missing += "123456789012345678901234"
	}
	orphan := put(t, st, "refs/ao/handoffs/private/a/c", "", fmt.Sprintf(`{"rev":2,"prev":%q}`, missing))
	got = nil
	if err := st.History(ctx, orphan, func(e refstore.Entry) bool { got = append(got, e.OID); return true }); err != nil || len(got) != 1 {
		t.Fatalf("History of an orphan = %v, %v", got, err)
	}
}

// TestConflictNotes: a write whose message says it settled a conflict is
// noted, with the dropped and kept versions, from concurrent writers
// without torn lines; other writes are not.
func TestConflictNotes(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	a := put(t, st, "refs/ao/handoffs/private/a/b", "", "a")
	ctx := context.Background()
	b, err := st.WriteBlob(ctx, []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	msg := refstore.ConflictReflog + " from origin: kept b over a"
	if err := st.Apply(ctx, msg, refstore.Update{Ref: "refs/ao/handoffs/private/a/b", New: b, Old: a}); err != nil {
		t.Fatal(err)
	}
	notes, err := refstore.ConflictNotes(st.Local())
	if err != nil || len(notes) != 1 {
		t.Fatalf("ConflictNotes = %+v, %v", notes, err)
	}
	if n := notes[0]; n.Dropped != a || n.Kept != b || n.Ref != "refs/ao/handoffs/private/a/b" || n.Message != msg || n.At.IsZero() {
		t.Fatalf("note = %+v", n)
	}

	// Many stores at once, each its own process's worth of writes.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := open(t, dir, refstore.Options{})
			ref := fmt.Sprintf("refs/ao/handoffs/private/w%d/main", i)
			old := ""
			for j := range 10 {
				oid, err := s.WriteBlob(ctx, []byte(fmt.Sprintf("%d-%d", i, j)))
				if err != nil {
					t.Error(err)
					return
				}
				if err := s.Apply(ctx, msg, refstore.Update{Ref: ref, New: oid, Old: old}); err != nil {
					t.Error(err)
					return
				}
				old = oid
			}
		}()
	}
	wg.Wait()
	if notes, err = refstore.ConflictNotes(st.Local()); err != nil || len(notes) != 81 {
		t.Fatalf("%d notes after 80 concurrent conflict writes and one before, want 81: %v", len(notes), err)
	}
	// A torn last line (a writer killed mid-write) is skipped.
	path := filepath.Join(st.CommonDir(), "handoff", "conflicts")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"at":"2026-01-01T00:00:00Z","ref":"refs/ao/x","ke`)
	f.Close()
	if notes, err = refstore.ConflictNotes(st.Local()); err != nil || len(notes) != 81 {
		t.Fatalf("%d notes with a torn line, want 81: %v", len(notes), err)
	}
	// The next note starts a line of its own: only the torn one is lost.
	if err := st.Apply(ctx, msg, refstore.Update{Ref: "refs/ao/handoffs/private/a/b", New: a, Old: b}); err != nil {
		t.Fatal(err)
	}
	if notes, err = refstore.ConflictNotes(st.Local()); err != nil || len(notes) != 82 || notes[81].Kept != a {
		t.Fatalf("%d notes after the torn line, want 82: %v", len(notes), err)
	}
}

// A conflict noted apart from its write (NoteConflict) is listed with the
// others, in time order, and noting it twice lists it once.
func TestNoteConflictListedWithTheOthers(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	const ref = "refs/ao/handoffs/private/dev/main"
	a := put(t, st, ref, "", `{"schema":"handoff/v1","rev":1}`)
	b, err := st.WriteBlob(ctx, []byte(`{"schema":"handoff/v1","rev":2}`))
	if err != nil {
		t.Fatal(err)
	}
	late := refstore.ConflictNote{At: time.Now().Add(-time.Hour).UTC(), Ref: ref, Kept: b, Dropped: a, Message: "tie"}
	for range 2 {
		if err := refstore.NoteConflict(ctx, st.Local(), late); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Apply(ctx, refstore.ConflictReflog+" from origin: kept", refstore.Update{Ref: ref, New: b, Old: a}); err != nil {
		t.Fatal(err)
	}
	notes, err := refstore.ConflictNotes(st.Local())
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 2 || notes[0].Message != "tie" || notes[1].Message == "tie" {
		t.Fatalf("notes = %+v, want the late one, then the write's", notes)
	}
}
