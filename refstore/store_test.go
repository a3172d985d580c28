package refstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/recordstest"
)

// readPaths are the ways the store reads; every read goes through git now,
// so there is one.
var readPaths = map[string]refstore.Options{
	"git": {},
}

// filesOnly skips a test of a scenario that exists only in the files ref
// backend (why says which) in a repository of another backend, as git
// reports it (GIT_DEFAULT_REF_FORMAT=reftable).
func filesOnly(t *testing.T, dir, why string) {
	t.Helper()
	if f := gittest.RefFormat(t, dir); f != "files" {
		t.Skipf("only the files ref backend has %s; this repository's refs are %s", why, f)
	}
}

func open(t *testing.T, dir string, opts refstore.Options) *refstore.Store {
	t.Helper()
	st, err := refstore.Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func put(t *testing.T, st *refstore.Store, ref, old, body string) string {
	t.Helper()
	ctx := context.Background()
	oid, err := st.WriteBlob(ctx, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: put", refstore.Update{Ref: ref, New: oid, Old: old}); err != nil {
		t.Fatalf("put %s: %v", ref, err)
	}
	return oid
}

func TestConformance(t *testing.T) {
	gittest.Isolate(t)
	for name, opts := range readPaths {
		t.Run(name, func(t *testing.T) {
			for _, tc := range conformance {
				t.Run(tc.name, func(t *testing.T) {
					dir := gittest.Init(t)
					tc.run(t, dir, open(t, dir, opts))
				})
			}
		})
	}
}

// TestRecords runs the conformance suite of refstore.Records on the git
// store: under `make test-git`, on every ref backend and object format.
func TestRecords(t *testing.T) {
	gittest.Isolate(t)
	for name, opts := range readPaths {
		t.Run(name, func(t *testing.T) {
			recordstest.Run(t, func(t *testing.T) recordstest.Harness {
				dir := gittest.Init(t)
				return recordstest.Harness{
					Records: open(t, dir, opts),
					Open:    func(t *testing.T) refstore.Records { return open(t, dir, opts) },
					WriteRawBlob: func(t *testing.T, data []byte) string {
						return gittestHashObject(t, dir, string(data))
					},
					Format: gittest.Run(t, dir, "rev-parse", "--show-object-format"),
				}
			})
		})
	}
}

// TestWriter runs the conformance suite of the rest of refstore.Writer
// (local notes, configuration, the version clock) on the git store.
func TestWriter(t *testing.T) {
	gittest.Isolate(t)
	recordstest.RunWriter(t, func(t *testing.T) recordstest.WriterHarness {
		dir := gittest.Init(t)
		st := open(t, dir, refstore.Options{})
		return recordstest.WriterHarness{Writer: st, SetConfig: func(t *testing.T, key, value string) {
			if err := st.SetConfig(context.Background(), key, value); err != nil {
				t.Fatal(err)
			}
		}}
	})
}

// conformance is what the git store does beyond refstore.Records (whose
// suite, recordstest, TestRecords runs): packed and loose refs, reflogs,
// locks, configuration, HEAD, the worktree's binding.
var conformance = []struct {
	name string
	run  func(t *testing.T, dir string, st *refstore.Store)
}{
	{"log is the first-parent line, since excludes, limit bounds and total counts", func(t *testing.T, dir string, st *refstore.Store) {
		ctx := context.Background()
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "base")
		base := gittest.Run(t, dir, "rev-parse", "HEAD")
		gittest.Run(t, dir, "checkout", "-q", "-b", "side")
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "side one")
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "side two")
		gittest.Run(t, dir, "checkout", "-q", "-")
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "main one")
		gittest.Run(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
		head := gittest.Run(t, dir, "rev-parse", "HEAD")
		commits, total, err := st.Log(ctx, head, base, 10)
		if err != nil {
			t.Fatal(err)
		}
		var subjects []string
		for _, c := range commits {
			subjects = append(subjects, c.Subject)
		}
		if got := strings.Join(subjects, ","); got != "merge side,main one" || total != 2 {
			t.Fatalf("Log since base = %q (total %d), want the first-parent line: merge side,main one (2)", got, total)
		}
		commits, total, err = st.Log(ctx, head, base, 1)
		if err != nil || len(commits) != 1 || commits[0].Subject != "merge side" || total != 2 {
			t.Fatalf("Log limit 1 = %v, total %d, %v; want the merge, total 2", commits, total, err)
		}
	}},
	{"config reads what git config says, last value wins, includes followed", func(t *testing.T, dir string, st *refstore.Store) {
		ctx := context.Background()
		inc := filepath.Join(t.TempDir(), "inc.config")
		if err := os.WriteFile(inc, []byte("[handoff]\n\towner = from-include\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Run(t, dir, "config", "handoff.owner", "first")
		gittest.Run(t, dir, "config", "include.path", inc)
		gittest.Run(t, dir, "config", "--add", "remote.origin.fetch", "+refs/a/*:refs/b/*")
		gittest.Run(t, dir, "config", "--add", "remote.origin.fetch", "+refs/c/*:refs/d/*")
		want := gittest.Run(t, dir, "config", "handoff.owner")
		// A Store lists the configuration once, when opened (and again
		// after its own config writes): open one after the change.
		st = open(t, dir, refstore.Options{})
		cfg, err := st.Config(ctx, "handoff.owner", "handoff.absent")
		if err != nil || cfg["handoff.owner"] != want || cfg["handoff.absent"] != "" {
			t.Fatalf("Config = %v, %v; git says %q", cfg, err, want)
		}
		vals, err := st.ConfigValues(ctx, "remote.origin.fetch")
		if err != nil || strings.Join(vals, " ") != "+refs/a/*:refs/b/* +refs/c/*:refs/d/*" {
			t.Fatalf("ConfigValues = %q, %v", vals, err)
		}
	}},
	{"listing several kinds streams in ref order and skips what is not ours", func(t *testing.T, dir string, st *refstore.Store) {
		ctx := context.Background()
		for _, ref := range []string{"refs/ao/sessions/z", "refs/ao/handoffs/shared/o/b", "refs/ao/preserved/x", "refs/ao/sessions/a", "refs/ao/objectives/o/b"} {
			put(t, st, ref, "", ref)
		}
		gittest.Run(t, dir, "pack-refs", "--all")
		put(t, st, "refs/ao/sessions/m", "", "loose beside packed")
		var got []string
		for _, prefix := range []string{refstore.HandoffsPrefix, refstore.SessionPrefix} {
			err := st.EachStreamed(ctx, prefix, func(e refstore.Entry) error {
				if string(e.Data) != e.Ref && e.Ref != "refs/ao/sessions/m" {
					t.Errorf("%s holds %q", e.Ref, e.Data)
				}
				got = append(got, e.Ref)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		want := "refs/ao/handoffs/shared/o/b refs/ao/sessions/a refs/ao/sessions/m refs/ao/sessions/z"
		if strings.Join(got, " ") != want {
			t.Fatalf("EachStreamed = %q, want %q", got, want)
		}
	}},
	{"writes in process are what git reads, packed or loose", func(t *testing.T, dir string, st *refstore.Store) {
		ctx := context.Background()
		a := put(t, st, "refs/ao/sessions/s1", "", "a")
		gittest.Run(t, dir, "pack-refs", "--all")
		b, _ := st.WriteBlob(ctx, []byte("b"))
		c, _ := st.WriteBlob(ctx, []byte("c"))
		if err := st.Apply(ctx, "test: two", refstore.Update{Ref: "refs/ao/sessions/s1", New: b, Old: a}, refstore.Update{Ref: "refs/ao/sessions/s2", New: c}); err != nil {
			t.Fatal(err)
		}
		if err := st.ApplyEach(ctx, "test: each", refstore.Update{Ref: "refs/ao/sessions/s3", New: a}); err != nil {
			t.Fatal(err)
		}
		for ref, want := range map[string]string{"refs/ao/sessions/s1": b, "refs/ao/sessions/s2": c, "refs/ao/sessions/s3": a} {
			if got := gittest.Run(t, dir, "rev-parse", ref); got != want {
				t.Errorf("git rev-parse %s = %s, want %s", ref, got, want)
			}
			if e, err := st.Get(ctx, ref); err != nil || e.OID != want {
				t.Errorf("Get %s = %s, %v, want %s", ref, e.OID, err, want)
			}
		}
		gittest.Run(t, dir, "fsck", "--no-dangling")
		for ref, want := range map[string][]string{"refs/ao/sessions/s1": {a, b}, "refs/ao/sessions/s2": {c}, "refs/ao/sessions/s3": {a}} {
			if got := gittest.ReflogOIDs(t, dir, ref); !slices.Equal(got, want) {
				t.Errorf("reflog of %s = %q, want %q", ref, got, want)
			}
		}
	}},
	{"packed refs read the same", func(t *testing.T, dir string, st *refstore.Store) {
		ctx := context.Background()
		a := put(t, st, "refs/ao/handoffs/private/a/b", "", "a")
		gittest.Run(t, dir, "gc", "-q", "--prune=now")
		// (reftable has no loose refs: gc compacts its tables)
		if gittest.RefFormat(t, dir) == "files" {
			if _, err := os.Stat(filepath.Join(dir, ".git/refs/ao/handoffs/private/a/b")); err == nil {
				t.Fatal("gc left the ref loose")
			}
		}
		e, err := st.Get(ctx, "refs/ao/handoffs/private/a/b")
		if err != nil || e.OID != a || string(e.Data) != "a" {
			t.Fatalf("Get after gc = %+v, %v", e, err)
		}
		b := put(t, st, "refs/ao/handoffs/private/a/b", a, "b")
		list, err := st.RefIDs(ctx, refstore.Root)
		if err != nil || len(list) != 1 || list[0].OID != b {
			t.Fatalf("RefIDs after gc = %+v, %v", list, err)
		}
	}},
	{"loose beats packed, and packed-refs is re-read when it changes", func(t *testing.T, dir string, st *refstore.Store) {
		ctx := context.Background()
		a := put(t, st, "refs/ao/sessions/a", "", "a")
		put(t, st, "refs/ao/sessions/z", "", "z")
		gittest.Run(t, dir, "pack-refs", "--all")
		if e, err := st.Get(ctx, "refs/ao/sessions/a"); err != nil || e.OID != a {
			t.Fatalf("packed a = %+v, %v", e, err)
		}
		b := put(t, st, "refs/ao/sessions/a", a, "b") // loose again, packed copy stale
		if e, err := st.Get(ctx, "refs/ao/sessions/a"); err != nil || e.OID != b {
			t.Fatalf("loose a = %+v, %v (want %s)", e, err, b)
		}
		m := put(t, st, "refs/ao/sessions/m", "", "m")
		gittest.Run(t, dir, "pack-refs", "--all")
		for ref, want := range map[string]string{"refs/ao/sessions/a": b, "refs/ao/sessions/m": m} {
			if e, err := st.Get(ctx, ref); err != nil || e.OID != want {
				t.Fatalf("%s after repack = %+v, %v", ref, e, err)
			}
		}
		if err := st.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/m", Old: m}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, "refs/ao/sessions/m"); !errors.Is(err, refstore.ErrNotFound) {
			t.Fatalf("deleted packed ref: %v", err)
		}
		if _, err := st.Get(ctx, "refs/ao/sessions/b"); !errors.Is(err, refstore.ErrNotFound) {
			t.Fatalf("missing ref between packed ones: %v", err)
		}
	}},
	{"stale lock is named", func(t *testing.T, dir string, st *refstore.Store) {
		ctx := context.Background()
		a := put(t, st, "refs/ao/sessions/s1", "", "a")
		// <ref>.lock in the files backend, tables.list.lock in reftable
		lock := gittest.RefLock(t, dir, "refs/ao/sessions/s1")
		os.WriteFile(lock, nil, 0o644)
		b, _ := st.WriteBlob(ctx, []byte("b"))
		err := st.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/s1", New: b, Old: a})
		var le *refstore.LockedError
		if !errors.As(err, &le) || le.Path != lock || !strings.Contains(err.Error(), lock) {
			t.Fatalf("got %v, want a LockedError naming %s", err, lock)
		}
		os.Remove(lock)
		if err := st.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/sessions/s1", New: b, Old: a}); err != nil {
			t.Fatalf("after removing the lock: %v", err)
		}
	}},
	{"head: branch, detached, unborn", func(t *testing.T, dir string, st *refstore.Store) {
		ctx := context.Background()
		h, err := st.Head(ctx)
		if err != nil || h.Branch != "main" || len(h.Commit) != 40 && len(h.Commit) != 64 {
			t.Fatalf("Head = %+v, %v", h, err)
		}
		// A Store sees HEAD as it was when opened: open one per change.
		gittest.Run(t, dir, "checkout", "-q", "--detach")
		if h2, _ := open(t, dir, refstore.Options{}).Head(ctx); h2.Branch != "" || h2.Commit != h.Commit {
			t.Fatalf("detached Head = %+v", h2)
		}
		gittest.Run(t, dir, "checkout", "-q", "--orphan", "fresh")
		if h3, _ := open(t, dir, refstore.Options{}).Head(ctx); h3.Branch != "fresh" || h3.Commit != "" {
			t.Fatalf("unborn Head = %+v", h3)
		}
	}},
	{"reflog records every change", func(t *testing.T, dir string, st *refstore.Store) {
		// git reflog and log -g walk commits and print nothing for a
		// reflog whose entries are blobs: git resolves <ref>@{N} and
		// lists the messages (gittest.ReflogOIDs, ReflogMessages).
		ctx := context.Background()
		ref := "refs/ao/handoffs/private/a/b"
		a := put(t, st, ref, "", "a")
		b := put(t, st, ref, a, "b")
		if ids := gittest.ReflogOIDs(t, dir, ref); !slices.Equal(ids, []string{a, b}) {
			t.Fatalf("reflog ids = %q, want %q", ids, []string{a, b})
		}
		if msgs := gittest.ReflogMessages(t, dir, ref); !slices.Equal(msgs, []string{"test: put", "test: put"}) {
			t.Fatalf("reflog messages = %q", msgs)
		}
		if e, err := st.ReadObject(ctx, a); err != nil || string(e.Data) != "a" {
			t.Fatalf("ReadObject = %+v, %v", e, err)
		}
	}},
	{"bind the worktree", func(t *testing.T, dir string, st *refstore.Store) {
		if id, err := st.BoundSession(); err != nil || id != "" {
			t.Fatalf("unbound: %q, %v", id, err)
		}
		ref, _ := refstore.SessionRef("app 7/x")
		if err := st.Bind(ref); err != nil {
			t.Fatal(err)
		}
		if got := gittest.Run(t, dir, "symbolic-ref", refstore.WorktreeSession); got != ref {
			t.Fatalf("git symbolic-ref = %q, want %q", got, ref)
		}
		if id, err := st.BoundSession(); err != nil || id != "app 7/x" {
			t.Fatalf("BoundSession = %q, %v", id, err)
		}
		if err := st.Unbind(context.Background()); err != nil {
			t.Fatal(err)
		}
		if id, _ := st.BoundSession(); id != "" {
			t.Fatalf("still bound to %q", id)
		}
		// git sees no binding, and no lock is left with it.
		if got := gittest.Run(t, dir, "for-each-ref", "refs/worktree/"); got != "" {
			t.Fatalf("git still lists %q", got)
		}
		if l := gittest.RefLocks(t, dir); len(l) > 0 {
			t.Fatalf("lock left behind: %q", l)
		}
		if err := st.Unbind(context.Background()); err != nil {
			t.Fatalf("unbinding again: %v", err)
		}
	}},
}

func gittestHashObject(t *testing.T, dir, body string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "blob")
	os.WriteFile(f, []byte(body), 0o644)
	return gittest.Run(t, dir, "hash-object", "-w", f)
}

// Linked worktrees share refs/ao/ but each has its own binding.
func TestLinkedWorktreeSharesRecords(t *testing.T) {
	gittest.Isolate(t)
	for name, opts := range readPaths {
		t.Run(name, func(t *testing.T) {
			dir := gittest.Init(t)
			wt := filepath.Join(t.TempDir(), "wt")
			gittest.Run(t, dir, "worktree", "add", "-q", "-b", "side", wt)
			main, linked := open(t, dir, opts), open(t, wt, opts)
			oid := put(t, linked, "refs/ao/handoffs/private/a/b", "", "from the worktree")
			e, err := main.Get(context.Background(), "refs/ao/handoffs/private/a/b")
			if err != nil || e.OID != oid {
				t.Fatalf("main sees %+v, %v", e, err)
			}
			if h, _ := linked.Head(context.Background()); h.Branch != "side" {
				t.Fatalf("linked Head = %+v", h)
			}
			ref, _ := refstore.SessionRef("wt-session")
			if err := linked.Bind(ref); err != nil {
				t.Fatal(err)
			}
			if id, _ := main.BoundSession(); id != "" {
				t.Fatalf("the main worktree is bound to %q", id)
			}
			if id, _ := linked.BoundSession(); id != "wt-session" {
				t.Fatalf("the linked worktree is bound to %q", id)
			}
			if got := gittest.Run(t, wt, "symbolic-ref", refstore.WorktreeSession); got != ref {
				t.Fatalf("git sees the binding as %q", got)
			}
		})
	}
}

func TestBareRepository(t *testing.T) {
	gittest.Isolate(t)
	for name, opts := range readPaths {
		t.Run(name, func(t *testing.T) {
			dir := gittest.Init(t, "--bare")
			st := open(t, dir, opts)
			if !st.Bare() {
				t.Fatal("not seen as bare")
			}
			put(t, st, "refs/ao/handoffs/private/a/unknown", "", "x")
			if h, err := st.Head(context.Background()); err != nil || h.Commit != "" {
				t.Fatalf("Head = %+v, %v", h, err)
			}
		})
	}
}

func TestOpenOutsideRepository(t *testing.T) {
	gittest.Isolate(t)
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	for name, opts := range readPaths {
		t.Run(name, func(t *testing.T) {
			_, err := refstore.Open(context.Background(), t.TempDir(), opts)
			if !errors.Is(err, refstore.ErrNotRepository) {
				t.Fatalf("got %v, want ErrNotRepository", err)
			}
		})
	}
}

// ReadPath reads a path in a tree a ref names through the store's
// cat-file, and refuses what cat-file would read as something else.
func TestReadPath(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := open(t, dir, refstore.Options{})
	id, err := st.WriteBlob(ctx, []byte(`{"schema":"x/v1"}`))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := st.BuildTree(ctx, "", []refstore.TreeEntry{{Path: "sessions/s-1", OID: id}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test", refstore.Update{Ref: refstore.ArchivePrefix + "2026-01", New: tree}); err != nil {
		t.Fatalf("a ref holding a tree: %v", err)
	}
	for _, treeish := range []string{refstore.ArchivePrefix + "2026-01", tree} {
		e, err := st.ReadPath(ctx, treeish, "sessions/s-1")
		if err != nil || e.OID != id || e.Type != "blob" || string(e.Data) != `{"schema":"x/v1"}` || e.Ref != treeish+":sessions/s-1" {
			t.Fatalf("ReadPath(%s) = %+v, %v", treeish, e, err)
		}
	}
	if e, err := st.ReadPath(ctx, tree, "sessions"); err != nil || e.Type != "tree" {
		t.Fatalf("ReadPath of a directory = %+v, %v", e, err)
	}
	for _, c := range [][2]string{{refstore.ArchivePrefix + "2026-01", "sessions/nope"}, {refstore.ArchivePrefix + "1999-01", "sessions/s-1"}} {
		if _, err := st.ReadPath(ctx, c[0], c[1]); !errors.Is(err, refstore.ErrNotFound) {
			t.Fatalf("ReadPath(%s, %s): %v, want ErrNotFound", c[0], c[1], err)
		}
	}
	for _, c := range [][2]string{{"HEAD", "x"}, {"refs/ao/archive/2026-01@{1}", "sessions/s-1"}, {tree[:12], "sessions/s-1"},
		{tree, "./sessions/s-1"}, {tree, "../x"}, {tree, "sessions//s-1"}, {tree, ""}, {tree, "/sessions"}, {tree, "sessions/\n"}} {
		if _, err := st.ReadPath(ctx, c[0], c[1]); !errors.Is(err, refstore.ErrBadName) {
			t.Fatalf("ReadPath(%q, %q): %v, want ErrBadName", c[0], c[1], err)
		}
	}
}
