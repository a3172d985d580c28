package teamsync

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// A git gc --prune=now in a clone raced the sync that wrote a month of its
// archive (git's documented race of --prune=now with writers): the month's
// tree is there, a subtree written with it is not. Every sync of that
// clone that read the month failed, and every git gc of it failed
// repacking it (found by the soak). A sync that reads the month, and a
// retiring sync whether or not it reads it, put the month right — rebuilt
// from what is readable, the remote's copy joined in — say so, and go on;
// git gc and git fsck pass again. Real git, a real bare remote.
func TestSyncMendsAMonthAGCPruneDamaged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tm := newTeam(t, 1)
	a := tm.clones[0]
	left := end(t, a, 0, "the next step")
	if _, err := claim(a, "s-a", 1, nil); err != nil {
		t.Fatal(err)
	}
	retireAt(t, a, 2)
	month := archive.Ref(archive.Month(at(1)))
	p, err := archive.BatonPath(left.ID)
	if err != nil {
		t.Fatal(err)
	}
	damage := func() { t.Helper(); damageMonth(t, a.Dir(), month) }
	mended := func(res Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("sync with a damaged month: %v", err)
		}
		if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, month+" named a tree reaching") {
			t.Fatalf("sync warned %q, want the month put right named", res.Warnings)
		}
		git(t, a.Dir(), "gc", "--quiet")
		if out := git(t, a.Dir(), "fsck", "--no-dangling"); strings.Contains(out, "missing") || strings.Contains(out, "broken") {
			t.Fatalf("git fsck after the mend: %s", out)
		}
		if _, err := a.ReadPath(ctx, month, p); err != nil {
			t.Fatalf("the claimed baton is not back in the month from the remote's copy: %v", err)
		}
	}

	// A sync that reads the month: a new baton here is weighed against
	// the archive's floors of its ref.
	damage()
	end(t, a, 3, "the step after")
	mended(Sync(ctx, a, Options{Remote: "origin", Now: at(4), Retention: DefaultRetention}))

	// A retiring sync with nothing to read there.
	damage()
	mended(Sync(ctx, a, Options{Remote: "origin", Now: at(5), Retention: DefaultRetention, Retire: true}))
	if _, err := refstore.ResolveID(ctx, a, month); err != nil {
		t.Fatal(err)
	}
}

// damageMonth points month in dir at its tree with the handoffs subtree
// replaced by one the repository lacks: what gc --prune=now leaves.
func damageMonth(t *testing.T, dir, month string) {
	t.Helper()
	var entries []string
	for line := range strings.SplitSeq(strings.TrimSpace(git(t, dir, "cat-file", "-p", month+"^{tree}")), "\n") {
		if strings.HasSuffix(line, "\t"+archive.HandoffsDir) {
			gone := strings.TrimSpace(gitIn(t, dir, "no such tree "+line, "hash-object", "--stdin"))
			line = "040000 tree " + gone + "\t" + archive.HandoffsDir
		}
		entries = append(entries, line)
	}
	broken := strings.TrimSpace(gitIn(t, dir, strings.Join(entries, "\n")+"\n", "mktree", "--missing"))
	// Named by its commit, as a month is.
	broken = strings.TrimSpace(git(t, dir, "commit-tree", "-m", "damaged", broken))
	git(t, dir, "update-ref", month, broken)
	gc := exec.Command("git", "gc", "--quiet")
	gc.Dir = dir
	if out, err := gc.CombinedOutput(); err == nil {
		t.Fatalf("git gc passed with the month damaged (%s): the test damaged nothing", out)
	}
}

// A record this clone archived and had not pushed (a baton a tie-break
// dropped here) is in an earlier version of the month, which the reflog
// keeps from git gc: a prune that took the subtrees of a later version
// does not take it too. Mend rebuilt the month from the damaged version
// alone, and the soak found the dropped baton gone from every repository.
func TestMendKeepsWhatAnEarlierVersionOfTheMonthHeld(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tm := newTeam(t, 1)
	a := tm.clones[0]
	left := end(t, a, 0, "archived here, never pushed")
	ref, blob := writtenAt(t, a, left)
	m := archive.Month(at(0))
	if err := archive.Put(ctx, a, m, "handoff: archived here", archive.BatonEntries(ref, left.ID, blob)); err != nil {
		t.Fatal(err)
	}
	month := archive.Ref(m)
	damageMonth(t, a.Dir(), month)
	notes, err := archive.Mend(ctx, a, refstore.ArchivePrefix)
	if err != nil || len(notes) != 1 {
		t.Fatalf("mend: %q, %v; want one month put right", notes, err)
	}
	p, err := archive.BatonPath(left.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := a.ReadPath(ctx, month, p); err != nil || e.OID != blob {
		t.Fatalf("the baton archived here only is gone from the mended month: %v %v", e.OID, err)
	}
	git(t, a.Dir(), "gc", "--quiet")
	if out := git(t, a.Dir(), "fsck", "--no-dangling"); strings.Contains(out, "missing") || strings.Contains(out, "broken") {
		t.Fatalf("git fsck after the mend: %s", out)
	}
}

// gitIn runs git in dir with stdin.
func gitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// A command that archives a record by itself (a tie-break's dropped
// baton, an end's superseded one) onto a month a prune damaged mends the
// month first: before, every such archiving failed until the next sync
// mended it, and the record lived in a reflog its ref's retirement took
// (found by the soak).
func TestPutOnADamagedMonthMendsItFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tm := newTeam(t, 1)
	a := tm.clones[0]
	m := archive.Month(at(0))
	month := archive.Ref(m)
	var ids []string
	for i, next := range []string{"archived before the damage", "archived after it"} {
		left := end(t, a, i, next)
		ref, blob := writtenAt(t, a, left)
		if i == 1 {
			damageMonth(t, a.Dir(), month)
		}
		if err := archive.Put(ctx, a, m, "handoff: archived here", archive.BatonEntries(ref, left.ID, blob)); err != nil {
			t.Fatalf("archiving onto the month (damaged: %v): %v", i == 1, err)
		}
		ids = append(ids, left.ID)
	}
	for _, id := range ids {
		p, err := archive.BatonPath(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.ReadPath(ctx, month, p); err != nil {
			t.Errorf("baton %s is not in the month: %v", id, err)
		}
	}
	git(t, a.Dir(), "gc", "--quiet")
}

// A month of this clone's whose commit a prune took (written while a git
// gc --prune=now ran) was deleted as any ref naming a missing object, and
// with it every record this clone had archived and not pushed, and the
// reflog that kept them. It is put back from its earlier versions.
func TestSyncPutsBackAMonthWhoseCommitWasPruned(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tm := newTeam(t, 1)
	a := tm.clones[0]
	m := archive.Month(at(0))
	month := archive.Ref(m)
	var ids []string
	for i, next := range []string{"archived here first", "archived here next"} {
		left := end(t, a, i, next)
		ref, blob := writtenAt(t, a, left)
		if err := archive.Put(ctx, a, m, "handoff: archived here", archive.BatonEntries(ref, left.ID, blob)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, left.ID)
	}
	// The prune: the month's newest commit goes, as loose objects do.
	pruneMonthCommit(t, a.Dir(), month)
	res, err := Sync(ctx, a, Options{Remote: "origin", Now: at(3), Retention: DefaultRetention})
	if err != nil {
		t.Fatalf("sync with the month's commit gone: %v", err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, month+" named a tree reaching") {
		t.Errorf("sync warned %q, want the month put back named", res.Warnings)
	}
	// The record of the earlier version is back (the second end archived
	// the first baton, which it superseded); the one only the pruned
	// version held is gone, as the note says.
	for _, id := range ids[:1] {
		p, err := archive.BatonPath(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.ReadPath(ctx, month, p); err != nil {
			t.Errorf("baton %s is not in the month put back: %v", id, err)
		}
	}
	git(t, a.Dir(), "gc", "--quiet")
	if out := git(t, a.Dir(), "fsck", "--no-dangling"); strings.Contains(out, "missing") || strings.Contains(out, "broken") {
		t.Fatalf("git fsck after the month was put back: %s", out)
	}

	// Again on a clone whose months are sealed (its later syncs): a
	// record archived here, another version over it, that one pruned.
	third := end(t, a, 4, "archived here after the first sync")
	ref, blob := writtenAt(t, a, third)
	if err := archive.Put(ctx, a, m, "handoff: archived here", archive.BatonEntries(ref, third.ID, blob)); err != nil {
		t.Fatal(err)
	}
	// Another record archived here: a new version of the month, pruned.
	fourth := end(t, a, 5, "archived after it")
	blob4, err := refstore.ResolveID(ctx, a, ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := archive.Put(ctx, a, m, "handoff: archived here", archive.BatonEntries(ref, fourth.ID, blob4)); err != nil {
		t.Fatal(err)
	}
	pruneMonthCommit(t, a.Dir(), month)
	res, err = Sync(ctx, a, Options{Remote: "origin", Now: at(6), Retention: DefaultRetention})
	if err != nil {
		t.Fatalf("a later sync with the month's commit gone: %v", err)
	}
	p, err := archive.BatonPath(third.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadPath(ctx, month, p); err != nil {
		t.Errorf("baton %s, archived in an earlier version, is not in the month put back: %v (sync said %q)", third.ID, err, res.Warnings)
	}
	git(t, a.Dir(), "gc", "--quiet")
}

// writtenAt is the ref baton b was written at in a, and the blob that ref
// holds now.
func writtenAt(t *testing.T, a *refstore.Store, b baton.Stored) (ref, blob string) {
	t.Helper()
	ref, err := refstore.HandoffRef(b.Shared, b.Owner, b.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if blob, err = refstore.ResolveID(context.Background(), a, ref); err != nil {
		t.Fatal(err)
	}
	return ref, blob
}

// pruneMonthCommit deletes month's commit from dir's loose objects, as a
// git gc --prune=now that ran while it was written does.
func pruneMonthCommit(t *testing.T, dir, month string) {
	t.Helper()
	tip := strings.TrimSpace(git(t, dir, "rev-parse", month))
	obj := strings.TrimSpace(git(t, dir, "rev-parse", "--git-path", "objects/"+tip[:2]+"/"+tip[2:]))
	if !filepath.IsAbs(obj) {
		obj = filepath.Join(dir, obj)
	}
	if err := os.Remove(obj); err != nil {
		t.Fatalf("removing the month's commit: %v", err)
	}
}
