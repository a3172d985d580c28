package refstore_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// The in-process writer makes the objects git makes: the same id as
// `git hash-object`, content git reads back and fsck accepts, read-only,
// nothing left behind; writing the same record again, from many writers at
// once or after gc emptied its directory, changes nothing.
func TestWriteBlobIsGitsLooseObject(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	st := open(t, dir, readPaths["inprocess"])
	ctx := context.Background()
	data := []byte(`{"schema":"handoff/v1","note":"ünïcode, \u0000 and a long tail ` + strings.Repeat("x", 5000) + `"}`)

	want := hashObject(t, dir, data)
	id, err := st.WriteBlob(ctx, data)
	if err != nil || id != want {
		t.Fatalf("WriteBlob = %q, %v; git hash-object says %s", id, err, want)
	}
	if got := gittest.Run(t, dir, "cat-file", "blob", id); got != strings.TrimSpace(string(data)) {
		t.Fatalf("git reads back %d bytes, want %d", len(got), len(data))
	}
	gittest.Run(t, dir, "fsck", "--strict", "--no-dangling")
	objDir := filepath.Join(dir, ".git", "objects", id[:2])
	fi, err := os.Stat(filepath.Join(objDir, id[2:]))
	if err != nil || fi.Mode().Perm()&0o222 != 0 {
		t.Fatalf("object file: %v, mode %v (want read-only)", err, fi.Mode())
	}

	// The same record from eight writers at once, each its own Store.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := open(t, dir, readPaths["inprocess"])
			if got, err := s.WriteBlob(ctx, data); err != nil || got != id {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent write: %v", err)
	}
	// gc packs it and removes the emptied directory; the next write makes
	// the directory again.
	gittest.Run(t, dir, "gc", "-q", "--prune=now")
	if _, err := os.Stat(objDir); !os.IsNotExist(err) {
		t.Fatalf("gc left %s: %v", objDir, err)
	}
	other := []byte(`{"second":true}`)
	id2, err := st.WriteBlob(ctx, other)
	if err != nil || gittest.Run(t, dir, "cat-file", "blob", id2) != string(other) {
		t.Fatalf("after gc: %q, %v", id2, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, ".git", "objects", id2[:2]))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "tmp_obj_") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// Records are stored in their zlib stream as they are, larger objects
// deflated: either way git reads back what was written, with the id
// `git hash-object` gives, and fsck accepts it, on both sides of the limit.
func TestWriteBlobStoredAndDeflated(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	st := open(t, dir, readPaths["inprocess"])
	ctx := context.Background()
	const limit = 16 << 10 // refstore's storedMax, with the object header
	for _, n := range []int{0, 1, 300, limit - 20, limit - 11, limit - 10, limit + 1, 60 << 10} {
		data := []byte(strings.Repeat("handoff ", n/8+1)[:n])
		want := hashObject(t, dir, data)
		id, err := st.WriteBlob(ctx, data)
		if err != nil || id != want {
			t.Fatalf("%d bytes: WriteBlob = %q, %v; git hash-object says %s", n, id, err, want)
		}
		cat := exec.Command("git", "cat-file", "blob", id)
		cat.Dir = dir
		got, err := cat.Output()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: git reads back %d bytes (%v)", n, len(got), err)
		}
		fi, err := os.Stat(filepath.Join(dir, ".git", "objects", id[:2], id[2:]))
		if err != nil {
			t.Fatal(err)
		}
		// header "blob N\0", zlib's 2 + 4 bytes, the block's 5.
		stored := int64(len("blob \x00") + len(strconv.Itoa(n)) + n + 11)
		if whole := len("blob \x00") + len(strconv.Itoa(n)) + n; whole <= limit {
			if fi.Size() != stored {
				t.Errorf("%d bytes: object file is %d bytes, want %d (stored)", n, fi.Size(), stored)
			}
		} else if fi.Size() >= int64(n)/4 {
			t.Errorf("%d bytes: object file is %d bytes: not deflated", n, fi.Size())
		}
	}
	gittest.Run(t, dir, "fsck", "--strict", "--no-dangling")
}

// hashObject is the id `git hash-object` gives data, without writing it.
func hashObject(t *testing.T, dir string, data []byte) string {
	t.Helper()
	hashed := exec.Command("git", "hash-object", "--stdin")
	hashed.Dir, hashed.Stdin = dir, bytes.NewReader(data)
	out, err := hashed.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
