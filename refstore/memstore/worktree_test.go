package memstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
)

func newClone(t *testing.T, dir string) *memstore.Clone {
	t.Helper()
	s, err := memstore.New(refstore.FormatSHA1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := memstore.NewClone(s, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func putRecord(t *testing.T, r refstore.Records, ref, body string) string {
	t.Helper()
	ctx := context.Background()
	cur, _ := refstore.ResolveID(ctx, r, ref)
	id, err := r.WriteBlob(ctx, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Apply(ctx, "test", refstore.Update{Ref: ref, New: id, Old: cur}); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestNewCloneRefusesRelativeOrTakenDirs(t *testing.T) {
	s, _ := memstore.New("")
	for _, dir := range []string{"", "mem/a", "/mem/a/", "/mem/../a"} {
		if _, err := memstore.NewClone(s, dir, nil); err == nil {
			t.Errorf("NewClone(%q) made a worktree", dir)
		}
	}
	c, err := memstore.NewClone(s, "/mem/a", nil)
	if err != nil || c.Dir() != "/mem/a" || c.Bare() {
		t.Fatalf("NewClone = %v (dir %q, bare %v), %v", c, c.Dir(), c.Bare(), err)
	}
	if _, err := memstore.NewClone(s, "/mem/a", nil); err == nil {
		t.Fatal("two worktrees at one dir")
	}
}

// As refstore's TestUnbindFrom: the binding goes only while it resolves
// to the session record given, in each worktree alone, and the records
// stay.
func TestUnbindFrom(t *testing.T) {
	ctx := context.Background()
	main := newClone(t, "/mem/main")
	linked, err := memstore.NewClone(main.Store, "/mem/linked", nil)
	if err != nil {
		t.Fatal(err)
	}
	s1 := putRecord(t, main, "refs/ao/sessions/s1", `{"id":"s1"}`)
	s2 := putRecord(t, main, "refs/ao/sessions/s2", `{"id":"s2"}`)
	if ok, err := main.UnbindFrom(ctx, "test", s1); ok || err != nil {
		t.Fatalf("unbound: UnbindFrom = %v, %v", ok, err)
	}
	if err := main.Bind("refs/ao/sessions/s2"); err != nil {
		t.Fatal(err)
	}
	if err := linked.Bind("refs/ao/sessions/s1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := main.UnbindFrom(ctx, "test", s1); ok || err != nil {
		t.Fatalf("bound elsewhere: UnbindFrom = %v, %v", ok, err)
	}
	if id, err := main.BoundSession(); id != "s2" || err != nil {
		t.Fatalf("BoundSession = %q, %v; want s2", id, err)
	}
	// The binding reads as the record it resolves to.
	if e, err := main.Get(ctx, refstore.WorktreeSession); err != nil || e.OID != s2 || e.Ref != refstore.WorktreeSession {
		t.Fatalf("Get(binding) = %+v, %v", e, err)
	}
	if ok, err := linked.UnbindFrom(ctx, "test", s1); !ok || err != nil {
		t.Fatalf("linked: UnbindFrom = %v, %v", ok, err)
	}
	if id, _ := linked.BoundSession(); id != "" {
		t.Fatalf("linked still bound to %q", id)
	}
	if _, err := linked.Get(ctx, refstore.WorktreeSession); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("Get of no binding = %v", err)
	}
	// A session whose record moved on since: the old record no longer unbinds.
	s2b := putRecord(t, main, "refs/ao/sessions/s2", `{"id":"s2","v":2}`)
	if ok, err := main.UnbindFrom(ctx, "test", s2); ok || err != nil {
		t.Fatalf("stale record: UnbindFrom = %v, %v", ok, err)
	}
	if ok, err := main.UnbindFrom(ctx, "test", s2b); !ok || err != nil {
		t.Fatalf("main: UnbindFrom = %v, %v", ok, err)
	}
	for ref, want := range map[string]string{"refs/ao/sessions/s1": s1, "refs/ao/sessions/s2": s2b} {
		if got, _ := refstore.ResolveID(ctx, main, ref); got != want {
			t.Fatalf("%s = %s after unbinding, want %s", ref, got, want)
		}
	}
	if err := main.Bind("refs/ao/bad..name"); !errors.Is(err, refstore.ErrBadName) {
		t.Fatalf("Bind of a bad name = %v", err)
	}
	if err := main.Bind("refs/ao/sessions/a/b"); err != nil {
		t.Fatal(err)
	}
	if _, err := main.BoundSession(); !errors.Is(err, refstore.ErrBadName) {
		t.Fatalf("a binding that names no session: %v", err)
	}
	if err := main.Unbind(ctx); err != nil {
		t.Fatal(err)
	}
	if id, err := main.BoundSession(); id != "" || err != nil {
		t.Fatalf("after Unbind: %q, %v", id, err)
	}
}

func TestWorktreeChanges(t *testing.T) {
	ctx := context.Background()
	c := newClone(t, "/mem/a")
	clean, err := c.WorktreeDigest(ctx)
	if err != nil || clean != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("a clean worktree's digest = %s, %v; want the git store's (sha256 of nothing)", clean, err)
	}
	t0 := time.Unix(1000, 0)
	c.MarkChanged("src/main.go", t0)
	c.MarkChanged(".claude/state", t0.Add(time.Hour))
	d1, _ := c.WorktreeDigest(ctx)
	for _, tc := range []struct {
		since time.Time
		skip  []string
		want  bool
	}{
		{t0.Add(-time.Second), nil, true},
		{t0, nil, true}, // .claude/state, later
		{t0, []string{".claude/"}, false},
		{t0.Add(-time.Second), []string{".claude/"}, true},
		{t0.Add(2 * time.Hour), nil, false},
	} {
		if got, err := c.WorktreeChangedSince(ctx, tc.since.UnixNano(), tc.skip...); err != nil || got != tc.want {
			t.Errorf("WorktreeChangedSince(%v, %q) = %v, %v; want %v", tc.since, tc.skip, got, err, tc.want)
		}
	}
	c.MarkChanged("src/main.go", t0.Add(time.Minute))
	d2, _ := c.WorktreeDigest(ctx)
	if d1 == clean || d2 == d1 {
		t.Fatalf("digests clean %s, changed %s, changed again %s: want three", clean, d1, d2)
	}
	c.MarkClean()
	if d, _ := c.WorktreeDigest(ctx); d != clean {
		t.Fatalf("digest after MarkClean = %s", d)
	}
	if _, err := c.TakeSnapshot(ctx, "s1"); !errors.Is(err, refstore.ErrClean) {
		t.Fatalf("TakeSnapshot of a clean worktree = %v, want ErrClean", err)
	}
	c.MarkChanged("x", t0)
	if _, err := c.TakeSnapshot(ctx, "s1"); !errors.Is(err, memstore.ErrNoSnapshots) {
		t.Fatalf("TakeSnapshot = %v, want ErrNoSnapshots", err)
	}
	if _, err := c.FindSnapshot(ctx, "s1"); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("FindSnapshot = %v, want ErrNotFound", err)
	}
	if _, err := c.ApplySnapshot(ctx, refstore.Snapshot{}); !errors.Is(err, memstore.ErrNoSnapshots) {
		t.Fatalf("ApplySnapshot = %v, want ErrNoSnapshots", err)
	}
	if ok, err := c.SnapshotPresent(ctx, refstore.Snapshot{}); ok || err != nil {
		t.Fatalf("SnapshotPresent = %v, %v", ok, err)
	}
	if refs, err := c.SnapshotRefs(ctx, refstore.SnapshotPrefix); err != nil || len(refs) != 0 {
		t.Fatalf("SnapshotRefs = %v, %v", refs, err)
	}
}

func TestWorktrees(t *testing.T) {
	ctx := context.Background()
	c := newClone(t, "/mem/main")
	if wt, _, err := c.OpenWorktree(ctx, "/mem/main"); err != nil || wt != refstore.Clone(c) {
		t.Fatalf("OpenWorktree of its own dir = %v, %v", wt, err)
	}
	for _, dir := range []string{"", "/mem/other", "/mem"} {
		if wt, done, err := c.OpenWorktree(ctx, dir); err != nil || wt != nil || done == nil {
			t.Fatalf("OpenWorktree(%q) = %v, %v", dir, wt, err)
		}
	}
	if err := c.AddWorktree(ctx, "/mem/feature", "feature"); err == nil {
		t.Fatal("AddWorktree of a branch the repository lacks")
	}
	first, err := c.CommitOnHead(memstore.CommitInfo{Subject: "first", When: time.Unix(100, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := c.Head(ctx); h.Branch != "main" || h.Commit != first {
		t.Fatalf("Head = %+v", h)
	}
	if err := c.SetBranch("feature", first); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ dir, branch string }{{"rel", "feature"}, {"/mem/x", ""}, {"/mem/x", "-f"}, {"/mem/main", "feature"}, {"/mem/x", "main"}} {
		if err := c.AddWorktree(ctx, bad.dir, bad.branch); err == nil {
			t.Errorf("AddWorktree(%q, %q) made a worktree", bad.dir, bad.branch)
		}
	}
	if err := c.AddWorktree(ctx, "/mem/feature", "feature"); err != nil {
		t.Fatal(err)
	}
	wt, _, err := c.OpenWorktree(ctx, "/mem/feature")
	if err != nil || wt == nil || wt.Dir() != "/mem/feature" {
		t.Fatalf("OpenWorktree = %v, %v", wt, err)
	}
	if h, _ := wt.Head(ctx); h != (refstore.Head{Branch: "feature", Commit: first}) {
		t.Fatalf("the new worktree's Head = %+v", h)
	}
	// Records and notes are the repository's; bindings and worktree
	// notes each worktree's.
	id := putRecord(t, wt, "refs/ao/sessions/s", "s")
	if got, _ := refstore.ResolveID(ctx, c, "refs/ao/sessions/s"); got != id {
		t.Fatal("a record written in one worktree is not in the other")
	}
	wt.Local().Write(ctx, "writer", []byte("w"))
	if b, err := c.Local().Read("writer"); err != nil || string(b) != "w" {
		t.Fatalf("the repository's notes: %q, %v", b, err)
	}
	wt.WorktreeLocal().Write(ctx, "agent/x", []byte("x"))
	if _, err := c.WorktreeLocal().Read("agent/x"); err == nil {
		t.Fatal("worktree notes shared")
	}
	wt.Bind("refs/ao/sessions/s")
	if s, _ := c.BoundSession(); s != "" {
		t.Fatal("binding shared")
	}
	if back, _, _ := wt.OpenWorktree(ctx, "/mem/main"); back != refstore.Clone(c) {
		t.Fatalf("OpenWorktree back = %v", back)
	}
	if got := c.Worktrees(); strings.Join(got, " ") != "/mem/feature /mem/main" {
		t.Fatalf("Worktrees = %q", got)
	}
	if !c.RemoveWorktree("/mem/feature") {
		t.Fatal("RemoveWorktree found nothing")
	}
	if gone, _, _ := c.OpenWorktree(ctx, "/mem/feature"); gone != nil {
		t.Fatal("a removed worktree opens")
	}
	// Its branch is free again.
	if err := c.AddWorktree(ctx, "/mem/feature2", "feature"); err != nil {
		t.Fatal(err)
	}
}

func TestCommits(t *testing.T) {
	ctx := context.Background()
	c := newClone(t, "/mem/a")
	if cs, total, err := c.Log(ctx, "HEAD", "", 10); err == nil {
		t.Fatalf("Log of an unborn HEAD = %v, %d, nil", cs, total)
	}
	at := func(s int64) time.Time { return time.Unix(s, 0).UTC() }
	c1, _ := c.CommitOnHead(memstore.CommitInfo{Subject: "one", Author: "A", When: at(100)})
	c2, _ := c.CommitOnHead(memstore.CommitInfo{Subject: "two", Author: "A", When: at(200), Trailers: []string{"Handoff-Session: s1", "handoff-session: s2", "Other: x"}})
	// A side branch, merged as c4's second parent.
	side, err := c.AddCommit(memstore.CommitInfo{Parents: []string{c1}, Subject: "side", When: at(250), Trailers: []string{"Handoff-Session: side"}})
	if err != nil {
		t.Fatal(err)
	}
	c3, _ := c.CommitOnHead(memstore.CommitInfo{Subject: "three", When: at(300)})
	h, _ := c.Head(ctx)
	c4, err := c.AddCommit(memstore.CommitInfo{Parents: []string{c3, side}, Subject: "merge", When: at(400), Committed: at(500)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetHead(refstore.Head{Branch: h.Branch, Commit: c4}); err != nil {
		t.Fatal(err)
	}
	subjects := func(cs []refstore.Commit) string {
		var out []string
		for _, x := range cs {
			out = append(out, x.Subject)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		from, since string
		limit       int
		want        string
		total       int
	}{
		{"HEAD", "", 10, "merge three two one", 4}, // first parent only
		{"HEAD", "", 2, "merge three", -1},
		{"HEAD", "", 4, "merge three two one", 4},
		{"main", c1, 10, "merge three two", 3},
		{c4, c2, 1, "merge", 2},
		{c4, side, 10, "merge three two", 3}, // side's ancestors (one) are out
		{c4, c4, 10, "", 0},
		{"", "", 10, "", 0},
	} {
		cs, total, err := c.Log(ctx, tc.from, tc.since, tc.limit)
		if err != nil || subjects(cs) != tc.want || total != tc.total {
			t.Errorf("Log(%s, %s, %d) = %q, %d, %v; want %q, %d", tc.from, tc.since, tc.limit, subjects(cs), total, err, tc.want, tc.total)
		}
	}
	for _, tc := range []struct {
		a, b string
		want bool
	}{{c1, c4, true}, {side, c4, true}, {c4, c4, true}, {c4, c1, false}, {side, c3, false}} {
		if got, err := c.IsAncestor(ctx, tc.a, tc.b); err != nil || got != tc.want {
			t.Errorf("IsAncestor(%s, %s) = %v, %v", tc.a, tc.b, got, err)
		}
	}
	if _, err := c.IsAncestor(ctx, "nope", c1); err == nil {
		t.Error("IsAncestor of an unknown commit: no error")
	}
	if when, err := c.CommitTime(ctx, c4); err != nil || !when.Equal(at(500)) || when.Location() != time.UTC {
		t.Errorf("CommitTime = %v, %v", when, err)
	}
	tl, err := c.TrailerLog(ctx, "", "Handoff-Session", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range tl {
		got = append(got, tc.Subject+"="+strings.Join(tc.Values, ","))
	}
	if strings.Join(got, " ") != "merge= three= side=side two=s1,s2 one=" {
		t.Errorf("TrailerLog = %q", got)
	}
	if tl, _ := c.TrailerLog(ctx, "main", "Handoff-Session", 2); len(tl) != 2 {
		t.Errorf("TrailerLog limit 2 = %d commits", len(tl))
	}
	if tl, err := c.TrailerLog(ctx, "none", "Handoff-Session", 2); tl != nil || err != nil {
		t.Errorf("TrailerLog of a missing branch = %v, %v", tl, err)
	}
	if _, err := c.TrailerLog(ctx, "", "bad:key", 2); !errors.Is(err, refstore.ErrBadName) {
		t.Errorf("TrailerLog of a bad key = %v", err)
	}
	if ref, err := c.RemoteTracking(ctx, c2); ref != "" || err != nil {
		t.Errorf("RemoteTracking before any push = %q, %v", ref, err)
	}
	c.SetRemoteBranch("upstream/main", c1)
	c.SetRemoteBranch("origin/main", c3)
	c.SetRemoteBranch("origin/feature", c3)
	if ref, err := c.RemoteTracking(ctx, c2); ref != "refs/remotes/origin/feature" || err != nil {
		t.Errorf("RemoteTracking = %q, %v", ref, err)
	}
	if ref, _ := c.RemoteTracking(ctx, c4); ref != "" {
		t.Errorf("RemoteTracking of an unpushed commit = %q", ref)
	}
	if _, err := c.AddCommit(memstore.CommitInfo{Parents: []string{"nope"}}); err == nil {
		t.Error("a commit with an unknown parent")
	}
	if err := c.SetHead(refstore.Head{Branch: "x", Commit: "nope"}); err == nil {
		t.Error("HEAD at an unknown commit")
	}
}
