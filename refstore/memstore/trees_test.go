package memstore_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
)

// names sort differently as names and as trees ('-' and '.' sort before
// '/', '0' after it), in cases and bytes beyond ASCII.
var names = []string{"a", "a-b", "a.b", "a0", "ab", "b", "A", "é", "records"}

// randomTree is a deterministic set of entries over blobs.
func randomTree(r *rand.Rand, blobs []string) []refstore.TreeEntry {
	var out []refstore.TreeEntry
	for range 1 + r.IntN(12) {
		depth := 1 + r.IntN(3)
		var parts []string
		for range depth {
			parts = append(parts, names[r.IntN(len(names))])
		}
		out = append(out, refstore.TreeEntry{Path: strings.Join(parts, "/"), OID: blobs[r.IntN(len(blobs))]})
	}
	return out
}

// gitTree builds the tree as the git store does: read-tree of base,
// update-index --index-info of entries, write-tree, on an index of its own,
// then commit-tree under the fixed identity and date of the TreeCommit.
func gitTree(t *testing.T, dir, base string, entries []refstore.TreeEntry) (string, error) {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	run := func(stdin []byte, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "GIT_INDEX_FILE="+index)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	if base != "" {
		if _, err := run(nil, "read-tree", base); err != nil {
			return "", err
		}
	}
	var in bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&in, "100644 blob %s\t%s\x00", e.OID, e.Path)
	}
	if _, err := run(in.Bytes(), "update-index", "-z", "--index-info"); err != nil {
		return "", err
	}
	tree, err := run(nil, "write-tree")
	if err != nil {
		return "", err
	}
	// The TreeCommit, as the git store writes it.
	cmd := exec.Command("git", "commit-tree", "--no-gpg-sign", "-m", "git-handoff archive", tree)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=git-handoff", "GIT_AUTHOR_EMAIL=", "GIT_AUTHOR_DATE=@0 +0000",
		"GIT_COMMITTER_NAME=git-handoff", "GIT_COMMITTER_EMAIL=", "GIT_COMMITTER_DATE=@0 +0000")
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// TestTreesAreGits is the differential check of trees: random trees, and
// random changes on them, get the ids git gives them (of the TreeCommit
// and of the tree it holds), with the same bytes (git cat-file).
func TestTreesAreGits(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	for _, format := range []string{refstore.FormatSHA1, refstore.FormatSHA256} {
		t.Run(format, func(t *testing.T) {
			dir := gittest.Init(t, "--object-format="+format)
			s, err := memstore.New(format)
			if err != nil {
				t.Fatal(err)
			}
			var blobs []string
			for _, body := range []string{"one", "two", "three\n", ""} {
				id := s.WriteRawBlob([]byte(body))
				f := filepath.Join(t.TempDir(), "blob")
				os.WriteFile(f, []byte(body), 0o644)
				if got := gittest.Run(t, dir, "hash-object", "-w", f); got != id {
					t.Fatalf("blob %q: git %s, memstore %s", body, got, id)
				}
				blobs = append(blobs, id)
			}
			r := rand.New(rand.NewPCG(1, 2))
			for i := range 15 {
				entries := randomTree(r, blobs)
				want, err := gitTree(t, dir, "", entries)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.BuildTree(ctx, "", entries)
				if err != nil || got != want {
					t.Fatalf("tree %d %v: memstore %s, %v; git %s", i, entries, got, err, want)
				}
				for _, typ := range []string{"commit", "tree"} {
					id := gittest.Run(t, dir, "rev-parse", want+"^{"+typ+"}")
					raw, err := exec.Command("git", "-C", dir, "cat-file", typ, id).Output()
					if err != nil {
						t.Fatal(err)
					}
					if e, err := s.ReadObject(ctx, id); err != nil || !bytes.Equal(e.Data, raw) || e.Type != typ {
						t.Fatalf("tree %d's %s: %+v, %v; git cat-file gives %q", i, typ, e, err, raw)
					}
				}
				change := randomTree(r, blobs)
				want2, err := gitTree(t, dir, want, change)
				if err != nil {
					t.Fatal(err)
				}
				got2, err := s.BuildTree(ctx, got, change)
				if err != nil || got2 != want2 {
					t.Fatalf("tree %d %v changed by %v: memstore %s, %v; git %s", i, entries, change, got2, err, want2)
				}
				// git mktree takes the listing of a tree back to its id.
				ls := gittest.Run(t, dir, "ls-tree", want2)
				cmd := exec.Command("git", "mktree")
				cmd.Dir, cmd.Stdin = dir, strings.NewReader(ls+"\n")
				out, err := cmd.Output()
				if tree := gittest.Run(t, dir, "rev-parse", got2+"^{tree}"); err != nil || strings.TrimSpace(string(out)) != tree {
					t.Fatalf("git mktree of %s = %s, %v; want %s", got2, out, err, tree)
				}
			}
		})
	}
}

func TestBuildTreeRefusesBadPaths(t *testing.T) {
	ctx := context.Background()
	s, _ := memstore.New("")
	id := s.WriteRawBlob([]byte("x"))
	for _, p := range []string{"", "/a", "a/", "a//b", "./a", "a/../b", ".git/x", "a/.GIT", "a\x01b"} {
		if _, err := s.BuildTree(ctx, "", []refstore.TreeEntry{{Path: p, OID: id}}); err == nil {
			t.Errorf("BuildTree took the path %q", p)
		}
	}
	if _, err := s.BuildTree(ctx, "", []refstore.TreeEntry{{Path: "a", OID: id[:10]}}); err == nil {
		t.Error("BuildTree took an abbreviated id")
	}
	tree, _ := s.BuildTree(ctx, "", []refstore.TreeEntry{{Path: "a", OID: id}})
	if _, err := s.BuildTree(ctx, "", []refstore.TreeEntry{{Path: "b", OID: tree}}); err == nil {
		t.Error("BuildTree took a tree for a blob")
	}
	if _, err := s.BuildTree(ctx, id, nil); err == nil {
		t.Error("BuildTree on a blob for a base")
	}
}
