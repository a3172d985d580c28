package jsonrec

import (
	"testing"

	"github.com/git-handoff/git-handoff/internal/jsonrec/jsontest"
)

// FuzzAppendHTMLString: AppendHTMLString writes what json.Marshal writes
// for any string.
func FuzzAppendHTMLString(f *testing.F) {
	for _, s := range jsontest.Strings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		jsontest.Check(t, s, func() ([]byte, error) { return AppendHTMLString(nil, s), nil })
		m := map[string]uint64{s: 1, "b": 2, s + "\x00": 3}
		jsontest.Check(t, m, func() ([]byte, error) { return AppendHTMLUint64Map(nil, m), nil })
	})
}

func TestAppendHTMLNil(t *testing.T) {
	jsontest.Check(t, map[string]uint64(nil), func() ([]byte, error) { return AppendHTMLUint64Map(nil, nil), nil })
	jsontest.Check(t, uint64(1<<64-1), func() ([]byte, error) { return AppendUint64(nil, 1<<64-1), nil })
}
