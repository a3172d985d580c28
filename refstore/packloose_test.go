package refstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// PackLoose has git pack the refs once enough of ours are loose files,
// and only then; the refs read the same before and after (git lists
// them); a reftable is left to git.
func TestPackLoose(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := gittest.Init(t)
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	blob, err := st.WriteBlob(ctx, []byte(`{"schema":"x/v1"}`))
	if err != nil {
		t.Fatal(err)
	}
	write := func(from, to int) {
		t.Helper()
		var ups []refstore.Update
		for i := from; i < to; i++ {
			ups = append(ups, refstore.Update{Ref: fmt.Sprintf("%ssessions/s-%03d", refstore.Root, i), New: blob})
		}
		if err := st.Apply(ctx, "test", ups...); err != nil {
			t.Fatal(err)
		}
	}
	list := func() string {
		return gittest.Run(t, dir, "for-each-ref", "--format=%(objectname) %(refname)", refstore.Root)
	}
	loose := func() int {
		n := 0
		filepath.WalkDir(filepath.Join(gittest.CommonDir(t, dir), "refs", "ao"), func(_ string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				n++
			}
			return nil
		})
		return n
	}
	files := gittest.RefFormat(t, dir) == "files"

	write(0, 40)
	if packed, err := st.PackLoose(ctx, refstore.Root, 50); err != nil || packed {
		t.Fatalf("PackLoose with 40 loose refs of 50 = %v, %v; want nothing done", packed, err)
	}
	if files && loose() != 40 {
		t.Fatalf("%d loose refs after a PackLoose that did nothing, want 40", loose())
	}
	write(40, 60)
	before := list()
	packed, err := st.PackLoose(ctx, refstore.Root, 50)
	if err != nil || packed != files {
		t.Fatalf("PackLoose with 60 loose refs of 50 = %v, %v; want %v (files backend)", packed, err, files)
	}
	if after := list(); after != before {
		t.Fatalf("the refs changed when packed:\n%s\nwant\n%s", after, before)
	}
	if files {
		if n := loose(); n != 0 {
			t.Fatalf("%d loose refs left after packing", n)
		}
		if pr, _ := os.ReadFile(filepath.Join(gittest.CommonDir(t, dir), "packed-refs")); !strings.Contains(string(pr), "refs/ao/sessions/s-059") {
			t.Fatal("packed-refs does not hold the records")
		}
	}
	if packed, err := st.PackLoose(ctx, refstore.Root, 50); err != nil || packed {
		t.Fatalf("PackLoose again = %v, %v; want nothing left to pack", packed, err)
	}
	if _, err := st.PackLoose(ctx, "refs/heads/", 1); err == nil {
		t.Fatal("PackLoose took a prefix outside refs/ao/")
	}
}
