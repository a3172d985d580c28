package recordstest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/refstore"
)

// The suite's cases for ReadEach, and for refstore.Trees when the store
// under test has them (the git store and memstore both do): the archive
// keeps retired records in trees whose ids every clone must agree on.

func init() {
	cases = append(cases, readEachCases...)
	for _, c := range treeCases {
		cases = append(cases, struct {
			name string
			run  func(t *testing.T, h Harness)
		}{"trees: " + c.name, func(t *testing.T, h Harness) {
			tr, ok := h.Records.(refstore.Trees)
			if !ok {
				t.Skipf("%T keeps no trees", h.Records)
			}
			c.run(t, h, tr)
		}})
	}
}

var readEachCases = []struct {
	name string
	run  func(t *testing.T, h Harness)
}{
	{"ReadEach reads in the order given, a missing object as missing", func(t *testing.T, h Harness) {
		r := h.Records
		a := put(t, r, "refs/ao/sessions/a", "", "a")
		b := put(t, r, "refs/ao/sessions/b", "", "b")
		big := h.WriteRawBlob(t, []byte(strings.Repeat("x", refstore.MaxRecord+1)))
		lacking := strings.Repeat("0", refstore.HexLen(h.Format)-4) + "beef"
		ids := []refstore.RefID{
			{Ref: "refs/ao/sessions/b", OID: b},
			{Ref: "refs/ao/sessions/gone", OID: lacking},
			{Ref: "refs/ao/sessions/a", OID: a},
			{Ref: "refs/ao/sessions/old-a", OID: a}, // any ref: the id is read
			{Ref: "refs/ao/sessions/big", OID: big},
		}
		var got []string
		err := r.ReadEach(ctx, ids, func(e refstore.Entry) error {
			got = append(got, fmt.Sprintf("%s %s %s %d %q", e.Ref, e.OID, e.Type, e.Size, e.Data))
			return nil
		})
		want := []string{
			fmt.Sprintf("refs/ao/sessions/b %s blob 1 \"b\"", b),
			fmt.Sprintf("refs/ao/sessions/gone %s missing 0 \"\"", lacking),
			fmt.Sprintf("refs/ao/sessions/a %s blob 1 \"a\"", a),
			fmt.Sprintf("refs/ao/sessions/old-a %s blob 1 \"a\"", a),
			fmt.Sprintf("refs/ao/sessions/big %s blob %d \"\"", big, refstore.MaxRecord+1),
		}
		if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("ReadEach = %v\n%s\nwant\n%s", err, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		n := 0
		err = r.ReadEach(ctx, ids, func(refstore.Entry) error {
			n++
			return errStop
		})
		if !errors.Is(err, errStop) || n != 1 {
			t.Fatalf("fn's error: got %v after %d entries", err, n)
		}
		if err := r.ReadEach(ctx, nil, func(refstore.Entry) error { return errStop }); err != nil {
			t.Fatalf("ReadEach of nothing = %v", err)
		}
	}},
}

// treeIDs are git's ids (git update-index --index-info, git write-tree)
// of the tree of treeEntries, then of its TreeCommit and of the empty
// tree's (git commit-tree as refstore.TreeCommitIdent says), in each
// format.
var treeIDs = map[string]struct{ tree, commit, empty string }{
	refstore.FormatSHA1: {"39c8c8dc49138bc9a2cc6d9b491e45e25b6b0431",
		"6124ca03591df23ff655ae4fb7a39da5acd67f00", "6797cd8c3440e2328b533f87ceb4095e5e33c483"},
	refstore.FormatSHA256: {"716a1e32fbb3bfda4bc1a206a47b0faa9ec2d7183d3555e41cf95bc5b1152ac1",
		"96aa92339ef56528811ac83477f9e64c84b1d2745bea0425c28ddea199e6438d", "2236bf15fb5d96fd7ba692c8a279548eb5621921e06eab55ee75e2e890cf949d"},
}

// treeEntries puts the blobs "a" and "b" (no newline) where git's tree
// order and plain path order could part: "sessions-y" sorts before the
// tree "sessions" in a tree ('-' < '/'), after it by name alone.
func treeEntries(t *testing.T, r refstore.Records) (a, b string, entries []refstore.TreeEntry) {
	a, b = blob(t, r, "a"), blob(t, r, "b")
	return a, b, []refstore.TreeEntry{
		{Path: "sessions/x", OID: a},
		{Path: "sessions-y", OID: b},
		{Path: "sessions/sub/z", OID: a},
		{Path: "a.b", OID: b},
	}
}

func listed(entries []refstore.TreeEntry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Path+"="+e.OID[:7])
	}
	return strings.Join(out, " ")
}

var treeCases = []struct {
	name string
	run  func(t *testing.T, h Harness, tr refstore.Trees)
}{
	{"ids are git's", func(t *testing.T, h Harness, tr refstore.Trees) {
		_, _, entries := treeEntries(t, h.Records)
		id, err := tr.BuildTree(ctx, "", entries)
		if err != nil || id != treeIDs[h.Format].commit {
			t.Fatalf("BuildTree = %s, %v; git commit-tree of write-tree's %s says %s", id, err, treeIDs[h.Format].tree, treeIDs[h.Format].commit)
		}
		if e, err := h.Records.ReadObject(ctx, id); err != nil || !strings.HasPrefix(string(e.Data), "tree "+treeIDs[h.Format].tree+"\n") {
			t.Fatalf("ReadObject of the commit = %q, %v; want the commit of tree %s", e.Data, err, treeIDs[h.Format].tree)
		}
		// A base named by its tree (as an older release kept months) is
		// read as by its commit.
		if again, err := tr.BuildTree(ctx, treeIDs[h.Format].tree, nil); err != nil || again != id {
			t.Fatalf("BuildTree on the bare tree = %s, %v; want %s", again, err, id)
		}
		// The order entries come in is not the tree's.
		rev := append([]refstore.TreeEntry(nil), entries...)
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		if again, err := tr.BuildTree(ctx, "", rev); err != nil || again != id {
			t.Fatalf("the same entries reversed: %s, %v; want %s", again, err, id)
		}
		if empty, err := tr.BuildTree(ctx, "", nil); err != nil || empty != treeIDs[h.Format].empty {
			t.Fatalf("the empty tree = %s, %v; git says %s", empty, err, treeIDs[h.Format].empty)
		}
	}},
	{"a built tree reads as the commit of a tree", func(t *testing.T, h Harness, tr refstore.Trees) {
		r := h.Records
		_, _, entries := treeEntries(t, r)
		id, err := tr.BuildTree(ctx, "", entries)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/archive/2026-01", New: id}); err != nil {
			t.Fatal(err)
		}
		e, err := r.Get(ctx, "refs/ao/archive/2026-01")
		if err != nil || e.Type != "commit" || e.OID != id || e.Size == 0 || int64(len(e.Data)) != e.Size {
			t.Fatalf("Get of a built tree = %+v, %v", e, err)
		}
		if err := refstore.Decode(e, "x/v1", &struct{}{}); !errors.Is(err, refstore.ErrInvalidRecord) {
			t.Fatalf("Decode of a built tree = %v, want ErrInvalidRecord", err)
		}
		if o, err := r.ReadObject(ctx, id); err != nil || o.Type != "commit" || string(o.Data) != string(e.Data) {
			t.Fatalf("ReadObject of a built tree = %+v, %v", o, err)
		}
		if o, err := r.ReadObject(ctx, treeIDs[h.Format].tree); err != nil || o.Type != "tree" {
			t.Fatalf("ReadObject of the tree the commit holds = %+v, %v", o, err)
		}
	}},
	{"ListTree lists the blobs in path order, under a directory", func(t *testing.T, h Harness, tr refstore.Trees) {
		r := h.Records
		a, b, entries := treeEntries(t, r)
		id, err := tr.BuildTree(ctx, "", entries)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/archive/2026-01", New: id}); err != nil {
			t.Fatal(err)
		}
		all := fmt.Sprintf("a.b=%s sessions-y=%s sessions/sub/z=%s sessions/x=%s", b[:7], b[:7], a[:7], a[:7])
		for _, c := range []struct{ tree, dir, want string }{
			{id, "", all},
			{"refs/ao/archive/2026-01", "", all},
			{id, "sessions", fmt.Sprintf("sessions/sub/z=%s sessions/x=%s", a[:7], a[:7])},
			{id, "sessions/", fmt.Sprintf("sessions/sub/z=%s sessions/x=%s", a[:7], a[:7])},
			{id, "sessions/x", "sessions/x=" + a[:7]},
			{id, "sess", ""},
			{id, "none", ""},
		} {
			got, err := tr.ListTree(ctx, c.tree, c.dir)
			if err != nil || listed(got) != c.want {
				t.Errorf("ListTree(%s, %q) = %q, %v; want %q", c.tree, c.dir, listed(got), err, c.want)
			}
		}
		if _, err := tr.ListTree(ctx, "refs/ao/archive/none", ""); err == nil {
			t.Errorf("ListTree of a missing ref: no error")
		}
	}},
	{"BuildTree on a base replaces what is at a path", func(t *testing.T, h Harness, tr refstore.Trees) {
		r := h.Records
		a, b, entries := treeEntries(t, r)
		base, err := tr.BuildTree(ctx, "", entries)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/archive/2026-01", New: base}); err != nil {
			t.Fatal(err)
		}
		c := blob(t, r, "c")
		for _, from := range []string{base, "refs/ao/archive/2026-01"} {
			id, err := tr.BuildTree(ctx, from, []refstore.TreeEntry{{Path: "sessions/x", OID: c}, {Path: "new/one", OID: b}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := tr.ListTree(ctx, id, "")
			want := fmt.Sprintf("a.b=%s new/one=%s sessions-y=%s sessions/sub/z=%s sessions/x=%s", b[:7], b[:7], b[:7], a[:7], c[:7])
			if err != nil || listed(got) != want {
				t.Fatalf("on %s: %q, %v; want %q", from, listed(got), err, want)
			}
		}
		// The same tree, built in one go, has the same id.
		all := append(append([]refstore.TreeEntry(nil), entries...), refstore.TreeEntry{Path: "sessions/x", OID: c}, refstore.TreeEntry{Path: "new/one", OID: b})
		one, _ := tr.BuildTree(ctx, "", all)
		two, _ := tr.BuildTree(ctx, base, []refstore.TreeEntry{{Path: "new/one", OID: b}, {Path: "sessions/x", OID: c}})
		if one == "" || one != two {
			t.Fatalf("built in one go %s, on a base %s", one, two)
		}
		// Nothing put in: the base's own tree.
		if same, err := tr.BuildTree(ctx, base, nil); err != nil || same != base {
			t.Fatalf("BuildTree(base, nothing) = %s, %v; want %s", same, err, base)
		}
		// A blob where a directory was, and a directory where a blob was.
		id, err := tr.BuildTree(ctx, base, []refstore.TreeEntry{{Path: "sessions/sub", OID: c}, {Path: "a.b/inner", OID: c}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := tr.ListTree(ctx, id, "")
		want := fmt.Sprintf("a.b/inner=%s sessions-y=%s sessions/sub=%s sessions/x=%s", c[:7], b[:7], c[:7], a[:7])
		if err != nil || listed(got) != want {
			t.Fatalf("replacing across files and directories: %q, %v; want %q", listed(got), err, want)
		}
	}},
	{"ReadPath reads a path in a tree", func(t *testing.T, h Harness, tr refstore.Trees) {
		r := h.Records
		a, _, entries := treeEntries(t, r)
		id, err := tr.BuildTree(ctx, "", entries)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/archive/2026-01", New: id}); err != nil {
			t.Fatal(err)
		}
		for _, treeish := range []string{id, "refs/ao/archive/2026-01"} {
			e, err := tr.ReadPath(ctx, treeish, "sessions/sub/z")
			if err != nil || e.OID != a || e.Type != "blob" || string(e.Data) != "a" || e.Ref != treeish+":sessions/sub/z" {
				t.Fatalf("ReadPath(%s) = %+v, %v", treeish, e, err)
			}
			if e, err := tr.ReadPath(ctx, treeish, "sessions/sub"); err != nil || e.Type != "tree" {
				t.Fatalf("ReadPath of a directory = %+v, %v; want a tree", e, err)
			}
		}
		for _, c := range []struct{ treeish, path string }{
			{id, "sessions/none"}, {id, "sessions/x/under-a-blob"}, {id, "none"},
			{"refs/ao/archive/none", "sessions/x"}, {a, "x"},
			{strings.Repeat("0", refstore.HexLen(h.Format)-4) + "beef", "x"},
		} {
			if _, err := tr.ReadPath(ctx, c.treeish, c.path); !errors.Is(err, refstore.ErrNotFound) {
				t.Errorf("ReadPath(%s, %s) = %v, want ErrNotFound", c.treeish, c.path, err)
			}
		}
		for _, c := range []struct{ treeish, path string }{
			{id, ""}, {id, "sessions//x"}, {id, "./sessions/x"}, {id, "sessions/../sessions/x"},
			{id, "/sessions/x"}, {id, "sessions/x/"}, {id, "sessions/\nx"},
			{"HEAD", "sessions/x"}, {"refs/ao/archive/2026-01@{0}", "sessions/x"}, {id[:12], "sessions/x"},
		} {
			if _, err := tr.ReadPath(ctx, c.treeish, c.path); !errors.Is(err, refstore.ErrBadName) {
				t.Errorf("ReadPath(%q, %q) = %v, want ErrBadName", c.treeish, c.path, err)
			}
		}
	}},
	{"BuildTree refuses an entry the store lacks", func(t *testing.T, h Harness, tr refstore.Trees) {
		lacking := strings.Repeat("0", refstore.HexLen(h.Format)-4) + "beef"
		if id, err := tr.BuildTree(ctx, "", []refstore.TreeEntry{{Path: "sessions/x", OID: lacking}}); err == nil {
			t.Fatalf("BuildTree of a missing blob = %s, want an error", id)
		}
		if id, err := tr.BuildTree(ctx, "refs/ao/archive/none", nil); err == nil {
			t.Fatalf("BuildTree on a missing base = %s, want an error", id)
		}
	}},
}
