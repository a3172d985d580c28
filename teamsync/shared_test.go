package teamsync

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// In a core.sharedRepository repository the notes sync keeps in the git
// dir (what was merged, what each remote held) are group-writable, as
// git's own files are there: a teammate's git-handoff must be able to
// rewrite them.
func TestNotesGroupWritableInSharedRepository(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	tm := newTeam(t, 0)
	git(t, tm.dir, "clone", "-q", "--config", "core.sharedRepository=group", tm.remote, "shared")
	st := open(t, filepath.Join(tm.dir, "shared"))
	if _, err := Init(context.Background(), st, "origin"); err != nil {
		t.Fatal(err)
	}
	end(t, st, 1, "shared note")
	syncAt(t, st, 2)
	for _, p := range []string{"handoff", "handoff/merged", "handoff/seen", "handoff/seen/origin"} {
		fi, err := os.Stat(filepath.Join(st.CommonDir(), p))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if fi.Mode().Perm()&0o020 == 0 {
			t.Errorf("%s is %v: not group-writable", p, fi.Mode().Perm())
		}
	}
}
