package baton

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

func TestNewDropsEmptyEntries(t *testing.T) {
	b, err := New(Draft{Owner: "o", Branch: "b", NextSteps: []string{" one ", "", "  "}, FailedApproaches: []string{""}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.NextSteps) != 1 || b.NextSteps[0] != "one" || len(b.FailedApproaches) != 0 || b.OpenQuestions == nil {
		t.Fatalf("got %+v", b)
	}
	if _, err := New(Draft{Owner: "o", Branch: "b", NextSteps: []string{" ", ""}}, t0); !errors.Is(err, ErrNoSteps) {
		t.Fatalf("no steps: %v", err)
	}
}

func TestNewerOrdersByTimeThenID(t *testing.T) {
	a := &Baton{ID: "h-a", CreatedAt: t0}
	b := &Baton{ID: "h-b", CreatedAt: t0}
	c := &Baton{ID: "h-0", CreatedAt: t0.Add(time.Second)}
	if !Newer(b, a) || Newer(a, b) || !Newer(c, b) || Newer(a, a) {
		t.Fatal("Newer is not createdAt, then id")
	}
}

func TestIDsAreShortAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 10000; i++ {
		id := NewID("h")
		if len(id) != 12 || seen[id] {
			t.Fatalf("id %q (len %d, seen %v)", id, len(id), seen[id])
		}
		seen[id] = true
	}
}

func entry(ref, data string) refstore.Entry {
	return refstore.Entry{Ref: ref, OID: strings.Repeat("a", 40), Type: "blob", Size: int64(len(data)), Data: []byte(data)}
}

func TestDecodeChecksPlace(t *testing.T) {
	good := `{"schema":"handoff/v1","id":"h-1","owner":"a/b","branch":"x","shared":false,"nextSteps":["s"],"createdAt":"2026-11-02T09:00:00Z"}`
	ref, _ := refstore.HandoffRef(false, "a/b", "x")
	s, err := Decode(entry(ref, good))
	if err != nil || s.Owner != "a/b" || s.FailedApproaches == nil {
		t.Fatalf("decode = %+v, %v", s, err)
	}
	other, _ := refstore.HandoffRef(true, "a/b", "x")
	if _, err := Decode(entry(other, good)); !errors.Is(err, refstore.ErrInvalidRecord) {
		t.Fatalf("a private baton at a shared ref: %v", err)
	}
}

// FuzzDecodeBaton: any blob at a baton ref either decodes to a baton that
// belongs there or is refused as an invalid or oversized record; never a
// panic, never another error.
func FuzzDecodeBaton(f *testing.F) {
	for _, s := range []string{
		`{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b","shared":false,"nextSteps":["s"],"createdAt":"2026-11-02T09:00:00Z"}`,
		`{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b","nextSteps":null,"claimed":true,"claimedAt":"x"}`,
		`{"schema":"handoff/v2"}`, `{"schema":null}`, `[]`, `null`, `"x"`, `{}`, ``, `{"schema":"handoff/v1"`,
		`{"schema":"handoff/v1","owner":"o","branch":"b","deleted":{"reason":"cancelled"}}`,
		"{\"schema\":\"handoff/v1\",\"owner\":\"\xff\",\"branch\":\"b\"}",
	} {
		f.Add(s)
	}
	ref, _ := refstore.HandoffRef(false, "o", "b")
	f.Fuzz(func(t *testing.T, data string) {
		s, err := Decode(entry(ref, data))
		if err != nil {
			if !errors.Is(err, refstore.ErrInvalidRecord) && !errors.Is(err, refstore.ErrTooLarge) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if s.Owner != "o" || s.Branch != "b" || s.Shared || s.NextSteps == nil {
			t.Fatalf("decoded a baton that does not belong at %s: %+v", ref, s.Baton)
		}
	})
}
