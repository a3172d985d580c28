package refstore

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// The in-process reader gives every object of a repository exactly as
// `git cat-file --batch` does: loose, then packed by a gc with deep delta
// chains, by offset deltas and by ref deltas, commits and trees among the
// blobs; a size over the limit gives the size and no data; an id no pack
// has is missing, and found once the packs are listed again.
func TestObjectDBAgainstCatFile(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	// Records alike enough to be stored as deltas of each other.
	// Each under a ref, as records are, so that repacks keep them.
	var bodies []string
	for i := 0; i < 400; i++ {
		bodies = append(bodies, fmt.Sprintf(`{"schema":"handoff/v1","id":"h-%04d","owner":"o%d@example.com","nextSteps":["%s"],"n":%d}`, i, i%7, strings.Repeat("carry on with the parser ", 20+i%5), i))
	}
	ids := importBlobs(t, dir, bodies)
	var refs strings.Builder
	for i, id := range ids {
		fmt.Fprintf(&refs, "create refs/ao/t/%d %s\n", i+1, id)
	}
	updateRefs(t, dir, refs.String())
	for i := 0; i < 5; i++ {
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("commit %d", i))
	}
	db := &objectDB{dir: filepath.Join(dir, ".git", "objects")}
	defer db.close()
	check := func(stage string) int {
		t.Helper()
		db.reindex()
		want := catFileAll(t, dir)
		for id, o := range want {
			got, err := db.read(id, 1<<20)
			if err != nil {
				t.Fatalf("%s: read %s: %v", stage, id, err)
			}
			if got.typ != o.typ || !bytes.Equal(got.data, o.data) || got.size != int64(len(o.data)) {
				t.Fatalf("%s: %s: got %s %d bytes, git says %s %d bytes", stage, id, got.typ, len(got.data), o.typ, len(o.data))
			}
			if small, err := db.read(id, 10); err != nil || small.size != int64(len(o.data)) || (len(o.data) > 10) != (small.data == nil) {
				t.Fatalf("%s: %s with a limit of 10: %+v, %v", stage, id, small.size, err)
			}
		}
		return len(want)
	}
	check("loose and one fast-import pack")
	gittest.Run(t, dir, "repack", "-adf", "--depth=50", "--window=250", "-q")
	if n := deltas(t, dir); n < 100 {
		t.Fatalf("the repack made %d deltas; the test needs chains", n)
	}
	check("offset deltas")
	gittest.Run(t, dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adf", "--depth=50", "--window=250", "-q")
	check("ref deltas")

	// Missing until listed again: a pack written after the first listing.
	missing := "0123456789abcdef0123456789abcdef01234567"
	if _, err := db.read(missing, 10); err == nil {
		t.Fatalf("read of %s found something", missing)
	}
	body := "a later blob"
	hashed := exec.Command("git", "hash-object", "-w", "--stdin")
	hashed.Dir, hashed.Stdin = dir, strings.NewReader(body)
	out, err := hashed.Output()
	if err != nil {
		t.Fatal(err)
	}
	later := strings.TrimSpace(string(out))
	gittest.Run(t, dir, "repack", "-d", "-q")
	if _, err := db.read(later, 100); err == nil {
		// Still loose somewhere, or the listing is stale: both fine
		// for a reader that falls back.
		t.Logf("found %s before reindex", later)
	}
	db.reindex()
	if o, err := db.read(later, 100); err != nil || string(o.data) != body {
		t.Fatalf("after reindex: %+v, %v", o, err)
	}
}

type catObject struct {
	typ  string
	data []byte
}

func catFileAll(t *testing.T, dir string) map[string]catObject {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch", "--unordered")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	objs := map[string]catObject{}
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		hdr, err := r.ReadString('\n')
		if err == io.EOF {
			return objs
		}
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(hdr)
		n, _ := strconv.Atoi(f[2])
		data := make([]byte, n+1)
		if _, err := io.ReadFull(r, data); err != nil {
			t.Fatal(err)
		}
		objs[f[0]] = catObject{typ: f[1], data: data[:n]}
	}
}

// deltas counts the objects the repository's packs store as deltas.
func deltas(t *testing.T, dir string) int {
	t.Helper()
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	n := 0
	for _, p := range packs {
		for _, l := range strings.Split(gittest.Run(t, dir, "verify-pack", "-v", p), "\n") {
			if f := strings.Fields(l); len(f) >= 7 && len(f[0]) == 40 {
				n++
			}
		}
	}
	return n
}

// indexDamages are the ways both pack readers' tests damage a version 2
// pack index of n objects (a header, the fan-out, n ids and CRCs, then
// the offsets).
func indexDamages(n int) []struct {
	name string
	edit func([]byte) []byte
} {
	offsets := 8 + 256*4 + n*24
	return []struct {
		name string
		edit func([]byte) []byte
	}{
		{"truncated index", func(b []byte) []byte { return b[:len(b)/2] }},
		{"fan-out out of order", func(b []byte) []byte { b[8+10*4] = 0xff; return b }},
		{"offsets past the end", func(b []byte) []byte {
			for i := 0; i < n; i++ {
				b[offsets+i*4], b[offsets+i*4+1] = 0x7f, 0xff
			}
			return b
		}},
		{"offsets shifted", func(b []byte) []byte {
			for i := 0; i < n; i++ {
				b[offsets+i*4+3]++
			}
			return b
		}},
	}
}

// A damaged pack or index is an error, never a panic or wrong bytes: the
// store then asks git, whose message says what is wrong.
func TestObjectDBDamagedPack(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	for i := 0; i < 30; i++ {
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("commit %d %s", i, strings.Repeat("words ", 30)))
	}
	gittest.Run(t, dir, "repack", "-adf", "-q")
	objs := catFileAll(t, dir)
	idx, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("packs: %v", idx)
	}
	packPath := strings.TrimSuffix(idx[0], ".idx") + ".pack"
	origIdx, _ := os.ReadFile(idx[0])
	origPack, _ := os.ReadFile(packPath)
	damage := func(name string, path string, orig []byte, edit func([]byte) []byte) {
		t.Run(name, func(t *testing.T) {
			os.Chmod(path, 0o644)
			if err := os.WriteFile(path, edit(append([]byte(nil), orig...)), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(path, orig, 0o644)
			db := &objectDB{dir: filepath.Join(dir, ".git", "objects")}
			defer db.close()
			for id, want := range objs {
				if got, err := db.read(id, 1<<20); err == nil && !bytes.Equal(got.data, want.data) {
					t.Fatalf("%s: wrong bytes without an error", id)
				}
			}
		})
	}
	for _, d := range indexDamages(len(objs)) {
		damage(d.name, idx[0], origIdx, d.edit)
	}
	damage("pack bytes flipped", packPath, origPack, func(b []byte) []byte {
		for i := 12; i < len(b)-20; i += 7 {
			b[i] ^= 0x5a
		}
		return b
	})
}

// Records writeLoose stored without deflating are read without an
// inflater, the same bytes as git's cat-file; a stored object whose bytes
// or header were damaged is an error, never other bytes; git's deflated
// objects still read through zlib.
func TestLooseStoredObjects(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	objects := filepath.Join(dir, ".git", "objects")
	db := &objectDB{dir: objects}
	defer db.close()
	var ids []string
	for _, n := range []int{0, 1, 300, storedMax - 20} {
		id, err := writeLoose(objects, "blob", []byte(strings.Repeat("r", n)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	ids = append(ids, gittest.Run(t, dir, "hash-object", "-w", "--stdin"))
	want := catFileAll(t, dir)
	for _, id := range ids {
		got, err := db.read(id, 1<<20)
		if err != nil || got.typ != "blob" || !bytes.Equal(got.data, want[id].data) {
			t.Fatalf("%s: %q, %d bytes, %v; cat-file has %d bytes", id, got.typ, len(got.data), err, len(want[id].data))
		}
	}
	path := func(id string) string { return filepath.Join(objects, id[:2], id[2:]) }
	rewrite := func(id string, b []byte) {
		os.Chmod(path(id), 0o644)
		if err := os.WriteFile(path(id), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A second read comes from the reader's recent objects, as a copy: a
	// caller changing what it got changes nobody else's.
	first, _ := db.read(ids[2], 1<<20)
	first.data[0] ^= 1
	if again, err := db.read(ids[2], 1<<20); err != nil || !bytes.Equal(again.data, want[ids[2]].data) {
		t.Fatalf("a second read after the first was changed: %q, %v", again.data, err)
	}
	// The same reader would answer from its recent objects: a damaged file
	// is read by a fresh one, as by the next command.
	db = &objectDB{dir: objects}
	defer db.close()
	// A flipped byte of the contents: the checksum says so, and zlib too.
	b, _ := os.ReadFile(path(ids[2]))
	b[20] ^= 1
	rewrite(ids[2], b)
	if got, err := db.read(ids[2], 1<<20); err == nil {
		t.Fatalf("a damaged stored object read as %q", got.data)
	}
	// A header whose size is not the contents'.
	rewrite(ids[1], zlibStored("blob 5\x00", []byte("r")))
	if got, err := db.read(ids[1], 1<<20); err == nil {
		t.Fatalf("a stored object with a wrong size read as %q", got.data)
	}
}

// importBlobs writes bodies as blobs through one git fast-import, into one
// pack whose delta chains run from each blob to the one before, and
// returns their ids in order.
func importBlobs(t *testing.T, dir string, bodies []string) []string {
	t.Helper()
	var stdin strings.Builder
	for i, body := range bodies {
		fmt.Fprintf(&stdin, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(body), body)
	}
	marks := filepath.Join(t.TempDir(), "marks")
	fast := exec.Command("git", "fast-import", "--quiet", "--export-marks="+marks)
	fast.Dir, fast.Stdin = dir, strings.NewReader(stdin.String())
	if out, err := fast.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	exported, err := os.ReadFile(marks)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(bodies))
	for _, l := range strings.Split(strings.TrimSpace(string(exported)), "\n") {
		mark, id, _ := strings.Cut(l, " ")
		n, err := strconv.Atoi(strings.TrimPrefix(mark, ":"))
		if err != nil || n < 1 || n > len(ids) {
			t.Fatalf("fast-import mark %q", l)
		}
		ids[n-1] = id
	}
	return ids
}

// updateRefs runs `git update-ref --stdin` on stdin.
func updateRefs(t *testing.T, dir, stdin string) {
	t.Helper()
	update := exec.Command("git", "update-ref", "--stdin")
	update.Dir, update.Stdin = dir, strings.NewReader(stdin)
	if out, err := update.CombinedOutput(); err != nil {
		t.Fatalf("update-ref: %v\n%s", err, out)
	}
}
