package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
)

// clone is one machine over a shared board: the refs are one store's,
// the notes (first sightings) and the clock its own.
type clone struct {
	refstore.Writer
	notes refstore.Local
	now   time.Time
}

func (c *clone) Local() refstore.Local { return c.notes }
func (c *clone) clock() time.Time      { return c.now }
func (c *clone) board() Board          { return LocalBoard{St: c} }

func twoClones(t *testing.T) (*clone, *clone) {
	st, err := memstore.New(refstore.FormatSHA1)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	a := &clone{Writer: st, notes: memstore.NewLocal("a"), now: base}
	// b's clock is two hours ahead: nothing may depend on it.
	b := &clone{Writer: st, notes: memstore.NewLocal("b"), now: base.Add(2 * time.Hour)}
	return a, b
}

func key(t *testing.T, s string) Key {
	k, err := ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func take(ctx context.Context, c *clone, session string, ttl time.Duration, keys ...Key) (Result, error) {
	return Take(ctx, c, c.board(), TakeOptions{Keys: keys, Holder: Holder{Session: session, Owner: session + "@x", Agent: "codex"}, TTL: ttl}, c.clock)
}

func TestTakeExpireRenew(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := twoClones(t)
	k := key(t, "#42")
	ttl := 10 * time.Minute
	res, err := take(ctx, a, "sa", ttl, k)
	if err != nil || res.Leases[0].Action != Taken {
		t.Fatalf("take: %+v %v", res, err)
	}
	// Already mine.
	if res, err := take(ctx, a, "sa", ttl, k); err != nil || res.Leases[0].Action != Mine {
		t.Fatalf("take again: %+v %v", res, err)
	}
	// b is refused, and its clock for this version starts now.
	_, err = take(ctx, b, "sb", ttl, k)
	var held *HeldError
	if !errors.As(err, &held) || held.By.Session != "sa" || !errors.Is(err, refstore.ErrConflict) {
		t.Fatalf("b: %v", err)
	}
	if !held.FreesAt.Equal(b.now.Add(ttl)) {
		t.Fatalf("frees at %v, want %v", held.FreesAt, b.now.Add(ttl))
	}
	// a renews within its TTL: not due before half, written after.
	a.now = a.now.Add(4 * time.Minute)
	if r, err := Renew(ctx, a, a.board(), "sa", nil, a.clock); err != nil || r.Leases[0].Action != NotDue || r.Where != "this clone" {
		t.Fatalf("early renew: %+v %v", r, err)
	}
	a.now = a.now.Add(2 * time.Minute)
	if r, err := Renew(ctx, a, a.board(), "sa", nil, a.clock); err != nil || r.Leases[0].Action != Renewed {
		t.Fatalf("renew: %+v %v", r, err)
	}
	// b waited a whole TTL since its first sighting, but of the old
	// version: the new one starts its clock again.
	b.now = b.now.Add(ttl + time.Minute)
	if _, err := take(ctx, b, "sb", ttl, k); !errors.As(err, &held) {
		t.Fatalf("b took a renewed lease: %v", err)
	}
	// a stops renewing: b takes it one TTL after first seeing the
	// version, not before.
	b.now = b.now.Add(ttl - time.Second)
	if _, err := take(ctx, b, "sb", ttl, k); !errors.As(err, &held) {
		t.Fatalf("b took it before a TTL: %v", err)
	}
	b.now = b.now.Add(time.Second)
	res, err = take(ctx, b, "sb", ttl, k)
	if err != nil || res.Leases[0].Action != TookOver || res.Leases[0].From != "sa" {
		t.Fatalf("takeover: %+v %v", res, err)
	}
	// a finds it lost.
	var nh *NotHolderError
	a.now = a.now.Add(time.Hour)
	if _, err := Renew(ctx, a, a.board(), "sa", []Key{k}, a.clock); !errors.As(err, &nh) || nh.Lease.Session != "sb" {
		t.Fatalf("a renewing a lost lease: %v", err)
	}
}

func TestPathOverlap(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := twoClones(t)
	ttl := time.Minute
	if _, err := take(ctx, a, "sa", ttl, key(t, "path:src/**")); err != nil {
		t.Fatal(err)
	}
	var held *HeldError
	if _, err := take(ctx, b, "sb", ttl, key(t, "path:src/a.go")); !errors.As(err, &held) || held.By.Key != "path:src/**" {
		t.Fatalf("overlap taken: %v", err)
	}
	// All or nothing: the free key of a refused take is not taken.
	if _, err := take(ctx, b, "sb", ttl, key(t, "issue:1"), key(t, "path:*.go")); !errors.As(err, &held) {
		t.Fatalf("overlap taken: %v", err)
	}
	if l, err := Read(ctx, a, key(t, "issue:1")); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("issue:1 after a refused take: %+v %v", l, err)
	}
	if _, err := take(ctx, b, "sb", ttl, key(t, "path:docs/")); err != nil {
		t.Fatalf("disjoint path: %v", err)
	}
	// The same session may hold overlapping paths.
	if _, err := take(ctx, a, "sa", ttl, key(t, "path:src/a.go")); err != nil {
		t.Fatalf("own overlap: %v", err)
	}
	// Released: free at once.
	if r, err := Release(ctx, a, a.board(), "sa", nil, "done", a.clock); err != nil || len(r.Leases) != 2 {
		t.Fatalf("release: %+v %v", r, err)
	}
	if _, err := take(ctx, b, "sb", ttl, key(t, "path:src/a.go")); err != nil {
		t.Fatalf("after release: %v", err)
	}
	// An expired overlapping lease is broken by the take that passes it.
	b.now = b.now.Add(time.Hour)
	if _, err := take(ctx, a, "sa", ttl, key(t, "path:src/")); !errors.As(err, &held) {
		t.Fatalf("a took over at once: %v", err)
	}
	a.now = a.now.Add(ttl)
	if _, err := take(ctx, a, "sa", ttl, key(t, "path:src/")); err != nil {
		t.Fatalf("after b's lease expired: %v", err)
	}
	l, err := Read(ctx, a, key(t, "path:src/a.go"))
	if err != nil || l.State != StateBroken {
		t.Fatalf("b's expired lease: %+v %v", l.Record, err)
	}
	var nh *NotHolderError
	if _, err := Renew(ctx, b, b.board(), "sb", []Key{key(t, "path:src/a.go")}, b.clock); !errors.As(err, &nh) {
		t.Fatalf("b renewed a broken lease: %v", err)
	}
}

func TestBreakHandOver(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := twoClones(t)
	k := key(t, "key:deploy")
	if _, err := take(ctx, a, "sa", time.Hour, k); err != nil {
		t.Fatal(err)
	}
	if _, err := Break(ctx, b, b.board(), k, "ann", "", b.clock); err == nil {
		t.Fatal("a break without a reason")
	}
	if _, err := HandOver(ctx, a, a.board(), "sa", Holder{Session: "sa2"}, a.clock); err != nil {
		t.Fatal(err)
	}
	l, _ := Read(ctx, a, k)
	if l.Session != "sa2" || !l.Held() {
		t.Fatalf("handed over: %+v", l.Record)
	}
	r, err := Break(ctx, b, b.board(), k, "ann", "holder's machine died", b.clock)
	if err != nil || r.Leases[0].From != "sa2" {
		t.Fatalf("break: %+v %v", r, err)
	}
	l, _ = Read(ctx, a, k)
	last := l.History[len(l.History)-1]
	if l.State != StateBroken || last.Action != "break" || last.By != "ann" || last.Reason != "holder's machine died" {
		t.Fatalf("broken: %+v", l.Record)
	}
	if _, err := Break(ctx, b, b.board(), k, "ann", "again", b.clock); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("breaking a broken lease: %v", err)
	}
	if _, err := take(ctx, b, "sb", time.Hour, k); err != nil {
		t.Fatalf("take after break: %v", err)
	}
}

// A take with Over breaks a live holder's lease and takes it in one swap,
// while Over says so when the swap is decided; when it says no, nothing
// is written (a pull request's lease going with its ownership).
func TestTakeOver(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := twoClones(t)
	k := key(t, "pr:8")
	if _, err := take(ctx, a, "sa", time.Hour, k); err != nil {
		t.Fatal(err)
	}
	before, _ := Read(ctx, a, k)
	over := func(yes bool) TakeOptions {
		return TakeOptions{Keys: []Key{k}, Holder: Holder{Session: "sb"}, Over: func() bool { return yes }, OverReason: "pr claim took it over"}
	}
	if _, err := Take(ctx, b, b.board(), over(false), b.clock); !errors.Is(err, ErrNotOver) {
		t.Fatalf("a takeover no longer called for: %v", err)
	}
	if l, _ := Read(ctx, a, k); l.OID != before.OID {
		t.Fatalf("a takeover refused wrote %+v", l.Record)
	}
	r, err := Take(ctx, b, b.board(), over(true), b.clock)
	if err != nil || r.Leases[0].Action != TookOver || r.Leases[0].From != "sa" {
		t.Fatalf("takeover: %+v %v", r, err)
	}
	l, _ := Read(ctx, a, k)
	h := l.History
	if l.Session != "sb" || !l.Held() || len(h) < 2 || h[len(h)-2].Action != "break" || h[len(h)-2].From != "sa" ||
		h[len(h)-2].Reason != "pr claim took it over" || h[len(h)-1].Action != "take" {
		t.Fatalf("taken over: %+v", l.Record)
	}
}
