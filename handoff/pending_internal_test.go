package handoff

import (
	"testing"

	"github.com/git-handoff/git-handoff/internal/jsonrec/jsontest"
)

// FuzzPendingMarshal: a pending-claim note is written as json.Marshal
// writes it.
func FuzzPendingMarshal(f *testing.F) {
	for i, s := range jsontest.Strings {
		f.Add(s, jsontest.Strings[(i+2)%len(jsontest.Strings)], int64(i)*-7919)
	}
	f.Fuzz(func(t *testing.T, a, b string, pid int64) {
		p := &pendingClaim{Schema: pendingSchema, Baton: a, Ref: b, Old: a + b, Claimed: b + a, Session: a, Host: b, PID: int(pid), path: a, taker: b}
		jsontest.Check(t, p, func() ([]byte, error) { return p.marshal(), nil })
	})
}

// TestPendingMarshalFields: a field added to the note without teaching
// its encoder fails here.
func TestPendingMarshalFields(t *testing.T) {
	for _, p := range jsontest.Variants[pendingClaim](t) {
		jsontest.Check(t, &p, func() ([]byte, error) { return p.marshal(), nil })
	}
}
