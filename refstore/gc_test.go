package refstore_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// A store that has read from a pack goes on reading after `git repack -ad`
// replaced that pack with another: go-git's list of packs is stale then.
func TestReadAfterRepack(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := context.Background()
	st := open(t, dir, refstore.Options{})
	oid := put(t, st, "refs/ao/sessions/a", "", `{"schema":"session/v1","id":"a"}`)
	gittest.Run(t, dir, "repack", "-adq")
	if e, err := st.Get(ctx, "refs/ao/sessions/a"); err != nil || e.OID != oid {
		t.Fatalf("Get before the second repack = %+v, %v", e, err)
	}
	// A new object makes the next pack a different file; the old one goes.
	put(t, st, "refs/ao/sessions/b", "", `{"schema":"session/v1","id":"b"}`)
	gittest.Run(t, dir, "repack", "-adq")
	for _, ref := range []string{"refs/ao/sessions/a", "refs/ao/sessions/b"} {
		if _, err := st.Get(ctx, ref); err != nil {
			t.Errorf("Get %s after repack: %v", ref, err)
		}
	}
	if _, err := st.ReadObject(ctx, oid); err != nil {
		t.Errorf("ReadObject after repack: %v", err)
	}
}

// Our own fetch that writes a pack (here: any fetch, unpackLimit=1) is
// followed by reads of the objects it brought.
func TestReadAfterFetchWritesPack(t *testing.T) {
	gittest.Isolate(t)
	remote := gittest.Init(t)
	dir := gittest.Init(t)
	gittest.Run(t, dir, "config", "fetch.unpackLimit", "1")
	gittest.Run(t, dir, "config", "fetch.fsckObjects", "true")
	ctx := context.Background()
	rst := open(t, remote, refstore.Options{})
	var want []string
	for i := range 5 {
		want = append(want, put(t, rst, fmt.Sprintf("refs/ao/sessions/r%d", i), "", fmt.Sprintf(`{"schema":"session/v1","id":"r%d"}`, i)))
	}
	st := open(t, dir, refstore.Options{})
	// Have go-git list the packs (none yet) before the fetch.
	put(t, st, "refs/ao/sessions/local", "", `{"schema":"session/v1","id":"local"}`)
	gittest.Run(t, dir, "repack", "-adq")
	if _, err := st.Get(ctx, "refs/ao/sessions/local"); err != nil {
		t.Fatal(err)
	}
	if err := st.Fetch(ctx, remote, false, "+refs/ao/sessions/*:refs/ao/remotes/origin/sessions/*"); err != nil {
		t.Fatal(err)
	}
	for i, id := range want {
		ref := fmt.Sprintf("refs/ao/remotes/origin/sessions/r%d", i)
		e, err := st.Get(ctx, ref)
		if err != nil || e.OID != id {
			t.Errorf("Get %s after fetch = %+v, %v", ref, e, err)
		}
	}
}

// Reads against back-to-back `git gc` and `git repack -ad` in another
// process, each round with a new object so every repack writes a new pack
// and deletes the old: a long-lived store and fresh ones must read every
// record every time.
func TestReadsRaceGC(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := context.Background()
	st := open(t, dir, refstore.Options{})
	const n = 30
	for i := range n {
		put(t, st, fmt.Sprintf("refs/ao/sessions/s%d", i), "", fmt.Sprintf(`{"schema":"session/v1","id":"s%d"}`, i))
	}
	gittest.Run(t, dir, "gc", "-q")
	const rounds = 12
	gc := exec.Command("sh", "-c", `
i=0
while [ $i -lt `+fmt.Sprint(rounds)+` ]; do
	id=$(echo "round $i" | git hash-object -w --stdin)
	git update-ref refs/ao/sessions/gc-$i $id
	if [ $((i % 2)) = 0 ]; then git gc -q --prune=now; else git repack -adq; fi
	i=$((i+1))
done`)
	gc.Dir = dir
	if err := gc.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- gc.Wait() }()
	reads, failures := 0, []string{}
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("gc loop: %v", err)
			}
			running = false
		default:
		}
		fresh, err := refstore.Open(ctx, dir, refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			ref := fmt.Sprintf("refs/ao/sessions/s%d", i)
			for _, s := range []*refstore.Store{st, fresh} {
				e, err := s.Get(ctx, ref)
				reads++
				if err != nil || !strings.Contains(string(e.Data), fmt.Sprintf(`"s%d"`, i)) {
					failures = append(failures, fmt.Sprintf("%s: %v", ref, err))
				}
			}
		}
		fresh.Close()
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d reads failed during gc; first: %s", len(failures), reads, failures[0])
	}
	t.Logf("%d reads across %d gc/repack rounds", reads, rounds)
}

// git gc says nothing about the records' reflogs (blobs, not commits) and
// keeps their entries: the first write set gc.refs/ao/*.reflogExpireUnreachable,
// whichever way it was written (a clone whose records all came by sync
// writes them through ApplyEach). A value the user chose is left alone.
func TestGCQuietAboutRecordReflogs(t *testing.T) {
	for name, opts := range readPaths {
		for _, each := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/each=%v", name, each), func(t *testing.T) {
				gittest.Isolate(t)
				dir := gittest.Init(t)
				st := open(t, dir, opts)
				var old string
				if each {
					ctx := context.Background()
					var ids []string
					for _, body := range []string{`{"schema":"session/v1","id":"a"}`, `{"schema":"session/v1","id":"a","rev":2}`} {
						oid, err := st.WriteBlob(ctx, []byte(body))
						if err != nil {
							t.Fatal(err)
						}
						ids = append(ids, oid)
					}
					for i, oid := range ids {
						prev := ""
						if i > 0 {
							prev = ids[i-1]
						}
						if err := st.ApplyEach(ctx, "test: each", refstore.Update{Ref: "refs/ao/sessions/a", New: oid, Old: prev}); err != nil {
							t.Fatal(err)
						}
					}
					old = ids[0]
				} else {
					old = put(t, st, "refs/ao/sessions/a", "", `{"schema":"session/v1","id":"a"}`)
					put(t, st, "refs/ao/sessions/a", old, `{"schema":"session/v1","id":"a","rev":2}`)
				}
				gcQuiet(t, dir, old)
			})
		}
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	gittest.Run(t, dir, "config", "gc.refs/ao/*.reflogExpireUnreachable", "7.days")
	put(t, open(t, dir, refstore.Options{}), "refs/ao/sessions/a", "", `{"schema":"session/v1","id":"a"}`)
	if got := gittest.Run(t, dir, "config", "--get", "gc.refs/ao/*.reflogExpireUnreachable"); got != "7.days" {
		t.Errorf("the user's setting became %q", got)
	}
}

// gcQuiet runs git gc in dir, which must print nothing and keep both
// entries of refs/ao/sessions/a's reflog (old, the first, among them).
func gcQuiet(t *testing.T, dir, old string) {
	t.Helper()
	gc := exec.Command("git", "gc", "--quiet")
	gc.Dir = dir
	out, err := gc.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("git gc: %v\n%s", err, out)
	}
	if logged := gittest.ReflogOIDs(t, dir, "refs/ao/sessions/a"); len(logged) != 2 || logged[0] != old {
		t.Errorf("the reflog after gc holds %q, want two entries, %s first", logged, old)
	}
	if got := gittest.Run(t, dir, "config", "--get", "gc.refs/ao/*.reflogExpireUnreachable"); got != "never" {
		t.Errorf("gc setting = %q", got)
	}
}
