package handoff_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// busyTeammate stands for a remote where, every time this clone pushes a
// claim, a teammate has just written a newer baton: the claim is lost, and
// the local ref takes the newer baton, as teamsync.Arbiter does. Each write
// is real, through the store.
type busyTeammate struct {
	t     *testing.T
	calls int
}

func (b *busyTeammate) Arbitrate(ctx context.Context, st refstore.Clone, up refstore.Update) error {
	b.calls++
	res, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{fmt.Sprintf("teammate's step %d", b.calls)}, Shared: true}, fixed(10+b.calls))
	if err != nil {
		b.t.Fatalf("teammate's end: %v", err)
	}
	return fmt.Errorf("the remote holds a newer baton %s: %w", res.Handoff.ID, refstore.ErrConflict)
}

func (b *busyTeammate) Held(ctx context.Context, st refstore.Clone, ref string) (string, error) {
	return handoff.Local{}.Held(ctx, st, ref)
}

func fixed(min int) handoff.Clock {
	return func() time.Time { return time.Date(2030, 1, 1, 12, min, 0, 0, time.UTC) }
}

// TestStartRetryIsBoundedAndSaysThingsOnce: a start that loses its claim
// of a shared baton
// on every pass asks the arbiter at most three times, then starts the
// session without a baton; a warning about a bad record (read on every
// pass) is said once, and no notice twice.
func TestStartRetryIsBoundedAndSaysThingsOnce(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := context.Background()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{"first step"}, Shared: true}, fixed(0)); err != nil {
		t.Fatal(err)
	}
	bad, err := st.WriteBlob(ctx, []byte("not a record"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: a bad record", refstore.Update{Ref: "refs/ao/handoffs/shared/x/y", New: bad}); err != nil {
		t.Fatal(err)
	}
	arb := &busyTeammate{t: t}
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: "s1", Owner: "dev", Branch: "main", Arbiter: arb}, fixed(1))
	if err != nil {
		t.Fatal(err)
	}
	if arb.calls > 3 {
		t.Errorf("the arbiter was asked %d times; the bound is 3", arb.calls)
	}
	if res.Claimed || res.Handoff != nil {
		t.Errorf("claimed %v, handoff %v: every claim was lost", res.Claimed, res.Handoff)
	}
	seen := map[string]int{}
	warnings := 0
	for _, n := range res.Notices {
		seen[n]++
		if strings.Contains(n, "refs/ao/handoffs/shared/x/y") {
			warnings++
		}
	}
	for n, c := range seen {
		if c > 1 {
			t.Errorf("notice said %d times: %s", c, n)
		}
	}
	if warnings != 1 {
		t.Errorf("the bad record was reported %d times, want once: %q", warnings, res.Notices)
	}
}
