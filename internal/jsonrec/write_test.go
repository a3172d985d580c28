package jsonrec

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/git-handoff/git-handoff/internal/safetext"
)

// FuzzIndent: over any valid JSON, compacted as encoding/json writes it,
// Indent writes what json.Indent writes. Seeds: testdata/fuzz/FuzzIndent.
func FuzzIndent(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "    ", "  "); err != nil {
			t.Fatal(err)
		}
		if got := Indent(nil, compact.Bytes(), "    ", "  "); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("input %q\nIndent:\n%s\njson.Indent:\n%s", compact.Bytes(), got, want.Bytes())
		}
	})
}

// encoded is s as the Encoder writes it with SetEscapeHTML(false), the
// trailing newline cut.
func encoded(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// FuzzAppendString: AppendString writes what the Encoder writes for any
// string, with SetEscapeHTML(false).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f\b\f\n\r\t", "<>&", "\u2028\u2029", "\xff\xed\xa0\x80", "\U0001f600", "\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString(nil, s), encoded(t, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: AppendString %s, encoding/json %s", s, got, want)
		}
	})
}

// FuzzAppendSafeString: AppendSafeString writes what the Encoder writes
// for any string once a safetext.Writer has filtered it, so that its
// output can skip the filter; and what it writes is clean to that filter.
func FuzzAppendSafeString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\x00\x1b[31m\x1f\x7f\b\f\n\r\t", "<>&", "\u2028\u2029",
		"\xff\xed\xa0\x80", "\U0001f600", "\xe2\x80", "c1 \u0080\u0085\u009b\u009f \xc2\x9b", "\u061c \u200e\u200f",
		"\u202a\u202b\u202c\u202d\u202e", "\u2066\u2067\u2068\u2069", "\u2065\u206a\u2029\u202f\u200d", "ok \u00a0é✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var filtered bytes.Buffer
		w := safetext.NewWriter(&filtered)
		w.Write(encoded(t, s))
		w.Flush()
		got := AppendSafeString(nil, s)
		if !bytes.Equal(got, filtered.Bytes()) {
			t.Fatalf("%q: AppendSafeString %s, encoding/json through safetext %s", s, got, filtered.Bytes())
		}
		if again := safetext.String(string(got)); again != string(got) {
			t.Fatalf("%q: AppendSafeString %s, which safetext changes to %s", s, got, again)
		}
	})
}

// BenchmarkIndent indents a listing's item, a baton as the listings write
// it, as list --json does for each of a hundred thousand.
func BenchmarkIndent(b *testing.B) {
	var dst []byte
	b.SetBytes(int64(len(benchItem)))
	for b.Loop() {
		dst = Indent(dst[:0], benchItem, "    ", "  ")
	}
}

// benchItem is a baton as list --json writes it.
var benchItem = []byte(`{"id":"h-bench099999","ref":"refs/ao/handoffs/private/owner89@example.com/branch-99999","owner":"owner89@example.com","branch":"branch-99999","shared":false,"nextSteps":["step 99999: carry on with the thing"],"failedApproaches":[],"openQuestions":[],"createdAt":"2026-11-01T12:00:00Z","claimed":true,"signature":{"state":"unsigned","trusted":false,"fenced":false}}`)

// FuzzReindent: over any valid JSON, compacted as encoding/json writes it,
// Reindent of its tab indentation writes what json.Indent writes. Seeds:
// FuzzIndent's.
func FuzzReindent(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":[]},"x\ty\n"],"c":{"d":{}}}`, `[[[]],[{}]]`, `"\t"`, `3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "    ", "  "); err != nil {
			t.Fatal(err)
		}
		tabbed := Indent(nil, compact.Bytes(), "", "\t")
		if got := Reindent(nil, tabbed, "    ", "  "); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("input %q\nReindent:\n%s\njson.Indent:\n%s", compact.Bytes(), got, want.Bytes())
		}
	})
}

// BenchmarkReindent reindents BenchmarkIndent's item from tabs.
func BenchmarkReindent(b *testing.B) {
	tabbed := Indent(nil, benchItem, "", "\t")
	var dst []byte
	b.SetBytes(int64(len(tabbed)))
	for b.Loop() {
		dst = Reindent(dst[:0], tabbed, "    ", "  ")
	}
}
