package refstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

func TestRevOf(t *testing.T) {
	for _, tc := range []struct {
		data string
		want refstore.Cause
	}{
		{`{"schema":"handoff/v1","rev":3,"prev":"abc"}`, refstore.Cause{Rev: 3, Prev: "abc"}},
		{`{"schema":"handoff/v1"}`, refstore.Cause{}},
		// A session's own "supersedes" is its lineage link, not the cause.
		{`{"schema":"session/v1","supersedes":"s-0","rev":4,"prev":"def"}`, refstore.Cause{Rev: 4, Prev: "def"}},
		{`not json`, refstore.Cause{}},
	} {
		if got := refstore.RevOf([]byte(tc.data)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("RevOf(%s) = %+v, want %+v", tc.data, got, tc.want)
		}
	}
}

// A count this clone issued is not issued again for the key, even from a
// base that does not hold it (a version of ours that lost a join): a
// teammate's version built on the lost one must not seem to follow the
// next one.
func TestNextCauseNeverReusesACount(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	const ref = "refs/ao/handoffs/private/dev/main"
	base := put(t, st, ref, "", `{"schema":"handoff/v1","rev":1}`)
	lost, err := refstore.NextCause(ctx, st, ref, base)
	if err != nil {
		t.Fatal(err)
	}
	next, err := refstore.NextCause(ctx, st, ref, base) // the same base: the lost one is in it no more than before
	if err != nil {
		t.Fatal(err)
	}
	w := me(t, dir)
	if next.Seen[w] <= lost.Seen[w] {
		t.Fatalf("count %d issued again after %d", next.Seen[w], lost.Seen[w])
	}
	if d, _ := (refstore.Cause{Rev: 3, Seen: lost.Seen}).Descends(next); d {
		t.Fatalf("a version built on the lost count %v seems to follow the later write %v", lost.Seen, next.Seen)
	}
	reopened := open(t, dir, refstore.Options{}) // the mark outlives the process
	if again, _ := refstore.NextCause(ctx, reopened, ref, base); again.Seen[w] <= next.Seen[w] {
		t.Fatalf("a new process issued %d after %d", again.Seen[w], next.Seen[w])
	}
}

// The clock counts what this clone has seen of the key: the version it
// replaces and the fetched copies, of the arbiter alone once
// handoff.arbiter names one.
func TestNextCause(t *testing.T) {
	gittest.Isolate(t)
	for name, opts := range readPaths {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := gittest.Init(t)
			gittest.Run(t, dir, "remote", "add", "origin", "/nowhere/origin.git")
			gittest.Run(t, dir, "remote", "add", "upstream", "/nowhere/upstream.git")
			st := open(t, dir, opts)
			const ref = "refs/ao/handoffs/private/dev/main"
			rec := func(rev int) string { return fmt.Sprintf(`{"schema":"handoff/v1","rev":%d}`, rev) }

			c, err := refstore.NextCause(ctx, st, ref, "")
			if err != nil || c.Rev != 1 || c.Prev != "" || len(c.Seen) != 1 {
				t.Fatalf("first version: %+v %v, want rev 1", c, err)
			}
			local := put(t, st, ref, "", rec(2))
			if c, err = refstore.NextCause(ctx, st, ref, local); err != nil || c.Rev != 3 || c.Prev != local {
				t.Fatalf("after the local rev 2: %+v %v", c, err)
			}
			origin, _ := refstore.RemoteRef("origin", ref)
			upstream, _ := refstore.RemoteRef("upstream", ref)
			there := put(t, st, origin, "", rec(5))
			put(t, st, upstream, "", rec(9))
			if c, _ = refstore.NextCause(ctx, st, ref, local); c.Rev != 10 || c.Prev != local {
				t.Fatalf("with fetched copies rev 5 and 9: %+v, want rev 10", c)
			}
			gittest.Run(t, dir, "config", refstore.ArbiterKey, "origin")
			st = open(t, dir, opts) // the remotes are read once per store
			if c, _ = refstore.NextCause(ctx, st, ref, local); c.Rev != 6 {
				t.Fatalf("with the arbiter origin at rev 5: %+v, want rev 6", c)
			}
			var v struct {
				Schema string `json:"schema"`
				refstore.Cause
			}
			v.Schema = "handoff/v1"
			oid, data, err := refstore.WriteVersion(ctx, st, ref, local, &v.Cause, &v)
			if err != nil {
				t.Fatal(err)
			}
			// Every NextCause issues a count of this clone's own, never
			// given again for the key: four asked above, so this is the
			// fifth. Back names the arbiter's copy it was written after
			// seeing. The versions it builds on carry none of this
			// clone's counts, so counts 1 to 4 are ones it did not see:
			// jumpBy says so (jumpBase, 0, is left out).
			if want := fmt.Sprintf(`{"schema":"handoff/v1","rev":6,"prev":"%s","back":["%s"],"seen":{"%s":5},"jumpBy":"%s"}`, local, there[:refstore.BackIDLen], me(t, dir), me(t, dir)); string(data) != want {
				t.Fatalf("WriteVersion wrote %s, want %s", data, want)
			}
			if e, err := st.ReadObject(ctx, oid); err != nil || string(e.Data) != string(data) {
				t.Fatalf("blob %s: %q %v", oid, e.Data, err)
			}
		})
	}
}

// What the clock adds to a write: the replaced blob and one fetched copy
// read in process.
func BenchmarkNextCause(b *testing.B) {
	gittest.Isolate(b)
	ctx := context.Background()
	dir := gittest.Init(b)
	gittest.Run(b, dir, "remote", "add", "origin", "/nowhere/origin.git")
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const ref = "refs/ao/handoffs/private/dev/main"
	oid, _ := st.WriteBlob(ctx, []byte(`{"schema":"handoff/v1","rev":2}`))
	if err := st.Apply(ctx, "test", refstore.Update{Ref: ref, New: oid}); err != nil {
		b.Fatal(err)
	}
	tr, _ := refstore.RemoteRef("origin", ref)
	if err := st.Apply(ctx, "test", refstore.Update{Ref: tr, New: oid}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := refstore.NextCause(ctx, st, ref, oid); err != nil {
			b.Fatal(err)
		}
	}
}

// me is the clone's writer id, as NextCause names it.
func me(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".git", "handoff", "writer"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// The vector says who saw whom: a version written over another descends
// from it, two written from one base by two clones do not descend from
// each other, and a version that merged both descends from both.
func TestSeenVectors(t *testing.T) {
	a := refstore.Cause{Rev: 2, Seen: map[string]uint64{"x": 2}}
	b := refstore.Cause{Rev: 2, Seen: map[string]uint64{"x": 1, "y": 1}}
	base := refstore.Cause{Rev: 1, Seen: map[string]uint64{"x": 1}}
	both := refstore.Cause{Rev: 3, Seen: map[string]uint64{"x": 2, "y": 2}}
	for _, tc := range []struct {
		name     string
		c, o     refstore.Cause
		descends bool
	}{
		{"a over its base", a, base, true},
		{"b over its base", b, base, true},
		{"a and b: concurrent", a, b, false},
		{"b and a: concurrent", b, a, false},
		{"a merge of both", both, a, true},
		{"the base is not after a", base, a, false},
		{"two writes of one clone from one base", a, refstore.Cause{Rev: 2, Seen: map[string]uint64{"x": 2}}, false},
	} {
		if d, ok := tc.c.Descends(tc.o); !ok || d != tc.descends {
			t.Errorf("%s: Descends = %v, %v; want %v", tc.name, d, ok, tc.descends)
		}
	}
	if _, ok := (refstore.Cause{Rev: 4}).Descends(a); ok {
		t.Error("a record without a vector says something")
	}
}

// A version names the versions before the one it replaced (Back), so a
// clone that fetched only the tip can tell it was written over an exact
// blob up to MaxBack versions down, and not further.
func TestBackNamesTheVersionsBeforePrev(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	const ref = "refs/ao/handoffs/private/dev/main"
	var chain []string // oldest first
	old := ""
	for i := 0; i < refstore.MaxBack+4; i++ {
		var rec struct {
			refstore.Cause
			Schema string `json:"schema"`
			N      int    `json:"n"`
		}
		rec.Schema, rec.N = "handoff/v1", i
		oid, _, err := refstore.WriteVersion(ctx, st, ref, old, &rec.Cause, &rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Apply(ctx, "test", refstore.Update{Ref: ref, New: oid, Old: old}); err != nil {
			t.Fatal(err)
		}
		chain, old = append(chain, oid), oid
	}
	tip := chain[len(chain)-1]
	e, err := st.ReadObject(ctx, tip)
	if err != nil {
		t.Fatal(err)
	}
	c := refstore.RevOf(e.Data)
	if len(c.Back) != refstore.MaxBack {
		t.Fatalf("back has %d versions, want %d", len(c.Back), refstore.MaxBack)
	}
	// A clone holding the tip's blob alone.
	other := open(t, gittest.Init(t), refstore.Options{})
	if _, err := other.WriteBlob(ctx, e.Data); err != nil {
		t.Fatal(err)
	}
	for i, oid := range chain {
		down := len(chain) - 1 - i // versions below the tip
		want := down <= refstore.MaxBack+1
		if got := refstore.WrittenOver(ctx, other, tip, oid); got != want {
			t.Errorf("%d versions down: written over = %v, want %v", down, got, want)
		}
		if !refstore.WrittenOver(ctx, st, tip, oid) {
			t.Errorf("%d versions down: not found walking the blobs the writer holds", down)
		}
	}
	if refstore.WrittenOver(ctx, other, tip, strings.Repeat("0", len(tip))) {
		t.Error("a blob never in the chain is found in it")
	}
}

// A version whose own count jumped past what it builds on does not cover
// the versions of its writer in between: a concurrent process's write it
// never read.
func TestDescendsNotAcrossAJump(t *testing.T) {
	ended := refstore.Cause{Seen: map[string]uint64{"w": 3, "x": 1}}
	claim := refstore.Cause{Seen: map[string]uint64{"w": 4, "x": 1}, JumpBy: "w", JumpBase: 2}
	if d, ok := claim.Descends(ended); !ok || d {
		t.Errorf("claim over base 2 descends from w's count 3: %v %v, want concurrent", d, ok)
	}
	if d, ok := ended.Descends(claim); !ok || d {
		t.Errorf("count 3 descends from count 4: %v %v", d, ok)
	}
	base := refstore.Cause{Seen: map[string]uint64{"w": 2, "x": 1}}
	if d, ok := claim.Descends(base); !ok || !d {
		t.Errorf("claim does not descend from what it builds on: %v %v", d, ok)
	}
	later := refstore.Cause{Seen: map[string]uint64{"w": 5, "x": 1}}
	if d, ok := later.Descends(claim); !ok || !d {
		t.Errorf("a later version of w does not descend from the claim: %v %v", d, ok)
	}
	plain := refstore.Cause{Seen: map[string]uint64{"w": 4, "x": 1}}
	if d, ok := plain.Descends(ended); !ok || !d {
		t.Errorf("without a jump, count 4 covers count 3: %v %v", d, ok)
	}
}
