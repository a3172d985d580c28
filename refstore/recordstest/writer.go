package recordstest

import (
	"errors"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// WriterHarness is one empty clone under test as a refstore.Writer, with
// what the suite needs to set beside it.
type WriterHarness struct {
	Writer refstore.Writer
	// SetConfig sets a key of the clone's configuration.
	SetConfig func(t *testing.T, key, value string)
}

// RunWriter runs the suite of the rest of a refstore.Writer (its local
// notes, its configuration, the version clock over them) on fresh clones.
// refstore runs it on the git store, memstore on its twin: the workflows
// count on both alike.
func RunWriter(t *testing.T, fresh func(t *testing.T) WriterHarness) {
	t.Helper()
	for _, c := range writerCases {
		t.Run(c.name, func(t *testing.T) { c.run(t, fresh(t)) })
	}
}

var writerCases = []struct {
	name string
	run  func(t *testing.T, h WriterHarness)
}{
	{"a missing note is fs.ErrNotExist; a write replaces it whole", func(t *testing.T, h WriterHarness) {
		l := h.Writer.Local()
		if _, err := l.Read("pending/x"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Read of a missing note = %v, want fs.ErrNotExist", err)
		}
		for _, body := range []string{"first, longer\n", "second\n"} {
			if err := l.Write(ctx, "pending/x", []byte(body)); err != nil {
				t.Fatal(err)
			}
			if b, err := l.Read("pending/x"); err != nil || string(b) != body {
				t.Fatalf("Read = %q, %v; want %q", b, err, body)
			}
		}
		if err := l.Remove("pending/x"); err != nil {
			t.Fatal(err)
		}
		if err := l.Remove("pending/x"); err != nil {
			t.Fatalf("a second Remove = %v, want nil", err)
		}
		if _, err := l.Read("pending/x"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Read after Remove = %v", err)
		}
	}},
	{"List names a directory's notes, sorted, not deeper ones", func(t *testing.T, h WriterHarness) {
		l := h.Writer.Local()
		if names, err := l.List("seen"); err != nil || len(names) != 0 {
			t.Fatalf("List of a missing directory = %q, %v", names, err)
		}
		for _, n := range []string{"seen/b", "seen/a", "seen/deeper/c", "other"} {
			if err := l.Write(ctx, n, []byte(n)); err != nil {
				t.Fatal(err)
			}
		}
		names, err := l.List("seen")
		if err != nil || len(names) != 2 || names[0] != "a" || names[1] != "b" {
			t.Fatalf("List = %q, %v; want [a b]", names, err)
		}
	}},
	{"of two renames of one note exactly one succeeds", func(t *testing.T, h WriterHarness) {
		l := h.Writer.Local()
		if err := l.Write(ctx, "pending/n", []byte("claim")); err != nil {
			t.Fatal(err)
		}
		if err := l.Rename("pending/n", "pending/n~me"); err != nil {
			t.Fatal(err)
		}
		if err := l.Rename("pending/n", "pending/n~you"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the second rename = %v, want fs.ErrNotExist", err)
		}
		if b, err := l.Read("pending/n~me"); err != nil || string(b) != "claim" {
			t.Fatalf("the renamed note = %q, %v", b, err)
		}
	}},
	{"Lock excludes until released", func(t *testing.T, h WriterHarness) {
		l := h.Writer.Local()
		unlock, err := l.Lock(ctx, "agent/hooks.lock")
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		released := false
		done := make(chan error)
		go func() {
			u, err := l.Lock(ctx, "agent/hooks.lock")
			if err == nil {
				mu.Lock()
				if !released {
					err = errors.New("took a held lock")
				}
				mu.Unlock()
				u()
			}
			done <- err
		}()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		released = true
		mu.Unlock()
		unlock()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the lock was never given to its second taker")
		}
	}},
	{"the clock counts one more than every version seen, and never reuses a count", func(t *testing.T, h WriterHarness) {
		w := h.Writer
		ref := refstore.SessionPrefix + "s-clock"
		type rec struct {
			Schema string `json:"schema"`
			N      int    `json:"n"`
			refstore.Cause
		}
		v := rec{Schema: "session/v1", N: 1}
		first, _, err := refstore.WriteVersion(ctx, w, ref, "", &v.Cause, &v)
		if err != nil {
			t.Fatal(err)
		}
		if v.Rev != 1 || v.Prev != "" || len(v.Seen) != 1 {
			t.Fatalf("first version's cause = %+v", v.Cause)
		}
		if err := w.Apply(ctx, "test", refstore.Update{Ref: ref, New: first}); err != nil {
			t.Fatal(err)
		}
		me, err := refstore.WriterID(ctx, w.Local())
		if err != nil || v.Seen[me] != 1 {
			t.Fatalf("writer %q, seen %v, %v", me, v.Seen, err)
		}
		// Two versions from the same base (one of which loses its swap):
		// the second still counts past the first.
		lost, err := refstore.NextCause(ctx, w, ref, first)
		if err != nil {
			t.Fatal(err)
		}
		next, err := refstore.NextCause(ctx, w, ref, first)
		if err != nil {
			t.Fatal(err)
		}
		if lost.Rev != 2 || next.Rev != 2 || next.Seen[me] <= lost.Seen[me] || next.Prev != first {
			t.Fatalf("lost %+v, next %+v", lost, next)
		}
		if d, ok := next.Descends(v.Cause); !d || !ok {
			t.Fatalf("the next version does not descend from the first: %+v, %+v", next, v.Cause)
		}
	}},
	{"the clock reads the arbiter's copy when handoff.arbiter names it", func(t *testing.T, h WriterHarness) {
		w := h.Writer
		h.SetConfig(t, "remote.origin.url", "/nowhere")
		h.SetConfig(t, refstore.ArbiterKey, "origin")
		ref := refstore.SessionPrefix + "s-remote"
		tracking, err := refstore.RemoteRef("origin", ref)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := w.WriteBlob(ctx, []byte(`{"schema":"session/v1","rev":7,"seen":{"teammate":3}}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Apply(ctx, "test", refstore.Update{Ref: tracking, New: theirs}); err != nil {
			t.Fatal(err)
		}
		c, err := refstore.NextCause(ctx, w, ref, "")
		if err != nil {
			t.Fatal(err)
		}
		if c.Rev != 8 || c.Seen["teammate"] != 3 {
			t.Fatalf("cause = %+v, want rev 8 over the arbiter's copy", c)
		}
	}},
}
