package refstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

func openIssued(t *testing.T) (*Store, Local) {
	t.Helper()
	gittest.Isolate(t)
	st, err := Open(context.Background(), gittest.Init(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, st.Local()
}

// A mark only rises, and a year of keys costs a few hundred files, not a
// file each (each file costs a block of disk: 400 MB for 100,000
// sessions as earlier releases kept them).
func TestIssuedMarksRiseAndStayFewFiles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, l := openIssued(t)
	if err := raiseIssued(ctx, l, "refs/ao/sessions/a", 5); err != nil {
		t.Fatal(err)
	}
	if err := raiseIssued(ctx, l, "refs/ao/sessions/a", 3); err != nil {
		t.Fatal(err)
	}
	if got := issued(l, "refs/ao/sessions/a"); got != 5 {
		t.Fatalf("mark after 5 then 3: %d, want 5", got)
	}
	if got := issued(l, "refs/ao/sessions/never"); got != 0 {
		t.Fatalf("mark of a key never written: %d", got)
	}
	const keys = 5000
	for i := range keys {
		if err := raiseIssued(ctx, l, fmt.Sprintf("refs/ao/sessions/s-%d", i), uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range keys {
		if got := issued(l, fmt.Sprintf("refs/ao/sessions/s-%d", i)); got != uint64(i+1) {
			t.Fatalf("key %d: mark %d, want %d", i, got, i+1)
		}
	}
	files := 0
	filepath.WalkDir(l.Path(""), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files++
		}
		return nil
	})
	if files > issuedBuckets+16+8 {
		t.Fatalf("%d keys left %d files under %s, want at most %d", keys+1, files, l.Path(""), issuedBuckets+16+8)
	}
}

// Processes raising marks of one file at once lose none of them: each
// rewrites the file whole, under its lock.
func TestIssuedMarksRaisedAtOnceAreAllKept(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, l := openIssued(t)
	// Keys that share a file: the same first two hex digits.
	var refs []string
	for i := 0; len(refs) < 64; i++ {
		ref := fmt.Sprintf("refs/ao/sessions/k-%d", i)
		if issuedKey(ref)[:2] == "00" {
			refs = append(refs, ref)
		}
	}
	// Four Stores, as four processes would hold, opened one after
	// another (64 opened at once, each starting its git processes, timed
	// out on a loaded machine); every raise takes the lock through a
	// file of its own, so two raises of one Store exclude each other as
	// two processes' do.
	var stores []Local
	for range 4 {
		st, err := Open(ctx, filepath.Dir(filepath.Dir(l.Path(""))), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stores = append(stores, st.Local())
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(refs))
	for i, ref := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- raiseIssued(ctx, stores[i%len(stores)], ref, uint64(100+i))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, ref := range refs {
		if got := issued(l, ref); got != uint64(100+i) {
			t.Fatalf("%s: mark %d, want %d (a write raced away)", ref, got, 100+i)
		}
	}
}

// A mark an earlier release kept in a file of its own is read, raised
// past, and folded into its bucket by FoldIssued, which removes the file
// and, once empty, the directory.
func TestIssuedMarksOfAnEarlierReleaseAreReadAndFolded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, l := openIssued(t)
	old := map[string]uint64{"refs/ao/sessions/old-1": 7, "refs/ao/sessions/old-2": 9, "refs/ao/handoffs/private/me/main": 12}
	for ref, n := range old {
		if err := l.Write(ctx, legacyIssued(issuedKey(ref)), []byte(fmt.Sprintf("%d\n", n))); err != nil {
			t.Fatal(err)
		}
	}
	for ref, n := range old {
		if got := issued(l, ref); got != n {
			t.Fatalf("%s before the fold: %d, want %d", ref, got, n)
		}
	}
	// Raised below the old mark: the old mark stands.
	if err := raiseIssued(ctx, l, "refs/ao/sessions/old-1", 3); err != nil {
		t.Fatal(err)
	}
	if err := FoldIssued(ctx, l); err != nil {
		t.Fatal(err)
	}
	for ref, n := range old {
		if got := issued(l, ref); got != n {
			t.Fatalf("%s after the fold: %d, want %d", ref, got, n)
		}
	}
	if _, err := os.Stat(l.Path("issued")); !os.IsNotExist(err) {
		t.Fatalf("the earlier release's directory after the fold: %v, want it gone", err)
	}
	if err := FoldIssued(ctx, l); err != nil {
		t.Fatalf("a second fold, with nothing to fold: %v", err)
	}
}
