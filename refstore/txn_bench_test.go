package refstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// BenchmarkApplyTxn measures one end-shaped transaction (three refs and
// their blobs): in process with its journal, and through git update-ref
// (with its journal too) as in a shared repository.
func BenchmarkApplyTxn(b *testing.B) {
	gittest.Isolate(b)
	for _, path := range []string{"in-process", "update-ref"} {
		b.Run(path, func(b *testing.B) {
			dir := gittest.Init(b)
			if path == "update-ref" {
				// A shared repository is one refstore leaves to git.
				gittest.Run(b, dir, "config", "core.sharedRepository", "group")
			}
			ctx := context.Background()
			st, err := refstore.Open(ctx, dir, refstore.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			prev := make([]string, 3)
			refs := []string{"refs/ao/handoffs/private/o/main", "refs/ao/objectives/o/main", "refs/ao/sessions/s"}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var ups []refstore.Update
				for j, ref := range refs {
					id, err := st.WriteBlob(ctx, []byte(fmt.Sprintf(`{"i":%d,"j":%d}`, i, j)))
					if err != nil {
						b.Fatal(err)
					}
					ups = append(ups, refstore.Update{Ref: ref, Old: prev[j], New: id})
					prev[j] = id
				}
				if err := st.Apply(ctx, "bench", ups...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
