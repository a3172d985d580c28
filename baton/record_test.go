package baton

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// The records in testdata/compat were written by the hand encoders
// git-handoff had before its records went through encoding/json
// (Baton.AppendJSON, Objective.AppendJSON): a teammate on that version
// writes exactly these bytes. They must decode to what they say, and
// encoding what they decode to must give the same bytes back, so that a
// teammate on that version reads what this one writes as before.
func TestOldRecordsRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 890123000, time.UTC)
	later := time.Date(2026, 3, 5, 1, 2, 3, 0, time.FixedZone("", 2*3600))
	hostile := "<b>&amp;\"quoted\" \\ back\nnew\ttab \x01\x1b[31m\x7f é \u2028\u2029 \U0001F600"
	full := Baton{Schema: Schema, ID: "h-abcdefghij", Owner: "alice@example.com", Branch: "feature/x<y>",
		NextSteps: []string{"fix " + hostile, "second"}, FailedApproaches: []string{"tried & failed"}, OpenQuestions: []string{},
		Harness: "claude", SessionID: "s-1", CreatedAt: at, Head: "0123456789abcdef0123456789abcdef01234567",
		Cause: refstore.Cause{Rev: 3, Prev: "fedcba9876543210fedcba9876543210fedcba98", Seen: map[string]uint64{"b2": 1, "a1": 2}}}
	tomb := full
	tomb.Claimed, tomb.ClaimedAt, tomb.ClaimedBySession = true, &later, "s-2"
	tomb.Deleted = &Deletion{Reason: "dismissed", At: later}
	batons := map[string]Baton{
		"baton_full": full,
		"baton_minimal": {Schema: Schema, ID: "h-min", Owner: "bob", Branch: "main", Shared: true,
			NextSteps: []string{"one"}, FailedApproaches: []string{}, OpenQuestions: []string{}, CreatedAt: at},
		"baton_tombstone": tomb,
	}
	for name, want := range batons {
		data := readCompat(t, name)
		ref, err := refstore.HandoffRef(want.Shared, want.Owner, want.Branch)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(entry(ref, string(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !sameRecord(got.Baton, want) {
			t.Errorf("%s decodes to\n%+v\nwant\n%+v", name, got.Baton, want)
		}
		again, err := refstore.Encode(&got.Baton)
		if err != nil || !bytes.Equal(again, data) {
			t.Errorf("%s: encoded again (%v)\n%s\nwas\n%s", name, err, again, data)
		}
	}
	objectives := map[string]Objective{
		"objective_full": {Schema: ObjectiveSchema, Owner: "alice", Branch: "main", Text: "make " + hostile, SessionID: "s-1", SetAt: later,
			Cause: refstore.Cause{Rev: 1, Seen: map[string]uint64{"a1": 1}}},
		"objective_cleared": {Schema: ObjectiveSchema, Owner: "alice", Branch: "main", SetAt: at},
	}
	for name, want := range objectives {
		data := readCompat(t, name)
		ref, _ := refstore.ObjectiveRef(want.Owner, want.Branch)
		got, err := DecodeObjective(entry(ref, string(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !sameRecord(got, want) {
			t.Errorf("%s decodes to\n%+v\nwant\n%+v", name, got, want)
		}
		again, err := refstore.Encode(&got)
		if err != nil || !bytes.Equal(again, data) {
			t.Errorf("%s: encoded again (%v)\n%s\nwas\n%s", name, err, again, data)
		}
	}
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

// A teammate's record may leave lists out or write them null: they decode
// as empty lists, as New makes them.
func TestDecodeNormalisesNullLists(t *testing.T) {
	ref, _ := refstore.HandoffRef(false, "o", "b")
	for _, data := range []string{
		`{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b","nextSteps":null,"failedApproaches":null,"createdAt":"2026-11-02T09:00:00Z"}`,
		`{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b","createdAt":"2026-11-02T09:00:00Z"}`,
	} {
		s, err := Decode(entry(ref, data))
		if err != nil {
			t.Fatal(err)
		}
		if s.NextSteps == nil || s.FailedApproaches == nil || s.OpenQuestions == nil {
			t.Fatalf("%s: lists %#v %#v %#v", data, s.NextSteps, s.FailedApproaches, s.OpenQuestions)
		}
	}
}

// Unreadable records are errors naming the ref, never panics: not JSON,
// another schema, none, trailing text, too large, not a blob.
func TestDecodeRefusesWithTheRef(t *testing.T) {
	ref, _ := refstore.HandoffRef(false, "o", "b")
	big := `{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b","nextSteps":["` + strings.Repeat("x", refstore.MaxRecord) + `"]}`
	for _, e := range []refstore.Entry{
		entry(ref, `not json`), entry(ref, `{"schema":"handoff/v2","owner":"o","branch":"b"}`),
		entry(ref, `{"owner":"o","branch":"b"}`), entry(ref, `{"schema":"handoff/v1","owner":"o","branch":"b"} {}`),
		entry(ref, big), {Ref: ref, Type: "tree", Data: []byte(`{"schema":"handoff/v1","owner":"o","branch":"b"}`)},
		entry(ref, `{"schema":"handoff/v1","owner":"o","branch":"other"}`),
	} {
		if _, err := Decode(e); err == nil || !strings.Contains(err.Error(), ref) {
			t.Errorf("%.60q: error %v does not name %s", e.Data, err, ref)
		}
	}
}

// FuzzDecode: decoding any blob never panics, and a baton it accepts
// encodes to a record that decodes to the same baton. Seeds:
// testdata/fuzz/FuzzDecode (once the fast decoder's).
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"baton_full", "baton_minimal", "baton_tombstone"} {
		data, _ := os.ReadFile(filepath.Join("testdata", "compat", name+".json"))
		f.Add(data)
	}
	ref, _ := refstore.HandoffRef(false, "o", "b")
	f.Fuzz(func(t *testing.T, data []byte) {
		// At its own ref whatever owner and branch it names, and at
		// o/b.
		var probe Baton
		if json.Unmarshal(data, &probe) == nil {
			if r, err := refstore.HandoffRef(probe.Shared, probe.Owner, probe.Branch); err == nil {
				roundTrip(t, r, data)
			}
		}
		roundTrip(t, ref, data)
	})
}

func roundTrip(t *testing.T, ref string, data []byte) {
	s, err := Decode(entry(ref, string(data)))
	if err != nil {
		return
	}
	enc, err := refstore.Encode(&s.Baton)
	if err != nil {
		return // too large once escaped, or a time JSON cannot hold
	}
	again, err := Decode(entry(ref, string(enc)))
	if err != nil {
		t.Fatalf("%s decoded, but its encoding %s does not: %v", data, enc, err)
	}
	if !reflect.DeepEqual(again.Baton, s.Baton) && !sameRecord(again.Baton, s.Baton) {
		t.Fatalf("round trip of %s:\n%+v\n%+v", data, s.Baton, again.Baton)
	}
}

// FuzzDecodeObjective: as FuzzDecode, for objectives.
func FuzzDecodeObjective(f *testing.F) {
	for _, name := range []string{"objective_full", "objective_cleared"} {
		data, _ := os.ReadFile(filepath.Join("testdata", "compat", name+".json"))
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var probe Objective
		if json.Unmarshal(data, &probe) != nil {
			return
		}
		ref, err := refstore.ObjectiveRef(probe.Owner, probe.Branch)
		if err != nil {
			return
		}
		o, err := DecodeObjective(entry(ref, string(data)))
		if err != nil {
			return
		}
		enc, err := refstore.Encode(&o)
		if err != nil {
			return
		}
		again, err := DecodeObjective(entry(ref, string(enc)))
		if err != nil || !sameRecord(again, o) {
			t.Fatalf("round trip of %s: %+v, %v", data, again, err)
		}
	})
}
