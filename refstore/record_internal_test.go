package refstore

import (
	"testing"

	"github.com/git-handoff/git-handoff/internal/jsonrec/jsontest"
)

// FuzzRevOfFast: what the one-pass read of a cause accepts, json.Unmarshal
// reads to the same cause.
func FuzzRevOfFast(f *testing.F) {
	for _, s := range []string{
		`{"schema":"handoff/v1","rev":3,"prev":"abc","seen":{"a":1,"b":2}}`,
		`{"schema":"session/v1","supersedes":"s-0","rev":4,"prev":"def","launched":{"x":{"first":"2026-01-01T00:00:00Z"}}}`,
		`{"Rev":3}`, `{"rev":-1}`, `{"rev":1.5}`, `{"rev":3,"rev":4}`, `{"seen":null}`, `{"seen":{"a":1,"a":2}}`,
		`{"prev":"\u003c\ud83d\ude00"}`, `{"prev":"\xff"}`, `[]`, `null`, ``, `{"rev":1} x`, `{"REV\u017f":1}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		jsontest.CheckDecode(t, []byte(data), func(b []byte, c *Cause) bool {
			var ok bool
			*c, ok = revOfFast(b)
			return ok
		})
	})
}

// FuzzJournalMarshal: the journal writes what json.Marshal writes.
func FuzzJournalMarshal(f *testing.F) {
	for i, s := range jsontest.Strings {
		f.Add(s, jsontest.Strings[(i+1)%len(jsontest.Strings)], uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b string, n uint8) {
		r := &journalRecord{Schema: txnSchema, Msg: a, Ident: b}
		if n&1 == 0 {
			r.Ident = ""
		}
		for i := range int(n >> 1 & 7) {
			u := journalUpdate{Ref: a + b}
			if i&1 == 0 {
				u.Old = b
			}
			if i&2 == 0 {
				u.New = a
			}
			r.Updates = append(r.Updates, u)
		}
		if n&(1<<4) != 0 && r.Updates == nil {
			r.Updates = []journalUpdate{}
		}
		jsontest.Check(t, r, r.marshal)
	})
}

// TestRecordEncodersFields tries every field, so a field added to the
// journal without teaching its encoder fails here.
func TestRecordEncodersFields(t *testing.T) {
	for _, r := range jsontest.Variants[journalRecord](t) {
		jsontest.Check(t, &r, r.marshal)
	}
}
