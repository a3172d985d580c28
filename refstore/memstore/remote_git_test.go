package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
)

// The differential check of the memory remote: every scenario runs once
// on real git (a bare repository and two clones, through *refstore.Store)
// and once on a memstore.Network, and must leave the same transcript:
// each operation's outcome (a push's rejected refs with git's reasons)
// and, after it, every ref under refs/ao/ of both clones and the remote.
// Blob and tree ids are content's, so the two worlds' ids are the same.

// world is two clones, a and b, of one remote, origin.
type world interface {
	clone(who string) refstore.Clone
	// remoteRefs lists the remote's refs under refs/ao/.
	remoteRefs(t *testing.T) map[string]string
	// remotePut makes the remote's ref hold body, as another clone's
	// push would have ("" deletes it).
	remotePut(t *testing.T, ref, body string)
	// remoteLose drops the object of body from the remote, as its gc
	// racing a push can; its refs stay.
	remoteLose(t *testing.T, id string)
	format() string
}

type gitWorld struct {
	bare  string
	dirs  map[string]string
	sts   map[string]*refstore.Store
	objFm string
}

func newGitWorld(t *testing.T) *gitWorld {
	gittest.Isolate(t)
	w := &gitWorld{bare: gittest.Init(t, "--bare"), dirs: map[string]string{}, sts: map[string]*refstore.Store{}}
	for _, who := range []string{"a", "b"} {
		dir := gittest.Init(t)
		gittest.Run(t, dir, "remote", "add", "origin", w.bare)
		st, err := refstore.Open(context.Background(), dir, refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		w.dirs[who], w.sts[who] = dir, st
	}
	w.objFm = gittest.Run(t, w.bare, "rev-parse", "--show-object-format")
	return w
}

func (w *gitWorld) clone(who string) refstore.Clone { return w.sts[who] }
func (w *gitWorld) format() string                  { return w.objFm }

func (w *gitWorld) remoteRefs(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(gittest.Run(t, w.bare, "for-each-ref", "--format=%(refname) %(objectname)", "refs/ao/"), "\n") {
		if ref, id, ok := strings.Cut(l, " "); ok {
			out[ref] = id
		}
	}
	return out
}

func (w *gitWorld) remotePut(t *testing.T, ref, body string) {
	if body == "" {
		gittest.Run(t, w.bare, "update-ref", "-d", ref)
		return
	}
	f := filepath.Join(t.TempDir(), "blob")
	os.WriteFile(f, []byte(body), 0o644)
	id := gittest.Run(t, w.bare, "hash-object", "-w", f)
	gittest.Run(t, w.bare, "update-ref", ref, id)
}

func (w *gitWorld) remoteLose(t *testing.T, id string) {
	// A push of a few objects is unpacked into loose ones
	// (transfer.unpackLimit).
	if err := os.Remove(filepath.Join(w.bare, "objects", id[:2], id[2:])); err != nil {
		t.Fatal(err)
	}
}

type memWorld struct {
	net    *memstore.Network
	remote *memstore.Store
	clones map[string]*memstore.Clone
}

func newMemWorld(t *testing.T, format string) *memWorld {
	w := &memWorld{net: memstore.NewNetwork(), clones: map[string]*memstore.Clone{}}
	var err error
	if w.remote, err = w.net.NewRepository("mem://origin", format); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"a", "b"} {
		if w.clones[who], err = w.net.NewClone("mem://origin", "/mem/"+who); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *memWorld) clone(who string) refstore.Clone { return w.clones[who] }
func (w *memWorld) format() string                  { return w.remote.ObjectFormat() }

func (w *memWorld) remoteRefs(t *testing.T) map[string]string {
	ids, err := w.remote.RefIDs(context.Background(), refstore.Root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, id := range ids {
		out[id.Ref] = id.OID
	}
	return out
}

func (w *memWorld) remotePut(t *testing.T, ref, body string) {
	ctx := context.Background()
	cur, _ := refstore.ResolveID(ctx, w.remote, ref)
	u := refstore.Update{Ref: ref, Old: cur}
	if body != "" {
		u.New = w.remote.WriteRawBlob([]byte(body))
	}
	if err := w.remote.Apply(ctx, "test", u); err != nil {
		t.Fatal(err)
	}
}

func (w *memWorld) remoteLose(t *testing.T, id string) { w.remote.LoseObject(id) }

// run plays a scenario on a world and returns its transcript.
type run struct {
	t     *testing.T
	w     world
	lines []string
}

func (r *run) id(body string) string {
	if body == "" {
		return ""
	}
	id, err := memstore.BlobID(r.w.format(), []byte(body))
	if err != nil {
		r.t.Fatal(err)
	}
	return id
}

// name turns an id back into the body it was made of, for a readable
// transcript.
func (r *run) name(id string, bodies []string) string {
	for _, b := range bodies {
		if r.id(b) == id {
			return b
		}
	}
	return id
}

var bodies = []string{"a1", "a2", "b1", "b2", "r1", "r2", "x1", "x2", "y1"}

func (r *run) snapshot(what string, err error) {
	ctx := context.Background()
	line := what + " => " + outcome(err)
	for _, who := range []string{"a", "b"} {
		ids, lerr := r.w.clone(who).RefIDs(ctx, refstore.Root)
		if lerr != nil {
			r.t.Fatal(lerr)
		}
		var refs []string
		for _, id := range ids {
			refs = append(refs, id.Ref+"="+r.name(id.OID, bodies))
		}
		line += fmt.Sprintf("\n  %s: %s", who, strings.Join(refs, " "))
	}
	rr := r.w.remoteRefs(r.t)
	var refs []string
	for ref, id := range rr {
		refs = append(refs, ref+"="+r.name(id, bodies))
	}
	sort.Strings(refs)
	line += "\n  remote: " + strings.Join(refs, " ")
	r.lines = append(r.lines, line)
}

var lockPrefix = regexp.MustCompile(`cannot lock ref '[^']*': `)

func outcome(err error) string {
	var pe *refstore.PushError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &pe) && len(pe.Rejected) > 0:
		var out []string
		for _, ref := range pe.Rejected {
			reason := pe.Reasons[ref]
			if pe.NameConflict(ref) && !strings.Contains(reason, "atomic") {
				// Older gits (2.39) say "failed to update ref" for it.
				reason = "remote rejected: refname conflict"
			}
			out = append(out, ref+" ("+reason+")")
		}
		said := ""
		if len(pe.Remote) > 0 {
			// The files backend says "cannot lock ref 'R': 'P' exists; ...",
			// reftable only "'P' exists; ...".
			said = "; the remote said " + lockPrefix.ReplaceAllString(strings.Join(pe.Remote, " / "), "")
		}
		return "rejected " + strings.Join(out, ", ") + said
	case errors.Is(err, refstore.ErrBadName):
		return "bad name"
	default:
		return "error"
	}
}

func (r *run) put(who, ref, body string) {
	ctx := context.Background()
	st := r.w.clone(who)
	cur, _ := refstore.ResolveID(ctx, st, ref)
	u := refstore.Update{Ref: ref, Old: cur}
	if body != "" {
		id, err := st.WriteBlob(ctx, []byte(body))
		if err != nil {
			r.t.Fatal(err)
		}
		u.New = id
	}
	if err := st.Apply(ctx, "test", u); err != nil {
		r.t.Fatal(err)
	}
}

// up is an update by bodies: ref from old to new ("" absent).
type up struct{ ref, new, old string }

func (r *run) push(who string, ups []up, opts refstore.PushOptions) {
	var updates []refstore.Update
	var what []string
	for _, u := range ups {
		updates = append(updates, refstore.Update{Ref: u.ref, New: r.id(u.new), Old: r.id(u.old)})
		what = append(what, fmt.Sprintf("%s:%s<-%s", u.ref, u.new, u.old))
	}
	err := r.w.clone(who).Push(context.Background(), "origin", updates, opts)
	r.snapshot(fmt.Sprintf("%s push %s atomic=%v track=%d", who, strings.Join(what, " "), opts.Atomic, len(opts.Track)), err)
}

func (r *run) pushMatching(who string, prefixes []string, opts refstore.PushOptions) {
	err := r.w.clone(who).PushMatching(context.Background(), "origin", prefixes, opts)
	r.snapshot(fmt.Sprintf("%s push-matching %s atomic=%v", who, prefixes, opts.Atomic), err)
}

func (r *run) fetch(who string, prune bool, specs ...string) {
	err := r.w.clone(who).Fetch(context.Background(), "origin", prune, specs...)
	r.snapshot(fmt.Sprintf("%s fetch prune=%v %s", who, prune, specs), err)
}

func (r *run) remote(ref, body string) {
	r.w.remotePut(r.t, ref, body)
	r.snapshot(fmt.Sprintf("remote %s=%s", ref, body), nil)
}

func (r *run) lose(body string) {
	r.w.remoteLose(r.t, r.id(body))
	r.snapshot("the remote loses "+body, nil)
}

func (r *run) ids(who string, specs ...string) {
	ctx := context.Background()
	ids, err := r.w.clone(who).RemoteIDs(ctx, "origin", specs...)
	var pairs []string
	for ref, id := range ids {
		pairs = append(pairs, ref+"="+r.name(id, bodies))
	}
	sort.Strings(pairs)
	same, uerr := r.w.clone(who).UpToDate(ctx, "origin", specs...)
	r.lines = append(r.lines, fmt.Sprintf("%s remote-ids %s => %s %v; up to date %v %s", who, specs, outcome(err), pairs, same, outcome(uerr)))
}

const (
	sessions = "refs/ao/sessions/"
	tracking = "refs/ao/remotes/origin/"
)

var (
	sessionSpec = "+refs/ao/sessions/*:refs/ao/remotes/origin/sessions/*"
	archiveSpec = "+refs/ao/archive/*:refs/ao/remotes/origin/archive/*"
	track       = []string{sessionSpec, archiveSpec}
)

var scenarios = []struct {
	name string
	play func(r *run)
}{
	{"a remote that lost an object", func(r *run) {
		r.put("a", sessions+"x", "a1")
		r.put("a", sessions+"y", "a2")
		r.push("a", []up{{sessions + "x", "a1", ""}, {sessions + "y", "a2", ""}}, refstore.PushOptions{Atomic: true, Track: track})
		r.lose("a1")
		r.fetch("b", false, sessionSpec)
		r.fetch("b", false, sessionSpec, "^"+sessions+"x")
		// A push of what the remote names brings nothing: git takes the
		// remote to hold what it advertises; the remote refuses a new ref
		// naming it.
		r.push("a", []up{{sessions + "x", "a1", "a1"}}, refstore.PushOptions{Track: track})
		r.push("a", []up{{sessions + "z", "a1", ""}}, refstore.PushOptions{Track: track})
		// Nor any other push but a deletion, while a ref names it.
		r.put("b", sessions+"w", "a3")
		r.push("b", []up{{sessions + "w", "a3", ""}}, refstore.PushOptions{Track: track})
		r.fetch("b", false, sessionSpec)
		// Deleted under a lease, then pushed again: sent, and healed.
		r.push("a", []up{{sessions + "x", "", "a1"}}, refstore.PushOptions{Atomic: true, Track: track})
		r.push("a", []up{{sessions + "x", "a1", ""}}, refstore.PushOptions{Track: track})
		r.fetch("b", false, sessionSpec)
	}},
	{"create, fetch, prune", func(r *run) {
		r.put("a", sessions+"x", "a1")
		r.put("a", sessions+"y", "a2")
		r.push("a", []up{{sessions + "x", "a1", ""}, {sessions + "y", "a2", ""}}, refstore.PushOptions{Atomic: true, Track: track})
		r.fetch("b", true, sessionSpec)
		r.ids("b", sessionSpec)
		r.remote(sessions+"y", "")
		r.ids("b", sessionSpec)
		r.fetch("b", false, sessionSpec)
		r.fetch("b", true, sessionSpec)
		r.fetch("b", true, "+refs/ao/sessions/none:refs/ao/remotes/origin/sessions/none")
		r.fetch("b", false, "+refs/ao/sessions/x:refs/ao/remotes/origin/one/x")
		r.ids("b", "+refs/ao/sessions/x:refs/ao/remotes/origin/one/x")
		r.remote(sessions+"deep/z", "r1")
		r.fetch("a", true, sessionSpec)
	}},
	{"leases lost, atomic and not", func(r *run) {
		r.put("a", sessions+"x", "a1")
		r.put("a", sessions+"y", "a2")
		r.push("a", []up{{sessions + "x", "a1", ""}, {sessions + "y", "a2", ""}, {sessions + "z", "a1", ""}}, refstore.PushOptions{Track: track})
		r.remote(sessions+"x", "r1")
		// x's lease is stale, y's holds, z is up to date.
		r.push("a", []up{{sessions + "y", "b1", "a2"}, {sessions + "x", "b1", "a1"}, {sessions + "z", "a1", "a2"}, {sessions + "new", "b1", ""}}, refstore.PushOptions{Atomic: true, Track: track})
		r.put("a", sessions+"y", "b1") // the blob b1 is a's now
		r.push("a", []up{{sessions + "y", "b1", "a2"}, {sessions + "x", "b1", "a1"}, {sessions + "z", "a1", "a2"}, {sessions + "new", "b1", ""}}, refstore.PushOptions{Atomic: true, Track: track})
		r.push("a", []up{{sessions + "y", "b1", "a2"}, {sessions + "x", "b1", "a1"}, {sessions + "z", "a1", "a2"}, {sessions + "new", "b1", ""}}, refstore.PushOptions{Track: track})
		// A create of a ref that exists; a delete under a stale lease and
		// one of a ref already gone.
		r.push("a", []up{{sessions + "x", "b1", ""}}, refstore.PushOptions{})
		r.push("a", []up{{sessions + "x", "", "a1"}}, refstore.PushOptions{Track: track})
		r.push("a", []up{{sessions + "gone", "", "a1"}}, refstore.PushOptions{Track: track})
		r.push("a", []up{{sessions + "gone", "", ""}}, refstore.PushOptions{Track: track})
		r.push("a", []up{{sessions + "x", "", "r1"}}, refstore.PushOptions{Track: track})
		// An object a does not have.
		r.push("a", []up{{sessions + "q", "y1", ""}, {sessions + "p", "a1", ""}}, refstore.PushOptions{})
	}},
	{"a ref the remote cannot make beside refs under its name", func(r *run) {
		r.put("a", sessions+"n", "a1")
		r.put("a", sessions+"m", "a2")
		r.remote(sessions+"x", "r1")
		r.push("a", []up{{sessions + "x/sub", "a1", ""}, {sessions + "n", "a1", ""}}, refstore.PushOptions{Atomic: true, Track: track})
		r.push("a", []up{{sessions + "x/sub", "a1", ""}, {sessions + "n", "a1", ""}, {sessions + "m", "a2", ""}}, refstore.PushOptions{Track: track})
		r.push("a", []up{{sessions + "x/sub", "a1", ""}, {sessions + "n", "", "a1"}, {sessions + "m", "a1", "a2"}}, refstore.PushOptions{Atomic: true, Track: track})
		r.push("a", []up{{sessions + "n/deeper", "a1", ""}}, refstore.PushOptions{Track: track})
		r.fetch("b", true, sessionSpec)
	}},
	{"tracking refs from the remote's configured refspecs", func(r *run) {
		if err := r.w.clone("a").AddConfig(context.Background(), "remote.origin.fetch", sessionSpec); err != nil {
			r.t.Fatal(err)
		}
		r.put("a", sessions+"x", "a1")
		r.push("a", []up{{sessions + "x", "a1", ""}}, refstore.PushOptions{})
		r.push("a", []up{{"refs/ao/handoffs/shared/o/b", "a1", ""}}, refstore.PushOptions{})
		// Track comes after the config: the first refspec that maps wins.
		r.push("a", []up{{sessions + "x", "", "a1"}}, refstore.PushOptions{Track: []string{"+refs/ao/sessions/*:refs/ao/other/*"}})
	}},
	{"push matching with leases on the tracking refs", func(r *run) {
		r.put("a", sessions+"x", "a1")
		r.put("a", sessions+"z", "a2")
		r.put("a", "refs/ao/prs/o/r/1", "x1")
		r.pushMatching("a", []string{sessions, "refs/ao/prs/"}, refstore.PushOptions{Track: track})
		r.fetch("a", true, sessionSpec)
		r.fetch("b", true, sessionSpec)
		r.put("b", sessions+"w", "b1")
		r.put("b", sessions+"x", "a1")
		r.remote(sessions+"v", "r1")
		// v is at the remote with no tracking ref: its delete is stale.
		r.pushMatching("b", []string{sessions}, refstore.PushOptions{Atomic: true, Track: track})
		r.pushMatching("b", []string{sessions}, refstore.PushOptions{Track: track})
		r.fetch("b", true, sessionSpec)
		r.pushMatching("b", []string{sessions}, refstore.PushOptions{Atomic: true, Track: track})
		r.pushMatching("b", []string{"refs/ao/objectives/"}, refstore.PushOptions{Track: track})
		r.pushMatching("b", []string{"refs/ao/sessions"}, refstore.PushOptions{Track: track})
	}},
	{"trees travel with their blobs", func(r *run) {
		ctx := context.Background()
		a := r.w.clone("a")
		r.put("a", sessions+"s1", "x1")
		r.put("a", sessions+"s2", "x2")
		tree, err := a.BuildTree(ctx, "", []refstore.TreeEntry{{Path: "sessions/s1", OID: r.id("x1")}, {Path: "sessions/deep/s2", OID: r.id("x2")}})
		if err != nil {
			r.t.Fatal(err)
		}
		if err := a.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/archive/2026-01", New: tree}); err != nil {
			r.t.Fatal(err)
		}
		err = a.Push(ctx, "origin", []refstore.Update{{Ref: "refs/ao/archive/2026-01", New: tree}}, refstore.PushOptions{Atomic: true, Track: track})
		r.snapshot("a push the archive's tree "+tree, err)
		r.fetch("b", true, archiveSpec)
		b := r.w.clone("b")
		list, err := b.ListTree(ctx, tracking+"archive/2026-01", "")
		r.lines = append(r.lines, fmt.Sprintf("b lists %v, %s", list, outcome(err)))
		e, err := b.ReadPath(ctx, tracking+"archive/2026-01", "sessions/deep/s2")
		r.lines = append(r.lines, fmt.Sprintf("b reads %s %s %q, %s", e.OID, e.Type, e.Data, outcome(err)))
		e, err = b.ReadPath(ctx, tracking+"archive/2026-01", "sessions/deep")
		r.lines = append(r.lines, fmt.Sprintf("b reads %s %s, %s", e.OID, e.Type, outcome(err)))
		e, err = b.Get(ctx, tracking+"archive/2026-01")
		r.lines = append(r.lines, fmt.Sprintf("b gets %s %s %d, %s", e.OID, e.Type, e.Size, outcome(err)))
	}},
	{"a month whose tree the remote lost", func(r *run) {
		ctx := context.Background()
		a := r.w.clone("a")
		r.put("a", sessions+"s1", "m1")
		month, err := a.BuildTree(ctx, "", []refstore.TreeEntry{{Path: "sessions/s1", OID: r.id("m1")}})
		if err != nil {
			r.t.Fatal(err)
		}
		c, err := a.ReadObject(ctx, month)
		first, _, _ := strings.Cut(string(c.Data), "\n")
		tree, ok := strings.CutPrefix(first, "tree ")
		if err != nil || !ok {
			r.t.Fatalf("the month %s is not a commit of a tree: %q %v", month, c.Data, err)
		}
		ref := "refs/ao/archive/2026-02"
		if err := a.Apply(ctx, "test", refstore.Update{Ref: ref, New: month}); err != nil {
			r.t.Fatal(err)
		}
		err = a.Push(ctx, "origin", []refstore.Update{{Ref: ref, New: month}}, refstore.PushOptions{Atomic: true, Track: track})
		r.snapshot("a push the month", err)
		// The gc keeps the commit and takes its tree: a fetch that wants
		// the commit fails whole, in git's words; one that leaves it out,
		// or that wants nothing of it (a holds it), does not.
		r.w.remoteLose(r.t, tree)
		corrupt := func(who string, specs ...string) {
			err := r.w.clone(who).Fetch(ctx, "origin", false, specs...)
			said := err != nil && strings.Contains(err.Error(), "possible repository corruption on the remote side")
			r.snapshot(fmt.Sprintf("%s fetch %s, said corruption %v", who, specs, said), err)
		}
		corrupt("b", archiveSpec)
		corrupt("b", archiveSpec, "^"+ref)
		corrupt("a", archiveSpec)
		// Deleted under a lease and pushed again: the tree is sent.
		r.snapshot("a deletes the month there", a.Push(ctx, "origin", []refstore.Update{{Ref: ref, Old: month}}, refstore.PushOptions{Atomic: true, Track: track}))
		r.snapshot("a pushes it back", a.Push(ctx, "origin", []refstore.Update{{Ref: ref, New: month}}, refstore.PushOptions{Atomic: true, Track: track}))
		corrupt("b", archiveSpec)
		e, err := r.w.clone("b").ReadPath(ctx, tracking+"archive/2026-02", "sessions/s1")
		r.lines = append(r.lines, fmt.Sprintf("b reads %s %q, %s", e.OID, e.Data, outcome(err)))
	}},
}

func TestRemoteIsGits(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			g := newGitWorld(t)
			m := newMemWorld(t, g.format())
			want := &run{t: t, w: g}
			sc.play(want)
			got := &run{t: t, w: m}
			sc.play(got)
			for i := 0; i < max(len(want.lines), len(got.lines)); i++ {
				var w, g string
				if i < len(want.lines) {
					w = want.lines[i]
				}
				if i < len(got.lines) {
					g = got.lines[i]
				}
				if w != g {
					t.Errorf("step %d:\ngit:\n%s\nmemstore:\n%s", i, w, g)
				}
			}
			if testing.Verbose() {
				t.Logf("transcript:\n%s", strings.Join(want.lines, "\n"))
			}
		})
	}
}
