package refstore

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// seek finds what a binary search finds, from any starting point.
func TestSeek(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 64, 100} {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = uint64(10 + 3*i + rand.IntN(2)) // gaps of 2 to 4
		}
		for near := -1; near <= n; near++ {
			for key := uint64(0); key < uint64(20+4*n); key++ {
				want, wantOK := slices.BinarySearch(keys, key)
				got, ok := seek(keys, near, key)
				if ok != wantOK || (ok && got != want) {
					t.Fatalf("n %d near %d key %d: seek %d %v, binary search %d %v", n, near, key, got, ok, want, wantOK)
				}
			}
		}
	}
}

// checkPackOrder lists every ref under refs/ao/ through the in-process
// reader in pack order (plan, nodes), which must read all of them itself
// (no fallback to git hides a mistake here) and give git's bytes.
func checkPackOrder(t *testing.T, dir, stage string) {
	t.Helper()
	want := catFileAll(t, dir)
	ctx := context.Background()
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids, err := st.RefIDs(ctx, "refs/ao/")
	if err != nil {
		t.Fatal(err)
	}
	oids := make([]string, len(ids))
	for i, id := range ids {
		oids[i] = id.OID
	}
	seen := make([]bool, len(ids))
	delivered, err := st.bulkList(ctx, ids, true, func(n int, e Entry) error {
		o := want[oids[n]]
		if seen[n] || e.Type != o.typ || e.Size != int64(len(o.data)) || string(e.Data) != string(o.data) {
			t.Fatalf("%s: entry %d (%s): %s of %d bytes, git has %s of %d", stage, n, oids[n], e.Type, e.Size, o.typ, len(o.data))
		}
		seen[n] = true
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", stage, err)
	}
	if rest, _ := undelivered(make([]RefID, len(ids)), delivered); len(rest) != 0 {
		t.Fatalf("%s: %d entries left to git", stage, len(rest))
	}
}
