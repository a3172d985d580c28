package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitTail(t *testing.T) {
	long := `{"x":"` + strings.Repeat("a", maxLine) + `"}`
	tests := []struct {
		name  string
		buf   string
		cut   bool
		lines []string
		bad   int
	}{
		{"lines", "{\"a\":1}\n{\"b\":2}\n", false, []string{`{"a":1}`, `{"b":2}`}, 0},
		{"no newline at the end", "{\"a\":1}\n{\"b\":2}", false, []string{`{"a":1}`, `{"b":2}`}, 0},
		{"a last line being written", "{\"a\":1}\n{\"b\":", false, []string{`{"a":1}`}, 0},
		{"window starts inside a line", "\"x\"}\n{\"a\":1}\n", true, []string{`{"a":1}`}, 0},
		{"window inside one line", "{\"a\":1, \"b\":", true, nil, 0},
		{"the file's first line is whole", "{\"a\":1}\n", false, []string{`{"a":1}`}, 0},
		{"crlf and blanks", "{\"a\":1}\r\n\r\n  \n{\"b\":2}\r\n", false, []string{`{"a":1}`, `{"b":2}`}, 0},
		{"malformed between", "{\"a\":1}\nnot json\n[1]\n{\"b\":\n{\"c\":3}\n", false, []string{`{"a":1}`, `{"c":3}`}, 3},
		{"too long", long + "\n{\"a\":1}\n", false, []string{`{"a":1}`}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitTail([]byte(tt.buf), tt.cut)
			var lines []string
			for _, l := range got.lines {
				lines = append(lines, string(l))
			}
			if strings.Join(lines, "|") != strings.Join(tt.lines, "|") || got.bad != tt.bad || got.cut != tt.cut {
				t.Errorf("got %q bad %d cut %v; want %q bad %d", lines, got.bad, got.cut, tt.lines, tt.bad)
			}
		})
	}
}

func TestReadTailWindow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString(`{"n":` + strings.Repeat("1", 5) + "}\n") // 12 bytes a line
	}
	os.WriteFile(p, []byte(b.String()), 0o644)
	for _, tt := range []struct {
		size  int64
		lines int
		cut   bool
	}{
		{2000, 100, false},
		{1200, 100, false},
		{1199, 100, false}, // the byte before the window is the file's first
		{1198, 99, true},   // starts inside the first line
		{24, 2, true},      // exactly two lines
		{23, 1, true},
		{25, 2, true},
		{5, 0, true},
	} {
		got, err := readTail(p, tt.size)
		if err != nil || len(got.lines) != tt.lines || got.cut != tt.cut {
			t.Errorf("readTail(%d): %d lines, cut %v, %v; want %d lines, cut %v", tt.size, len(got.lines), got.cut, err, tt.lines, tt.cut)
		}
	}
}
