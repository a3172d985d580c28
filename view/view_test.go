package view

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/internal/safetext"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/sign"
)

// hostile is text a teammate's record may hold: quotes, escapes, controls,
// HTML, invalid UTF-8, separators JavaScript chokes on, bidi overrides, and
// what only a terminal minds (DEL, C1 controls as runes and bare bytes).
var hostile = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r\b\f", "nul \x00 and \x1f and \x7f",
	"</script><b>&amp;", "caf\u00e9 \u65e5\u672c \U0001f600", "\u2028 \u2029", "\u202e reversed \u2066",
	"bad \xff\xfe utf-8", "\xed\xa0\x80 surrogate bytes", "trailing \xe2\x80", strings.Repeat("long ", 200),
	"del \x7f", "c1 \u0080 \u0085 \u009b2J \u009f", "bare \x9b2J \xc2", "\x1b[31mred\x1b[0m \r\x07",
	"mixed \u202e\xff\x7f\u0085\u2028<>&",
}

// printed is what --json prints of v: the Encoder without HTML escapes,
// through the terminal filter every output goes through.
func printed(t testing.TB, v any) []byte {
	var out bytes.Buffer
	w := safetext.NewWriter(&out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return out.Bytes()
}

// checkPrinted: the output is JSON (DEL once made it invalid), holds
// nothing a terminal acts on, and says what the shape says.
func checkPrinted[T any](t *testing.T, v T) {
	t.Helper()
	out := printed(t, v)
	if !json.Valid(out) {
		t.Fatalf("not JSON:\n%s", out)
	}
	if again := safetext.String(string(out)); again != string(out) {
		t.Fatalf("the filter would change what was printed:\n%s", out)
	}
	var back T
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	// What encoding/json makes of the shape itself (invalid UTF-8
	// becomes U+FFFD), compared by the JSON both decode to.
	var want T
	plain, _ := json.Marshal(v)
	json.Unmarshal(plain, &want)
	a, _ := json.Marshal(back)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) {
		t.Fatalf("printed\n%s\ndecodes to\n%s\nwant\n%s", out, a, b)
	}
}

func storedOf(s string, i int) *baton.Stored {
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	st := &baton.Stored{Baton: baton.Baton{ID: s, Owner: s, Branch: s, Shared: i%2 == 0, NextSteps: []string{s, "x" + s},
		FailedApproaches: []string{s}, OpenQuestions: []string{}, Harness: s, SessionID: s, CreatedAt: at, Head: s,
		ClaimedBySession: s}, Ref: s, Fenced: i%3 == 0}
	if i%2 == 1 {
		st.Claimed, st.ClaimedAt = true, &at
		st.Deleted = &baton.Deletion{Reason: s, At: at}
		st.Signature = &refstore.Verification{State: sign.Other, Format: s, Signer: s, Reason: s}
	}
	return st
}

func recordOf(s string, i int) session.Record {
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.FixedZone("", 3600*(i%5)))
	r := session.Record{Schema: session.Schema, ID: "s-" + s, Owner: s, Branch: s, Worktree: s, Host: s, Harness: s, Model: s,
		Status: session.StatusActive, Prompt: s, Summary: s, CreatedAt: at, UpdatedAt: at, Supersedes: s, ReplacedBy: s,
		HandoffReason: s, HandoffContextMode: s, HandoffPackage: s,
		Launched: map[string]session.Launched{s: {NativeID: s, First: at, Last: at}}}
	if i%2 == 1 {
		r.Status, r.EndedAt, r.HandoffAt = session.StatusMerged, &at, &at
		r.Switching = &session.Switching{By: s, Since: at, Until: at, To: s}
		r.PR = &session.PRPointer{Repo: s, Number: i, URL: s}
		r.Runtime = &session.Runtime{Kind: s, Socket: s, Name: s, Host: s}
		r.ClaimedHandoff, _ = baton.Marshal(&storedOf(s, i).Baton)
	}
	return r
}

func TestPrintedShapesAreSafeJSON(t *testing.T) {
	for i, s := range hostile {
		checkPrinted(t, OfBaton(storedOf(s, i)))
		checkPrinted(t, OfSession(recordOf(s, i), i%3 == 0))
		checkPrinted(t, OfObjective(&baton.Objective{Owner: s, Branch: s, Text: s, SessionID: s}))
	}
}

// FuzzPrintedShapesAreSafeJSON: the same over any text.
func FuzzPrintedShapesAreSafeJSON(f *testing.F) {
	for i, s := range hostile {
		f.Add(s, i)
	}
	f.Fuzz(func(t *testing.T, s string, i int) {
		if i < 0 {
			i = -i
		}
		checkPrinted(t, OfBaton(storedOf(s, i)))
		checkPrinted(t, OfSession(recordOf(s, i), i%3 == 0))
	})
}

// Every list a shape holds is a list, never null, and a session's copy
// of the baton it claimed is shown as a baton.
func TestShapesHoldNoNulls(t *testing.T) {
	b := OfBaton(&baton.Stored{Baton: baton.Baton{ID: "h-1"}})
	if b.NextSteps == nil || b.FailedApproaches == nil || b.OpenQuestions == nil {
		t.Fatalf("%+v", b)
	}
	r := recordOf("x", 1)
	s := OfSession(r, false)
	if s.Launched == nil || s.ClaimedHandoff == nil || s.ClaimedHandoff.ID != "x" || s.HandoffPackage != "" {
		t.Fatalf("%+v", s)
	}
	if OfSession(session.Record{ID: "s"}, true).Launched == nil {
		t.Fatal("nil launched map")
	}
}
