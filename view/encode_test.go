package view

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/sign"
)

// hostile is text a teammate's record may hold: quotes, escapes, controls,
// HTML, invalid UTF-8, separators JavaScript chokes on, bidi overrides.
var hostile = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r\b\f", "nul \x00 and \x1f and \x7f",
	"</script><b>&amp;", "caf\u00e9 \u65e5\u672c \U0001f600", "\u2028 \u2029", "\u202e reversed \u2066",
	"bad \xff\xfe utf-8", "\xed\xa0\x80 surrogate bytes", "trailing \xe2\x80", strings.Repeat("long ", 200),
}

// encoded is what the Encoder the listings used writes for v, compact.
func encoded(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func batonOf(s string, i int) *Baton {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 123456789*(i%2), time.UTC)
	b := &Baton{ID: "h-" + s, Ref: "refs/ao/handoffs/private/" + s, Owner: s, Branch: s, Shared: i%2 == 0,
		NextSteps: []string{s, s + s}, FailedApproaches: []string{}, OpenQuestions: NonNil([]string(nil)),
		CreatedAt: t0.In(time.FixedZone("", -7*3600))}
	if i%3 != 0 {
		b.Harness, b.SessionID, b.Head, b.ClaimedBySession = s, s, s, s
		at := t0.Add(time.Minute)
		b.Claimed, b.ClaimedAt = true, &at
	}
	if i%4 == 1 {
		b.Deleted = &Deletion{Reason: s, At: t0}
	}
	if i%5 != 0 {
		b.Signature = &Signature{State: s, Trusted: i%2 == 1, Fenced: i%3 == 1}
		if i%2 == 0 {
			b.Signature.Format, b.Signature.Signer, b.Signature.Reason = s, s, s
		}
	}
	if i%7 == 3 {
		b.NextSteps, b.FailedApproaches = nil, nil // null, as encoding/json writes a nil list
	}
	return b
}

func sessionOf(s string, i int) Session {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 5000*(i%3), time.UTC)
	out := Session{ID: s, Ref: "refs/ao/sessions/" + s, Owner: s, Branch: s, Worktree: s, Host: s, Harness: s,
		Model: s, Status: s, ReadOnly: i%2 == 1, Prompt: s, Summary: s, CreatedAt: t0, UpdatedAt: t0.Add(time.Hour),
		Supersedes: s, ReplacedBy: s, HandoffReason: s, HandoffContextMode: s, Launched: map[string]Launched{}}
	if i%2 == 0 {
		e := t0.Add(2 * time.Hour)
		out.EndedAt, out.HandoffAt, out.HandoffPackage = &e, &e, s
		out.Launched[s] = Launched{NativeID: s, First: t0, Last: e}
		out.Launched["codex"] = Launched{First: t0}
		out.Launched["a"+s] = Launched{NativeID: "x"}
	}
	if i%3 == 1 {
		out.Switching = &Switching{By: s, Since: t0, Until: t0, To: s}
		out.PR = &PRPointer{Repo: s, Number: i - 5, URL: s}
		out.ClaimedHandoff = batonOf(s, i)
	}
	if i%5 == 2 {
		out.Launched = nil
	}
	if i%4 != 0 {
		code := i - 2
		out.Runtime = &Runtime{Kind: "tmux", Socket: s, Name: s, Host: s, State: s, ExitStatus: &code, Signal: i, PID: i * 100, Pane: s, Why: s}
	}
	if i%3 != 2 {
		out.Lineage = s + " ← " + s
	}
	return out
}

// The fast writers write exactly what the Encoder writes, compact and
// indented as the listings indent (json.Indent), over records of every
// shape with hostile text in every field.
func TestAppendMatchesEncoder(t *testing.T) {
	for i, s := range hostile {
		for j := range 12 {
			checkBaton(t, batonOf(s, i+j))
			checkSession(t, sessionOf(s, i+j))
		}
	}
}

// FuzzAppendMatchesEncoder: the same over any text. Seeds:
// testdata/fuzz/FuzzAppendMatchesEncoder.
func FuzzAppendMatchesEncoder(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string, i int) {
		i &= 0xffff
		checkBaton(t, batonOf(s, i))
		checkSession(t, sessionOf(s, i))
	})
}

func checkBaton(t *testing.T, b *Baton) {
	t.Helper()
	got, err := AppendBaton(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, got, encoded(t, b))
}

func checkSession(t *testing.T, s Session) {
	t.Helper()
	got, err := AppendSessionOpen(nil, &s)
	if err == nil {
		got, err = AppendSessionTail(got, s.Runtime, s.Lineage)
	}
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, got, encoded(t, s))
}

func checkSame(t *testing.T, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("fast writer:\n%s\nencoding/json:\n%s", got, want)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, want, "    ", "  "); err != nil {
		t.Fatal(err)
	}
	if mine := jsonrec.Indent(nil, got, "    ", "  "); !bytes.Equal(mine, ind.Bytes()) {
		t.Fatalf("jsonrec.Indent:\n%s\njson.Indent:\n%s", mine, ind.Bytes())
	}
}

// A time no JSON can hold fails the fast writer as it fails the Encoder,
// so the caller's encoding/json fallback reports it.
func TestAppendRefusesWhatEncoderRefuses(t *testing.T) {
	b := batonOf("x", 0)
	b.CreatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := AppendBaton(nil, b); err == nil {
		t.Fatal("a year past 9999 was written")
	}
	if err := json.NewEncoder(&bytes.Buffer{}).Encode(b); err == nil {
		t.Fatal("encoding/json wrote it: the fast writer should too")
	}
}

// AppendStoredOpen shapes in place what OfBaton shapes: the same bytes.
func TestAppendStoredMatchesOfBaton(t *testing.T) {
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for i, s := range hostile {
		st := &baton.Stored{Baton: baton.Baton{ID: s, Owner: s, Branch: s, Shared: i%2 == 0, NextSteps: []string{s},
			Harness: s, SessionID: s, CreatedAt: at, Head: s, ClaimedBySession: s}, Ref: s, Fenced: i%3 == 0}
		if i%2 == 1 {
			st.Claimed, st.ClaimedAt = true, &at
			st.Deleted = &baton.Deletion{Reason: s, At: at}
			st.Signature = &refstore.Verification{State: sign.Other, Format: s, Signer: s, Reason: s}
		}
		got, err := AppendStoredOpen(nil, st)
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, append(got, '}'), encoded(t, OfBaton(st)))
	}
}

// AppendRecordOpen shapes in place what OfSession shapes: the same bytes.
func TestAppendRecordMatchesOfSession(t *testing.T) {
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for i, s := range hostile {
		r := session.Record{Schema: session.Schema, ID: "app-" + s, Owner: s, Branch: s, Worktree: s, Host: s,
			Harness: s, Model: s, Status: []string{"active", "merged", s}[i%3], Prompt: s, Summary: s, CreatedAt: at,
			UpdatedAt: at, Supersedes: s, ReplacedBy: s, HandoffReason: s, HandoffContextMode: s, HandoffPackage: s}
		switch i % 3 {
		case 0:
			r.EndedAt, r.HandoffAt = &at, &at
			r.Launched = map[string]session.Launched{s: {NativeID: s, First: at}, "b": {Last: at}}
			r.Runtime = &session.Runtime{Kind: "tmux", Socket: s, Name: s, Host: s}
		case 1:
			r.Switching = &session.Switching{By: s, Since: at, Until: at, To: s}
			r.PR = &session.PRPointer{Repo: s, Number: i, URL: s}
			r.ClaimedHandoff = []byte(`{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b","nextSteps":["x"]}`)
			r.Launched = map[string]session.Launched{}
		}
		got, rt, err := AppendRecordOpen(nil, &r)
		if err != nil {
			t.Fatal(err)
		}
		want := OfSession(r, false)
		if (rt == nil) != (want.Runtime == nil) || rt != nil && *rt != *want.Runtime {
			t.Fatalf("runtime %+v, OfSession's %+v", rt, want.Runtime)
		}
		got, err = AppendSessionTail(got, rt, "")
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, got, encoded(t, want))
		for _, lineage := range []string{"", "app-1 ← " + s} {
			checkIndented(t, &r, lineage)
		}
	}
}

// checkIndented: AppendRecordOpenIndented and AppendSessionTailIndented
// write what jsonrec.Indent makes of the compact writers' bytes (checked
// against json.Indent by checkSame), with the same runtime.
func checkIndented(t *testing.T, r *session.Record, lineage string) {
	t.Helper()
	open, rt, err := AppendRecordOpen(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := AppendSessionTail(open, rt, lineage)
	if err != nil {
		t.Fatal(err)
	}
	got, irt, err := AppendRecordOpenIndented([]byte("before"), r)
	if err != nil {
		t.Fatal(err)
	}
	if (rt == nil) != (irt == nil) || rt != nil && *rt != *irt {
		t.Fatalf("runtime %+v, compact's %+v", irt, rt)
	}
	if got, err = AppendSessionTailIndented(got, irt, lineage); err != nil {
		t.Fatal(err)
	}
	if want := jsonrec.Indent([]byte("before"), compact, "    ", "  "); !bytes.Equal(got, want) {
		t.Fatalf("indented writer:\n%s\njsonrec.Indent:\n%s", got, want)
	}
}

// recordOf is a record of every shape, with s in every field.
func recordOf(s string, i int) session.Record {
	at := time.Date(2026, 11, 2, 9, 0, 0, 1000*(i%3), time.UTC)
	r := session.Record{Schema: session.Schema, ID: "app-" + s, Owner: s, Branch: s, Worktree: s, Host: s,
		Harness: s, Model: s, Status: []string{"active", "merged", s}[i%3], Prompt: s, Summary: s, CreatedAt: at,
		UpdatedAt: at.Add(time.Hour), Supersedes: s, ReplacedBy: s, HandoffReason: s, HandoffContextMode: s, HandoffPackage: s}
	if i%2 == 0 {
		r.EndedAt, r.HandoffAt = &at, &at
	}
	switch i % 4 {
	case 0:
		r.Launched = map[string]session.Launched{s: {NativeID: s, First: at}, "b": {Last: at}, "a" + s: {NativeID: "x"}}
		r.Runtime = &session.Runtime{Kind: "tmux", Socket: s, Name: s, Host: s}
	case 1:
		r.Switching = &session.Switching{By: s, Since: at, Until: at, To: s}
		r.PR = &session.PRPointer{Repo: s, Number: i, URL: s}
		r.ClaimedHandoff = []byte(`{"schema":"handoff/v1","id":"h-1","owner":"o","branch":"b","nextSteps":["x", "y"],"failedApproaches":[]}`)
		r.Launched = map[string]session.Launched{}
	case 2:
		r.Launched = map[string]session.Launched{s: {NativeID: s, First: at, Last: at}}
	}
	return r
}

// The indented writers over records of every shape with hostile text.
func TestAppendIndentedMatchesIndent(t *testing.T) {
	for i, s := range hostile {
		for j := range 8 {
			r := recordOf(s, i+j)
			checkIndented(t, &r, "")
			checkIndented(t, &r, s+" ← "+s)
		}
	}
}

// FuzzAppendIndentedMatchesIndent: the same over any text.
func FuzzAppendIndentedMatchesIndent(f *testing.F) {
	for i, s := range hostile {
		f.Add(s, i)
	}
	f.Fuzz(func(t *testing.T, s string, i int) {
		r := recordOf(s, i&0xffff)
		checkIndented(t, &r, s)
	})
}
