package refstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// streamRepo: records under refs/ao/handoffs/shared/, some packed, some
// loose, some both (the loose one newer), a ref to a commit, a symbolic
// ref, a lock file git would skip, and refs just outside the prefix.
func streamRepo(t *testing.T) (string, *Store) {
	t.Helper()
	gittest.Isolate(t)
	dir := gittest.Init(t)
	blob := func(s string) string {
		cmd := gitCommand(dir, "hash-object", "-w", "--stdin")
		cmd.Stdin = strings.NewReader(s)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("hash-object: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	var stdin strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&stdin, "create refs/ao/handoffs/shared/o%d/b-%d %s\n", i%7, i, blob(fmt.Sprintf(`{"n":%d}`, i)))
	}
	fmt.Fprintf(&stdin, "create refs/ao/handoffs/sharedx/o/b %s\n", blob("outside"))
	fmt.Fprintf(&stdin, "create refs/ao/handoffs/private/o/b %s\n", blob("private"))
	cmdIn(t, dir, stdin.String(), "update-ref", "--stdin")
	gittest.Run(t, dir, "pack-refs", "--all")
	for i := 0; i < 60; i += 5 {
		gittest.Run(t, dir, "update-ref", fmt.Sprintf("refs/ao/handoffs/shared/o%d/b-%d", i%7, i), blob(fmt.Sprintf(`{"n":%d,"loose":true}`, i)))
	}
	gittest.Run(t, dir, "update-ref", "refs/ao/handoffs/shared/z/new", blob("new"))
	gittest.Run(t, dir, "update-ref", "refs/ao/handoffs/shared/z/commit", "HEAD")
	gittest.Run(t, dir, "symbolic-ref", "refs/ao/handoffs/shared/z/sym", "refs/ao/handoffs/shared/z/new")
	if gittest.RefFormat(t, dir) == "files" {
		// The files backend: a lock git skips.
		if err := os.WriteFile(filepath.Join(dir, ".git/refs/ao/handoffs/shared/z/held.lock"), []byte("0123\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return dir, st
}

// RefIDs lists what for-each-ref lists, with the same ids, in the same
// order; a symbolic ref comes without an id (Get reads it).
func TestRefIDsAgainstGit(t *testing.T) {
	dir, st := streamRepo(t)
	ids, err := st.RefIDs(context.Background(), SharedPrefix)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ids {
		oid := r.OID
		if oid == "" {
			oid = gittest.Run(t, dir, "rev-parse", r.Ref)
			if r.Ref != SharedPrefix+"z/sym" {
				t.Errorf("%s came without an id", r.Ref)
			}
		}
		got = append(got, oid+" "+r.Ref)
	}
	want := gittest.Run(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", SharedPrefix)
	if strings.Join(got, "\n") != want {
		t.Fatalf("RefIDs:\n%s\nfor-each-ref:\n%s", strings.Join(got, "\n"), want)
	}
	if none, err := st.RefIDs(context.Background(), "refs/ao/nothing/"); err != nil || len(none) != 0 {
		t.Fatalf("an empty prefix: %v, %v", none, err)
	}
}

// EachStreamed gives Each's entries, byte for byte, in the same order,
// on the go-git store and on the one that reads through git.
func TestEachStreamedMatchesEach(t *testing.T) {
	dir, st := streamRepo(t)
	ctx := context.Background()
	collect := func(list func(context.Context, string, func(Entry) error) error) []Entry {
		var out []Entry
		// EachStreamed's e.Data lasts until the callback returns: kept, it is copied.
		if err := list(ctx, SharedPrefix, func(e Entry) error {
			if e.Data != nil {
				e.Data = append([]byte(nil), e.Data...)
			}
			out = append(out, e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := collect(st.EachStreamed)
	if len(want) != 63 {
		t.Fatalf("EachStreamed listed %d entries, want 63", len(want))
	}
	cli, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if got := collect(cli.EachStreamed); !reflect.DeepEqual(got, want) {
		t.Fatalf("EachStreamed through a second store differs")
	}
	// Where no spool can be made, the answers come through a pipe.
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	if got := collect(st.EachStreamed); !reflect.DeepEqual(got, want) {
		t.Fatalf("EachStreamed through a pipe differs from the spool")
	}
	t.Setenv("TMPDIR", t.TempDir())
	// A caller that stops early stops it cleanly.
	n := 0
	stop := fmt.Errorf("enough")
	if err := st.EachStreamed(ctx, SharedPrefix, func(Entry) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	}); err != stop {
		t.Fatalf("stopping early: %v", err)
	}
	// The spool is unlinked from the start: nothing is left behind.
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "*")); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
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
