package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\n\twith tab", "plain text\n\twith tab"},
		{"héllo — ünïcode ✓", "héllo — ünïcode ✓"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"over\rwrite", `over\x0dwrite`},
		{"del\x7f", `del\u007f`}, // JSON's own escape: --json output stays JSON
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"raw 8-bit csi \x9b2J", `raw 8-bit csi \x9b2J`},
		{"abc\u202edcba", `abc\u202edcba`},
		{"\u2066iso\u2069 \u200f \u061c", `\u2066iso\u2069 \u200f \u061c`},
		{"bad utf8 \xff\xfe", `bad utf8 \xff\xfe`},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A rune split across writes must come out whole, not as two escaped bytes.
func TestWriterSplitRune(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	in := []byte("é\u202e✓")
	for i := range in {
		if n, err := w.Write(in[i : i+1]); n != 1 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), `é\u202e✓`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// What is held at the end (a truncated rune) is flushed as escapes.
func TestWriterFlushHeld(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte("ok \xe2\x9c"))
	w.Flush()
	if got, want := out.String(), `ok \xe2\x9c`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// JSON through a Writer decodes to the same values: encoding/json escapes C0
// controls itself, and the escapes Writer adds are JSON escapes too.
func TestWriterKeepsJSON(t *testing.T) {
	v := map[string]string{"a": "\x1b[2J\u202e\u0085 hostile \u2066x", "b": "plain"}
	data, _ := json.Marshal(v)
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write(data)
	w.Flush()
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("not JSON any more: %v: %s", err, out.Bytes())
	}
	if back["a"] != v["a"] || back["b"] != v["b"] {
		t.Fatalf("decoded %q, want %q", back, v)
	}
	if strings.ContainsRune(out.String(), 0x202e) {
		t.Fatalf("bidi override reached the output: %q", out.String())
	}
}

// FuzzWriter: whatever is written, split anywhere, nothing unsafe comes
// out, valid UTF-8 comes out, and safe text comes out unchanged.
func FuzzWriter(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31m", "é✓", "\u202e", "\xff", "a\r\nb", "\u009b"} {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint8) {
		var out bytes.Buffer
		w := NewWriter(&out)
		k := int(split)
		if k == 0 || k > len(in) {
			k = len(in)
		}
		w.Write(in[:k])
		w.Write(in[k:])
		w.Flush()
		got := out.String()
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 out: %q", got)
		}
		for _, r := range got {
			if Unsafe(r) {
				t.Fatalf("unsafe rune %U out of %q: %q", r, in, got)
			}
		}
		if got != String(string(in)) {
			t.Fatalf("split write %q != String %q", got, String(string(in)))
		}
		if clean(string(in)) && got != string(in) {
			t.Fatalf("safe text changed: %q -> %q", in, got)
		}
	})
}

// FuzzClean: clean, which looks at eight bytes at a time where it can,
// says what a byte-by-byte look says, wherever the bytes fall.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "plain printable ascii text", "0123456\x7f", "0123456\x1f", "01234567\n89", "\t\t\t\t\t\t\t\t", "~~~~~~~~\x80", "é✓ and more text", "1234567\xe2\x80\xae"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := true
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r < utf8.RuneSelf && (r < 0x20 && r != '\n' && r != '\t' || r == 0x7f) || r == utf8.RuneError && n == 1 || Unsafe(r) {
				want = false
				break
			}
			i += n
		}
		if got := clean(s); got != want {
			t.Fatalf("clean(%q) = %v, want %v", s, got, want)
		}
	})
}

// WriteEscaped passes its bytes through as they are, after what a split
// rune left held; Escaped gives that to writers that are not a Writer's
// as they are.
func TestWriteEscaped(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte("a \xe2\x80"))
	if _, err := Escaped(w).Write([]byte(`\u202e raw`)); err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("\x1b"))
	if got, want := out.String(), `a \xe2\x80\u202e raw\x1b`; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	var plain bytes.Buffer
	if Escaped(&plain) != &plain {
		t.Fatal("Escaped wrapped a writer that filters nothing")
	}
}

// Append writes what String does, after what dst holds; AppendEscape is
// the escape String writes for each unsafe rune.
func TestAppend(t *testing.T) {
	for _, s := range []string{"plain", "\x1b[1m \x7f \u0085 \u202e \xff \xe2\x80", ""} {
		if got, want := string(Append([]byte("x"), []byte(s))), "x"+String(s); got != want {
			t.Errorf("Append(%q) = %q, want %q", s, got, want)
		}
	}
	for r := rune(0); r < 0x3000; r++ {
		if !Unsafe(r) {
			continue
		}
		if got, want := string(AppendEscape(nil, r)), String(string(r)); got != want {
			t.Errorf("AppendEscape(%U) = %q, String writes %q", r, got, want)
		}
	}
}
