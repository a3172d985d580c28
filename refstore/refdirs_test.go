package refstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

func refdirsStore(t *testing.T) (*Store, string) {
	t.Helper()
	gittest.Isolate(t)
	dir := gittest.Init(t)
	st, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

func refsOf(l DirRefs) string {
	var s []string
	for _, r := range l.Refs {
		s = append(s, strings.TrimPrefix(r.Ref, SharedPrefix)+"="+r.OID[:7])
	}
	return strings.Join(s, " ")
}

// ListDir gives what git itself lists directly in a directory, loose over
// packed, with every subdirectory whether loose or only packed, and reads
// none of a subdirectory's refs.
func TestListDirAgainstGit(t *testing.T) {
	st, dir := refdirsStore(t)
	head := gittest.Run(t, dir, "rev-parse", "HEAD")
	blob := gittest.Run(t, dir, "hash-object", "-w", "--stdin")
	var in strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&in, "create %so%d/b%02d %s\n", SharedPrefix, i%5, i, head)
	}
	fmt.Fprintf(&in, "create %stop %s\n", SharedPrefix, head)
	fmt.Fprintf(&in, "create %so1/deep/er %s\n", SharedPrefix, head)
	cmdIn(t, dir, in.String(), "update-ref", "--stdin")
	gittest.Run(t, dir, "pack-refs", "--all")
	// Loose after packing: one shadowing a packed ref, one new, one new
	// directory that exists only loose.
	gittest.Run(t, dir, "update-ref", SharedPrefix+"o1/b01", blob)
	gittest.Run(t, dir, "update-ref", SharedPrefix+"o1/new", blob)
	gittest.Run(t, dir, "update-ref", SharedPrefix+"o9/x", blob)
	want := func(d string) string {
		out := gittest.Run(t, dir, "for-each-ref", "--format=%(refname) %(objectname)", d)
		var s []string
		for _, line := range strings.Split(out, "\n") {
			ref, id, _ := strings.Cut(line, " ")
			if rest := strings.TrimPrefix(ref, d); !strings.Contains(rest, "/") {
				s = append(s, strings.TrimPrefix(ref, SharedPrefix)+"="+id[:7])
			}
		}
		return strings.Join(s, " ")
	}
	for _, d := range []string{SharedPrefix, SharedPrefix + "o1/", SharedPrefix + "o3/", SharedPrefix + "o1/deep/", SharedPrefix + "o9/"} {
		l, err := st.ListDir(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, w := refsOf(l), want(d); got != w {
			t.Errorf("ListDir(%s):\n got %s\nwant %s", d, got, w)
		}
	}
	// ListLoose is the loose files alone, and PackedDir the packed-refs
	// lines alone, with the sum PackedSum gives.
	wantSum, _, err := st.PackedSum(SharedPrefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{SharedPrefix, SharedPrefix + "o1/", SharedPrefix + "o3/", SharedPrefix + "o9/"} {
		l, err := st.ListLoose(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := st.ListDir(d, nil)
		if !slices.Equal(l.Dirs, all.Dirs) {
			t.Errorf("ListLoose(%s) subdirectories %q, ListDir's %q", d, l.Dirs, all.Dirs)
		}
		var loose []string
		for _, r := range l.Refs {
			if r.File.Ino == 0 {
				t.Errorf("ListLoose(%s) gave %s with no file", d, r.Ref)
			}
			loose = append(loose, r.Ref+"="+r.OID)
		}
		packed, sum, ok, err := st.PackedDir(d, SharedPrefix)
		if err != nil || !ok || sum != wantSum {
			t.Fatalf("PackedDir(%s): sum %x ok %v err %v, want sum %x", d, sum, ok, err, wantSum)
		}
		var pl []string
		for _, r := range packed {
			pl = append(pl, r.Ref+"="+r.OID)
		}
		var wantLoose, wantPacked []string
		for _, r := range all.Refs {
			if r.File.Ino != 0 {
				wantLoose = append(wantLoose, r.Ref+"="+r.OID)
			}
		}
		lines, _ := os.ReadFile(filepath.Join(dir, ".git", "packed-refs"))
		for _, line := range strings.Split(string(lines), "\n") {
			id, ref, _ := strings.Cut(line, " ")
			if rest, ok := strings.CutPrefix(ref, d); ok && !strings.Contains(rest, "/") {
				wantPacked = append(wantPacked, ref+"="+id)
			}
		}
		if !slices.Equal(loose, wantLoose) || !slices.Equal(pl, wantPacked) {
			t.Errorf("%s: loose %q packed %q, want %q and %q", d, loose, pl, wantLoose, wantPacked)
		}
	}
	if _, _, _, err := st.PackedDir("refs/heads/", SharedPrefix); err == nil {
		t.Error("PackedDir of a directory outside the prefix summed")
	}
	l, _ := st.ListDir(SharedPrefix, nil)
	var dirs []string
	for i := 0; i < 5; i++ {
		dirs = append(dirs, fmt.Sprintf("%so%d/", SharedPrefix, i))
	}
	dirs = append(dirs, SharedPrefix+"o9/")
	if !slices.Equal(l.Dirs, dirs) {
		t.Errorf("subdirectories %q, want %q", l.Dirs, dirs)
	}
	if l, _ := st.ListDir(SharedPrefix+"o1/", nil); !slices.Equal(l.Dirs, []string{SharedPrefix + "o1/deep/"}) {
		t.Errorf("o1's subdirectories %q", l.Dirs)
	}
	if l, _ := st.ListDir(SharedPrefix+"nobody/", nil); len(l.Refs)+len(l.Dirs) != 0 || !l.Stamp.Absent() {
		t.Errorf("a directory that does not exist lists %+v", l)
	}
	// An unsorted packed-refs (an old git's), which git still reads.
	path := filepath.Join(dir, ".git", "packed-refs")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
	slices.Reverse(lines)
	if err := os.WriteFile(path, []byte("# pack-refs with: peeled\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{SharedPrefix, SharedPrefix + "o1/", SharedPrefix + "o3/"} {
		l, err := st.ListDir(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, w := refsOf(l), want(d); got != w {
			t.Errorf("unsorted, ListDir(%s):\n got %s\nwant %s", d, got, w)
		}
	}
	if l, _ := st.ListDir(SharedPrefix, nil); !slices.Equal(l.Dirs, dirs) {
		t.Errorf("unsorted: subdirectories %q, want %q", l.Dirs, dirs)
	}
	if _, ok, _ := st.PackedSum(SharedPrefix); ok {
		t.Error("an unsorted packed-refs was summed")
	}
}

// Every way git changes a ref moves its directory's stamp; packed-refs'
// sum of a range moves with the refs in it and not with others.
func TestStampsMoveWithGit(t *testing.T) {
	st, dir := refdirsStore(t)
	if !st.Watchable() {
		t.Skip("the test directory's filesystem is not one stamps are trusted on")
	}
	head := gittest.Run(t, dir, "rev-parse", "HEAD")
	blob := gittest.Run(t, dir, "hash-object", "-w", "--stdin")
	ref := SharedPrefix + "o/b"
	gittest.Run(t, dir, "update-ref", ref, head)
	d := SharedPrefix + "o/"
	stamp := func() Stamp {
		t.Helper()
		s, err := st.DirStamp(d)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	steps := []struct {
		name string
		git  []string
	}{
		{"update", []string{"update-ref", ref, blob}},
		{"update back", []string{"update-ref", ref, head}},
		{"create", []string{"update-ref", SharedPrefix + "o/c", head}},
		{"delete", []string{"update-ref", "-d", SharedPrefix + "o/c"}},
		{"pack-refs", []string{"pack-refs", "--all"}},
	}
	for _, s := range steps {
		before := stamp()
		gittest.Run(t, dir, s.git...)
		after := stamp()
		if after.Same(before) {
			t.Errorf("%s: the stamp did not move: %+v", s.name, after)
		}
		// The batch, the single stat and a listing agree.
		all, err := st.DirStamps(SharedPrefix, []string{SharedPrefix, d, SharedPrefix + "nobody/"})
		if err != nil {
			t.Fatal(err)
		}
		l, _ := st.ListDir(d, nil)
		root, _ := st.DirStamp(SharedPrefix)
		if !all[1].Same(after) || !l.Stamp.Same(after) || !all[0].Same(root) || !all[2].Absent() {
			t.Errorf("%s: DirStamps %+v, DirStamp %+v, ListDir %+v disagree", s.name, all, after, l.Stamp)
		}
	}
	p0, _ := st.PackedStamp()
	sum0, ok, err := st.PackedSum(SharedPrefix)
	if err != nil || !ok {
		t.Fatalf("PackedSum: %v, %v", ok, err)
	}
	gittest.Run(t, dir, "update-ref", "refs/tags/x", head)
	gittest.Run(t, dir, "pack-refs", "--all")
	p1, _ := st.PackedStamp()
	sum1, _, _ := st.PackedSum(SharedPrefix)
	if p1.Same(p0) || sum1 != sum0 {
		t.Errorf("packing a tag: stamp moved %v (want true), sum moved %v (want false)", !p1.Same(p0), sum1 != sum0)
	}
	gittest.Run(t, dir, "update-ref", ref, blob)
	gittest.Run(t, dir, "pack-refs", "--all")
	if sum2, _, _ := st.PackedSum(SharedPrefix); sum2 == sum1 {
		t.Error("a packed shared ref changed and the sum did not")
	}
}

// A stamp is trusted only when taken well after the change it shows.
func TestStampSettled(t *testing.T) {
	ms := int64(time.Millisecond)
	base := int64(1_700_000_000_123_456_789)
	for _, c := range []struct {
		s    Stamp
		want bool
	}{
		{Stamp{At: base}, true}, // nothing there
		{Stamp{Ino: 1, Mtime: base, Ctime: base, At: base + ms}, false},
		{Stamp{Ino: 1, Mtime: base, Ctime: base, At: base + int64(racyWindow) + ms}, true},
		{Stamp{Ino: 1, Mtime: base - int64(time.Hour), Ctime: base, At: base + ms}, false}, // ctime recent
		{Stamp{Ino: 1, Mtime: 1_700_000_000e9, Ctime: 1_700_000_000e9, At: 1_700_000_000e9 + int64(time.Second)}, false},
		{Stamp{Ino: 1, Mtime: 1_700_000_000e9, Ctime: 1_700_000_000e9, At: 1_700_000_000e9 + int64(coarseWindow) + ms}, true},
	} {
		if got := c.s.Settled(); got != c.want {
			t.Errorf("%+v: Settled = %v, want %v", c.s, got, c.want)
		}
	}
}

func TestPrefixEnd(t *testing.T) {
	for in, want := range map[string]string{"refs/a/": "refs/a0", "a\xff": "b", "\xff\xff": "\xff"} {
		if got := string(prefixEnd(in)); got != want {
			t.Errorf("prefixEnd(%q) = %q, want %q", in, got, want)
		}
	}
}

// ListDir believes an earlier listing of a file only when the file's
// stamp has not moved and had settled by then; the forged ids below show
// which files it read.
func TestListDirTrustsOnlySettledUnmovedFiles(t *testing.T) {
	st, dir := refdirsStore(t)
	if !st.Watchable() {
		t.Skip("the test directory's filesystem is not one stamps are trusted on")
	}
	head := gittest.Run(t, dir, "rev-parse", "HEAD")
	blob := gittest.Run(t, dir, "hash-object", "-w", "--stdin")
	d := SharedPrefix + "o/"
	gittest.Run(t, dir, "update-ref", d+"a", head)
	gittest.Run(t, dir, "update-ref", d+"b", head)
	l0, err := st.ListDir(d, nil)
	if err != nil || l0.Read != 2 {
		t.Fatalf("first listing read %d files: %v", l0.Read, err)
	}
	forged := map[string]DirRef{}
	var latest int64
	for _, r := range l0.Refs {
		forged[r.Ref] = DirRef{Ref: r.Ref, OID: strings.Repeat("f", 40), File: r.File}
		latest = max(latest, r.File.Mtime, r.File.Ctime)
	}
	ids := func(l DirRefs) string {
		var s []string
		for _, r := range l.Refs {
			s = append(s, r.OID[:4])
		}
		return strings.Join(s, " ")
	}
	at := func(at int64) func(string) (DirRef, bool) {
		return func(ref string) (DirRef, bool) {
			r, ok := forged[ref]
			r.At = at
			return r, ok
		}
	}
	later := at(time.Now().Add(time.Hour).UnixNano())
	if l, _ := st.ListDir(d, later); l.Read != 0 || ids(l) != "ffff ffff" {
		t.Errorf("settled and unmoved: read %d, ids %s; want 0 read, the earlier ids", l.Read, ids(l))
	}
	if l, _ := st.ListDir(d, at(latest+int64(time.Millisecond))); l.Read != 2 || ids(l) != head[:4]+" "+head[:4] {
		t.Errorf("not settled: read %d, ids %s; want both read", l.Read, ids(l))
	}
	gittest.Run(t, dir, "update-ref", d+"a", blob)
	if l, _ := st.ListDir(d, later); l.Read != 1 || ids(l) != blob[:4]+" ffff" {
		t.Errorf("one moved by git: read %d, ids %s; want it alone read", l.Read, ids(l))
	}
}

// A directory large enough to be stated by several goroutines lists the
// same as git, and trusts what it may.
func TestListDirLarge(t *testing.T) {
	st, dir := refdirsStore(t)
	head := gittest.Run(t, dir, "rev-parse", "HEAD")
	d := SharedPrefix + "many/"
	var in strings.Builder
	for i := 0; i < 1100; i++ {
		fmt.Fprintf(&in, "create %sb%04d %s\n", d, i, head)
	}
	cmdIn(t, dir, in.String(), "update-ref", "--stdin")
	l, err := st.ListDir(d, nil)
	if err != nil || len(l.Refs) != 1100 || l.Read != 1100 {
		t.Fatalf("listed %d refs, read %d: %v", len(l.Refs), l.Read, err)
	}
	prev := map[string]DirRef{}
	for i, r := range l.Refs {
		if r.Ref != fmt.Sprintf("%sb%04d", d, i) || r.OID != head || r.File.Ino == 0 {
			t.Fatalf("ref %d: %+v", i, r)
		}
		r.At = time.Now().Add(time.Hour).UnixNano()
		prev[r.Ref] = r
	}
	if !st.Watchable() {
		return
	}
	gittest.Run(t, dir, "update-ref", d+"b0500", gittest.Run(t, dir, "hash-object", "-w", "--stdin"))
	l, err = st.ListDir(d, func(ref string) (DirRef, bool) { r, ok := prev[ref]; return r, ok })
	if err != nil || len(l.Refs) != 1100 || l.Read != 1 || l.Refs[500].OID == head {
		t.Fatalf("after one changed: %d refs, %d read, b0500 %s: %v", len(l.Refs), l.Read, l.Refs[500].OID, err)
	}
}
