package view

import (
	"bytes"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/internal/safetext"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/sign"
)

// terminalHostile is what only a terminal minds: DEL, C1 controls (as
// runes and as bare bytes), and every mark that reorders text, with the
// runes just beside them that are harmless.
var terminalHostile = []string{
	"del \x7f", "c1 \u0080 \u0085 \u009b2J \u009f", "bare \x9b2J \xc2", "\u061c alm", "\u200e lrm \u200f rlm \u200d zwj",
	"\u202a\u202b\u202c\u202d\u202e overrides \u2029\u202f", "\u2066\u2067\u2068\u2069 isolates \u2065\u206a",
	"\x1b[31mred\x1b[0m \r\x07", "mixed \u202e\xff\x7f\u0085\u2028<>&",
}

// AppendStoredItemOpen writes what a safetext.Writer makes of
// AppendStoredOpen's bytes (which are the Encoder's), indented with tabs:
// the listing that writes it past the filter, reindented, prints what it
// printed through the filter.
func TestAppendStoredItemOpenIsFiltered(t *testing.T) {
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for i, s := range append(append([]string{}, hostile...), terminalHostile...) {
		st := &baton.Stored{Baton: baton.Baton{ID: s, Owner: s, Branch: s, Shared: i%2 == 0, NextSteps: []string{s, "x" + s},
			FailedApproaches: []string{s}, OpenQuestions: []string{}, Harness: s, SessionID: s, CreatedAt: at, Head: s,
			ClaimedBySession: s}, Ref: s, Fenced: i%3 == 0}
		if i%2 == 1 {
			st.Claimed, st.ClaimedAt = true, &at
			st.Deleted = &baton.Deletion{Reason: s, At: at}
			st.Signature = &refstore.Verification{State: sign.Other, Format: s, Signer: s, Reason: s}
		}
		checkSafe(t, st)
	}
}

// FuzzAppendStoredItemOpen: the same over any text.
func FuzzAppendStoredItemOpen(f *testing.F) {
	for i, s := range terminalHostile {
		f.Add(s, i)
	}
	f.Fuzz(func(t *testing.T, s string, i int) {
		at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
		st := &baton.Stored{Baton: baton.Baton{ID: s, Owner: s, Branch: s, Shared: i%2 == 0, NextSteps: []string{s},
			Harness: s, CreatedAt: at}, Ref: s}
		if i%2 == 1 {
			st.Signature = &refstore.Verification{State: sign.Other, Signer: s, Reason: s}
		}
		checkSafe(t, st)
	})
}

func checkSafe(t *testing.T, st *baton.Stored) {
	t.Helper()
	plain, err := AppendStoredOpen(nil, st)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, append(plain, '}'), encoded(t, OfBaton(st)))
	var filtered bytes.Buffer
	w := safetext.NewWriter(&filtered)
	w.Write(append(plain, '}'))
	w.Flush()
	want := jsonrec.Indent(nil, filtered.Bytes(), "", "\t")
	got, err := AppendStoredItemOpen(nil, st)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, "\n}"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendStoredItemOpen:\n%s\nAppendStoredOpen through safetext, indented with tabs:\n%s", got, want)
	}
	if again := safetext.String(string(got)); again != string(got) {
		t.Fatalf("AppendStoredItemOpen wrote what safetext would change:\n%s", got)
	}
}
