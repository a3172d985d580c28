package teamsync

import (
	"encoding/json"
	"testing"
)

func TestConflictFields(t *testing.T) {
	dropped := []byte(`{"schema":"handoff/v1","id":"h-1","nextSteps":["b"],"claimed":true,"claimedBySession":"s-late","rev":3,"prev":"aa","seen":{"x":3}}`)
	kept := []byte(`{"schema":"handoff/v1","id":"h-1","nextSteps":["a"], "claimed":true,"rev":3,"prev":"bb","seen":{"y":3},"deleted":{"reason":"cancelled"}}`)
	got := ConflictFields(dropped, kept)
	want := []struct{ field, kept, dropped string }{
		{"nextSteps", `["a"]`, `["b"]`},
		{"deleted", `{"reason":"cancelled"}`, ``},
		{"claimedBySession", ``, `"s-late"`},
	}
	if len(got) != len(want) {
		t.Fatalf("fields = %+v, want %d of them", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Field != w.field || string(g.Kept) != w.kept || string(g.Dropped) != w.dropped {
			t.Errorf("field %d = {%s %s %s}, want %+v", i, g.Field, g.Kept, g.Dropped, w)
		}
	}
	for _, bad := range []string{"not json", `["id","h-2"]`, `{"id":`} {
		if got := ConflictFields([]byte(bad), kept); got == nil || len(got) != 0 {
			t.Errorf("a record that is not a JSON object (%s): %+v, want an empty list", bad, got)
		}
	}
}

// Records come from the remote: whatever they hold, ConflictFields neither
// panics nor shows bookkeeping, and every field it shows differs.
func FuzzConflictFields(f *testing.F) {
	f.Add([]byte(`{"id":"a","rev":1}`), []byte(`{"id":"b","rev":2,"seen":{}}`))
	f.Add([]byte(`{"a":1,"a":2}`), []byte(`{"a":2}`))
	f.Add([]byte(`[1,2]`), []byte(`{}`))
	f.Add([]byte(`{"x":`), []byte(`{"x":{"y":[1,{"z":null}]}}`))
	f.Fuzz(func(t *testing.T, dropped, kept []byte) {
		for _, fd := range ConflictFields(dropped, kept) {
			if bookkeeping[fd.Field] {
				t.Fatalf("bookkeeping field %q shown", fd.Field)
			}
			if string(fd.Kept) == string(fd.Dropped) {
				t.Fatalf("field %q shown though equal: %s", fd.Field, fd.Kept)
			}
			for _, v := range []json.RawMessage{fd.Kept, fd.Dropped} {
				if len(v) > 0 && !json.Valid(v) {
					t.Fatalf("field %q: invalid JSON %q", fd.Field, v)
				}
			}
		}
	})
}
