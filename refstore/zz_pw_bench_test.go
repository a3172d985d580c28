package refstore

import (
	"context"
	"os"
	"testing"
)

func BenchmarkPWListing(b *testing.B) {
	dir := os.Getenv("PW_REPO")
	if dir == "" {
		b.Skip()
	}
	prefix := os.Getenv("PW_PREFIX")
	ctx := context.Background()
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ids, _ := st.RefIDs(ctx, prefix)
	b.Run("bulk-ordered", func(b *testing.B) {
		for b.Loop() {
			n := 0
			ids, _ := st.RefIDs(ctx, prefix)
			_, err := st.bulkList(ctx, ids, false, func(int, Entry) error { n++; return nil })
			if err != nil || n != len(ids) {
				b.Fatal(err, n)
			}
		}
	})
	b.Run("bulk-unordered", func(b *testing.B) {
		for b.Loop() {
			ids, _ := st.RefIDs(ctx, prefix)
			_, err := st.bulkList(ctx, ids, true, func(int, Entry) error { return nil })
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("catfile", func(b *testing.B) {
		for b.Loop() {
			ids, _ := st.RefIDs(ctx, prefix)
			if err := st.catFileEach(ctx, ids, func(e Entry) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	_ = ids
}
