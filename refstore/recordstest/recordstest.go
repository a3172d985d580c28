// Package recordstest is the conformance suite of refstore.Records: what
// the workflows may count on from any record store. refstore runs it on
// the git store (so `make test-git` runs it on every ref backend and
// object format), memstore on itself.
package recordstest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
)

// Harness is one empty store under test, with what the suite needs
// beyond refstore.Records.
type Harness struct {
	// Records is the store, empty.
	Records refstore.Records
	// Open opens another handle on the same records, for a goroutine of
	// its own: a git Store is for one goroutine at a time (git-handoff's
	// processes each open one on the repository), a memstore is shared.
	Open func(t *testing.T) refstore.Records
	// WriteRawBlob stores data as a blob whatever its size, as another
	// writer could (git hash-object -w), and returns its id.
	WriteRawBlob func(t *testing.T, data []byte) string
	// Format is the store's object format: refstore.FormatSHA1 or
	// FormatSHA256.
	Format string
}

// Run runs every case, each on a fresh store from fresh.
func Run(t *testing.T, fresh func(t *testing.T) Harness) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, fresh(t)) })
	}
}

var ctx = context.Background()

// put writes body and swaps ref from old to it.
func put(t *testing.T, r refstore.Records, ref, old, body string) string {
	t.Helper()
	oid, err := r.WriteBlob(ctx, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Apply(ctx, "test: put", refstore.Update{Ref: ref, New: oid, Old: old}); err != nil {
		t.Fatalf("put %s: %v", ref, err)
	}
	return oid
}

func blob(t *testing.T, r refstore.Records, body string) string {
	t.Helper()
	oid, err := r.WriteBlob(ctx, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return oid
}

// holds fails t unless ref holds want ("": absent).
func holds(t *testing.T, r refstore.Records, ref, want string) {
	t.Helper()
	e, err := r.Get(ctx, ref)
	switch {
	case want == "" && !errors.Is(err, refstore.ErrNotFound):
		t.Fatalf("%s = %+v, %v; want it absent", ref, e.OID, err)
	case want != "" && (err != nil || e.OID != want):
		t.Fatalf("%s = %s, %v; want %s", ref, e.OID, err, want)
	}
}

// refs lists prefix through both listings, which must agree.
func refs(t *testing.T, r refstore.Records, prefix string) string {
	t.Helper()
	var streamed []string
	err := r.EachStreamed(ctx, prefix, func(e refstore.Entry) error {
		streamed = append(streamed, e.Ref)
		return nil
	})
	if err != nil {
		t.Fatalf("EachStreamed(%q): %v", prefix, err)
	}
	ids, err := r.RefIDs(ctx, prefix)
	if err != nil {
		t.Fatalf("RefIDs(%q): %v", prefix, err)
	}
	var listed []string
	for _, id := range ids {
		listed = append(listed, id.Ref)
	}
	got, other := strings.Join(streamed, " "), strings.Join(listed, " ")
	if got != other {
		t.Fatalf("prefix %q: EachStreamed lists %q, RefIDs %q", prefix, got, other)
	}
	return got
}

// record is a record body whose prev is prev (refstore.Cause).
func record(n int, prev string) string {
	if prev == "" {
		return fmt.Sprintf(`{"schema":"test/v1","n":%d}`, n)
	}
	return fmt.Sprintf(`{"schema":"test/v1","n":%d,"prev":%q}`, n, prev)
}

// badRefs are names CheckRef refuses: every store refuses them alike.
var badRefs = []string{
	"", "HEAD", "refs", "refs/", "ao/x", "refs/ao/x@{1}", "refs/ao/x:path", "refs/ao/x^{}",
	"refs/ao/x~1", "refs/ao/a..b", "refs/ao/.hidden", "refs/ao/x.lock", "refs/ao/x.",
	"refs/ao//x", "refs/ao/x/", "refs/ao/with space", "refs/ao/star*", "refs/ao/q?",
	"refs/ao/br[", `refs/ao/back\slash`, "refs/ao/tab\tx", "refs/ao/nl\nx", "refs/ao/nul\x00x",
	"refs/ao/del\x7f",
}

var cases = []struct {
	name string
	run  func(t *testing.T, h Harness)
}{
	{"missing ref is ErrNotFound", func(t *testing.T, h Harness) {
		_, err := h.Records.Get(ctx, "refs/ao/handoffs/private/a/b")
		if !errors.Is(err, refstore.ErrNotFound) {
			t.Fatalf("got %v, want ErrNotFound", err)
		}
		if ids, err := h.Records.RefIDs(ctx, refstore.Root); err != nil || len(ids) != 0 {
			t.Fatalf("RefIDs of an empty store = %v, %v", ids, err)
		}
	}},
	{"create, read, list", func(t *testing.T, h Harness) {
		r := h.Records
		oid := put(t, r, "refs/ao/handoffs/private/a/b", "", `{"schema":"x/v1"}`)
		e, err := r.Get(ctx, "refs/ao/handoffs/private/a/b")
		if err != nil || e.OID != oid || string(e.Data) != `{"schema":"x/v1"}` || e.Type != "blob" || e.Size != int64(len(e.Data)) || e.Ref != "refs/ao/handoffs/private/a/b" {
			t.Fatalf("Get = %+v, %v", e, err)
		}
		put(t, r, "refs/ao/handoffs/shared/c/d", "", "two\nlines\x00and a NUL")
		put(t, r, "refs/ao/preserved/other-tool", "", "not ours")
		var list []refstore.Entry
		err = r.EachStreamed(ctx, refstore.HandoffsPrefix, func(e refstore.Entry) error {
			e.Data = append([]byte(nil), e.Data...) // valid only until fn returns
			list = append(list, e)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[1].Ref != "refs/ao/handoffs/shared/c/d" || string(list[1].Data) != "two\nlines\x00and a NUL" || list[0].OID != oid {
			t.Fatalf("EachStreamed = %+v", list)
		}
		o, err := r.ReadObject(ctx, oid)
		if err != nil || o.OID != oid || string(o.Data) != `{"schema":"x/v1"}` || o.Type != "blob" {
			t.Fatalf("ReadObject = %+v, %v", o, err)
		}
	}},
	{"an empty record reads as empty, not absent", func(t *testing.T, h Harness) {
		oid := put(t, h.Records, "refs/ao/sessions/empty", "", "")
		e, err := h.Records.Get(ctx, "refs/ao/sessions/empty")
		if err != nil || e.OID != oid || e.Size != 0 || e.Data == nil {
			t.Fatalf("Get = %+v (Data nil: %v), %v", e, e.Data == nil, err)
		}
	}},
	{"create refuses an existing ref", func(t *testing.T, h Harness) {
		oid := put(t, h.Records, "refs/ao/sessions/s1", "", "one")
		other := blob(t, h.Records, "two")
		err := h.Records.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/s1", New: other})
		var ce *refstore.ConflictError
		if !errors.As(err, &ce) || ce.Ref != "refs/ao/sessions/s1" || ce.Actual != oid || ce.Expected != "" {
			t.Fatalf("got %v, want a conflict naming %s", err, oid)
		}
		holds(t, h.Records, "refs/ao/sessions/s1", oid)
	}},
	{"swap with the current old value wins, with a stale one loses", func(t *testing.T, h Harness) {
		r := h.Records
		a := put(t, r, "refs/ao/sessions/s1", "", "a")
		b := put(t, r, "refs/ao/sessions/s1", a, "b")
		holds(t, r, "refs/ao/sessions/s1", b)
		c := blob(t, r, "c")
		err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/s1", New: c, Old: a})
		var ce *refstore.ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, refstore.ErrConflict) || ce.Ref != "refs/ao/sessions/s1" || ce.Expected != a || ce.Actual != b {
			t.Fatalf("got %v, want a conflict expecting %s, finding %s", err, a, b)
		}
		holds(t, r, "refs/ao/sessions/s1", b)
		// Swapping to the value held is a swap like another.
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/s1", New: b, Old: b}); err != nil {
			t.Fatal(err)
		}
		// Absent is a value: updating an absent ref from an id loses.
		err = r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/none", New: c, Old: a})
		if !errors.As(err, &ce) || ce.Ref != "refs/ao/sessions/none" || ce.Actual != "" {
			t.Fatalf("updating an absent ref: %v", err)
		}
		holds(t, r, "refs/ao/sessions/none", "")
	}},
	{"swap with a stale old value is a conflict and changes nothing", func(t *testing.T, h Harness) {
		r := h.Records
		a := put(t, r, "refs/ao/sessions/s1", "", "a")
		b := put(t, r, "refs/ao/sessions/s1", a, "b")
		keep := put(t, r, "refs/ao/sessions/s3", "", "s3")
		c, d, e := blob(t, r, "c"), blob(t, r, "d"), blob(t, r, "e")
		err := r.Apply(ctx, "test",
			refstore.Update{Ref: "refs/ao/sessions/s2", New: d},
			refstore.Update{Ref: "refs/ao/sessions/s3", Old: keep},
			refstore.Update{Ref: "refs/ao/sessions/s1", New: c, Old: a},
			refstore.Update{Ref: "refs/ao/sessions/s4", New: e})
		var ce *refstore.ConflictError
		if !errors.As(err, &ce) || ce.Ref != "refs/ao/sessions/s1" || ce.Expected != a || ce.Actual != b {
			t.Fatalf("got %v, want a conflict naming refs/ao/sessions/s1", err)
		}
		holds(t, r, "refs/ao/sessions/s1", b)
		holds(t, r, "refs/ao/sessions/s2", "")
		holds(t, r, "refs/ao/sessions/s3", keep)
		holds(t, r, "refs/ao/sessions/s4", "")
		// The same transaction with the right value moves every ref.
		if err := r.Apply(ctx, "test",
			refstore.Update{Ref: "refs/ao/sessions/s2", New: d},
			refstore.Update{Ref: "refs/ao/sessions/s3", Old: keep},
			refstore.Update{Ref: "refs/ao/sessions/s1", New: c, Old: b},
			refstore.Update{Ref: "refs/ao/sessions/s4", New: e}); err != nil {
			t.Fatal(err)
		}
		holds(t, r, "refs/ao/sessions/s1", c)
		holds(t, r, "refs/ao/sessions/s2", d)
		holds(t, r, "refs/ao/sessions/s3", "")
		holds(t, r, "refs/ao/sessions/s4", e)
		if err := r.Apply(ctx, "test"); err != nil {
			t.Fatalf("no updates: %v", err)
		}
	}},
	{"delete", func(t *testing.T, h Harness) {
		r := h.Records
		a := put(t, r, "refs/ao/objectives/o/b", "", "a")
		other := blob(t, r, "other")
		err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/objectives/o/b", Old: other})
		var ce *refstore.ConflictError
		if !errors.As(err, &ce) || ce.Actual != a {
			t.Fatalf("delete with a stale old value: %v", err)
		}
		holds(t, r, "refs/ao/objectives/o/b", a)
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/objectives/o/b", Old: a}); err != nil {
			t.Fatal(err)
		}
		holds(t, r, "refs/ao/objectives/o/b", "")
		if got := refs(t, r, refstore.Root); got != "" {
			t.Fatalf("listed after delete: %q", got)
		}
		// The object stays: a ref's history outlives the ref.
		if e, err := r.ReadObject(ctx, a); err != nil || string(e.Data) != "a" {
			t.Fatalf("ReadObject after delete = %+v, %v", e, err)
		}
		err = r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/objectives/o/b", Old: a})
		if !errors.As(err, &ce) || ce.Actual != "" {
			t.Fatalf("deleting again: %v", err)
		}
	}},
	{"ApplyEach swaps each on its own", func(t *testing.T, h Harness) {
		r := h.Records
		a := put(t, r, "refs/ao/sessions/a", "", "a")
		b := put(t, r, "refs/ao/sessions/b", "", "b")
		c := put(t, r, "refs/ao/sessions/c", "", "c")
		x, y, z := blob(t, r, "x"), blob(t, r, "y"), blob(t, r, "z")
		err := r.ApplyEach(ctx, "test: each",
			refstore.Update{Ref: "refs/ao/sessions/a", New: x, Old: a},
			refstore.Update{Ref: "refs/ao/sessions/b", New: y, Old: x}, // stale
			refstore.Update{Ref: "refs/ao/sessions/c", Old: c},
			refstore.Update{Ref: "refs/ao/sessions/d", New: z})
		var ce *refstore.ConflictError
		if !errors.As(err, &ce) || ce.Ref != "refs/ao/sessions/b" || ce.Expected != x || ce.Actual != b {
			t.Fatalf("got %v, want the conflict of refs/ao/sessions/b", err)
		}
		holds(t, r, "refs/ao/sessions/a", x)
		holds(t, r, "refs/ao/sessions/b", b)
		holds(t, r, "refs/ao/sessions/c", "")
		holds(t, r, "refs/ao/sessions/d", z)
		// Two lost: the first is named, and the one that could move did.
		err = r.ApplyEach(ctx, "test: each",
			refstore.Update{Ref: "refs/ao/sessions/d", New: a, Old: x},
			refstore.Update{Ref: "refs/ao/sessions/a", New: a, Old: x},
			refstore.Update{Ref: "refs/ao/sessions/b", New: a, Old: z})
		if !errors.As(err, &ce) || ce.Ref != "refs/ao/sessions/d" {
			t.Fatalf("got %v, want the conflict of refs/ao/sessions/d", err)
		}
		holds(t, r, "refs/ao/sessions/a", a)
		if err := r.ApplyEach(ctx, "test: each"); err != nil {
			t.Fatalf("no updates: %v", err)
		}
	}},
	{"listing is in ref order, bytewise, within the prefix's boundary", func(t *testing.T, h Harness) {
		r := h.Records
		for _, ref := range []string{"refs/ao/sessions/z", "refs/ao/ab", "refs/ao/a/x", "refs/ao/a-b", "refs/ao/a.b", "refs/ao/a/y/z", "refs/ao/A", "refs/ao/handoffs/shared/o/b", "refs/ao/preserved/x", "refs/ao/sessions/a", "refs/aob", "refs/ao/sessions/é", "refs/ao/sessions/Z"} {
			put(t, r, ref, "", ref)
		}
		for _, c := range []struct{ prefix, want string }{
			{"refs/ao/a/", "refs/ao/a/x refs/ao/a/y/z"},
			{"refs/ao/a", "refs/ao/a/x refs/ao/a/y/z"},
			{"refs/ao/a/x", "refs/ao/a/x"},
			{"refs/ao/a/x/", ""},
			{"refs/ao/ab", "refs/ao/ab"},
			{"refs/ao/s", ""},
			{"refs/ao/sessions/", "refs/ao/sessions/Z refs/ao/sessions/a refs/ao/sessions/z refs/ao/sessions/é"},
			{"refs/ao", "refs/ao/A refs/ao/a-b refs/ao/a.b refs/ao/a/x refs/ao/a/y/z refs/ao/ab refs/ao/handoffs/shared/o/b refs/ao/preserved/x refs/ao/sessions/Z refs/ao/sessions/a refs/ao/sessions/z refs/ao/sessions/é"},
			{"refs/ao/", "refs/ao/A refs/ao/a-b refs/ao/a.b refs/ao/a/x refs/ao/a/y/z refs/ao/ab refs/ao/handoffs/shared/o/b refs/ao/preserved/x refs/ao/sessions/Z refs/ao/sessions/a refs/ao/sessions/z refs/ao/sessions/é"},
		} {
			if got := refs(t, r, c.prefix); got != c.want {
				t.Errorf("listing %q = %q, want %q", c.prefix, got, c.want)
			}
		}
		var seen []string
		err := r.EachStreamed(ctx, refstore.SessionPrefix, func(e refstore.Entry) error {
			if string(e.Data) != e.Ref {
				t.Errorf("%s holds %q", e.Ref, e.Data)
			}
			seen = append(seen, e.Ref)
			if len(seen) == 2 {
				return errStop
			}
			return nil
		})
		if !errors.Is(err, errStop) || len(seen) != 2 {
			t.Fatalf("fn's error: got %v after %d entries", err, len(seen))
		}
	}},
	{"history follows prev, newest first, as far as the objects go", func(t *testing.T, h Harness) {
		r := h.Records
		v1 := put(t, r, "refs/ao/sessions/h", "", record(1, ""))
		v2 := put(t, r, "refs/ao/sessions/h", v1, record(2, v1))
		v3 := put(t, r, "refs/ao/sessions/h", v2, record(3, v2))
		history := func(tip string, stop int) string {
			t.Helper()
			var got []string
			err := r.History(ctx, tip, func(e refstore.Entry) bool {
				got = append(got, e.OID)
				return len(got) != stop
			})
			if err != nil {
				t.Fatalf("History(%s): %v", tip, err)
			}
			return strings.Join(got, " ")
		}
		if got, want := history(v3, 0), v3+" "+v2+" "+v1; got != want {
			t.Fatalf("History = %s, want %s", got, want)
		}
		if got := history(v3, 2); got != v3+" "+v2 {
			t.Fatalf("History stopped by fn after two = %s", got)
		}
		if got := history("", 0); got != "" {
			t.Fatalf("History of no tip = %s", got)
		}
		// A prev this store lacks, or that is no object id at all (a
		// ref, a revision: never resolved), ends the history.
		zero := strings.Repeat("0", refstore.HexLen(h.Format)-1) + "1"
		for _, prev := range []string{zero, "refs/ao/sessions/h", "HEAD", v1[:12], strings.ToUpper(v1)} {
			tip := blob(t, r, record(9, prev))
			if got := history(tip, 0); got != tip {
				t.Errorf("History of a version whose prev is %q = %s, want the version alone", prev, got)
			}
		}
	}},
	{"oversized blob is read as size only", func(t *testing.T, h Harness) {
		r := h.Records
		big := strings.Repeat("x", refstore.MaxRecord+1)
		if _, err := r.WriteBlob(ctx, []byte(big)); !errors.Is(err, refstore.ErrTooLarge) {
			t.Fatalf("WriteBlob = %v, want ErrTooLarge", err)
		}
		oid := h.WriteRawBlob(t, []byte(big))
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/handoffs/shared/big/x", New: oid}); err != nil {
			t.Fatal(err)
		}
		atMost := strings.Repeat("y", refstore.MaxRecord)
		put(t, r, "refs/ao/handoffs/shared/big/y", "", atMost)
		e, err := r.Get(ctx, "refs/ao/handoffs/shared/big/x")
		if err != nil || e.Data != nil || e.Size != int64(len(big)) || e.OID != oid || e.Type != "blob" {
			t.Fatalf("Get = size %d, %d bytes, %v", e.Size, len(e.Data), err)
		}
		if err := refstore.Decode(e, "x/v1", &struct{}{}); !errors.Is(err, refstore.ErrTooLarge) {
			t.Fatalf("Decode = %v, want ErrTooLarge", err)
		}
		if o, err := r.ReadObject(ctx, oid); err != nil || o.Data != nil || o.Size != int64(len(big)) {
			t.Fatalf("ReadObject = size %d, %d bytes, %v", o.Size, len(o.Data), err)
		}
		var sizes []string
		err = r.EachStreamed(ctx, "refs/ao/handoffs/shared/big/", func(e refstore.Entry) error {
			sizes = append(sizes, fmt.Sprintf("%d:%d", e.Size, len(e.Data)))
			return nil
		})
		if want := fmt.Sprintf("%d:0 %d:%d", len(big), len(atMost), len(atMost)); err != nil || strings.Join(sizes, " ") != want {
			t.Fatalf("EachStreamed sizes = %q, %v; want %q", sizes, err, want)
		}
		n := 0
		if err := r.History(ctx, oid, func(refstore.Entry) bool { n++; return true }); err != nil || n != 0 {
			t.Fatalf("History of an oversized version: %d versions, %v", n, err)
		}
	}},
	{"ids are git's", func(t *testing.T, h Harness) {
		// git hash-object /dev/null, in each format.
		empty := map[string]string{
			refstore.FormatSHA1:   "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
			refstore.FormatSHA256: "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
		}[h.Format]
		if got := blob(t, h.Records, ""); got != empty {
			t.Fatalf("the empty blob is %s in %s, git says %s", got, h.Format, empty)
		}
		hello := map[string]string{ // printf 'hello\n' | git hash-object --stdin
			refstore.FormatSHA1:   "ce013625030ba8dba906f756967f9e9ca394464a",
			refstore.FormatSHA256: "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4",
		}[h.Format]
		if got := blob(t, h.Records, "hello\n"); got != hello {
			t.Fatalf("hello is %s in %s, git says %s", got, h.Format, hello)
		}
		if a, b := blob(t, h.Records, "same"), blob(t, h.Records, "same"); a != b {
			t.Fatalf("the same bytes have two ids: %s, %s", a, b)
		}
	}},
	{"concurrent swaps of one ref: one winner a round", func(t *testing.T, h Harness) {
		const workers, rounds = 6, 12
		ref := "refs/ao/handoffs/shared/race/main"
		handles := make([]refstore.Records, workers)
		for i := range handles {
			handles[i] = h.Open(t)
		}
		base := ""
		for round := range rounds {
			var wg sync.WaitGroup
			won := make([]string, workers)
			errs := make([]error, workers)
			start := make(chan struct{})
			for i, r := range handles {
				wg.Add(1)
				go func() {
					defer wg.Done()
					mine, err := r.WriteBlob(ctx, []byte(fmt.Sprintf("round %d by %d", round, i)))
					if err != nil {
						errs[i] = err
						return
					}
					<-start
					if errs[i] = r.Apply(ctx, "test: race", refstore.Update{Ref: ref, New: mine, Old: base}); errs[i] == nil {
						won[i] = mine
					}
				}()
			}
			close(start)
			wg.Wait()
			winner := ""
			for i := range handles {
				var ce *refstore.ConflictError
				switch {
				case errs[i] == nil && winner != "":
					t.Fatalf("round %d: two winners, %s and %s", round, winner, won[i])
				case errs[i] == nil:
					winner = won[i]
				case !errors.As(errs[i], &ce) || ce.Expected != base:
					t.Fatalf("round %d: worker %d: %v, want a lost swap from %q", round, i, errs[i], base)
				}
			}
			if winner == "" {
				t.Fatalf("round %d: nobody won: %v", round, errs)
			}
			for i := range handles {
				var ce *refstore.ConflictError
				if errors.As(errs[i], &ce) && ce.Actual != winner {
					t.Errorf("round %d: worker %d lost to %s, the winner is %s", round, i, ce.Actual, winner)
				}
			}
			holds(t, h.Records, ref, winner)
			base = winner
		}
	}},
	{"bad names are refused alike", func(t *testing.T, h Harness) {
		r := h.Records
		good := put(t, r, "refs/ao/sessions/good", "", "good")
		for _, ref := range badRefs {
			if _, err := r.Get(ctx, ref); !errors.Is(err, refstore.ErrBadName) {
				t.Errorf("Get(%q) = %v, want ErrBadName", ref, err)
			}
			for name, apply := range map[string]func(context.Context, string, ...refstore.Update) error{"Apply": r.Apply, "ApplyEach": r.ApplyEach} {
				if err := apply(ctx, "test", refstore.Update{Ref: ref, New: good}); !errors.Is(err, refstore.ErrBadName) {
					t.Errorf("%s creating %q = %v, want ErrBadName", name, ref, err)
				}
			}
		}
		// The names git takes as revisions of a good ref read nothing.
		for _, ref := range []string{"refs/ao/sessions/good@{0}", "refs/ao/sessions/good^{}", "refs/ao/sessions/good:x"} {
			if e, err := r.Get(ctx, ref); !errors.Is(err, refstore.ErrBadName) || e.Data != nil {
				t.Errorf("Get(%q) = %q, %v; want ErrBadName", ref, e.Data, err)
			}
		}
		// A good name beside a bad one: nothing moves.
		other := blob(t, r, "other")
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/new", New: other}, refstore.Update{Ref: "refs/ao/a..b", New: other}); !errors.Is(err, refstore.ErrBadName) {
			t.Errorf("a transaction with a bad name = %v", err)
		}
		holds(t, r, "refs/ao/sessions/new", "")
		for _, p := range []string{"refs/ao/*", "refs/ao/sess?ons/", "refs/ao/[s]essions/", `refs/ao/\s`} {
			if _, err := r.RefIDs(ctx, p); !errors.Is(err, refstore.ErrBadName) {
				t.Errorf("RefIDs(%q) = %v, want ErrBadName", p, err)
			}
			if err := r.EachStreamed(ctx, p, func(refstore.Entry) error { return nil }); !errors.Is(err, refstore.ErrBadName) {
				t.Errorf("EachStreamed(%q) = %v, want ErrBadName", p, err)
			}
		}
		n := refstore.HexLen(h.Format)
		badIDs := []string{good[:12], strings.ToUpper(good), good + "0", "refs/ao/sessions/good", "HEAD", strings.Repeat("0", n), strings.Repeat("g", n), strings.Repeat("a", 40+64-n)}
		for _, id := range badIDs {
			for _, u := range []refstore.Update{
				{Ref: "refs/ao/sessions/new", New: id},
				{Ref: "refs/ao/sessions/good", New: other, Old: id},
				{Ref: "refs/ao/sessions/good", Old: id},
			} {
				if err := r.Apply(ctx, "test", u); !errors.Is(err, refstore.ErrBadName) {
					t.Errorf("Apply(%+v) = %v, want ErrBadName", u, err)
				}
			}
			if _, err := r.ReadObject(ctx, id); !errors.Is(err, refstore.ErrNotFound) {
				t.Errorf("ReadObject(%q) = %v, want ErrNotFound", id, err)
			}
		}
		for name, apply := range map[string]func(context.Context, string, ...refstore.Update) error{"Apply": r.Apply, "ApplyEach": r.ApplyEach} {
			if err := apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/x", New: other}, refstore.Update{Ref: "refs/ao/sessions/x", New: good}); !errors.Is(err, refstore.ErrBadName) {
				t.Errorf("%s of one ref twice = %v, want ErrBadName", name, err)
			}
			if err := apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/x"}); !errors.Is(err, refstore.ErrBadName) {
				t.Errorf("%s deleting a ref expected absent = %v, want ErrBadName", name, err)
			}
		}
		holds(t, r, "refs/ao/sessions/good", good)
		holds(t, r, "refs/ao/sessions/x", "")
	}},
	{"a ref needs an object the store has", func(t *testing.T, h Harness) {
		r := h.Records
		a := put(t, r, "refs/ao/sessions/a", "", "a")
		lacking := strings.Repeat("0", refstore.HexLen(h.Format)-4) + "beef"
		b := blob(t, r, "b")
		err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/b", New: b}, refstore.Update{Ref: "refs/ao/sessions/a", New: lacking, Old: a})
		if !errors.Is(err, refstore.ErrMissingObject) {
			t.Fatalf("got %v, want ErrMissingObject", err)
		}
		holds(t, r, "refs/ao/sessions/a", a)
		holds(t, r, "refs/ao/sessions/b", "")
		err = r.ApplyEach(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/c", New: lacking}, refstore.Update{Ref: "refs/ao/sessions/b", New: b})
		if !errors.Is(err, refstore.ErrMissingObject) {
			t.Fatalf("ApplyEach: got %v, want ErrMissingObject", err)
		}
		holds(t, r, "refs/ao/sessions/b", b)
		holds(t, r, "refs/ao/sessions/c", "")
	}},
	{"a ref cannot be beside refs under its name", func(t *testing.T, h Harness) {
		r := h.Records
		a := put(t, r, "refs/ao/sessions/a", "", "a")
		put(t, r, "refs/ao/sessions/d/x", "", "x")
		for _, ref := range []string{"refs/ao/sessions/a/b", "refs/ao/sessions/d"} {
			err := r.Apply(ctx, "test", refstore.Update{Ref: ref, New: a})
			if !errors.Is(err, refstore.ErrBadName) {
				t.Errorf("creating %s: %v, want ErrBadName", ref, err)
			}
			holds(t, r, ref, "")
		}
		// Both in one transaction.
		err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/e", New: a}, refstore.Update{Ref: "refs/ao/sessions/e/f", New: a})
		if !errors.Is(err, refstore.ErrBadName) {
			t.Errorf("creating e and e/f together: %v, want ErrBadName", err)
		}
		holds(t, r, "refs/ao/sessions/e", "")
		// Gone from the way, the name is free.
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/a", Old: a}); err != nil {
			t.Fatal(err)
		}
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/a/b", New: a}); err != nil {
			t.Fatalf("creating a/b once a is gone: %v", err)
		}
		holds(t, r, "refs/ao/sessions/a/b", a)
	}},
}

var errStop = errors.New("stop")
