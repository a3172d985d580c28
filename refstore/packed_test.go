package refstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// TestPackedSearchAgainstGit: the binary search over packed-refs finds
// every ref git packed (annotated tags' peeled lines among them) with the
// id git gives, and nothing for names between them.
func TestPackedSearchAgainstGit(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	var stdin strings.Builder
	head := gittest.Run(t, dir, "rev-parse", "HEAD")
	for i := 0; i < 700; i++ {
		fmt.Fprintf(&stdin, "create refs/ao/handoffs/private/o%d@example.com/b-%d %s\n", i%13, i, head)
	}
	cmdIn(t, dir, stdin.String(), "update-ref", "--stdin")
	for i := 0; i < 20; i++ {
		gittest.Run(t, dir, "tag", "-a", "-m", "t", fmt.Sprintf("t%02d", i))
	}
	gittest.Run(t, dir, "pack-refs", "--all")
	r := &refFiles{dir: filepath.Join(dir, ".git")}
	defer r.release()
	all := gittest.Run(t, dir, "for-each-ref", "--format=%(objectname) %(refname)")
	n := 0
	for _, line := range strings.Split(all, "\n") {
		id, ref, _ := strings.Cut(line, " ")
		got, err := r.packed(ref)
		if err != nil || got != id {
			t.Errorf("packed(%s) = %s, %v; git says %s", ref, got, err, id)
		}
		for _, miss := range []string{ref + "x", ref + "/y", ref + "!"} {
			if got, err := r.packed(miss); err != ErrNotFound {
				t.Errorf("packed(%s) = %s, %v; want ErrNotFound", miss, got, err)
			}
		}
		n++
	}
	if !r.sorted || n < 720 {
		t.Fatalf("sorted %v, %d refs: the test did not set up a sorted packed-refs", r.sorted, n)
	}
	for _, miss := range []string{"", "a", "refs/", "zzz", "refs/tags/t99"} {
		if _, err := r.packed(miss); err != ErrNotFound {
			t.Errorf("packed(%q) = %v, want ErrNotFound", miss, err)
		}
	}
	// A packed-refs rewritten under the same reader is read again.
	gittest.Run(t, dir, "update-ref", "-d", "refs/tags/t00")
	if _, err := r.packed("refs/tags/t00"); err != ErrNotFound {
		t.Errorf("after deletion: %v, want ErrNotFound", err)
	}
}

func cmdIn(t *testing.T, dir, stdin string, args ...string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "stdin")
	os.WriteFile(f, []byte(stdin), 0o644)
	in, _ := os.Open(f)
	defer in.Close()
	cmd := gitCommand(dir, args...)
	cmd.Stdin = in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func gitCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	return cmd
}

// remoteCopies finds the same refs as git's pattern refs/ao/remotes/*/TAIL
// whether the remotes' refs are loose, packed or both, with remote names
// that are prefixes of each other and refs nested deeper than the tail.
func TestRemoteCopiesAgainstForEachRef(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	head := gittest.Run(t, dir, "rev-parse", "HEAD")
	var stdin strings.Builder
	for _, r := range []string{"a", "a-b", "ab", "a.b", "z", "team"} {
		fmt.Fprintf(&stdin, "create refs/ao/remotes/%s/snapshots/s1 %s\n", r, head)
		fmt.Fprintf(&stdin, "create refs/ao/remotes/%s/snapshots/s10 %s\n", r, head)
		for i := 0; i < 50; i++ {
			fmt.Fprintf(&stdin, "create refs/ao/remotes/%s/handoffs/private/o@x/b%d %s\n", r, i, head)
		}
	}
	fmt.Fprintf(&stdin, "create refs/ao/remotes/team/sub/snapshots/s1 %s\n", head)
	fmt.Fprintf(&stdin, "create refs/ao/remotes/only-other/snapshots/s2 %s\n", head)
	cmdIn(t, dir, stdin.String(), "update-ref", "--stdin")
	check := func(stage string) {
		t.Helper()
		st := &Store{workDir: dir, commonDir: filepath.Join(dir, ".git"), refs: &refFiles{dir: filepath.Join(dir, ".git")}}
		defer st.refs.release()
		for _, tail := range []string{"snapshots/s1", "snapshots/s2", "snapshots/none"} {
			got, err := st.remoteCopies(t.Context(), tail)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			if out := gittest.Run(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/ao/remotes/*/"+tail); out != "" {
				for _, l := range strings.Split(out, "\n") {
					ref, id, _ := strings.Cut(l, " ")
					want[ref] = id
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s, %s: in process %v\ngit        %v", stage, tail, got, want)
			}
		}
	}
	check("loose")
	gittest.Run(t, dir, "pack-refs", "--all")
	check("packed")
	cmdIn(t, dir, fmt.Sprintf("update refs/ao/remotes/ab/snapshots/s1 %s\ncreate refs/ao/remotes/new/snapshots/s1 %s\ndelete refs/ao/remotes/z/snapshots/s1\n", head, head), "update-ref", "--stdin")
	check("packed and loose")
}
