package lease

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
)

func TestDecodeCompat(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "lease_full.json"))
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := Key{KindPath, "src/lexer/**"}.Ref()
	e := refstore.Entry{Ref: ref, Type: "blob", Size: int64(len(data)), Data: data}
	s, err := Decode(e)
	if err != nil {
		t.Fatal(err)
	}
	if s.Session != "s-1" || s.TTL().String() != "30m0s" || !s.Held() || s.Rev != 3 || len(s.History) != 2 {
		t.Fatalf("decoded %+v", s.Record)
	}
	again, err := refstore.Encode(&s.Record)
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("encoded again (%v)\n%s\nwas\n%s", err, again, data)
	}
	other, _ := Key{KindPath, "src/parser/**"}.Ref()
	e.Ref = other
	if _, err := Decode(e); err == nil {
		t.Fatal("a record at another key's ref was accepted")
	}
}

func TestDecodeRefuses(t *testing.T) {
	ref, _ := Key{KindIssue, "4"}.Ref()
	for _, data := range []string{
		`{"schema":"lease/v1","key":"issue:#4","state":"held","session":"s","ttl":"30m0s","takenAt":"0001-01-01T00:00:00Z","renewedAt":"0001-01-01T00:00:00Z","history":[]}`,
		`{"schema":"lease/v1","key":"issue:4","state":"gone","session":"s","ttl":"30m0s","takenAt":"0001-01-01T00:00:00Z","renewedAt":"0001-01-01T00:00:00Z","history":[]}`,
		`{"schema":"lease/v1","key":"issue:4","state":"held","session":"","ttl":"30m0s","takenAt":"0001-01-01T00:00:00Z","renewedAt":"0001-01-01T00:00:00Z","history":[]}`,
		`{"schema":"lease/v1","key":"issue:4","state":"held","session":"s","ttl":"1ms","takenAt":"0001-01-01T00:00:00Z","renewedAt":"0001-01-01T00:00:00Z","history":[]}`,
		`{"schema":"lease/v1","key":"issue:4","state":"held","session":"s","ttl":"soon","takenAt":"0001-01-01T00:00:00Z","renewedAt":"0001-01-01T00:00:00Z","history":[]}`,
		`{"schema":"pr/v1","key":"issue:4"}`,
	} {
		e := refstore.Entry{Ref: ref, Type: "blob", Size: int64(len(data)), Data: []byte(data)}
		if s, err := Decode(e); err == nil {
			t.Errorf("accepted %s as %+v", data, s.Record)
		}
	}
}

// FuzzDecode: decoding any blob never panics, and what decodes
// round-trips.
func FuzzDecode(f *testing.F) {
	data, _ := os.ReadFile(filepath.Join("testdata", "lease_full.json"))
	f.Add(data, "path:src/lexer/**")
	f.Add([]byte(`{"schema":"lease/v1","key":"key:x","state":"broken","session":"s","ttl":"1s","takenAt":"0001-01-01T00:00:00Z","renewedAt":"0001-01-01T00:00:00Z","history":[]}`), "key:x")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		k, err := ParseKey(key)
		if err != nil {
			return
		}
		ref, err := k.Ref()
		if err != nil {
			t.Fatalf("parsed key %s has no ref: %v", k, err)
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
