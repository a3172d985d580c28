package baton

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/internal/jsonrec/jsontest"
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
		ok := decodeFast(e, &fast, nil)
		// Borrowing (a listing's reader, used before for another
		// record) decodes the same.
		var br jsonrec.Reader
		br.Borrow()
		var other Baton
		decodeFast(entry(ref, `{"schema":"handoff/v1","id":"before","nextSteps":["a\\nb"]}`), &other, &br)
		var borrowed Baton
		if decodeFast(e, &borrowed, &br) != ok || ok && !reflect.DeepEqual(fast, borrowed) {
			t.Fatalf("borrowing: %+v, copying: %+v", borrowed, fast)
		}
		if !ok {
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

// hostile is text a teammate's record may hold: quotes, escapes, controls,
// invalid UTF-8, separators JavaScript chokes on, bidi overrides, emoji.
var hostile = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r\b\f", "nul \x00 and \x1f and \x7f",
	"</script><b>&amp;", "caf\u00e9 \u65e5\u672c \U0001f600", "\u2028 \u2029", "\u202e reversed \u2066",
	"bad \xff\xfe utf-8", "\xed\xa0\x80 surrogate bytes", strings.Repeat("long ", 200),
}

// The records git-handoff writes (json.Marshal of a Baton) take the fast
// path, and it reads them back exactly.
func TestUnmarshalFastReadsWhatIsWritten(t *testing.T) {
	at := t0.Add(time.Hour)
	for i, s := range hostile {
		b := Baton{Schema: Schema, ID: "h-" + s, Owner: s, Branch: "b" + s, Shared: i%2 == 0,
			NextSteps: []string{s, "two"}, FailedApproaches: []string{}, OpenQuestions: []string{s},
			Harness: s, SessionID: s, CreatedAt: t0.In(time.FixedZone("x", 3600)), Head: s}
		switch i % 3 {
		case 1:
			b.Claimed, b.ClaimedAt, b.ClaimedBySession = true, &at, s
			b.Cause = refstore.Cause{Rev: uint64(i), Prev: s, Seen: map[string]uint64{s: 1, "w": 18446744073709551615}}
		case 2:
			b.Deleted = &Deletion{Reason: s, At: at}
		}
		data, err := json.Marshal(&b)
		if err != nil {
			t.Fatal(err)
		}
		if !jsontest.CheckDecode(t, data, UnmarshalFast) {
			t.Fatalf("%d: the fast path declined what git-handoff writes: %s", i, data)
		}
	}
}

// FuzzUnmarshalFast: whatever UnmarshalFast accepts, json.Unmarshal
// accepts too and decodes to the same baton. (What it declines goes to
// json.Unmarshal itself.) Seeds: testdata/fuzz/FuzzUnmarshalFast.
func FuzzUnmarshalFast(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		jsontest.CheckDecode(t, data, UnmarshalFast)
	})
}

// FuzzAtRef: the in-place comparison of a baton's ref says what building
// it says, for the baton's own ref and for others.
func FuzzAtRef(f *testing.F) {
	for _, s := range [][2]string{{"me@example.com", "main"}, {"a.b", "c..d"}, {".x", "y."}, {"x.lock", "b"}, {"a/b", "c"}, {"a@{b", "c"}, {"", "b"}, {"o", "feature/x"}, {"x%41", "b"}} {
		f.Add(s[0], s[1], false, "")
	}
	f.Fuzz(func(t *testing.T, owner, branch string, shared bool, other string) {
		b := &Baton{Owner: owner, Branch: branch, Shared: shared}
		own, err := refstore.HandoffRef(shared, owner, branch)
		for _, ref := range []string{own, other, own + "x", refstore.PrivatePrefix + owner + "/" + branch, refstore.SharedPrefix + owner + "/" + branch} {
			want := err == nil && ref == own
			if got := atRef(ref, b); got != want {
				t.Fatalf("atRef(%q, owner %q, branch %q, shared %v) = %v, want %v", ref, owner, branch, shared, got, want)
			}
		}
	})
}

// FuzzDecodeVersion: DecodeVersion gives what refstore.Decode gives, and
// fails where it fails.
func FuzzDecodeVersion(f *testing.F) {
	for _, s := range []string{
		`{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b","shared":false,"nextSteps":["s"],"createdAt":"2026-11-02T09:00:00Z"}`,
		`{"schema":"handoff/v1","id":"h-1","nextSteps":null}`, `{"schema":"handoff/v2"}`, `{"Schema":"handoff/v1"}`, `[]`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		e := entry("", data)
		got, gerr := DecodeVersion(e)
		var want Baton
		werr := refstore.Decode(e, Schema, &want)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("DecodeVersion error %v, refstore.Decode error %v", gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeVersion %+v, refstore.Decode %+v", got, want)
		}
	})
}

// FuzzUnmarshalObjectiveFast: whatever UnmarshalObjectiveFast accepts,
// json.Unmarshal accepts too and decodes to the same objective; and
// DecodeObjective gives what refstore.Decode gives.
func FuzzUnmarshalObjectiveFast(f *testing.F) {
	for _, s := range []string{
		`{"schema":"objective/v1","owner":"o","branch":"b","text":"do <it> \u00e9","sessionId":"s1","setAt":"2026-11-02T09:00:00.5Z","rev":2,"prev":"abc","seen":{"w":2}}`,
		`{"schema":"objective/v1","owner":"o","branch":"b","text":""}`, `{"schema":"objective/v1","Text":"x"}`,
		`{"schema":"objective/v1","setAt":null}`, `{"schema":"objective/v2"}`, `{"text":"a","text":"b"}`, `[]`, ``,
	} {
		f.Add(s)
	}
	ref, _ := refstore.ObjectiveRef("o", "b")
	f.Fuzz(func(t *testing.T, data string) {
		jsontest.CheckDecode(t, []byte(data), UnmarshalObjectiveFast)
		e := entry(ref, data)
		got, gerr := DecodeObjective(e)
		var want Objective
		werr := refstore.Decode(e, ObjectiveSchema, &want)
		if werr == nil {
			if wr, err := refstore.ObjectiveRef(want.Owner, want.Branch); err != nil || wr != ref {
				werr = refstore.ErrInvalidRecord
			}
		}
		if (gerr == nil) != (werr == nil) || (werr == nil && !reflect.DeepEqual(got, want)) {
			t.Fatalf("input %q: DecodeObjective %+v, %v; refstore.Decode %+v, %v", data, got, gerr, want, werr)
		}
	})
}
