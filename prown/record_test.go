package prown

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
)

// testdata/compat/pr_full.json is an ownership record as git-handoff
// wrote it before this change: it decodes at its own ref (whose owner
// and name are in lower case) and encodes again to the same bytes.
func TestOldRecordRoundTrips(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "compat", "pr_full.json"))
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := Ref("O/R", 42)
	e := refstore.Entry{Ref: ref, Type: "blob", Size: int64(len(data)), Data: data}
	s, err := Decode(e)
	if err != nil {
		t.Fatal(err)
	}
	if s.OwnerSession != "s-2" || len(s.History) != 2 || s.History[0].Reason != "claim <first> & more" || s.MergedAt == nil || s.Rev != 2 {
		t.Fatalf("decoded %+v", s.Record)
	}
	again, err := refstore.Encode(&s.Record)
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("encoded again (%v)\n%s\nwas\n%s", err, again, data)
	}
	e.Ref = strings.Replace(ref, "/42", "/43", 1)
	if _, err := Decode(e); err == nil {
		t.Fatal("a record at another pull request's ref was accepted")
	}
}

// FuzzDecode: decoding any blob never panics, and what decodes
// round-trips.
func FuzzDecode(f *testing.F) {
	data, _ := os.ReadFile(filepath.Join("testdata", "compat", "pr_full.json"))
	f.Add(data, "O/R", 42)
	f.Fuzz(func(t *testing.T, data []byte, repo string, n int) {
		ref, err := Ref(repo, n)
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
			return
		}
		e.Data, e.Size = enc, int64(len(enc))
		again, err := Decode(e)
		if err != nil {
			t.Fatalf("%s decoded, its encoding %s does not: %v", data, enc, err)
		}
		a, _ := refstore.Encode(&again.Record)
		if !bytes.Equal(a, enc) {
			t.Fatalf("round trip:\n%s\n%s", enc, a)
		}
	})
}
