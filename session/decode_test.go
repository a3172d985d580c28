package session

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/jsonrec/jsontest"
	"github.com/git-handoff/git-handoff/refstore"
)

// hostile is text a teammate's record may hold.
var hostile = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r\b\f", "nul \x00 and \x1f and \x7f",
	"</script><b>&amp;", "caf\u00e9 \u65e5\u672c \U0001f600", "\u2028 \u2029", "\u202e reversed \u2066",
	"bad \xff\xfe utf-8", strings.Repeat("long ", 200),
}

// The records git-handoff writes (json.Marshal of a Record) take the fast
// path, and it reads them back exactly.
func TestUnmarshalFastReadsWhatIsWritten(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 1234, time.UTC)
	for i, s := range hostile {
		at := t0.Add(time.Duration(i) * time.Hour).In(time.FixedZone("", 5400))
		r := Record{Schema: Schema, ID: "app-" + s, Owner: s, Branch: s, Worktree: s, Host: s, Harness: s, Model: s,
			Status: s, Prompt: s, StartHead: s, Summary: s, CreatedAt: t0, UpdatedAt: at, Supersedes: s, ReplacedBy: s,
			HandoffReason: s, HandoffContextMode: s, HandoffPackage: s}
		switch i % 3 {
		case 0:
			r.EndedAt, r.HandoffAt = &at, &t0
			r.Launched = map[string]Launched{s: {NativeID: s, First: t0, Last: at}, "codex": {First: at}}
			r.Cause = refstore.Cause{Rev: uint64(i), Prev: s, Seen: map[string]uint64{s: 1}}
		case 1:
			r.Switching = &Switching{By: s, Since: t0, Until: at, To: s}
			r.PR = &PRPointer{Repo: s, Number: -i, URL: s}
			r.ClaimedHandoff = json.RawMessage(`{"schema":"handoff/v1","id":"h-1","nextSteps":["x"]}`)
		case 2:
			r.Runtime = &Runtime{Kind: "tmux", Socket: s, Name: s, Host: s}
			r.Launched = map[string]Launched{}
		}
		data, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		if !jsontest.CheckDecode(t, data, UnmarshalFast) {
			t.Fatalf("%d: the fast path declined what git-handoff writes: %s", i, data)
		}
	}
}

// FuzzUnmarshalFast: whatever UnmarshalFast accepts, json.Unmarshal
// accepts too and decodes to the same record. (What it declines goes to
// json.Unmarshal itself.) Seeds: testdata/fuzz/FuzzUnmarshalFast.
func FuzzUnmarshalFast(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		jsontest.CheckDecode(t, data, UnmarshalFast)
	})
}

// namesRef, which Decode checks every record with, agrees with the ref
// SessionRef builds, for ids that encode as themselves and ids that do not.
func TestNamesRefIsSessionRef(t *testing.T) {
	ids := append([]string{"app-1", "a.lock", ".x", "x.", "a..b", "@{u}", "%", "with space", "a/b"}, hostile...)
	for _, id := range ids {
		want, err := refstore.SessionRef(id)
		for _, ref := range []string{want, refstore.SessionPrefix + id, refstore.HandoffsPrefix + id, want + "x", "x" + want} {
			if got := namesRef(id, ref); got != (err == nil && ref == want) {
				t.Errorf("namesRef(%q, %q) = %v; SessionRef gives %q, %v", id, ref, got, want, err)
			}
		}
	}
}
