package teamsync

import (
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/refstore"
)

// An archive month that an older release wrote names its tree, which every
// plain git fetch then reads in full (its connectivity check walks each
// tree a ref names). The first sync of a clone moves its months to their
// commits and carries them to the remote; a clone still holding the tree
// joins to the same commit, and the next syncs move nothing. Real git, a
// real bare remote.
func TestSyncSealsMonthsAnOlderReleaseLeft(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	end(t, a, 0, "the next step")
	if _, err := claim(a, "s-a", 1, nil); err != nil {
		t.Fatal(err)
	}
	retireAt(t, a, 2)
	syncAt(t, b, 3)
	month := archive.Ref(archive.Month(at(1)))
	sealed := git(t, a.Dir(), "rev-parse", month)
	if typ := git(t, a.Dir(), "cat-file", "-t", sealed); typ != "commit" {
		t.Fatalf("a month written now names a %s", typ)
	}
	tree := git(t, a.Dir(), "rev-parse", month+"^{tree}")

	// As an older release left them: the tree at every month ref, the
	// remote's and its copies here too, and no note of a seal.
	git(t, tm.remote, "update-ref", month, tree)
	for _, st := range []*refstore.Store{a, b} {
		git(t, st.Dir(), "update-ref", month, tree)
		git(t, st.Dir(), "update-ref", "refs/ao/remotes/origin/archive/"+strings.TrimPrefix(month, refstore.ArchivePrefix), tree)
		if err := st.Local().Remove(sealedNote); err != nil {
			t.Fatal(err)
		}
	}

	res := syncAt(t, a, 4)
	for dir, name := range map[string]string{a.Dir(): "here", tm.remote: "at the remote"} {
		if got := git(t, dir, "rev-parse", month); got != sealed {
			t.Fatalf("after a's sync the month %s is %s, want its commit %s (sync: %+v)", name, got, sealed, res)
		}
	}
	// b's month is still the tree, its copy of the remote's too (fetched
	// by a sync of b's older release, say): it joins to the same commit.
	syncAt(t, b, 5)
	if got := git(t, b.Dir(), "rev-parse", month); got != sealed {
		t.Fatalf("after b's sync its month is %s, want %s", got, sealed)
	}
	for i, st := range []*refstore.Store{a, b, a} {
		res := syncAt(t, st, 6+i)
		if len(res.Pushed) != 0 || len(res.Local) != 0 {
			t.Fatalf("sync %d after both sealed moved refs: local %+v, pushed %+v", i, res.Local, res.Pushed)
		}
	}
	if got := git(t, tm.remote, "rev-parse", month); got != sealed {
		t.Fatalf("the remote's month ended at %s, want %s", got, sealed)
	}
}
