package baton

import (
	"reflect"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
)

// FuzzDecodeFastAgrees: the one-pass decode accepts only what the checked
// two-pass decode accepts, and gives the same baton.
func FuzzDecodeFastAgrees(f *testing.F) {
	for _, s := range []string{
		`{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b","shared":false,"nextSteps":["s"],"createdAt":"2026-11-02T09:00:00Z"}`,
		`{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b"} {}`,
		`{"SCHEMA":"handoff/v1","schema":"handoff/v2"}`, `{"schema":"handoff/v2","Schema":"handoff/v1"}`,
		`{"schema":"handoff/v1","nextSteps":"x"}`, `{"schema":"handoff/v1","claimed":true,"claimedAt":"2026-11-02T09:00:00Z"}`,
		`{"schema":null}`, `[]`, `{}`, ``, `{"schema":"handoff/v1"`,
	} {
		f.Add(s)
	}
	ref, _ := refstore.HandoffRef(false, "o", "b")
	f.Fuzz(func(t *testing.T, data string) {
		e := entry(ref, data)
		var fast Baton
		if !decodeFast(e, &fast) {
			return
		}
		var slow Baton
		if err := refstore.Decode(e, Schema, &slow); err != nil {
			t.Fatalf("fast decode accepted what the checked one refuses: %v", err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("fast %+v, checked %+v", fast, slow)
		}
	})
}
