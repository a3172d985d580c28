package refstore_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// The race of `git gc --prune=now` beside a writer, made to happen every
// time: a reference-transaction hook, at prepared (git has checked that the
// new object exists and holds the ref's lock, the ref has not moved), takes
// gc's lock as gc would and runs git's own prune. The prune's walk misses
// the blob, which no ref names yet, and deletes it; the transaction then
// commits a ref that names nothing. The Store, seeing gc's lock, writes the
// blob again once the prune could no longer delete it.
func TestWriteOutlastsAPruneThatRanOverIt(t *testing.T) {
	gittest.Isolate(t)
	for _, kind := range []string{"record", "archive tree"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			dir := gittest.Init(t)
			common := gittest.CommonDir(t, dir)
			done := filepath.Join(t.TempDir(), "pruned")
			hooks := t.TempDir()
			// Once only, and only for the test's ref. gc.pid names a
			// process that lives on after the prune, as git gc does (its
			// other steps), and whose command line says it prunes to now.
			hook := "#!/bin/sh\n" +
				"[ \"$1\" = prepared ] || exit 0\n" +
				"grep -q ' refs/ao/test/raced$' || exit 0\n" +
				"[ -e '" + done + "' ] && exit 0\n" +
				": >'" + done + "'\n" +
				// It writes gc.pid itself once it runs as itself ($! names
				// the hook's fork until its exec).
				"sh -c 'echo \"$$ $(hostname)\" >\"$1.tmp\" && mv \"$1.tmp\" \"$1\"; sleep 0.5' gc '" + filepath.Join(common, "gc.pid") + "' --prune=now >/dev/null 2>&1 &\n" +
				"while [ ! -s '" + filepath.Join(common, "gc.pid") + "' ]; do sleep 0.01; done\n" +
				"git prune --expire=now\n"
			if err := os.WriteFile(filepath.Join(hooks, "reference-transaction"), []byte(hook), 0o777); err != nil {
				t.Fatal(err)
			}
			gittest.Run(t, dir, "config", "core.hooksPath", hooks)
			st := open(t, dir, refstore.Options{})
			body := []byte(`{"schema":"handoff/v1","id":"h-raced","nextSteps":["go on"]}`)
			oid, err := st.WriteBlob(ctx, body)
			if err != nil {
				t.Fatal(err)
			}
			read := "refs/ao/test/raced"
			if kind == "archive tree" {
				// A month's TreeCommit, its tree and a subtree, all new:
				// the prune takes every one.
				if oid, err = st.BuildTree(ctx, "", []refstore.TreeEntry{{Path: "handoffs/h-raced", OID: oid}}); err != nil {
					t.Fatal(err)
				}
				read += ":handoffs/h-raced"
			}
			if err := st.Apply(ctx, "test: raced", refstore.Update{Ref: "refs/ao/test/raced", New: oid}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(done); err != nil {
				t.Fatalf("the hook's prune never ran: %v", err)
			}
			os.Remove(filepath.Join(common, "gc.pid"))
			gittest.Run(t, dir, "fsck", "--connectivity-only", "--no-dangling")
			if got := gittest.Run(t, dir, "cat-file", "blob", read); got != string(body) {
				t.Fatalf("%s holds %q, want %q", read, got, body)
			}
			// A later prune, with no writer beside it, keeps it: a ref
			// names it.
			gittest.Run(t, dir, "prune", "--expire=now")
			gittest.Run(t, dir, "fsck", "--connectivity-only", "--no-dangling")
		})
	}
}

// A prune that deleted the blob before the transaction began: git refuses
// to point a ref at an object it lacks, and the Store writes the blob it
// still holds again and commits.
func TestWriteAfterAPruneDeletedItsBlob(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	body := []byte(`{"schema":"handoff/v1","id":"h-early","nextSteps":["go on"]}`)
	oid, err := st.WriteBlob(ctx, body)
	if err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "prune", "--expire=now")
	if err := exec.Command("git", "-C", dir, "cat-file", "-e", oid).Run(); err == nil {
		t.Fatal("the prune left the blob")
	}
	if err := st.Apply(ctx, "test: early", refstore.Update{Ref: "refs/ao/test/early", New: oid}); err != nil {
		t.Fatal(err)
	}
	if got := gittest.Run(t, dir, "cat-file", "blob", "refs/ao/test/early"); got != string(body) {
		t.Fatalf("refs/ao/test/early holds %q, want %q", got, body)
	}
}

// A prune still running once the transaction committed: its walk (at
// prepared) missed the blob, and it deletes it later, whatever its age,
// as git prune to "now" does. A process the hook leaves behind models it,
// holding gc.pid with "--prune=now" on its command line: git's prune gives
// no hold on when it reaches each object. The Store must write the blob
// again once that gc has ended, whenever the deletion comes.
func TestWriteOutlastsAPruneThatDeletesAfterTheCommit(t *testing.T) {
	gittest.Isolate(t)
	for _, after := range []string{"0.2", "0.6", "1.1"} {
		t.Run("deleting "+after+"s after", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			dir := gittest.Init(t)
			common := gittest.CommonDir(t, dir)
			tmp := t.TempDir()
			pruned := filepath.Join(tmp, "pruned")
			hooks := t.TempDir()
			hook := "#!/bin/sh\n" +
				"[ \"$1\" = prepared ] || exit 0\n" +
				"read -r old new ref\n" +
				"[ \"$ref\" = refs/ao/test/late ] || exit 0\n" +
				"f='" + filepath.Join(common, "objects") + "'/$(echo $new | cut -c1-2)/$(echo $new | cut -c3-)\n" +
				// The modelled gc writes gc.pid itself, once it runs as
				// itself: $! named the hook's fork before its exec, whose
				// command line (the hook's) said nothing of pruning, and
				// under load the Store read it in that window.
				"sh -c 'echo \"$$ $(hostname)\" >\"$2.tmp\" && mv \"$2.tmp\" \"$2\"; sleep " + after + "; rm -f \"$1\"; rm -f \"$2\"; : >\"$3\"' gc \"$f\" '" + filepath.Join(common, "gc.pid") + "' '" + pruned + "' --prune=now >/dev/null 2>&1 &\n" +
				"while [ ! -s '" + filepath.Join(common, "gc.pid") + "' ] && [ ! -e '" + pruned + "' ]; do sleep 0.01; done\n"
			if err := os.WriteFile(filepath.Join(hooks, "reference-transaction"), []byte(hook), 0o777); err != nil {
				t.Fatal(err)
			}
			gittest.Run(t, dir, "config", "core.hooksPath", hooks)
			st := open(t, dir, refstore.Options{})
			body := []byte(`{"schema":"handoff/v1","id":"h-late","after":"` + after + `"}`)
			oid, err := st.WriteBlob(ctx, body)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Apply(ctx, "test: late", refstore.Update{Ref: "refs/ao/test/late", New: oid}); err != nil {
				t.Fatal(err)
			}
			for {
				if _, err := os.Stat(pruned); err == nil {
					break
				}
				if ctx.Err() != nil {
					t.Fatal("the modelled prune never finished")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if got := gittest.Run(t, dir, "cat-file", "blob", "refs/ao/test/late"); got != string(body) {
				t.Fatalf("refs/ao/test/late holds %q, want %q", got, body)
			}
		})
	}
}

// A tracking copy of the remote's records gets no reflog: it keeps no
// history of its own, and an entry naming an object a prune took (a fetch
// raced by one) would fail every git gc of the clone for good. A record's
// swap is logged, as its history.
func TestTrackingRefsAreNotLogged(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	oid, err := st.WriteBlob(ctx, []byte(`{"schema":"session/v1","id":"s"}`))
	if err != nil {
		t.Fatal(err)
	}
	tracking := refstore.RemotesPrefix + "origin/sessions/s"
	if err := st.Apply(ctx, "test: fetched", refstore.Update{Ref: tracking, New: oid}); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: record", refstore.Update{Ref: "refs/ao/sessions/s", New: oid}); err != nil {
		t.Fatal(err)
	}
	if gittest.ReflogExists(t, dir, tracking) {
		t.Errorf("%s has a reflog", tracking)
	}
	if !gittest.ReflogExists(t, dir, "refs/ao/sessions/s") {
		t.Error("refs/ao/sessions/s has no reflog")
	}
}
