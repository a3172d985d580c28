package teamsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// The remote's gc lost the object of a baton a clone pushed (git's race of
// gc --prune=now with a push): every fetch of it fails there. A teammate's
// sync fetches the rest, says so and marks the object lost at the remote;
// the clone that holds it heals it with its next sync, though its own
// fetches need nothing of it; then the teammate gets the baton. Real git,
// a real bare remote.
func TestSyncHealsAnObjectTheRemoteLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	syncAt(t, b, 0) // b has synced with the remote before
	left := end(t, a, 0, "the next step")
	syncAt(t, a, 0)
	// A push of a few objects is unpacked into loose ones
	// (transfer.unpackLimit): the gc race removes one.
	if err := os.Remove(filepath.Join(tm.remote, "objects", left.OID[:2], left.OID[2:])); err != nil {
		t.Fatal(err)
	}
	if err := b.Fetch(ctx, "origin", false, mustRefspecs(t)...); err == nil || lostThere(err) != left.OID {
		t.Fatalf("git fetch of a ref naming a lost object: %v, want git's \"not our ref %s\"", err, left.OID)
	}

	res := syncAt(t, b, 1)
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "which origin has lost (its gc raced a push): marked lost there") {
		t.Fatalf("b's sync warned %q, want the lost object named", res.Warnings)
	}
	// b cannot push it back: it deleted the ref (while it names a lost
	// object the remote takes no other push) and marked it lost.
	if ids, err := b.RemoteIDs(ctx, "origin", lostSpec); err != nil || ids[markRef(mainRef, left.OID)] == "" {
		t.Fatalf("marks at the remote: %v %v, want %s marked", ids, err, left.OID)
	}

	res = syncAt(t, a, 2)
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "healed origin's "+mainRef+": a teammate found it") {
		t.Fatalf("a's sync warned %q, want the heal", res.Warnings)
	}
	if out := strings.TrimSpace(git(t, tm.remote, "cat-file", "-t", left.OID)); out != "blob" {
		t.Fatalf("the remote holds %q for the baton after the heal", out)
	}
	// Only the all-clear is left there, back: no heal is half done.
	if ids, err := a.RemoteIDs(ctx, "origin", lostSpec); err != nil || len(ids) != 2 || ids[allClearRef] == "" || ids[trackedRef] == "" {
		t.Fatalf("marks left at the remote: %v %v, want only the all-clear", ids, err)
	}

	holdsHealed(t, b, 3, left)
}

// holdsHealed has st sync at minute min and checks it holds left, the
// baton a heal put back, waiting.
func holdsHealed(t *testing.T, st *refstore.Store, min int, left baton.Stored) {
	t.Helper()
	syncAt(t, st, min)
	if got := readBaton(t, st, mainRef); got.ID != left.ID || !got.Live() {
		t.Fatalf("%s holds %s (live %v), want the healed baton %s", st.Dir(), got.ID, got.Live(), left.ID)
	}
}

// A teammate's heal deleted a ref naming a lost object, with the
// all-clear, and has not yet marked it or pushed it back: the remote
// shows nothing there, as for a key never leased. Nothing new is decided
// there meanwhile — a lease take is refused as unreachable, saying why —
// and a sync pushes nothing; once the all-clear is back both go on. Real
// git, a real bare remote.
func TestNothingDecidedWhileAHealIsHalfDone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	syncAt(t, a, 0)
	syncAt(t, b, 0) // the first sync writes the all-clear, the next sees it
	syncAt(t, b, 0)
	if ids, err := b.RemoteIDs(ctx, "origin", lostSpec); err != nil || ids[allClearRef] == "" || ids[trackedRef] == "" {
		t.Fatalf("refs under %s after the first syncs: %v %v, want the all-clear", refstore.LostPrefix, ids, err)
	}
	// The teammate's heal, cut short after its deletion.
	git(t, tm.remote, "update-ref", "-d", allClearRef)

	_, err := leaseTake(ctx, b, "s-b", "key:deploy")
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "has not finished") {
		t.Fatalf("lease take during a heal: %v, want it refused as unreachable, naming the heal", err)
	}
	end(t, b, 0, "the next step")
	res, err := Sync(ctx, b, Options{Remote: "origin", Now: at(1), Retention: DefaultRetention})
	if err != nil || len(res.Pushed) != 0 || !strings.Contains(strings.Join(res.Warnings, "\n"), "nothing pushed") {
		t.Fatalf("sync during a heal: pushed %v, warnings %q, err %v; want nothing pushed, said", res.Pushed, res.Warnings, err)
	}
	if out := git(t, tm.remote, "for-each-ref", "refs/ao/handoffs/", "refs/ao/leases/"); strings.TrimSpace(out) != "" {
		t.Fatalf("the remote took %q during the heal", out)
	}

	// The heal finishes: the all-clear is back.
	empty := strings.TrimSpace(git(t, tm.remote, "hash-object", "-w", "/dev/null"))
	git(t, tm.remote, "update-ref", allClearRef, empty)
	if _, err := leaseTake(ctx, b, "s-b", "key:deploy"); err != nil {
		t.Fatalf("lease take once the heal finished: %v", err)
	}
	if res := syncAt(t, b, 1); len(res.Pushed) == 0 {
		t.Fatalf("sync once the heal finished pushed nothing: %+v", res)
	}
}

// The remote lost an archive month, and a sync deleted it there and
// marked it lost: a decision read against the remote's archive reads the
// month from a clone that holds it, and from one that does not is
// unreachable, naming the month — not "never retired there", which took a
// claimed baton for one never decided and delivered it twice (found by the
// simulation, seed 1796565202). Real git, a real bare remote.
func TestArchiveReadsAMonthMarkedLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tm, a, b := syncedPair(t)
	// A month's tree that only b holds, marked lost at the remote.
	mkTree := func(dir string) string {
		t.Helper()
		empty := strings.TrimSpace(git(t, dir, "hash-object", "-w", "/dev/null"))
		return strings.TrimSpace(gitIn(t, dir, "100644 blob "+empty+"\tb-lost.json\n", "mktree"))
	}
	month := mkTree(b.Dir())
	empty := strings.TrimSpace(git(t, tm.remote, "hash-object", "-w", "/dev/null"))
	git(t, tm.remote, "update-ref", markRef(refstore.ArchivePrefix+"2026-03", month), empty)

	_, err := remoteArchive(ctx, a, "origin")
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), refstore.ArchivePrefix+"2026-03") || !strings.Contains(err.Error(), month) {
		t.Fatalf("a's view of the archive with a month it lacks marked lost: %v, want unreachable, naming the month and its object", err)
	}
	av, err := remoteArchive(ctx, b, "origin")
	if err != nil || !slices.Contains(av.trees, month) {
		t.Fatalf("b's view of the archive with a month it holds marked lost: %v %v, want the month read from b", av.trees, err)
	}
}

// The remote's gc lost the all-clear's own object (git then takes no push
// that sends objects): the sync that meets it puts back a fresh
// all-clear, never the old blob, on which a late copy of a deletion could
// still hold a lease (the simulation's seed 1796571007), and pushes its
// own records in the same sync.
func TestAllClearWhoseObjectWasLostComesBackFresh(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm, a, b := syncedPair(t)
	old := loseAllClear(t, tm)
	end(t, b, 1, "the next step")
	// Before, the all-clear was marked lost like any record, and the
	// sync that found it held its own push back, waiting for the clone
	// holding the old blob to push it back.
	res := syncAt(t, b, 1)
	if len(res.Pushed) != 1 || res.Pushed[0].Ref != mainRef {
		t.Fatalf("b's sync pushed %+v (warnings %q), want its baton", res.Pushed, res.Warnings)
	}
	ids, err := a.RemoteIDs(ctx, "origin", lostSpec)
	if err != nil || ids[allClearRef] == "" || ids[allClearRef] == old || ids[trackedRef] == "" {
		t.Fatalf("the remote's all-clear after the heal: %v %v, want one other than the lost %s", ids, err, old)
	}
	if out := strings.TrimSpace(git(t, tm.remote, "cat-file", "-t", ids[allClearRef])); out != "blob" {
		t.Fatalf("the remote holds %q for its new all-clear", out)
	}
	res = syncAt(t, a, 2)
	if w := strings.Join(res.Warnings, "\n"); strings.Contains(w, "under way") || strings.Contains(w, "lost") {
		t.Fatalf("a's sync after the heal warned %q", w)
	}
	if got := readBaton(t, a, mainRef); !got.Live() {
		t.Fatalf("a holds %+v after the heal, want b's baton waiting", got)
	}
}

// A claim the arbiter refuses before it pushes anything, for a month of
// the remote's archive marked lost that this clone does not hold, claims
// nothing, and its note goes with the refusal: once the month is back,
// the claim of another session here takes the baton for itself, not for
// the session told "nothing was claimed" (found by the soak on git 2.55,
// false-lost-claims: such a note, kept, was pushed by the clone's next
// claim). Real git, a real bare remote.
func TestClaimRefusedForALostMonthLeavesNoNote(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tm := newTeam(t, 1)
	a := tm.clones[0]
	syncAt(t, a, 0)
	syncAt(t, a, 0) // the first sync writes the all-clear, the next sees it
	left := end(t, a, 1, "the next step")

	// A month's tree no clone holds, marked lost at the remote.
	elsewhere := filepath.Join(tm.dir, "elsewhere")
	git(t, tm.dir, "init", "-q", elsewhere)
	empty := strings.TrimSpace(git(t, elsewhere, "hash-object", "-w", "/dev/null"))
	month := strings.TrimSpace(gitIn(t, elsewhere, "100644 blob "+empty+"\tgone.json\n", "mktree"))
	mark := markRef(refstore.ArchivePrefix+"2026-03", month)
	git(t, tm.remote, "update-ref", mark, strings.TrimSpace(git(t, tm.remote, "hash-object", "-w", "/dev/null")))

	_, err := claim(a, "s-told-no", 2, Arbiter{})
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), month) {
		t.Fatalf("claim with a month marked lost that this clone lacks: %v, want unreachable, naming the month's object", err)
	}
	if ids, err := a.RemoteIDs(ctx, "origin", mainRef+":"+mainRef); err != nil || ids[mainRef] != "" {
		t.Fatalf("the remote's baton ref after the refused claim: %v %v, want nothing pushed", ids, err)
	}
	if names, err := a.Local().List("pending"); err != nil || len(names) != 0 {
		t.Fatalf("pending notes after a claim refused before any push: %q %v, want none", names, err)
	}

	// The month is back (its mark gone): the next claim here is its own.
	git(t, tm.remote, "update-ref", "-d", mark)
	res, err := claim(a, "s-next", 3, Arbiter{})
	if err != nil || res.Handoff.ID != left.ID || res.Handoff.ClaimedBySession != "s-next" {
		t.Fatalf("the next claim: %+v %v, want baton %s claimed by s-next", res.Handoff, err, left.ID)
	}
	if blob := git(t, tm.remote, "cat-file", "blob", mainRef); !strings.Contains(blob, `"claimedBySession":"s-next"`) {
		t.Fatalf("the remote records %s, want baton %s claimed by s-next", blob, left.ID)
	}
}

// A sync finishes a heal of its clone's that a kill cut short after its
// deletion (the ref and the all-clear gone at the remote): it pushes the
// ref back, then fetches, and the heal that follows the fetch leaves the
// ref alone. It took the ref just pushed back for one still naming a lost
// object and deleted it again, in a push that carried no all-clear when a
// note of the all-clear's own was settled by then: the ref emptied for
// good when the next push back got no answer (found by the simulation,
// seed 20071 of the widened run, a claimed baton then pushed back and
// dismissed). Real git, a real bare remote, whose pre-receive hook keeps
// every push's commands.
func TestHealLeavesAloneWhatItsSyncPushedBack(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm, a, b := syncedPair(t)
	left := end(t, a, 1, "the next step")
	syncAt(t, a, 1)
	if ids, err := a.RemoteIDs(ctx, "origin", lostSpec); err != nil || ids[allClearRef] == "" {
		t.Fatalf("refs under %s: %v %v, want the all-clear", refstore.LostPrefix, ids, err)
	}
	// a's heal of the baton, its object lost there, cut short after its
	// deletion: the note, the all-clear held away, both refs gone there.
	l := a.Local()
	if err := l.Write(ctx, healName(mainRef), []byte(mainRef+" "+left.OID+"\n")); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, tookName("origin"), nil); err != nil {
		t.Fatal(err)
	}
	git(t, tm.remote, "update-ref", "-d", mainRef)
	git(t, tm.remote, "update-ref", "-d", allClearRef)
	if err := os.Remove(filepath.Join(tm.remote, "objects", left.OID[:2], left.OID[2:])); err != nil {
		t.Fatal(err)
	}
	pushes := filepath.Join(tm.dir, "pushes.log")
	hook := "#!/bin/sh\ncat >> '" + pushes + "'\necho -- >> '" + pushes + "'\n"
	if err := os.WriteFile(filepath.Join(tm.remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}

	syncAt(t, a, 2)
	log, err := os.ReadFile(pushes)
	if err != nil {
		t.Fatal(err)
	}
	zero := strings.Repeat("0", len(left.OID))
	if !strings.Contains(string(log), zero+" "+left.OID+" "+mainRef) {
		t.Fatalf("the sync's pushes:\n%s\nwant the baton pushed back", log)
	}
	if strings.Contains(string(log), left.OID+" "+zero+" "+mainRef) {
		t.Fatalf("the sync's pushes:\n%s\nthe baton pushed back was deleted again", log)
	}
	ids, err := a.RemoteIDs(ctx, "origin", byOwnName)
	if err != nil || ids[mainRef] != left.OID || ids[allClearRef] == "" {
		t.Fatalf("the remote after the heal: %v %v, want the baton and the all-clear back", ids, err)
	}
	if tookClear(l, "origin") {
		t.Fatal("the all-clear is still held away after the heal")
	}
	// A later sync sees the baton there and drops the note.
	syncAt(t, a, 3)
	if _, err := l.Read(healName(mainRef)); err == nil {
		t.Fatal("the heal's note outlived a sync that saw the baton back")
	}
	holdsHealed(t, b, 4, left)
}

// A heal of an all-clear whose own object the remote lost deletes it and
// puts a fresh one back; when the putting back fails, the all-clear stays
// away, and it is this clone's heal that holds it so: its next syncs push
// and heal as its own. It wrote no note of that, so it waited, like every
// other clone, on "a teammate's heal"; and once another ref there named a
// lost object, the remote took neither the all-clear back (a push that
// sends objects) nor a deletion of that ref (no heal deletes while a
// teammate's is half done): every clone's pushes held for good (found by
// the simulation, seed 10: the all-clear's fresh blob lost at the push
// putting it back, a lease the same heal pushed back lost again). Real
// git, a real bare remote whose pre-receive hook refuses to take the
// all-clear back while a file says so.
func TestHealOfALostAllClearHoldsItAway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm, a, b := syncedPair(t)
	old := loseAllClear(t, tm)
	refuse := filepath.Join(tm.dir, "refuse")
	if err := os.WriteFile(refuse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hook := "#!/bin/sh\nwhile read old new ref; do\n" +
		"\tcase $old in *[!0]*) continue ;; esac\n" +
		"\tif [ \"$ref\" = " + allClearRef + " ] && [ -e '" + refuse + "' ]; then echo 'not now' >&2; exit 1; fi\n" +
		"done\n"
	if err := os.WriteFile(filepath.Join(tm.remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}

	// a's push meets the lost all-clear; its heal deletes it, and cannot
	// put it back. The heal is a's own: its baton goes all the same.
	left := end(t, a, 1, "the next step")
	res := syncAt(t, a, 1)
	if len(res.Pushed) != 1 || res.Pushed[0].Ref != mainRef {
		t.Fatalf("a's sync pushed %+v (warnings %q), want its baton: the heal holding the all-clear away is its own", res.Pushed, res.Warnings)
	}
	if ids, err := a.RemoteIDs(ctx, "origin", lostSpec); err != nil || ids[allClearRef] != "" {
		t.Fatalf("refs under %s: %v %v, want the all-clear still away", refstore.LostPrefix, ids, err)
	}
	if !tookClear(a.Local(), "origin") {
		t.Fatal("a's heal deleted the all-clear and notes no hold of it")
	}

	// The remote's gc loses the baton's object too: while that ref is
	// there, the remote takes no push that sends objects.
	if err := os.Remove(filepath.Join(tm.remote, "objects", left.OID[:2], left.OID[2:])); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(refuse); err != nil {
		t.Fatal(err)
	}
	// b waits on a's heal, rightly.
	if res := syncAt(t, b, 2); !strings.Contains(strings.Join(res.Warnings, "\n"), "under way") {
		t.Fatalf("b's sync during a's heal warned %q, want it to wait", res.Warnings)
	}
	// a finishes its heal: the baton pushed again, the all-clear back.
	syncAt(t, a, 3)
	ids, err := a.RemoteIDs(ctx, "origin", byOwnName)
	if err != nil || ids[mainRef] != left.OID || ids[allClearRef] == "" || ids[allClearRef] == old {
		t.Fatalf("the remote after a's heal: %v %v, want the baton %s and a fresh all-clear", ids, err, left.OID)
	}
	if out := strings.TrimSpace(git(t, tm.remote, "cat-file", "-t", left.OID)); out != "blob" {
		t.Fatalf("the remote holds %q for the baton after the heal", out)
	}
	if tookClear(a.Local(), "origin") {
		t.Fatal("the all-clear is back and a still notes it held away")
	}
	res = syncAt(t, b, 4)
	if w := strings.Join(res.Warnings, "\n"); strings.Contains(w, "under way") {
		t.Fatalf("b's sync after the heal warned %q", w)
	}
	if got := readBaton(t, b, mainRef); got.ID != left.ID || !got.Live() {
		t.Fatalf("b holds %s (live %v), want a's baton %s", got.ID, got.Live(), left.ID)
	}
}

// pushedBackBaton is a team of two whose first clone left a baton, synced
// it, and holds the note of a heal that pushed it back (its object lost at
// the remote), which stays until a sync of that clone sees it there.
func pushedBackBaton(t *testing.T, ctx context.Context) (*team, baton.Stored) {
	t.Helper()
	tm, a, _ := syncedPair(t)
	left := end(t, a, 1, "the next step")
	syncAt(t, a, 1)
	if err := a.Local().Write(ctx, healName(mainRef), []byte(mainRef+" "+left.OID+" "+healPushedBack+"\n")); err != nil {
		t.Fatal(err)
	}
	return tm, left
}

// A clone's heal pushed its baton back, and the ref is gone there again by
// the clone's next sync: the team claimed the baton and retired it, and
// the remote's gc then lost the archive month that holds it. The heal
// took the empty ref for a late copy of its own deletion and pushed the
// waiting copy back, and the baton was claimed a second time (found by
// the simulation, seed 24). It pushes back nothing until the archive can
// say, then retires its copy as the archive does. Real git, a real bare
// remote.
func TestHealPushesNothingBackThatTheRemoteRetired(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm, left := pushedBackBaton(t, ctx)
	a, b := tm.clones[0], tm.clones[1]
	l := a.Local()

	// b claims it; b's sync retires the claim to the archive.
	syncAt(t, b, 2)
	if res, err := claim(b, "s-b", 3, Arbiter{}); err != nil || res.Handoff.ID != left.ID {
		t.Fatalf("b's claim: %+v %v, want baton %s", res.Handoff, err, left.ID)
	}
	syncAt(t, b, 4)
	month := refstore.ArchivePrefix + archive.Month(at(3))
	if out := git(t, tm.remote, "for-each-ref", "--format=%(refname)", "refs/ao/handoffs/", month); strings.TrimSpace(out) != month {
		t.Fatalf("the remote's refs after b's sync: %q, want the claim retired to %s", out, month)
	}
	// The remote's gc loses the month.
	tip := strings.TrimSpace(git(t, tm.remote, "rev-parse", month))
	if err := os.Remove(filepath.Join(tm.remote, "objects", tip[:2], tip[2:])); err != nil {
		t.Fatal(err)
	}

	res := syncAt(t, a, 5)
	if ids, err := a.RemoteIDs(ctx, "origin", mainRef+":"+mainRef); err != nil || ids[mainRef] != "" {
		t.Fatalf("the remote's baton ref after a's sync: %v %v (warnings %q), want nothing pushed back", ids, err, res.Warnings)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "not pushed back until its archive says") {
		t.Fatalf("a's sync warned %q, want the baton held back, said", res.Warnings)
	}
	if _, err := l.Read(healName(mainRef)); err != nil {
		t.Fatalf("the heal's note went before the archive could say: %v", err)
	}

	// b holds the month and pushes it back; a reads it, and its waiting
	// copy retires as the claim did there.
	syncAt(t, b, 6)
	syncAt(t, a, 7)
	if ids, err := a.RemoteIDs(ctx, "origin", mainRef+":"+mainRef); err != nil || ids[mainRef] != "" {
		t.Fatalf("the remote's baton ref after a's syncs: %v %v, want nothing pushed back", ids, err)
	}
	if _, err := l.Read(healName(mainRef)); err == nil {
		t.Fatal("the heal's note outlived a sync that read the claim in the archive")
	}
	if _, err := baton.Read(ctx, a, mainRef); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("a's baton ref after the archive said it was claimed: %v, want it retired", err)
	}
	syncAt(t, b, 8)
	if res, err := claim(b, "s-b2", 9, Arbiter{}); err == nil && res.Handoff.ID == left.ID {
		t.Fatalf("baton %s, claimed by s-b, was claimed again by s-b2", left.ID)
	}
}

// A clone's heal pushed its baton back, and a late copy of the heal's own
// deletion, leased on that very object, took it again: the remote's
// archive holds nothing of the baton, and the next sync here pushes it
// back once more. Real git, a real bare remote.
func TestHealPushesBackWhatALateDeletionTook(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm, left := pushedBackBaton(t, ctx)
	a, b := tm.clones[0], tm.clones[1]
	git(t, tm.remote, "update-ref", "-d", mainRef, left.OID) // the late deletion

	syncAt(t, a, 2)
	if ids, err := a.RemoteIDs(ctx, "origin", mainRef+":"+mainRef); err != nil || ids[mainRef] != left.OID {
		t.Fatalf("the remote's baton ref after a's sync: %v %v, want %s pushed back", ids, err, left.OID)
	}
	syncAt(t, b, 3)
	if got := readBaton(t, b, mainRef); got.ID != left.ID || !got.Live() {
		t.Fatalf("b holds %s (live %v), want a's baton %s waiting", got.ID, got.Live(), left.ID)
	}
}

// A clone's heal noted holding the all-clear away, and its deletion never
// landed: a teammate's heal took the all-clear and put a fresh one back,
// or the ref it was to delete moved on. Then a teammate's heal takes the
// all-clear away and is cut short. The hold, kept, said the heal half
// done was this clone's own: its sync put the all-clear back in the
// middle of the teammate's heal and pushed over what that heal was to
// put back (found by the simulation, seed 1035 of the widened run with
// continuations: a claimed baton's waiting copy came back, and was
// cancelled). A sync whose listing shows the all-clear there ends a hold
// whose deletion can no longer land. Real git, a real bare remote.
func TestAHoldOfTheAllClearEndsWhenItsDeletionCannotLand(t *testing.T) {
	for _, since := range []string{"all-clear put back", "baton moved on"} {
		t.Run(since, func(t *testing.T) {
			tm, a, b := syncedPair(t)
			left := end(t, a, 1, "the first step")
			syncAt(t, a, 1) // a has seen the all-clear
			clear := strings.TrimSpace(git(t, tm.remote, "rev-parse", allClearRef))
			hold(t, a, mainRef, left.OID, allClearRef, clear)
			switch since {
			case "all-clear put back":
				git(t, tm.remote, "update-ref", allClearRef, freshClear(t, tm))
			case "baton moved on":
				syncAt(t, b, 2)
				end(t, b, 2, "the second step")
				syncAt(t, b, 2)
			}
			syncAt(t, a, 3)
			if tookClear(a.Local(), "origin") {
				t.Fatal("a still notes the all-clear held away after a sync that saw it there, its deletion unable to land")
			}

			// A teammate's heal, cut short after its deletion.
			git(t, tm.remote, "update-ref", "-d", allClearRef)
			end(t, a, 4, "the next step")
			res := syncAt(t, a, 4)
			if len(res.Pushed) != 0 || !strings.Contains(strings.Join(res.Warnings, "\n"), "nothing pushed") {
				t.Fatalf("a's sync during a teammate's heal: pushed %v, warnings %q; want nothing pushed, said", res.Pushed, res.Warnings)
			}
			if out := git(t, tm.remote, "for-each-ref", allClearRef); strings.TrimSpace(out) != "" {
				t.Fatalf("a put %q back during a teammate's heal", out)
			}
		})
	}
}

// A clone's heal noted holding the all-clear away and sent its deletion,
// which has not landed when the clone's next sync lists the remote: the
// all-clear is there, and so are the refs the deletion is leased on. The
// hold stays: the deletion, landing late, takes the all-clear away, and
// this clone's next sync puts it back. Dropped at the sight of the
// all-clear, the hold left every clone waiting on a heal nobody held
// (found by the simulation, seed 952 of the widened run, with a first fix
// of seed 1035). Real git, a real bare remote.
func TestAHoldWhoseDeletionCanLandStays(t *testing.T) {
	tm, a, _ := syncedPair(t)
	left := end(t, a, 1, "the first step")
	syncAt(t, a, 1)
	clear := strings.TrimSpace(git(t, tm.remote, "rev-parse", allClearRef))
	hold(t, a, mainRef, left.OID, allClearRef, clear)
	syncAt(t, a, 2)
	if !tookClear(a.Local(), "origin") {
		t.Fatal("a's hold went while its deletion could still land")
	}

	// The deletion lands late.
	git(t, tm.remote, "update-ref", "-d", mainRef, left.OID)
	git(t, tm.remote, "update-ref", "-d", allClearRef, clear)
	syncAt(t, a, 3)
	if got := strings.TrimSpace(git(t, tm.remote, "for-each-ref", "--format=%(objectname)", allClearRef)); got == "" || got == clear {
		t.Fatalf("the remote's all-clear after a's sync: %q, want a fresh one, put back by a", got)
	}
	if tookClear(a.Local(), "origin") {
		t.Fatal("a still notes the all-clear held away after putting it back")
	}
}

// hold writes st's note of holding origin's all-clear away, by a deletion
// leased on refs and objects (ref, object, ...), as deleteLost writes it.
func hold(t *testing.T, st *refstore.Store, leases ...string) {
	t.Helper()
	var gone []refstore.Update
	for i := 0; i+1 < len(leases); i += 2 {
		gone = append(gone, refstore.Update{Ref: leases[i], Old: leases[i+1]})
	}
	if err := st.Local().Write(context.Background(), tookName("origin"), holdNote(gone)); err != nil {
		t.Fatal(err)
	}
}

// freshClear writes a new all-clear blob at tm's remote, as a heal putting
// it back does, and returns it.
func freshClear(t *testing.T, tm *team) string {
	t.Helper()
	return strings.TrimSpace(gitIn(t, tm.remote, "all-clear "+t.Name()+"\n", "hash-object", "-w", "--stdin"))
}

// A clone noted a heal of its baton, and its deletion never landed; before
// it synced again, a teammate replaced the baton with a newer one, whose
// object the remote then lost too, and the teammate's heal of it was cut
// short after its deletion. The clone's sync took the empty ref for its
// own heal cut short and pushed its old baton back there, over the newer
// one the teammate's heal was to put back (the simulation's seed 1035 of
// the widened run with continuations). It puts nothing back while a
// teammate's heal is half done, and settles its note once that heal is
// done. Real git, a real bare remote.
func TestHealPutsNothingBackDuringATeammatesHeal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm, a, b := syncedPair(t)
	first := end(t, a, 1, "the first step")
	syncAt(t, a, 1) // the baton is there, and a has seen the all-clear
	if err := a.Local().Write(ctx, healName(mainRef), []byte(mainRef+" "+first.OID+"\n")); err != nil {
		t.Fatal(err)
	}
	syncAt(t, b, 2)
	second := end(t, b, 3, "the second step")
	syncAt(t, b, 3)
	if got := strings.TrimSpace(git(t, tm.remote, "rev-parse", mainRef)); got != second.OID {
		t.Fatalf("the remote's baton after b's sync: %s, want b's %s", got, second.OID)
	}
	// b's heal of it, cut short after its deletion.
	git(t, tm.remote, "update-ref", "-d", mainRef)
	git(t, tm.remote, "update-ref", "-d", allClearRef)

	res := syncAt(t, a, 4)
	if out := git(t, tm.remote, "for-each-ref", "refs/ao/handoffs/", allClearRef); strings.TrimSpace(out) != "" {
		t.Fatalf("a's sync during b's heal (warnings %q) put %q at the remote, want nothing", res.Warnings, out)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "under way") {
		t.Fatalf("a's sync during b's heal warned %q, want it to wait, said", res.Warnings)
	}
	if _, err := a.Local().Read(healName(mainRef)); err != nil {
		t.Fatalf("a's heal note went while b's heal was half done: %v", err)
	}

	// b's heal finishes: its baton and a fresh all-clear back.
	git(t, tm.remote, "update-ref", mainRef, second.OID)
	git(t, tm.remote, "update-ref", allClearRef, freshClear(t, tm))
	syncAt(t, a, 5)
	if got := strings.TrimSpace(git(t, tm.remote, "rev-parse", mainRef)); got != second.OID {
		t.Fatalf("the remote's baton after a's sync: %s, want b's %s", got, second.OID)
	}
	if _, err := a.Local().Read(healName(mainRef)); err == nil {
		t.Fatal("a's heal note outlived a sync that saw the ref moved on")
	}
	if got := readBaton(t, a, mainRef); got.ID != second.ID || !got.Live() {
		t.Fatalf("a holds %s (live %v), want b's baton %s waiting", got.ID, got.Live(), second.ID)
	}
}

// syncedPair is a team of two clones that have each synced once.
func syncedPair(t *testing.T) (tm *team, a, b *refstore.Store) {
	t.Helper()
	tm = newTeam(t, 2)
	a, b = tm.clones[0], tm.clones[1]
	syncAt(t, a, 0)
	syncAt(t, b, 0)
	return tm, a, b
}

// loseAllClear has tm's remote lose the all-clear's object, as its gc
// racing a push would, and returns that object.
func loseAllClear(t *testing.T, tm *team) string {
	t.Helper()
	old := strings.TrimSpace(git(t, tm.remote, "rev-parse", allClearRef))
	if err := os.Remove(filepath.Join(tm.remote, "objects", old[:2], old[2:])); err != nil {
		t.Fatal(err)
	}
	return old
}

// The remote's gc lost the tree of an archive month, not the commit its
// ref names (git's race of gc --prune=now with a push; found by the soak
// on git 2.55 with reftable and SHA-256, where two clones' syncs failed
// to the end): every git fetch of a clone that lacks the month fails
// whole ("possible repository corruption on the remote side"), while the
// clone that holds it never notices, its fetches needing nothing of it.
// The teammate's sync fetches the rest and marks the month lost there;
// the holder's next sync pushes it back, which sends the tree; then the
// teammate gets the month. Real git, a real bare remote.
func TestSyncHealsAMonthWhoseTreeTheRemoteLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm, a, b := syncedPair(t)
	end(t, b, 1, "the next step")
	syncAt(t, b, 1)
	if _, err := claim(b, "s-b", 2, Arbiter{}); err != nil {
		t.Fatal(err)
	}
	retireAt(t, b, 3) // the claimed baton retires into a month, pushed
	months := strings.Fields(git(t, tm.remote, "for-each-ref", "--format=%(refname)", refstore.ArchivePrefix))
	if len(months) != 1 {
		t.Fatalf("the remote's archive months: %q, want one", months)
	}
	month := months[0]
	commit := strings.TrimSpace(git(t, tm.remote, "rev-parse", month))
	tree := strings.TrimSpace(git(t, tm.remote, "rev-parse", month+"^{tree}"))
	// A push of a few objects is unpacked into loose ones
	// (transfer.unpackLimit): the gc race removes the tree.
	if err := os.Remove(filepath.Join(tm.remote, "objects", tree[:2], tree[2:])); err != nil {
		t.Fatalf("the month's tree is not a loose object at the remote: %v", err)
	}
	if err := a.Fetch(ctx, "origin", false, mustRefspecs(t)...); err == nil || !corruptThere(err) {
		t.Fatalf("git fetch of a month whose tree the remote lost: %v, want git's \"possible repository corruption on the remote side\"", err)
	}

	res := syncAt(t, a, 4)
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "which origin has lost (its gc raced a push): marked lost there") {
		t.Fatalf("a's sync warned %q, want the damaged month named", res.Warnings)
	}
	if ids, err := a.RemoteIDs(ctx, "origin", lostSpec); err != nil || ids[markRef(month, commit)] == "" {
		t.Fatalf("marks at the remote: %v %v, want %s marked", ids, err, month)
	}

	res = syncAt(t, b, 5)
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "healed origin's "+month+": a teammate found it") {
		t.Fatalf("b's sync warned %q, want the heal", res.Warnings)
	}
	if out := strings.TrimSpace(git(t, tm.remote, "cat-file", "-t", tree)); out != "tree" {
		t.Fatalf("the remote holds %q for the month's tree after the heal", out)
	}
	git(t, tm.remote, "fsck", "--no-dangling")

	syncAt(t, a, 6)
	if got := strings.TrimSpace(git(t, a.Dir(), "rev-parse", month)); got != commit {
		t.Fatalf("a's %s after the heal: %s, want the remote's %s", month, got, commit)
	}
}

// What the arbiter holds at a ref marked lost there cannot be said: the
// ref was deleted for an object its gc lost, so "nothing there" is not
// "nothing held". Held refuses (UnreachableError naming the object) until
// the mark goes; a cancel in flight settled on its "nothing" was
// recorded over a claim the remote had lost (CI's all-faults seed 6056).
func TestHeldRefusesWhileTheRefIsMarkedLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tm := newTeam(t, 1)
	a := tm.clones[0]
	syncAt(t, a, 0)
	syncAt(t, a, 0) // the first sync writes the all-clear, the next sees it
	left := end(t, a, 1, "the next step")
	syncAt(t, a, 2)
	if held, err := (Arbiter{}).Held(ctx, a, mainRef); err != nil || held != left.OID {
		t.Fatalf("Held before the mark: %q %v, want %s", held, err, left.OID)
	}

	// The remote lost a claim of the baton, no clone holds it, and a
	// heal deleted the ref there and marked it.
	elsewhere := filepath.Join(tm.dir, "elsewhere")
	git(t, tm.dir, "init", "-q", elsewhere)
	gone := strings.TrimSpace(gitIn(t, elsewhere, `{"claimed":true}`, "hash-object", "-w", "--stdin"))
	mark := markRef(mainRef, gone)
	git(t, tm.remote, "update-ref", mark, strings.TrimSpace(git(t, tm.remote, "hash-object", "-w", "/dev/null")))
	git(t, tm.remote, "update-ref", "-d", mainRef)

	held, err := (Arbiter{}).Held(ctx, a, mainRef)
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), gone) {
		t.Fatalf("Held with the ref marked lost: %q %v, want unreachable, naming the lost object", held, err)
	}

	git(t, tm.remote, "update-ref", "-d", mark)
	if held, err := (Arbiter{}).Held(ctx, a, mainRef); err != nil || held == gone {
		t.Fatalf("Held once the mark is gone: %q %v", held, err)
	}
}

// The remote marks a's waiting baton lost (its gc raced a push, a
// teammate's sync found it), and before a pushes it back the team moves
// on: b claims the baton and its sync retires the claim. a's sync then
// finds the mark and an empty ref; pushing its waiting copy back there
// would bring a baton claimed and retired back to life (the simulation's
// seed 1478 found it with a session: a replaced session's first version
// pushed back read replacedBy "" for good). The mark goes, and nothing is
// pushed back. The mark is written at the bare remote by hand: on real
// git, the sync that would have pushed it back first has to fail between
// its heal and its join, which the simulation injects. Real git, a real
// bare remote.
func TestHealPushesBackNoLostVersionTheRemoteRetired(t *testing.T) {
	tm, a, b := syncedPair(t)
	left := end(t, a, 1, "the next step")
	syncAt(t, a, 1)
	syncAt(t, b, 2)
	if res, err := claim(b, "s-b", 3, Arbiter{}); err != nil || res.Handoff.ID != left.ID {
		t.Fatalf("b's claim: %+v %v, want baton %s", res.Handoff, err, left.ID)
	}
	syncAt(t, b, 4)
	if out := git(t, tm.remote, "for-each-ref", "--format=%(refname)", mainRef); out != "" {
		t.Fatalf("the remote's baton ref after b's sync: %q, want the claim retired", out)
	}
	empty := git(t, tm.remote, "hash-object", "-w", "--stdin")
	git(t, tm.remote, "update-ref", markRef(mainRef, left.OID), empty)

	res := syncAt(t, a, 5)
	if strings.Contains(strings.Join(res.Warnings, "\n"), "healed origin's "+mainRef) {
		t.Errorf("a's sync warned %q: it pushed the retired baton back", res.Warnings)
	}
	if out := git(t, tm.remote, "for-each-ref", "--format=%(refname)", mainRef, refstore.LostPrefix+left.OID+"/"); out != "" {
		t.Fatalf("the remote holds %q after a's sync, want neither the baton nor its mark", out)
	}
	if _, err := claim(b, "s-b2", 6, Arbiter{}); err == nil {
		t.Fatalf("baton %s, claimed by s-b, was claimed again", left.ID)
	}
}
