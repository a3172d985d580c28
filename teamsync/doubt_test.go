package teamsync

import (
	"maps"
	"path/filepath"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
)

// The doubt note keeps what a push that may have landed carried, per
// remote and URL: the versions written, not the deletions; a later push
// of a ref replaces its entry, and an entry goes once a sync found the
// remote holding that version or its seen note names it.
func TestDoubtNoteKeepsWhatMayHaveLanded(t *testing.T) {
	gitEnv(t)
	dir := t.TempDir()
	git(t, dir, "init", "-q", "c")
	st := open(t, filepath.Join(dir, "c"))
	const url = "/srv/team.git"
	a, b := "refs/ao/sessions/s-a", "refs/ao/sessions/s-b"
	noteDoubt(st, "origin", url, []refstore.Update{{Ref: a, New: "1111"}, {Ref: b, Old: "2222"}})
	if got, want := readDoubt(st, "origin", url), map[string]string{a: "1111"}; !maps.Equal(got, want) {
		t.Fatalf("after a push with no answer: %v, want %v (deletions are not in doubt)", got, want)
	}
	noteDoubt(st, "origin", url, []refstore.Update{{Ref: a, New: "3333"}, {Ref: b, New: "4444"}})
	want := map[string]string{a: "3333", b: "4444"}
	if got := readDoubt(st, "origin", url); !maps.Equal(got, want) {
		t.Fatalf("after a second: %v, want %v", got, want)
	}
	if got := readDoubt(st, "origin", "/srv/elsewhere.git"); got != nil {
		t.Fatalf("the note read for another URL: %v", got)
	}
	// A sync found the remote holding a's version (alike on both sides,
	// settled), and its seen note names b's.
	settleDoubt(st, "origin", url, map[string]string{b: "5555"}, nil, map[string]string{a: "3333"})
	if got, want := readDoubt(st, "origin", url), map[string]string{b: "4444"}; !maps.Equal(got, want) {
		t.Fatalf("after a sync found %s there: %v, want %v", a, got, want)
	}
	// One that decided b found it there, as its remote version.
	settleDoubt(st, "origin", url, nil, []decision{{ref: b, remote: &version{oid: "4444"}}}, nil)
	if _, err := st.Local().Read("doubt/origin"); err == nil {
		t.Fatal("the note stayed with nothing in doubt")
	}
}
