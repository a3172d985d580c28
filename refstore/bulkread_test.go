package refstore

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// bulkRecords is how many records bulkRepo makes: enough for a listing
// read beside the caller (bulkPipelineMin).
const bulkRecords = 700

// bulkRepo makes a repository of bulkRecords records alike enough to be stored as
// deltas of each other, through one fast-import (its pack's chains run
// from each blob to the one before), each under refs/ao/t/, with a few
// commits beside them.
func bulkRepo(t *testing.T) string {
	t.Helper()
	gittest.Isolate(t)
	dir := gittest.Init(t)
	var bodies []string
	for i := 0; i < bulkRecords; i++ {
		body := fmt.Sprintf(`{"schema":"handoff/v1","id":"h-%04d","owner":"o%d@example.com","nextSteps":["%s"],"n":%d}`, i, i%7, strings.Repeat("carry on with the parser ", 20+i%5), i)
		if i%50 == 7 {
			body = "" // an empty blob, once
		}
		bodies = append(bodies, body)
	}
	var refs strings.Builder
	for i, id := range importBlobs(t, dir, bodies) {
		n := i + 1
		// Ref order is not pack order: a listing in ref order jumps
		// about the pack, as the benchmarks' refs do.
		fmt.Fprintf(&refs, "create refs/ao/t/%03d/%d %s\n", (n*37)%101, n, id)
	}
	updateRefs(t, dir, refs.String())
	for i := 0; i < 5; i++ {
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("commit %d", i))
	}
	return dir
}

// checkBulk reads every object of dir's repository through a bulkReader,
// in git's order and then in a shuffled one, and wants `git cat-file
// --batch`'s type and bytes for each; it returns how many it read.
func checkBulk(t *testing.T, dir, stage string) int {
	t.Helper()
	want := catFileAll(t, dir)
	r, err := openBulk(filepath.Join(dir, ".git", "objects"))
	if err != nil {
		t.Fatalf("%s: %v", stage, err)
	}
	defer r.close()
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	shuffled := slices.Clone(ids)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, order := range [][]string{ids, shuffled} {
		for _, id := range order {
			var raw [20]byte
			hex.Decode(raw[:], []byte(id))
			typ, size, data, err := r.read(&raw, r.locate(&raw), 1<<20)
			o := want[id]
			if err != nil {
				t.Fatalf("%s: %s: %v", stage, id, err)
			}
			if typ != o.typ || size != int64(len(o.data)) || !bytes.Equal(data, o.data) {
				t.Fatalf("%s: %s: got %s %d bytes, git says %s %d bytes", stage, id, typ, len(data), o.typ, len(o.data))
			}
			if _, small, data, err := r.read(&raw, r.locate(&raw), 10); err != nil || small != size || (size > 10) != (data == nil) {
				t.Fatalf("%s: %s with a limit of 10: %d, %v", stage, id, small, err)
			}
		}
	}
	return len(want)
}

// entryTypes counts a repository's pack entries by their type, read from
// the byte at each offset `git show-index` gives: 6 is an offset delta, 7
// a ref delta.
func entryTypes(t *testing.T, dir string) map[int]int {
	t.Helper()
	counts := map[int]int{}
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	for _, idx := range idxs {
		pack, err := os.ReadFile(strings.TrimSuffix(idx, ".idx") + ".pack")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range showIndex(t, idx) {
			counts[int(pack[e.off]>>4)&7]++
		}
	}
	return counts
}

// The bulk reader gives every object exactly as `git cat-file --batch`
// does, whatever wrote the packs: fast-import, gc with deep chains of
// offset deltas, a repack with ref deltas, loose objects beside packed
// ones, several packs.
func TestBulkReaderAgainstCatFile(t *testing.T) {
	dir := bulkRepo(t)
	if n := entryTypes(t, dir)[objOfsDelta]; n < 300 {
		t.Fatalf("fast-import made %d offset deltas", n)
	}
	checkBulk(t, dir, "loose commits and one fast-import pack")
	checkPackOrder(t, dir, "loose commits and one fast-import pack")

	gittest.Run(t, dir, "repack", "-adf", "--depth=50", "--window=250", "-q")
	if n := entryTypes(t, dir)[objOfsDelta]; n < 300 {
		t.Fatalf("the repack made %d offset deltas; the test needs chains", n)
	}
	checkBulk(t, dir, "offset deltas")
	checkPackOrder(t, dir, "offset deltas")

	gittest.Run(t, dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adf", "--depth=50", "--window=250", "-q")
	if types := entryTypes(t, dir); types[objRefDelta] < 300 || types[objOfsDelta] != 0 {
		t.Fatalf("the repack without offset deltas made %v", types)
	}
	checkBulk(t, dir, "ref deltas")
	checkPackOrder(t, dir, "ref deltas")

	// More blobs, loose, then a second pack of some of them beside the
	// first, and loose ones again.
	for i := 0; i < 20; i++ {
		id := hashObject(t, dir, fmt.Sprintf(`{"schema":"handoff/v1","id":"late-%d","nextSteps":["%s"]}`, i, strings.Repeat("more ", 30)))
		gittest.Run(t, dir, "update-ref", fmt.Sprintf("refs/ao/late/%d", i), id) // kept by the next repack
	}
	checkBulk(t, dir, "loose and packed")
	checkPackOrder(t, dir, "loose and packed")
	gittest.Run(t, dir, "repack", "-d", "-q") // the loose ones into a pack of their own
	for i := 0; i < 5; i++ {
		hashObject(t, dir, fmt.Sprintf("later still %d", i))
	}
	if idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx")); len(idxs) < 2 {
		t.Fatalf("packs: %v", idxs)
	}
	if n := checkBulk(t, dir, "two packs and loose"); n < bulkRecords {
		t.Fatalf("read %d objects", n)
	}
	checkPackOrder(t, dir, "two packs and loose")
}

func hashObject(t *testing.T, dir, body string) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// listing is what a listing gave, in the order it gave it, each entry
// with its place in ref order.
type listed struct {
	n int
	e Entry
}

func keep(e Entry) Entry {
	if e.Data != nil {
		e.Data = bytes.Clone(e.Data)
	}
	return e
}

// viaGit is the listing of prefix through `git cat-file` alone.
func viaGit(t *testing.T, st *Store, prefix string) []Entry {
	t.Helper()
	ctx := context.Background()
	ids, err := st.RefIDs(ctx, prefix)
	if err != nil {
		t.Fatal(err)
	}
	var out []Entry
	if err := st.catFileEach(ctx, ids, func(e Entry) error { out = append(out, keep(e)); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkListings wants EachStreamed to give the listing git gives, in ref
// order, and EachStreamedUnordered the same entries each at its place.
func checkListings(t *testing.T, st *Store, prefix, stage string) []Entry {
	t.Helper()
	ctx := context.Background()
	want := viaGit(t, st, prefix)
	var got []Entry
	if err := st.EachStreamed(ctx, prefix, func(e Entry) error { got = append(got, keep(e)); return nil }); err != nil {
		t.Fatalf("%s: EachStreamed: %v", stage, err)
	}
	if !slices.EqualFunc(got, want, entriesEqual) {
		t.Fatalf("%s: EachStreamed gave %d entries unlike git's %d", stage, len(got), len(want))
	}
	placed := make([]Entry, len(want))
	seen := make([]bool, len(want))
	if err := st.EachStreamedUnordered(ctx, prefix, func(n int, e Entry) error {
		if n < 0 || n >= len(placed) || seen[n] {
			return fmt.Errorf("place %d given twice or out of range", n)
		}
		seen[n], placed[n] = true, keep(e)
		return nil
	}); err != nil {
		t.Fatalf("%s: EachStreamedUnordered: %v", stage, err)
	}
	if !slices.EqualFunc(placed, want, entriesEqual) {
		t.Fatalf("%s: EachStreamedUnordered's entries at their places differ from git's", stage)
	}
	return want
}

func entriesEqual(a, b Entry) bool {
	return a.Ref == b.Ref && a.OID == b.OID && a.Type == b.Type && a.Size == b.Size && bytes.Equal(a.Data, b.Data) && (a.Data == nil) == (b.Data == nil)
}

// The listings read in process give what git gives, in ref order or each
// at its place; one object missing, read by git from there on, is missing
// there as in git's listing, and every other entry given once.
func TestBulkListingsMatchGit(t *testing.T) {
	dir := bulkRepo(t)
	ctx := context.Background()
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// An object over MaxRecord, loose and then packed: its size and no
	// data.
	big := hashObject(t, dir, strings.Repeat("x", MaxRecord+1))
	gittest.Run(t, dir, "update-ref", "refs/ao/t/050/big", big)
	if got := checkListings(t, st, "refs/ao/t/", "fast-import pack"); len(got) != bulkRecords+1 {
		t.Fatalf("listed %d", len(got))
	}
	gittest.Run(t, dir, "repack", "-adf", "--depth=50", "--window=250", "-q")
	st.reindex()
	checkListings(t, st, "refs/ao/t/", "repacked")

	// A commit among the blobs, and a ref to an object nobody has (git
	// would not write it): the in-process reader stops there, and git
	// reads the rest.
	gittest.Run(t, dir, "update-ref", "refs/ao/t/050/0", "HEAD")
	missing := filepath.Join(dir, ".git", "refs", "ao", "t", "050", "missing")
	os.MkdirAll(filepath.Dir(missing), 0o755)
	if err := os.WriteFile(missing, []byte("0123456789abcdef0123456789abcdef01234567\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := checkListings(t, st, "refs/ao/t/", "one missing")
	n := 0
	for _, e := range want {
		if e.Type == "missing" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d missing in git's listing", n)
	}

	// A caller that stops early stops the reading goroutine too.
	stop := errors.New("enough")
	for _, unordered := range []bool{false, true} {
		k := 0
		each := func(e Entry) error {
			if k++; k == bulkRecords-50 {
				return stop
			}
			return nil
		}
		var err error
		if unordered {
			err = st.EachStreamedUnordered(ctx, "refs/ao/t/", func(_ int, e Entry) error { return each(e) })
		} else {
			err = st.EachStreamed(ctx, "refs/ao/t/", each)
		}
		if err != stop || k != bulkRecords-50 {
			t.Fatalf("stopping early (unordered %v): %v after %d", unordered, err, k)
		}
	}
}

// A repository whose objects are partly elsewhere (alternates) is read by
// git, and so is a pack whose damaged object git finds loose as well: the
// listing is git's.
func TestBulkListingFallsBack(t *testing.T) {
	base := bulkRepo(t)
	ctx := context.Background()
	t.Run("alternates", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "borrower")
		gittest.Run(t, "", "clone", "-q", "--shared", "--no-checkout", base, dir)
		gittest.Run(t, dir, "fetch", "-q", "origin", "+refs/ao/t/*:refs/ao/t/*")
		if _, err := openBulk(filepath.Join(dir, ".git", "objects")); !errors.Is(err, errBulk) {
			t.Fatalf("opening a borrower: %v", err)
		}
		st, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if got := checkListings(t, st, "refs/ao/t/", "alternates"); len(got) != bulkRecords {
			t.Fatalf("listed %d", len(got))
		}
	})
	t.Run("damaged object with a loose copy", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "copy")
		gittest.Run(t, "", "clone", "-q", "--mirror", base, dir+"/.git")
		gittest.Run(t, dir, "config", "core.bare", "false")
		gittest.Run(t, dir, "repack", "-adf", "-q")
		st, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		want := viaGit(t, st, "refs/ao/t/")
		// The object of a ref in the middle of the listing: its entry's
		// zlib stream damaged, and a loose copy written.
		victim := want[len(want)/2]
		if id, err := writeLoose(filepath.Join(dir, ".git", "objects"), victim.Type, victim.Data); err != nil || id != victim.OID {
			t.Fatalf("writing a loose copy: %s, %v", id, err)
		}
		damageEntry(t, dir, victim.OID)
		var got []Entry
		if err := st.EachStreamed(ctx, "refs/ao/t/", func(e Entry) error { got = append(got, keep(e)); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, entriesEqual) {
			t.Fatalf("the listing over a damaged pack differs from git's before the damage")
		}
		checkListings(t, st, "refs/ao/t/", "damaged")
	})
}

// indexEntry is one line of `git show-index`: an object's offset in its
// pack, and its id.
type indexEntry struct {
	off int
	id  string
}

// showIndex is what `git show-index` says of the pack index idx.
func showIndex(t *testing.T, idx string) []indexEntry {
	t.Helper()
	in, err := os.Open(idx)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	cmd := exec.Command("git", "show-index")
	cmd.Stdin = in
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var ents []indexEntry
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		off, err := strconv.Atoi(f[0])
		if err != nil || len(f) < 2 {
			t.Fatalf("git show-index: %q", l)
		}
		ents = append(ents, indexEntry{off: off, id: f[1]})
	}
	return ents
}

// damageEntry flips a byte in the middle of id's pack entry.
func damageEntry(t *testing.T, dir, id string) {
	t.Helper()
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	for _, idx := range idxs {
		var offs []int
		at := -1
		for _, e := range showIndex(t, idx) {
			offs = append(offs, e.off)
			if e.id == id {
				at = e.off
			}
		}
		if at < 0 {
			continue
		}
		slices.Sort(offs)
		path := strings.TrimSuffix(idx, ".idx") + ".pack"
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		end := len(b) - 20
		if i := slices.Index(offs, at); i+1 < len(offs) {
			end = offs[i+1]
		}
		b[(at+end)/2+1] ^= 0x55
		os.Chmod(path, 0o644)
		if err := os.WriteFile(path, b, 0o444); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s is in no pack", id)
}

// A damaged pack or index gives errors, never wrong bytes, and a pack cut
// short while mapped is an error, not a crash.
func TestBulkReaderDamaged(t *testing.T) {
	dir := bulkRepo(t)
	gittest.Run(t, dir, "repack", "-adf", "--depth=50", "--window=250", "-q")
	objs := catFileAll(t, dir)
	idx, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("packs: %v", idx)
	}
	packPath := strings.TrimSuffix(idx[0], ".idx") + ".pack"
	origIdx, _ := os.ReadFile(idx[0])
	origPack, _ := os.ReadFile(packPath)
	readAll := func(t *testing.T) (read, failed int) {
		r, err := openBulk(filepath.Join(dir, ".git", "objects"))
		if err != nil {
			if !errors.Is(err, errBulk) {
				t.Fatalf("opening: %v", err)
			}
			return 0, len(objs)
		}
		defer r.close()
		for id, want := range objs {
			var raw [20]byte
			hex.Decode(raw[:], []byte(id))
			typ, _, data, err := r.readGuarded(&raw, location{}, true, 1<<20)
			switch {
			case err != nil:
				if !errors.Is(err, errBulk) {
					t.Fatalf("%s: an error not the reader's: %v", id, err)
				}
				failed++
			case typ != want.typ || !bytes.Equal(data, want.data):
				t.Fatalf("%s: wrong bytes without an error", id)
			default:
				read++
			}
		}
		return read, failed
	}
	damage := func(name string, path string, orig []byte, edit func([]byte) []byte) {
		t.Run(name, func(t *testing.T) {
			os.Chmod(path, 0o644)
			if err := os.WriteFile(path, edit(bytes.Clone(orig)), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(path, orig, 0o644)
			if _, failed := readAll(t); failed == 0 {
				t.Fatalf("no object failed")
			}
		})
	}
	if read, failed := readAll(t); failed != 0 || read != len(objs) {
		t.Fatalf("undamaged: %d read, %d failed", read, failed)
	}
	for _, d := range indexDamages(len(objs)) {
		damage(d.name, idx[0], origIdx, d.edit)
	}
	damage("truncated pack", packPath, origPack, func(b []byte) []byte { return b[:len(b)*2/3] })
	damage("pack bytes flipped", packPath, origPack, func(b []byte) []byte {
		for i := 12; i < len(b)-20; i += 97 {
			b[i] ^= 0x5a
		}
		return b
	})
	damage("pack bytes flipped, trailer kept", packPath, origPack, func(b []byte) []byte {
		for i := 200; i < len(b)-20; i += 1013 {
			b[i] ^= 0x01
		}
		return b
	})

	t.Run("cut short while mapped", func(t *testing.T) {
		defer os.WriteFile(packPath, origPack, 0o644)
		r, err := openBulk(filepath.Join(dir, ".git", "objects"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.close()
		os.Chmod(packPath, 0o644)
		if err := os.Truncate(packPath, 4096); err != nil {
			t.Fatal(err)
		}
		failed := 0
		for id, want := range objs {
			var raw [20]byte
			hex.Decode(raw[:], []byte(id))
			typ, _, data, err := r.readGuarded(&raw, location{}, true, 1<<20)
			if err != nil {
				failed++
			} else if typ != want.typ || !bytes.Equal(data, want.data) {
				t.Fatalf("%s: wrong bytes without an error", id)
			}
		}
		if failed == 0 {
			t.Fatalf("a pack cut to 4 KiB read whole")
		}
	})
}

// makeDelta writes git's delta of base into target: copies of ranges of
// base (offset and size, each byte present or not) and inserts of up to
// 127 bytes.
type deltaOp struct {
	copy      bool
	off, size int
	data      []byte
}

func encodeDelta(baseLen int, ops []deltaOp) []byte {
	varint := func(b []byte, v int) []byte {
		for v >= 0x80 {
			b = append(b, byte(v)|0x80)
			v >>= 7
		}
		return append(b, byte(v))
	}
	total := 0
	for _, op := range ops {
		if op.copy {
			total += op.size
		} else {
			total += len(op.data)
		}
	}
	d := varint(varint(nil, baseLen), total)
	for _, op := range ops {
		if !op.copy {
			d = append(append(d, byte(len(op.data))), op.data...)
			continue
		}
		cmd := byte(0x80)
		var args []byte
		for i := 0; i < 4; i++ {
			if b := byte(op.off >> (8 * i)); b != 0 {
				cmd |= 1 << i
				args = append(args, b)
			}
		}
		size := op.size
		if size == 0x10000 {
			size = 0
		}
		for i := 0; i < 3; i++ {
			if b := byte(size >> (8 * i)); b != 0 {
				cmd |= 0x10 << i
				args = append(args, b)
			}
		}
		d = append(append(d, cmd), args...)
	}
	return d
}

// applied is applyDelta with out sized as the delta says.
func applied(base, delta []byte) ([]byte, error) {
	n, err := deltaResultSize(delta, len(base))
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	return out, applyDelta(out, base, delta)
}

// Deltas of every instruction git writes give what they describe; cut
// short, pointed past the base, or given the wrong sizes, they are
// errors.
func TestApplyDelta(t *testing.T) {
	base := make([]byte, 0x30000)
	for i := range base {
		base[i] = byte(i * 7 / 3)
	}
	ops := []deltaOp{
		{copy: true, off: 0, size: 10},
		{data: []byte("inserted")},
		{copy: true, off: 0x10203, size: 0x10000}, // the size 0 means 0x10000
		{copy: true, off: 0x20000, size: 0x100},
		{data: bytes.Repeat([]byte("y"), 127)},
		{copy: true, off: 5, size: 1},
	}
	var want []byte
	for _, op := range ops {
		if op.copy {
			want = append(want, base[op.off:op.off+op.size]...)
		} else {
			want = append(want, op.data...)
		}
	}
	delta := encodeDelta(len(base), ops)
	got, err := applied(base, delta)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("applying: %v (%d bytes, want %d)", err, len(got), len(want))
	}
	if pd, err := packfile.PatchDelta(base, delta); err != nil || !bytes.Equal(pd, want) {
		t.Fatalf("go-git's patcher disagrees: %v", err)
	}
	bad := map[string][]byte{
		"empty":             nil,
		"cut short":         delta[:len(delta)-3],
		"base size wrong":   encodeDelta(len(base)-1, ops),
		"reserved 0":        append(encodeDelta(len(base), ops[:1]), 0),
		"copy past base":    encodeDelta(len(base), []deltaOp{{copy: true, off: len(base) - 4, size: 5}}),
		"insert past delta": append(encodeDelta(len(base), ops[:1]), 5, 'a'),
	}
	// A result longer than its declared size.
	long := encodeDelta(len(base), ops[:1])
	long = append(long, 2, 'a', 'b')
	bad["longer than declared"] = long
	for name, d := range bad {
		if _, err := applied(base, d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	out := make([]byte, len(want)+1)
	if err := applyDelta(out, base, delta); err == nil {
		t.Errorf("a result shorter than its buffer: no error")
	}
}

// The delta applier never panics, and whatever it accepts go-git's
// patcher makes the same of.
func FuzzApplyDelta(f *testing.F) {
	base := []byte(`{"schema":"handoff/v1","id":"h-0001","nextSteps":["carry on with the parser"]}`)
	f.Add(base, encodeDelta(len(base), []deltaOp{{copy: true, off: 0, size: 20}, {data: []byte("0002")}, {copy: true, off: 24, size: len(base) - 24}}))
	f.Add(base, encodeDelta(len(base), []deltaOp{{data: []byte("all new")}}))
	f.Add(base, encodeDelta(len(base), []deltaOp{{copy: true, off: 70, size: 20}}))
	f.Add(base, []byte{byte(len(base)), 0})
	f.Add([]byte{}, []byte{0, 3, 3, 'a', 'b', 'c'})
	f.Add(base, []byte{byte(len(base)), 5, 0x91, 0x80, 5})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		got, err := applied(base, delta)
		if err != nil {
			return
		}
		if n, _ := deltaResultSize(delta, len(base)); n != len(got) {
			t.Fatalf("result of %d bytes, declared %d", len(got), n)
		}
		want, perr := packfile.PatchDelta(base, delta)
		if perr == nil && !bytes.Equal(got, want) {
			t.Fatalf("applied %q, go-git makes %q", got, want)
		}
	})
}
