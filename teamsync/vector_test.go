package teamsync

import (
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// Two clones write batons for one owner and branch from one base without
// seeing each other's; clone a writes more of them, so its newest has the
// higher rev and wins everywhere. Clone b, whose baton loses, must be told
// (a conflict in its sync, a conflict entry in its reflog) although it has
// none of a's intermediate versions: only the version vectors can say the
// two were concurrent there. The prev chain alone could not.
func TestLoserOfConcurrentWritesIsTold(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	end(t, a, 1, "base")
	syncAt(t, a, 2)
	syncAt(t, b, 3)
	for i, step := range []string{"a one", "a two", "a three"} {
		end(t, a, 4+i, step)
	}
	lost := end(t, b, 5, "b's own")
	syncAt(t, a, 10)
	res := syncAt(t, b, 11)
	if got := readBaton(t, b, mainRef); len(got.NextSteps) != 1 || got.NextSteps[0] != "a three" {
		t.Fatalf("b holds %v, want a's newest (its rev is higher)", got.NextSteps)
	}
	found := false
	for _, c := range res.Conflicts {
		if c.Ref == mainRef && c.Dropped == lost.OID {
			found = true
		}
	}
	if !found {
		t.Fatalf("b's sync reported no conflict dropping its baton %s: %+v", lost.OID, res.Conflicts)
	}
	// The entry that moved b's ref off its own baton says it was a sync
	// conflict. git resolves <ref>@{N} and lists the reflog's messages:
	// blobs' reflogs have no git reflog listing.
	ids, msgs := gittest.ReflogOIDs(t, b.Dir(), mainRef), gittest.ReflogMessages(t, b.Dir(), mainRef)
	told := false
	for i := 1; i < len(ids) && i < len(msgs); i++ {
		told = told || ids[i-1] == lost.OID && strings.Contains(msgs[i], "handoff: sync conflict")
	}
	if !told {
		t.Fatalf("b's reflog does not record the conflict dropping %s: ids %q, messages %q", lost.OID, ids, msgs)
	}
}
