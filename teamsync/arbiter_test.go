package teamsync

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

func TestNormURLOneSpellingPerRepository(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "team.git")
	if err := os.Mkdir(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.git")
	if err := os.Symlink(bare, link); err != nil {
		t.Fatal(err)
	}
	same := [][]string{
		{"git@github.com:Org/repo.git", "ssh://git@github.com/Org/repo", "https://GitHub.com/Org/repo.git/", "github.com:Org/repo"},
		{bare, "file://" + bare, "file://" + bare + "/", "team.git", link, filepath.Join(dir, "team")},
	}
	for _, group := range same {
		want := normURL(group[0], dir)
		for _, u := range group[1:] {
			if got := normURL(u, dir); got != want {
				t.Errorf("normURL(%q) = %q, want %q (as %q)", u, got, want, group[0])
			}
		}
	}
	if normURL("git@github.com:org/one.git", dir) == normURL("git@github.com:org/two.git", dir) {
		t.Error("two repositories on one host compare equal")
	}
	if normURL("https://github.com/org/repo", dir) == normURL("https://gitlab.com/org/repo", dir) {
		t.Error("one path on two hosts compares equal")
	}
}

// TestArbiterRecordsThatDisagreeStopClaims: two remotes naming different
// arbiters is an error at claim time, not a guess.
func TestArbiterRecordsThatDisagreeStopClaims(t *testing.T) {
	tm := newTeam(t, 1)
	a := tm.clones[0]
	other := filepath.Join(tm.dir, "other.git")
	git(t, tm.dir, "init", "-q", "--bare", other)
	// other's own record names itself, written by a clone that only has it.
	lone := tm.clone(t, "lone", other)
	if got := git(t, lone.Dir(), "config", ArbiterKey); strings.TrimSpace(got) != "origin" {
		t.Fatalf("lone's arbiter: %q", got)
	}
	git(t, a.Dir(), "remote", "add", "other", other)
	if _, err := Init(context.Background(), a, "other"); !errors.Is(err, ErrNoArbiter) || !strings.Contains(err.Error(), "says claims are decided at") {
		t.Fatalf("init of a second remote with its own arbiter: %v", err)
	}
	end(t, a, 0, "next")
	if _, err := claim(a, "s-a", 1, Arbiter{}); !errors.Is(err, ErrNoArbiter) {
		t.Fatalf("claim with two arbiters named: %v", err)
	}
}

// Pin decides once where claims go: nowhere for a clone without a remote
// (its claims are local, noted nowhere), the team's arbiter for a clone of
// one, and a choice that fails is left for Arbitrate to report.
func TestPinNamesTheRemoteThatDecides(t *testing.T) {
	tm := newTeam(t, 1)
	ctx := context.Background()
	a := tm.clones[0]
	if got, local := (Arbiter{}).Pin(ctx, a, mainRef); local || got.(Arbiter).Remote != "origin" {
		t.Fatalf("a clone of the team: Pin = %+v, local %v; want origin", got, local)
	}
	alone := filepath.Join(tm.dir, "alone")
	git(t, tm.dir, "init", "-q", alone)
	if got, local := (Arbiter{}).Pin(ctx, open(t, alone), mainRef); !local || got.(Arbiter).Remote != "" {
		t.Fatalf("a repository without a remote: Pin = %+v, local %v; want local", got, local)
	}
	other := filepath.Join(tm.dir, "other.git")
	git(t, tm.dir, "init", "-q", "--bare", other)
	tm.clone(t, "lone", other)
	git(t, a.Dir(), "remote", "add", "other", other)
	Init(ctx, a, "other") // refused: other's records name another arbiter
	if _, err := (Arbiter{}).remoteFor(ctx, a, mainRef); !errors.Is(err, ErrNoArbiter) {
		t.Fatalf("two arbiters named: remoteFor = %v, want ErrNoArbiter", err)
	}
	if got, local := (Arbiter{}).Pin(ctx, a, mainRef); local || got.(Arbiter).Remote != "" {
		t.Fatalf("a choice that fails: Pin = %+v, local %v; want it unpinned, not local", got, local)
	}
}

// A late copy of the push that first created a baton lands after the
// baton was claimed and retired: the remote holds the waiting version
// again (its lease, "absent", held once more). With real git, the next
// start in another clone must not claim it (resurrected): the archive it
// fetched with the batons says the baton was delivered.
func TestStartRefusesABatonALatePushBroughtBack(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	end(t, a, 0, "next")
	syncAt(t, a, 1)
	waiting, err := exec.Command("git", "-C", tm.remote, "rev-parse", mainRef).Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := claim(a, "s-a", 2, Arbiter{}); err != nil {
		t.Fatal(err)
	}
	syncAt(t, a, 3) // the claimed baton retires
	if out, _ := exec.Command("git", "-C", tm.remote, "for-each-ref", mainRef).Output(); len(out) != 0 {
		t.Fatalf("the claimed baton did not retire at the remote: %s", out)
	}
	// The late copy lands.
	if out, err := exec.Command("git", "-C", tm.remote, "update-ref", mainRef, strings.TrimSpace(string(waiting))).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	res, err := handoff.Start(context.Background(), b, handoff.StartOptions{Session: "s-b", Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(4))
	if err != nil || res.Claimed {
		t.Fatalf("start claimed a baton delivered already: claimed=%v notices=%q, %v", res.Claimed, res.Notices, err)
	}
	_, err = claim(b, "s-b2", 5, Arbiter{})
	var re *RetiredError
	if !errors.As(err, &re) {
		t.Fatalf("claim of the brought-back baton: %v, want a RetiredError", err)
	}
}

// A dismissal of a baton the remote never had reaches it as two pushes:
// the waiting baton, then the tombstone leased on it, never the tombstone
// leased on "absent", whose late copy could land once a retirement emptied
// the ref again (seed 1796573255 of the simulation). The remote's reflog
// says what it took, in order.
func TestTombstoneFollowsTheWaitingBaton(t *testing.T) {
	tm := newTeam(t, 1)
	a := tm.clones[0]
	git(t, tm.remote, "config", "core.logAllRefUpdates", "always")
	waiting := end(t, a, 0, "next")
	if out, _ := exec.Command("git", "-C", tm.remote, "for-each-ref", mainRef).Output(); len(out) != 0 {
		t.Fatalf("the remote holds the baton before any push: %s", out)
	}
	res, err := handoff.Dismiss(context.Background(), a, handoff.DismissOptions{ID: waiting.ID, Arbiter: Arbiter{}}, clock(1))
	if err != nil {
		t.Fatal(err)
	}
	tomb, err := refstore.ResolveID(context.Background(), a, mainRef)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dismissed.ID != waiting.ID || readBaton(t, a, mainRef).Deleted == nil {
		t.Fatalf("dismissed %+v; the ref holds %+v", res.Dismissed, readBaton(t, a, mainRef))
	}
	got := gittest.ReflogOIDs(t, tm.remote, mainRef)
	if want := []string{waiting.OID, tomb}; !slices.Equal(got, want) {
		t.Fatalf("the remote took %q, want the waiting baton then the tombstone %q", got, want)
	}
}

// A claim at the arbiter that replaces a teammate's concurrent baton (the
// join's tie-break) takes that baton's history away from the remote: here
// a dismissal, which nothing else records. Once the claim retires, a
// clone holding the dismissed baton's waiting copy, whose push of it got
// no answer (it never saw the remote hold it), must not be handed it: the
// dropped tombstone reaches the archive with the claimer's next sync, as
// sync's own tie-break archives what it drops (widened simulation, seed
// 20038).
func TestTieAtTheArbiterArchivesTheDroppedBaton(t *testing.T) {
	tm := newTeam(t, 3)
	ctx := context.Background()
	a, b, c := tm.clones[0], tm.clones[1], tm.clones[2]
	m := end(t, b, 0, "from b")
	// b's push of it lands, its answer lost: no sync here saw it there.
	git(t, b.Dir(), "push", "-q", "origin", mainRef+":"+mainRef)
	syncAt(t, a, 1)
	if _, err := handoff.Dismiss(ctx, a, handoff.DismissOptions{ID: m.ID, Arbiter: Arbiter{}}, clock(2)); err != nil {
		t.Fatal(err)
	}
	tomb, err := exec.Command("git", "-C", tm.remote, "rev-parse", mainRef).Output()
	if err != nil {
		t.Fatal(err)
	}
	// c, away all along, writes two batons (the second replaces the
	// first, as many writes as the dismissal's) and claims the newer: at
	// the remote it wins the tie-break over the tombstone.
	end(t, c, 3, "first from c")
	n := end(t, c, 4, "from c")
	got, err := claim(c, "s-c", 5, Arbiter{})
	if err != nil || got.Handoff.ID != n.ID {
		t.Fatalf("c's claim: %+v, %v; want %s", got.Handoff, err, n.ID)
	}
	syncAt(t, c, 6) // the claim retires, the tombstone archived with it
	if out, _ := exec.Command("git", "-C", tm.remote, "for-each-ref", mainRef).Output(); len(out) != 0 {
		t.Fatalf("the claimed baton did not retire at the remote: %s", out)
	}
	found, err := archivedThere(t, tm.remote, m.ID)
	if err != nil || found != strings.TrimSpace(string(tomb)) {
		t.Fatalf("the remote's archive holds %q for %s (%v), want the tombstone %s", found, m.ID, err, tomb)
	}
	res, err := claim(b, "s-b", 7, Arbiter{})
	var re *RetiredError
	if !errors.As(err, &re) {
		t.Fatalf("b's claim of its waiting copy of the dismissed baton: %+v, %v; want a RetiredError", res.Handoff, err)
	}
}

// lockedAfter is the arbiter, and then a git killed while it wrote the
// clone's refs: the lock it left makes the decision's own local record
// fail (handoff.NotRecordedError) until the test takes it away.
// (No Pinner: pinned would hand the decision to the Arbiter it names.)
type lockedAfter struct {
	t    *testing.T
	dir  string
	lock string // where the lock goes; set once it is in place
}

func (l *lockedAfter) Arbitrate(ctx context.Context, st refstore.Clone, up refstore.Update) error {
	if err := (Arbiter{}).Arbitrate(ctx, st, up); err != nil {
		return err
	}
	l.lock = gittest.RefLock(l.t, l.dir, up.Ref)
	return os.WriteFile(l.lock, nil, 0o644)
}

func (l *lockedAfter) Held(ctx context.Context, st refstore.Clone, ref string) (string, error) {
	return Arbiter{}.Held(ctx, st, ref)
}

// A cancel the arbiter took whose record here then failed (handoff's
// NotRecordedError) was recorded in this clone only by the tracking ref
// the arbiter moved. A teammate's concurrent baton replaced the tombstone
// at the remote by the join's tie-break (archived only in that clone until
// its next sync), and its retirement emptied the ref: the next fetch took
// that record away, and the waiting copy here went for a baton the remote
// never had, claimed by the next start, or pushed back by the next sync for
// anyone to claim (simulation, seed 11). The cancel notes what it could
// not record, and a start or sync records it first.
func TestDeletionNotRecordedHereIsRecordedBeforeTheNextStartOrSync(t *testing.T) {
	for _, next := range []string{"start", "sync"} {
		t.Run(next, func(t *testing.T) {
			tm := newTeam(t, 3)
			ctx := context.Background()
			a, b, c := tm.clones[0], tm.clones[1], tm.clones[2]
			m := end(t, a, 0, "from a")
			arb := &lockedAfter{t: t, dir: a.Dir()}
			_, err := handoff.Cancel(ctx, a, handoff.CancelOptions{Owner: "dev", Branch: "main", Arbiter: arb}, clock(1))
			var nre *handoff.NotRecordedError
			if !errors.As(err, &nre) {
				t.Fatalf("the cancel with this clone's ref locked: %v; want a NotRecordedError, noted", err)
			}
			if err := os.Remove(arb.lock); err != nil {
				t.Fatal(err)
			}
			if got := readBaton(t, a, mainRef); got.ID != m.ID || !got.Live() {
				t.Fatalf("a holds %+v after the failed record, want %s waiting", got, m.ID)
			}
			// b, away all along, writes batons of its own (more writes
			// than a's) and cancels the newest: at the remote its
			// tombstone wins the tie-break over a's.
			end(t, b, 2, "first from b")
			end(t, b, 3, "second from b")
			n := end(t, b, 4, "from b")
			if _, err := handoff.Cancel(ctx, b, handoff.CancelOptions{Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(5)); err != nil {
				t.Fatal(err)
			}
			if got, err := readBatonAt(ctx, b, mainRef, git(t, tm.remote, "rev-parse", mainRef)); err != nil || got.ID != n.ID || got.Deleted == nil {
				t.Fatalf("the remote holds %s (deleted %v, %v), want b's tombstone of %s", got.ID, got.Deleted != nil, err, n.ID)
			}
			retireAt(t, c, 60*24*400)
			if out := git(t, tm.remote, "for-each-ref", mainRef); out != "" {
				t.Fatalf("b's tombstone did not retire at the remote: %s", out)
			}
			if found, err := archivedThere(t, tm.remote, m.ID); err != nil || found != "" {
				t.Fatalf("the remote's archive holds %q for %s (%v): nothing to test", found, m.ID, err)
			}
			starter := a
			if next == "sync" {
				syncAt(t, a, 60*24*401)
				starter = c
			}
			res, err := handoff.Start(ctx, starter, handoff.StartOptions{Session: "s-" + next, Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(60*24*402))
			if err != nil {
				t.Fatal(err)
			}
			if res.Handoff != nil && res.Handoff.ID == m.ID {
				t.Fatalf("the start delivered %s, cancelled at the remote (claimed %v)", m.ID, res.Claimed)
			}
			if got, err := baton.Read(ctx, a, mainRef); err == nil && got.ID == m.ID && got.Deleted == nil {
				t.Fatalf("a holds %s %+v, want it cancelled (or gone)", m.ID, got)
			}
		})
	}
}

// archivedThere is the blob the newest of remote's archive months holds
// for baton id, "" when none does.
func archivedThere(t *testing.T, remote, id string) (string, error) {
	t.Helper()
	p, err := archive.BatonPath(id)
	if err != nil {
		return "", err
	}
	out, err := exec.Command("git", "-C", remote, "for-each-ref", "--sort=-refname", "--format=%(refname)", refstore.ArchivePrefix).Output()
	if err != nil {
		return "", err
	}
	for _, month := range strings.Fields(string(out)) {
		oid, err := exec.Command("git", "-C", remote, "rev-parse", "-q", "--verify", month+":"+p).Output()
		if err == nil {
			return strings.TrimSpace(string(oid)), nil
		}
	}
	return "", nil
}
