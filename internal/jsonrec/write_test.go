package jsonrec

import (
	"bytes"
	"encoding/json"
	"testing"
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

// FuzzAppendString: AppendString writes what the Encoder writes for any
// string, with SetEscapeHTML(false).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f\b\f\n\r\t", "<>&", "\u2028\u2029", "\xff\xed\xa0\x80", "\U0001f600", "\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got, want := AppendString(nil, s), bytes.TrimSuffix(buf.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
			t.Fatalf("%q: AppendString %s, encoding/json %s", s, got, want)
		}
	})
}
