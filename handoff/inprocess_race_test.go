package handoff_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// A long-lived process (the MCP server, the status page) runs workflows on
// several goroutines, each with its own store: of eight starts at once on
// one baton, exactly one delivers it. They share a pid, so a claim note
// in flight must not look like a crashed process's to the others.
func TestStartsInOneProcessDeliverOnce(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := context.Background()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{"only once"}}, fixed(0)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	var wg sync.WaitGroup
	claimed := make([]bool, 8)
	for i := range claimed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := refstore.Open(ctx, dir, refstore.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			defer st.Close()
			res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: fmt.Sprintf("s%d", i), Owner: "dev", Branch: "main"}, fixed(1))
			if err != nil {
				t.Errorf("start s%d: %v", i, err)
				return
			}
			claimed[i] = res.Claimed
		}()
	}
	wg.Wait()
	n := 0
	for _, c := range claimed {
		if c {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d starts delivered the baton, want exactly 1: %v", n, claimed)
	}
}
