package session

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

func entry(t testing.TB, id string, data []byte) refstore.Entry {
	ref, err := refstore.SessionRef(id)
	if err != nil {
		t.Fatal(err)
	}
	return refstore.Entry{Ref: ref, OID: strings.Repeat("a", 40), Type: "blob", Size: int64(len(data)), Data: data}
}

func readCompat(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "compat", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sameRecord compares records by their JSON, which compares times as
// instants in the offset they were written with.
func sameRecord(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// The records in testdata/compat were written by the hand encoder
// git-handoff had before its records went through encoding/json
// (Record.AppendJSON; claimed_baton.json by baton.Marshal): a teammate on
// that version writes exactly these bytes. They decode to what they say,
// and encode again to the same bytes, so that teammate reads ours as
// before.
func TestOldRecordsRoundTrip(t *testing.T) {
	hostile := "<b>&amp;\"quoted\" \\ back\nnew\ttab \x01\x1b[31m\x7f é \u2028\u2029 \U0001F600"
	at := time.Date(2026, 3, 4, 5, 6, 7, 890123000, time.UTC)
	later := time.Date(2026, 3, 5, 1, 2, 3, 0, time.FixedZone("", -5*3600))
	claimed := readCompat(t, "claimed_baton")
	records := map[string]Record{
		"session_full": {Schema: Schema, ID: "s-full", Owner: "alice@example.com", Branch: "feature/x", Worktree: "/work/wt <x>",
			Host: "box", Harness: "claude", Model: "opus", Status: StatusReplaced, Prompt: "do " + hostile, StartHead: "0123456789abcdef0123456789abcdef01234567",
			Summary: "did " + hostile, CreatedAt: at, UpdatedAt: later, EndedAt: &later, Supersedes: "s-old", ReplacedBy: "s-new",
			HandoffReason: "stuck", HandoffAt: &at, HandoffContextMode: "summary", HandoffPackage: "# package\n" + hostile,
			Launched:       map[string]Launched{"codex": {First: at, Last: later}, "claude": {NativeID: "n-1", First: at, Last: later}},
			Switching:      &Switching{By: "pid 1", Since: at, Until: later, To: "codex"},
			ClaimedHandoff: claimed,
			PR:             &PRPointer{Repo: "o/r", Number: 42, URL: "https://github.com/o/r/pull/42?a=1&b=2"},
			Runtime:        &Runtime{Kind: "tmux", Socket: "/tmp/tmux-0/default", Name: "handoff-s-full", Host: "box"},
			Cause:          refstore.Cause{Rev: 7, Prev: "fedcba9876543210fedcba9876543210fedcba98", Seen: map[string]uint64{"w": 7}},
		},
		"session_minimal": {Schema: Schema, ID: "s-min", Owner: "bob", Branch: "main", Status: StatusActive, CreatedAt: at, UpdatedAt: at,
			Switching: &Switching{By: "x", Since: at, Until: at}, Runtime: &Runtime{Kind: "tmux", Socket: "s", Name: "n"},
			PR: &PRPointer{Repo: "o/r", Number: 1}},
	}
	for name, want := range records {
		data := readCompat(t, name)
		got, err := Decode(entry(t, want.ID, data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !sameRecord(got.Record, want) {
			t.Errorf("%s decodes to\n%+v\nwant\n%+v", name, got.Record, want)
		}
		again, err := refstore.Encode(&got.Record)
		if err != nil || !bytes.Equal(again, data) {
			t.Errorf("%s: encoded again (%v)\n%s\nwas\n%s", name, err, again, data)
		}
	}
}

// Unreadable records are errors naming the ref, never panics.
func TestDecodeRefusesWithTheRef(t *testing.T) {
	for _, data := range []string{
		`not json`, `{"schema":"session/v2","id":"s-1"}`, `{"id":"s-1"}`, `{"schema":"session/v1","id":"s-1"} {}`,
		`{"schema":"session/v1","id":"s-other"}`, `{"schema":"session/v1","id":"s-1","claimedHandoff":nul}`,
		`{"schema":"session/v1","id":"s-1","summary":"` + strings.Repeat("x", refstore.MaxRecord) + `"}`,
	} {
		e := entry(t, "s-1", []byte(data))
		if _, err := Decode(e); err == nil || !strings.Contains(err.Error(), e.Ref) {
			t.Errorf("%.60q: error %v does not name %s", data, err, e.Ref)
		}
	}
}

// FuzzDecode: decoding any blob never panics, and a record it accepts
// encodes to one that decodes to the same record. Seeds:
// testdata/fuzz/FuzzDecode (once the fast decoder's).
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"session_full", "session_minimal"} {
		data, _ := os.ReadFile(filepath.Join("testdata", "compat", name+".json"))
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var probe Record
		if json.Unmarshal(data, &probe) != nil {
			return
		}
		ref, err := refstore.SessionRef(probe.ID)
		if err != nil {
			return
		}
		e := refstore.Entry{Ref: ref, Type: "blob", Size: int64(len(data)), Data: data}
		s, err := Decode(e)
		if err != nil {
			return
		}
		enc, err := refstore.Encode(&s.Record)
		if err != nil {
			return // too large once escaped, or a time JSON cannot hold
		}
		e.Data, e.Size = enc, int64(len(enc))
		again, err := Decode(e)
		if err != nil {
			t.Fatalf("%s decoded, but its encoding %s does not: %v", data, enc, err)
		}
		if !sameRecord(again.Record, s.Record) {
			t.Fatalf("round trip of %s:\n%+v\n%+v", data, s.Record, again.Record)
		}
	})
}
