package refstore_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// RefIDs lists what git lists under a prefix (the only lease ref is under
// both prefixes asked), whether the refs are loose,
// only in packed-refs, or gone, seen from the main worktree and a linked
// one; and in the files backend a prefix that certainly holds no ref
// starts no git at all (what every end and start pays for the leases it
// looks for).
func TestRefIDsAgainstGit(t *testing.T) {
	home := gittest.Isolate(t)
	ctx := context.Background()
	main := gittest.Init(t)
	gittest.Run(t, main, "commit", "-q", "--allow-empty", "-m", "first")
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, main, "worktree", "add", "-q", "-b", "other", linked)
	files := gittest.RefFormat(t, main) == "files"
	common := gittest.CommonDir(t, main)
	const prefix = refstore.LeasePrefix + "key/"
	blob := strings.TrimSpace(gittest.Run(t, main, "rev-parse", "HEAD^{tree}"))

	check := func(when string) {
		t.Helper()
		var want []string
		if out := gittest.Run(t, main, "for-each-ref", "--format=%(objectname) %(refname)", prefix); out != "" {
			want = strings.Split(out, "\n")
		}
		for _, dir := range []string{main, linked} {
			for _, p := range []string{prefix, refstore.LeasePrefix} {
				st := open(t, dir, refstore.Options{})
				trace := filepath.Join(home, "trace2")
				os.Remove(trace)
				t.Setenv("GIT_TRACE2_EVENT", trace)
				ids, err := st.RefIDs(ctx, p)
				os.Unsetenv("GIT_TRACE2_EVENT")
				if err != nil {
					t.Fatalf("%s: %s: RefIDs(%s): %v", when, dir, p, err)
				}
				var got []string
				for _, id := range ids {
					got = append(got, id.OID+" "+id.Ref)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: %s: RefIDs(%s) = %q, git lists %q", when, dir, p, got, want)
				}
				traced, _ := os.ReadFile(trace)
				if asked := strings.Contains(string(traced), "for-each-ref"); files && len(want) == 0 && asked {
					t.Errorf("%s: %s: RefIDs(%s) asked git, though the files hold no such ref", when, dir, p)
				}
			}
		}
	}
	check("nothing leased")
	gittest.Run(t, main, "update-ref", prefix+"deploy", blob)
	check("a loose ref")
	gittest.Run(t, main, "pack-refs", "--all")
	if files {
		// git leaves the emptied directories; without them only
		// packed-refs names the ref.
		if err := os.RemoveAll(filepath.Join(common, "refs", "ao")); err != nil {
			t.Fatal(err)
		}
	}
	check("a ref only in packed-refs")
	gittest.Run(t, main, "update-ref", "-d", prefix+"deploy")
	gittest.Run(t, main, "pack-refs", "--all")
	if files {
		os.RemoveAll(filepath.Join(common, "refs", "ao"))
	}
	check("the ref deleted")
}
