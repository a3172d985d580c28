package refstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
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
	if err := os.WriteFile(filepath.Join(dir, ".git/refs/ao/handoffs/shared/z/held.lock"), []byte("0123\n"), 0o644); err != nil {
		t.Fatal(err)
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
	want := collect(st.Each)
	if len(want) != 63 {
		t.Fatalf("Each listed %d entries, want 63", len(want))
	}
	if got := collect(st.EachStreamed); !reflect.DeepEqual(got, want) {
		t.Fatalf("EachStreamed differs from Each:\n%+v\n%+v", got, want)
	}
	cli, err := Open(ctx, dir, Options{ForceCLI: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if got := collect(cli.EachStreamed); !reflect.DeepEqual(got, want) {
		t.Fatalf("EachStreamed through git differs from Each")
	}
	// Where no spool can be made, the answers come through a pipe.
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	if got := collect(st.EachStreamed); !reflect.DeepEqual(got, want) {
		t.Fatalf("EachStreamed through a pipe differs from Each")
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

// A listing of many loose refs is read by several workers, chunks of one
// directory shared out too: it still lists exactly what for-each-ref
// lists, packed and loose, skipping locks, in ref order.
func TestRefIDsManyLooseAgainstGit(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	blob := strings.TrimSpace(gittest.Run(t, dir, "hash-object", "-w", "--stdin"))
	var stdin strings.Builder
	n := 0
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&stdin, "create refs/ao/handoffs/shared/o%d/b-%d %s\n", i%13, i, blob)
		n++
	}
	cmdIn(t, dir, stdin.String(), "update-ref", "--stdin")
	gittest.Run(t, dir, "pack-refs", "--all")
	stdin.Reset()
	for i := 0; i < 3*looseChunk+17; i++ {
		fmt.Fprintf(&stdin, "create refs/ao/handoffs/shared/flat/b-%d %s\n", i, blob)
		n++
	}
	for i := 0; i < 2000; i += 3 {
		fmt.Fprintf(&stdin, "update refs/ao/handoffs/shared/o%d/b-%d HEAD\n", i%13, i)
	}
	cmdIn(t, dir, stdin.String(), "update-ref", "--stdin")
	if err := os.WriteFile(filepath.Join(dir, ".git/refs/ao/handoffs/shared/flat/held.lock"), []byte("0123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n-2000/3 < looseParallelMin {
		t.Fatalf("only %d loose refs: the test needs more than %d", n-2000/3, looseParallelMin)
	}
	st, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids, err := st.RefIDs(context.Background(), SharedPrefix)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for i, r := range ids {
		if i > 0 {
			got.WriteByte('\n')
		}
		got.WriteString(r.OID + " " + r.Ref)
	}
	want := gittest.Run(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", SharedPrefix)
	if got.String() != want || len(ids) != n {
		t.Fatalf("RefIDs listed %d refs, for-each-ref %d; first difference in:\n%.400s\nvs\n%.400s", len(ids), strings.Count(want, "\n")+1, got.String(), want)
	}
}
