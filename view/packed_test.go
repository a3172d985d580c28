package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/session"
)

// packable is recordOf without the parts a packed record does not hold,
// with times of every kind: zones east and west, nanoseconds, the zero
// time, the first and last a record can show.
func packable(s string, i int) session.Record {
	r := recordOf(s, i)
	r.Switching, r.PR, r.ClaimedHandoff, r.Runtime = nil, nil, nil, nil
	zones := []*time.Location{time.UTC, time.FixedZone("", 5*3600+30*60), time.FixedZone("X", -7*3600),
		time.FixedZone("", 1), time.Local}
	times := []time.Time{{}, time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 1, time.UTC), time.Date(2026, 11, 2, 9, 0, 0, 120000000, time.UTC)}
	at := func(k int) time.Time {
		t := times[(i+k)%len(times)]
		if !t.IsZero() {
			t = t.In(zones[(i+2*k)%len(zones)])
		}
		return t
	}
	r.CreatedAt, r.UpdatedAt = at(0), at(1)
	if r.EndedAt != nil {
		e, h := at(2), at(3)
		r.EndedAt, r.HandoffAt = &e, &h
	}
	if i%5 == 3 {
		h := at(4)
		r.EndedAt, r.HandoffAt = nil, &h
	}
	switch i % 6 {
	case 1:
		r.Launched = nil
	case 3:
		r.Launched = map[string]session.Launched{s: {NativeID: s, First: at(2), Last: at(3)}, "": {}, "codex": {First: at(4)}}
	}
	return r
}

// checkPacked fails t unless the packed record writes what
// AppendRecordOpenIndented writes of r, and Record gives back what a
// listing shows of it.
func checkPacked(t *testing.T, w *PackedWriter, r *session.Record) {
	t.Helper()
	before := []byte("before")
	want, _, werr := AppendRecordOpenIndented(bytes.Clone(before), r)
	p, ok := PackRecord([]byte("prefix"), r)
	if !ok {
		t.Fatalf("PackRecord refused %+v", r)
	}
	if !bytes.HasPrefix(p, []byte("prefix")) {
		t.Fatalf("PackRecord did not append: %q", p)
	}
	p = p[len("prefix"):]
	got, err := w.AppendIndented(bytes.Clone(before), p)
	if fmt.Sprint(err) != fmt.Sprint(werr) {
		t.Fatalf("AppendIndented error %v, AppendRecordOpenIndented %v", err, werr)
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Fatalf("packed:\n%s\nAppendRecordOpenIndented:\n%s", got, want)
	}
	back := w.Record(p)
	if got, want := OfSession(back, false), OfSession(*r, false); !reflect.DeepEqual(encodedOrErr(t, got), encodedOrErr(t, want)) {
		t.Fatalf("Record shows\n%+v\nthe record packed shows\n%+v", got, want)
	}
	// The record given back is its own: writing over the packed bytes
	// changes nothing of it.
	kept := encodedOrErr(t, OfSession(back, false))
	for i := range p {
		p[i] = 0xff
	}
	if again := encodedOrErr(t, OfSession(back, false)); again != kept {
		t.Fatalf("Record shares the packed record's memory:\n%s\nwas\n%s", again, kept)
	}
}

func encodedOrErr(t *testing.T, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "error: " + err.Error()
	}
	return buf.String()
}

// The packed writer writes what AppendRecordOpenIndented writes, over
// records of every shape packed one after another into the same writer,
// with hostile text in every field.
func TestPackedMatchesIndented(t *testing.T) {
	var w PackedWriter
	for i, s := range hostile {
		for j := range 30 {
			r := packable(s, i+j)
			checkPacked(t, &w, &r)
		}
	}
}

// A record with a part the packed form does not hold is refused, dst
// untouched.
func TestPackRecordRefusesWhatItDoesNotHold(t *testing.T) {
	for i := range 4 {
		r := packable("x", 0)
		switch i {
		case 0:
			r.Switching = &session.Switching{By: "x"}
		case 1:
			r.PR = &session.PRPointer{Repo: "o/r", Number: 1}
		case 2:
			r.ClaimedHandoff = []byte(`{}`)
		case 3:
			r.Runtime = &session.Runtime{Kind: "tmux"}
		}
		if p, ok := PackRecord([]byte("dst"), &r); ok || string(p) != "dst" {
			t.Fatalf("case %d: PackRecord = %q, %v", i, p, ok)
		}
	}
}

// A time JSON cannot hold fails the packed writer as it fails
// AppendRecordOpenIndented; Record then gives it back for encoding/json.
func TestPackedRefusesWhatIndentedRefuses(t *testing.T) {
	var w PackedWriter
	for _, at := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)} {
		r := packable("x", 0)
		r.Launched = map[string]session.Launched{"codex": {Last: at}}
		checkPacked(t, &w, &r)
		p, _ := PackRecord(nil, &r)
		if _, err := w.AppendIndented(nil, p); err == nil {
			t.Fatalf("a year of %d was written", at.Year())
		}
		if back := w.Record(p); !back.Launched["codex"].Last.Equal(at) {
			t.Fatalf("Record gave back %v, want %v", back.Launched["codex"].Last, at)
		}
	}
}

// FuzzPackedMatchesIndented: the same over any text.
func FuzzPackedMatchesIndented(f *testing.F) {
	for i, s := range hostile {
		f.Add(s, i)
	}
	var w PackedWriter
	f.Fuzz(func(t *testing.T, s string, i int) {
		r := packable(s, i&0xffff)
		checkPacked(t, &w, &r)
	})
}
