package archive_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// testTimeout is each test's own deadline, met on a loaded two-core
// machine: a row makes a few dozen git processes.
const testTimeout = 2 * time.Minute

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// row is one repository format a test runs on, under one git.
type row struct {
	name string
	git  string // directory put first on PATH
	init []string
}

// rows are the formats every test of the archive runs on: the repository
// the matrix row makes (GIT_DEFAULT_*), SHA-256, and, under a git that
// has reftable (>= 2.45: the newest git, gittest.Gits), reftable with SHA-1
// and SHA-256.
func rows(t *testing.T) []row {
	gits, err := gittest.Gits()
	if err != nil {
		t.Fatal(err)
	}
	var out []row
	for _, g := range gits {
		dir := filepath.Dir(g)
		v := gitVersion(t, g)
		out = append(out, row{name: v + "/default", git: dir}, row{name: v + "/sha256", git: dir, init: []string{"--object-format=sha256"}})
		if atLeast(v, 2, 45) {
			out = append(out,
				row{name: v + "/reftable", git: dir, init: []string{"--ref-format=reftable"}},
				row{name: v + "/reftable-sha256", git: dir, init: []string{"--ref-format=reftable", "--object-format=sha256"}})
		}
	}
	return out
}

func gitVersion(t *testing.T, git string) string {
	out, err := exec.Command(git, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	return f[len(f)-1]
}

func atLeast(v string, major, minor int) bool {
	p := strings.Split(v, ".")
	if len(p) < 2 {
		return false
	}
	a, _ := strconv.Atoi(p[0])
	b, _ := strconv.Atoi(p[1])
	return a > major || a == major && b >= minor
}

// eachRow runs fn on a fresh repository of every row, its git first on
// PATH.
func eachRow(t *testing.T, fn func(t *testing.T, r row, dir string)) {
	for _, r := range rows(t) {
		t.Run(r.name, func(t *testing.T) {
			t.Setenv("PATH", r.git+string(os.PathListSeparator)+os.Getenv("PATH"))
			gittest.Isolate(t)
			dir := gittest.Init(t, r.init...)
			for _, a := range r.init {
				if v, ok := strings.CutPrefix(a, "--ref-format="); ok && gittest.RefFormat(t, dir) != v {
					t.Fatalf("%s: refs are not %s", dir, v)
				}
				if v, ok := strings.CutPrefix(a, "--object-format="); ok && gittest.Run(t, dir, "rev-parse", "--show-object-format") != v {
					t.Fatalf("%s: objects are not %s", dir, v)
				}
			}
			fn(t, r, dir)
		})
	}
}

func open(t *testing.T, dir string) *refstore.Store {
	t.Helper()
	st, err := refstore.Open(ctxFor(t), dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func blob(t *testing.T, st *refstore.Store, s string) string {
	t.Helper()
	id, err := st.WriteBlob(ctxFor(t), []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func sessionPath(t *testing.T, id string) string {
	t.Helper()
	p, err := archive.SessionPath(id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAddFindList(t *testing.T) {
	eachRow(t, func(t *testing.T, r row, dir string) {
		ctx := ctxFor(t)
		st := open(t, dir)
		s1, s2 := blob(t, st, `{"schema":"session/v1","id":"s 1"}`), blob(t, st, `{"schema":"session/v1","id":"s2"}`)
		b1 := blob(t, st, `{"schema":"handoff/v1","id":"b1"}`)
		p1, p2 := sessionPath(t, "s 1"), sessionPath(t, "s2")
		if p1 != "sessions/s%201" {
			t.Fatalf("SessionPath(%q) = %q: not the live ref's encoding", "s 1", p1)
		}
		bp, _ := archive.BatonPath("b1")
		pp, err := archive.PRPath("acme", "widgets", 7)
		if err != nil || pp != "prs/acme/widgets/7" {
			t.Fatalf("PRPath = %q, %v", pp, err)
		}
		pr := blob(t, st, `{"schema":"pr/v1"}`)

		jan, err := archive.Add(ctx, st, "2026-01", []archive.Entry{{Path: p1, OID: s1}, {Path: bp, OID: b1}}, "archive: test")
		if err != nil {
			t.Fatal(err)
		}
		// The ref holds the commit of a tree, as git sees it: git's
		// connectivity checks stop there.
		if typ := gittest.Run(t, dir, "cat-file", "-t", "refs/ao/archive/2026-01"); typ != "commit" {
			t.Fatalf("archive ref holds a %s", typ)
		}
		if typ := gittest.Run(t, dir, "cat-file", "-t", "refs/ao/archive/2026-01^{tree}"); typ != "tree" {
			t.Fatalf("archive ref's commit holds a %s", typ)
		}
		if got := gittest.Run(t, dir, "rev-parse", "refs/ao/archive/2026-01:"+p1); got != s1 {
			t.Fatalf("%s in the tree is %s, want the live blob %s", p1, got, s1)
		}
		// Adding what is there changes nothing.
		if again, err := archive.Add(ctx, st, "2026-01", []archive.Entry{{Path: p1, OID: s1}}, "archive: test"); err != nil || again != jan {
			t.Fatalf("Add again = %s, %v; want %s unchanged", again, err, jan)
		}
		if _, err := archive.Add(ctx, st, "2026-02", []archive.Entry{{Path: p2, OID: s2}, {Path: pp, OID: pr}}, "archive: test"); err != nil {
			t.Fatal(err)
		}
		// A session archived in two months is found in the newer.
		if _, err := archive.Add(ctx, st, "2026-02", []archive.Entry{{Path: p1, OID: s2}}, "archive: test"); err != nil {
			t.Fatal(err)
		}

		e, month, err := archive.Find(ctx, st, p1)
		if err != nil || month != "2026-02" || e.OID != s2 || e.Type != "blob" || string(e.Data) != `{"schema":"session/v1","id":"s2"}` {
			t.Fatalf("Find(%s) = %+v, %q, %v", p1, e, month, err)
		}
		e, month, err = archive.Find(ctx, st, bp)
		if err != nil || month != "2026-01" || e.OID != b1 {
			t.Fatalf("Find(%s) = %+v, %q, %v", bp, e, month, err)
		}
		if _, _, err := archive.Find(ctx, st, sessionPath(t, "nobody")); !errors.Is(err, refstore.ErrNotFound) {
			t.Fatalf("Find of a missing session: %v, want ErrNotFound", err)
		}
		if _, _, err := archive.Find(ctx, st, "sessions/../x"); !errors.Is(err, refstore.ErrBadName) {
			t.Fatalf("Find of a bad path: %v, want ErrBadName", err)
		}
		found, err := archive.List(ctx, st, archive.SessionsDir)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(found)
		want := fmt.Sprint([]archive.Found{{Entry: archive.Entry{Path: p1, OID: s2}, Month: "2026-02"}, {Entry: archive.Entry{Path: p2, OID: s2}, Month: "2026-02"}})
		if got != want {
			t.Fatalf("List(sessions) =\n%s\nwant\n%s", got, want)
		}
		if found, err := archive.List(ctx, st, "prs/"); err != nil || len(found) != 1 || found[0].Path != pp || found[0].OID != pr {
			t.Fatalf("List(prs) = %v, %v", found, err)
		}

		// What Add refuses: a tree where a blob belongs, a path of no kind,
		// an object the repository lacks, a bad month.
		tree := gittest.Run(t, dir, "rev-parse", "refs/ao/archive/2026-01")
		for _, bad := range []struct {
			month string
			e     archive.Entry
		}{
			{"2026-03", archive.Entry{Path: sessionPath(t, "x"), OID: tree}},
			{"2026-03", archive.Entry{Path: "other/x", OID: s1}},
			{"2026-03", archive.Entry{Path: "sessions/a/b", OID: s1}},
			{"2026-03", archive.Entry{Path: sessionPath(t, "x"), OID: strings.Repeat("1", len(s1))}},
			{"2026-3", archive.Entry{Path: sessionPath(t, "x"), OID: s1}},
		} {
			if _, err := archive.Add(ctx, st, bad.month, []archive.Entry{bad.e}, "archive: test"); err == nil {
				t.Errorf("Add(%s, %v) took it", bad.month, bad.e)
			}
		}
		if ids, _ := st.RefIDs(ctx, archive.Ref("2026-03")); len(ids) != 0 {
			t.Fatalf("a refused Add made %v", ids)
		}
		// The archive keeps its objects through gc: a ref names the tree.
		gittest.Run(t, dir, "gc", "-q", "--prune=now")
		st2 := open(t, dir)
		if e, _, err := archive.Find(ctx, st2, bp); err != nil || e.OID != b1 {
			t.Fatalf("after gc: Find = %+v, %v", e, err)
		}
		// No temporary index is left behind.
		left, _ := filepath.Glob(filepath.Join(st.CommonDir(), "handoff-archive-*"))
		if len(left) != 0 {
			t.Fatalf("left behind: %v", left)
		}
	})
}

// Two writers archiving into one month at once lose nothing: each lost
// compare-and-swap is built again on the winner's tree.
func TestAddConcurrent(t *testing.T) {
	eachRow(t, func(t *testing.T, r row, dir string) {
		ctx := ctxFor(t)
		const writers, each = 2, 6
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		want := map[string]string{}
		var mu sync.Mutex
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, err := refstore.Open(ctx, dir, refstore.Options{})
				if err != nil {
					errs <- err
					return
				}
				defer st.Close()
				for i := range each {
					id, err := st.WriteBlob(ctx, fmt.Appendf(nil, `{"schema":"session/v1","id":"w%d-%d"}`, w, i))
					if err != nil {
						errs <- err
						return
					}
					p, _ := archive.SessionPath(fmt.Sprintf("w%d-%d", w, i))
					mu.Lock()
					want[p] = id
					mu.Unlock()
					if _, err := archive.Add(ctx, st, "2026-01", []archive.Entry{{Path: p, OID: id}}, "archive: test"); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		st := open(t, dir)
		found, err := archive.List(ctx, st, archive.SessionsDir)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != len(want) {
			t.Fatalf("archived %d of %d: %v", len(found), len(want), found)
		}
		for _, f := range found {
			if want[f.Path] != f.OID {
				t.Fatalf("%s holds %s, want %s", f.Path, f.OID, want[f.Path])
			}
		}
	})
}

func TestUnion(t *testing.T) {
	eachRow(t, func(t *testing.T, r row, dir string) {
		ctx := ctxFor(t)
		st := open(t, dir)
		x1, x2 := blob(t, st, `{"v":1}`), blob(t, st, `{"v":2}`)
		y, z := blob(t, st, `{"y":1}`), blob(t, st, `{"z":1}`)
		px, py, pz := sessionPath(t, "x"), sessionPath(t, "y"), "prs/o/r/1"
		a, err := archive.Add(ctx, st, "2026-01", []archive.Entry{{Path: px, OID: x1}, {Path: py, OID: y}}, "archive: test")
		if err != nil {
			t.Fatal(err)
		}
		b, err := archive.Add(ctx, st, "2026-02", []archive.Entry{{Path: px, OID: x2}, {Path: pz, OID: z}}, "archive: test")
		if err != nil {
			t.Fatal(err)
		}
		var asked []string
		// The larger id wins: deterministic and symmetric.
		pick := func(path, oa, ob string) string {
			asked = append(asked, path)
			return max(oa, ob)
		}
		u, err := archive.Union(ctx, st, a, b, pick)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(asked) != "["+px+"]" {
			t.Fatalf("pick asked about %v, want only %s", asked, px)
		}
		ls := gittest.Run(t, dir, "ls-tree", "-r", u)
		for p, id := range map[string]string{px: max(x1, x2), py: y, pz: z} {
			if !strings.Contains(ls, id+"\t"+p) {
				t.Fatalf("union lacks %s %s:\n%s", p, id, ls)
			}
		}
		if n := len(strings.Split(ls, "\n")); n != 3 {
			t.Fatalf("union has %d entries:\n%s", n, ls)
		}
		asked = nil
		if u2, err := archive.Union(ctx, st, b, a, pick); err != nil || u2 != u {
			t.Fatalf("Union(b, a) = %s, %v; want %s", u2, err, u)
		}
		// Equal, absent and contained trees need no new tree.
		sub, err := archive.Add(ctx, st, "2026-03", []archive.Entry{{Path: pz, OID: z}}, "archive: test")
		if err != nil {
			t.Fatal(err)
		}
		never := func(string, string, string) string { t.Fatal("pick called"); return "" }
		for _, c := range []struct{ a, b, want string }{{a, a, a}, {a, "", a}, {"", b, b}, {u, sub, u}, {"", "", ""}} {
			if got, err := archive.Union(ctx, st, c.a, c.b, never); err != nil || got != c.want {
				t.Fatalf("Union(%s, %s) = %s, %v; want %s", c.a, c.b, got, err, c.want)
			}
		}
		if got, err := archive.Union(ctx, st, a, b, func(string, string, string) string { return z }); err == nil {
			t.Fatalf("a pick of neither id made %s", got)
		}
	})
}

// A month an older release wrote names its tree, with no commit: it is
// read as it is, Seal moves it to its commit (once), and every answer of
// Union is the commit, whichever form each side held, so that clones of
// two releases agree on one id.
func TestSealOlderMonths(t *testing.T) {
	eachRow(t, func(t *testing.T, r row, dir string) {
		ctx := ctxFor(t)
		st := open(t, dir)
		x, y := blob(t, st, `{"x":1}`), blob(t, st, `{"y":1}`)
		px, py := sessionPath(t, "x"), sessionPath(t, "y")
		// As an older release built it: the tree itself at the ref.
		c, err := archive.Build(ctx, st, "", []archive.Entry{{Path: px, OID: x}})
		if err != nil {
			t.Fatal(err)
		}
		tree := gittest.Run(t, dir, "rev-parse", c+"^{tree}")
		gittest.Run(t, dir, "update-ref", "refs/ao/archive/2026-01", tree)
		if got, month, err := archive.Find(ctx, st, px); err != nil || got.OID != x || month != "2026-01" {
			t.Fatalf("Find in a month naming its tree = %+v, %s, %v", got, month, err)
		}
		gittest.Run(t, dir, "update-ref", "refs/ao/archive/2026-02", c)
		for _, u := range []struct{ a, b string }{{tree, ""}, {"", tree}, {tree, c}, {c, tree}} {
			got, err := archive.Union(ctx, st, u.a, u.b, func(string, string, string) string { t.Fatal("pick called"); return "" })
			if err != nil || got != c {
				t.Fatalf("Union(%q, %q) = %s, %v; want the commit %s", u.a, u.b, got, err, c)
			}
		}
		n, err := archive.Seal(ctx, st)
		if err != nil || n != 1 {
			t.Fatalf("Seal = %d, %v; want the one month naming a tree", n, err)
		}
		if got := gittest.Run(t, dir, "rev-parse", "refs/ao/archive/2026-01"); got != c {
			t.Fatalf("sealed month = %s, want %s", got, c)
		}
		if n, err := archive.Seal(ctx, st); err != nil || n != 0 {
			t.Fatalf("Seal again = %d, %v; want nothing to do", n, err)
		}
		// A write to a month naming its tree starts from it.
		gittest.Run(t, dir, "update-ref", "refs/ao/archive/2026-03", tree)
		m, err := archive.Add(ctx, st, "2026-03", []archive.Entry{{Path: py, OID: y}}, "archive: test")
		if err != nil {
			t.Fatal(err)
		}
		ls := gittest.Run(t, dir, "ls-tree", "-r", "--name-only", m)
		if ls != px+"\n"+py && ls != py+"\n"+px {
			t.Fatalf("month after Add:\n%s", ls)
		}
		if typ := gittest.Run(t, dir, "cat-file", "-t", "refs/ao/archive/2026-03"); typ != "commit" {
			t.Fatalf("month after Add names a %s", typ)
		}
	})
}

// A month travels with plain git push and fetch. Its commit has no
// parent, so git takes no update of it as a fast-forward: a push or fetch
// that moves an existing month must force, and a push forces with a lease
// on the id it last saw.
func TestPushFetch(t *testing.T) {
	eachRow(t, func(t *testing.T, r row, dir string) {
		ctx := ctxFor(t)
		remote := gittest.Init(t, append([]string{"--bare"}, r.init...)...)
		// Not a clone: git 2.39 clones an empty SHA-256 repository as SHA-1.
		other := gittest.Init(t, r.init...)
		gittest.Run(t, other, "remote", "add", "origin", remote)
		gittest.Run(t, dir, "remote", "add", "origin", remote)
		const ref, spec = "refs/ao/archive/2026-01", "+refs/ao/archive/*:refs/ao/remotes/origin/archive/*"

		st := open(t, dir)
		s1 := blob(t, st, `{"id":"s1"}`)
		t1, err := archive.Add(ctx, st, "2026-01", []archive.Entry{{Path: sessionPath(t, "s1"), OID: s1}}, "archive: test")
		if err != nil {
			t.Fatal(err)
		}
		gittest.Run(t, dir, "push", "-q", "origin", ref+":"+ref)

		ost := open(t, other)
		s2 := blob(t, ost, `{"id":"s2"}`)
		t2, err := archive.Add(ctx, ost, "2026-01", []archive.Entry{{Path: sessionPath(t, "s2"), OID: s2}}, "archive: test")
		if err != nil {
			t.Fatal(err)
		}
		gittest.Run(t, other, "fetch", "-q", "origin", spec)
		theirs := gittest.Run(t, other, "rev-parse", "refs/ao/remotes/origin/archive/2026-01")
		if theirs != t1 {
			t.Fatalf("fetched %s, want %s", theirs, t1)
		}
		u, err := archive.Union(ctx, ost, t2, theirs, func(_, a, b string) string { return max(a, b) })
		if err != nil {
			t.Fatal(err)
		}
		if err := ost.Apply(ctx, "archive: union", refstore.Update{Ref: ref, Old: t2, New: u}); err != nil {
			t.Fatal(err)
		}
		// Not a fast-forward, whatever it holds: refused unforced.
		if out, err := exec.Command("git", "-C", other, "push", "-q", "origin", ref+":"+ref).CombinedOutput(); err == nil {
			t.Fatalf("an unforced push of a tree update went through: %s", out)
		}
		// A lease on a stale id is refused; on the id fetched, it goes.
		if _, err := exec.Command("git", "-C", other, "push", "-q", "--force-with-lease="+ref+":"+t2, "origin", ref+":"+ref).CombinedOutput(); err == nil {
			t.Fatal("a push leasing a stale id went through")
		}
		gittest.Run(t, other, "push", "-q", "--force-with-lease="+ref+":"+theirs, "origin", ref+":"+ref)

		gittest.Run(t, dir, "fetch", "-q", "origin", spec)
		if got := gittest.Run(t, dir, "rev-parse", "refs/ao/remotes/origin/archive/2026-01"); got != u {
			t.Fatalf("fetched back %s, want the union %s", got, u)
		}
		if err := st.Apply(ctx, "archive: fetched", refstore.Update{Ref: ref, Old: t1, New: u}); err != nil {
			t.Fatal(err)
		}
		for p, id := range map[string]string{sessionPath(t, "s1"): s1, sessionPath(t, "s2"): s2} {
			if e, _, err := archive.Find(ctx, st, p); err != nil || e.OID != id {
				t.Fatalf("Find(%s) after the round trip = %+v, %v", p, e, err)
			}
		}
	})
}

func TestMonth(t *testing.T) {
	at := time.Date(2026, 2, 1, 0, 30, 0, 0, time.FixedZone("x", 3600))
	if m := archive.Month(at); m != "2026-01" {
		t.Fatalf("Month = %s, want the UTC month 2026-01", m)
	}
	if r := archive.Ref("2026-01"); r != "refs/ao/archive/2026-01" || refstore.CheckRef(r) != nil {
		t.Fatalf("Ref = %s", r)
	}
	for _, p := range []string{"sessions/a", "handoffs/b%2Fc", "prs/o/r/12"} {
		if err := archive.CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q): %v", p, err)
		}
	}
	for _, p := range []string{"", "sessions", "sessions/", "sessions/a/b", "sessions/.x", "sessions/a%2f", "prs/o/r/0", "prs/o/r/x", "prs/o/r/01", "x/a"} {
		if err := archive.CheckPath(p); err == nil {
			t.Errorf("CheckPath(%q) took it", p)
		}
	}
}

// A bare repository (a remote sync may archive on) builds trees as well:
// nothing needs a worktree.
func TestAddBare(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t, "--bare")
	ctx := ctxFor(t)
	st := open(t, dir)
	id := blob(t, st, `{"id":"s"}`)
	if _, err := archive.Add(ctx, st, "2026-01", []archive.Entry{{Path: sessionPath(t, "s"), OID: id}}, "archive: test"); err != nil {
		t.Fatal(err)
	}
	if e, month, err := archive.Find(ctx, st, sessionPath(t, "s")); err != nil || e.OID != id || month != "2026-01" {
		t.Fatalf("Find = %+v, %s, %v", e, month, err)
	}
}
