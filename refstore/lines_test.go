package refstore

import (
	"errors"
	"slices"
	"testing"
)

// lineWriter hands fn whole lines however git's output is cut into
// writes, and keeps the first error fn returns while taking the rest.
func TestLineWriterCutsLinesAcrossWrites(t *testing.T) {
	var got []string
	w := &lineWriter{fn: func(l string) error { got = append(got, l); return nil }}
	for _, p := range []string{"ab", "c\nde", "f\n\ng", "h\n", "tail"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if want := []string{"abc", "def", "", "gh"}; !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	if string(w.partial) != "tail" {
		t.Errorf("partial %q, want the last line without its newline", w.partial)
	}

	bad := errors.New("bad line")
	calls := 0
	w = &lineWriter{fn: func(l string) error { calls++; return bad }}
	if n, err := w.Write([]byte("x\ny\nz\n")); n != 6 || err != nil {
		t.Fatalf("Write = %d, %v: git's output must be taken whole", n, err)
	}
	if calls != 1 || !errors.Is(w.err, bad) {
		t.Errorf("fn called %d times, error %v; want once, its error kept", calls, w.err)
	}
}
