package teamsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
	"github.com/git-handoff/git-handoff/session"
)

// blobOf stores rec as a record's blob and returns its id.
func blobOf(t *testing.T, st *refstore.Store, rec any) string {
	t.Helper()
	data, err := refstore.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	oid, err := st.WriteBlob(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	return oid
}

// put writes rec at ref, as a record of its kind.
func put(t *testing.T, st *refstore.Store, ref string, rec any) {
	t.Helper()
	ctx := context.Background()
	oid := blobOf(t, st, rec)
	old, _ := refstore.ResolveID(ctx, st, ref)
	if err := st.Apply(ctx, "test", refstore.Update{Ref: ref, Old: old, New: oid}); err != nil {
		t.Fatal(err)
	}
}

func sess(id, status, supersedes string, ended int) session.Record {
	r := session.Record{Schema: session.Schema, ID: id, Owner: "dev", Branch: "main", Status: status, Supersedes: supersedes, CreatedAt: at(ended - 5), UpdatedAt: at(ended)}
	if status != session.StatusActive {
		r.EndedAt = atp(ended)
	}
	return r
}

func sessRef(t *testing.T, id string) string {
	ref, err := refstore.SessionRef(id)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// Retirement moves final records to the archive on both sides at the
// first sync that sees them final, keeps what a live session needs, and
// every clone ends up with the same live refs and the same archive; an
// archived session is still found, and a clone's stale live copy of a
// record retired elsewhere retires too.
func TestRetentionMovesFinalRecordsToTheArchive(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// s-old ended; s-prev too, but the active s-live replaced it; s-owner
	// ended and owns an open pull request; s-recent ended just now,
	// after s-old; s-gone is active, and ends later on a only.
	for _, r := range []session.Record{
		sess("s-old", session.StatusEnded, "", 0),
		sess("s-prev", session.StatusReplaced, "", 0),
		sess("s-live", session.StatusActive, "s-prev", 10),
		sess("s-owner", session.StatusEnded, "", 0),
		sess("s-recent", session.StatusEnded, "s-old", 30),
		sess("s-gone", session.StatusActive, "", 5),
	} {
		put(t, a, sessRef(t, r.ID), r)
	}
	open7, _ := refstore.PRRef("o", "r", 7)
	merged8, _ := refstore.PRRef("o", "r", 8)
	put(t, a, open7, prown.Record{Schema: prown.Schema, Number: 7, Repo: "o/r", OwnerSession: "s-owner", ClaimedAt: at(0)})
	put(t, a, merged8, prown.Record{Schema: prown.Schema, Number: 8, Repo: "O/R", OwnerSession: "s-old", ClaimedAt: at(0), MergedAt: atp(1)})

	res := syncAt(t, a, 1)
	if res.Retired != 3 {
		t.Fatalf("retired %d, want s-old, s-recent and pull request 8: %+v", res.Retired, res)
	}
	live := func(dir string) string {
		return git(t, dir, "for-each-ref", "--format=%(refname)", "refs/ao/sessions/", "refs/ao/prs/")
	}
	want := strings.Join([]string{"refs/ao/prs/o/r/7", sessRef(t, "s-gone"), sessRef(t, "s-live"), sessRef(t, "s-owner"), sessRef(t, "s-prev")}, "\n")
	for _, dir := range []string{a.Dir(), tm.remote} {
		if got := live(dir); got != want {
			t.Errorf("%s live records:\n%s\nwant\n%s", dir, got, want)
		}
	}
	month := archive.Month(at(0))
	if got := git(t, tm.remote, "ls-tree", "-r", "--name-only", "refs/ao/archive/"+month); got != "prs/o/r/8\nsessions/s-old\nsessions/s-recent" {
		t.Errorf("the remote's archive of %s holds:\n%s", month, got)
	}
	syncAt(t, b, 2)

	// a ends s-gone; b still holds it active. a's sync retires it; b's
	// next sync finds its copy behind the archived one and retires it too,
	// pushing nothing back.
	if _, err := session.Modify(ctx, a, "s-gone", "test", func(s *session.Record) error {
		s.Status, s.EndedAt, s.UpdatedAt = session.StatusEnded, atp(6), at(6)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if res := syncAt(t, a, 7); res.Retired != 1 {
		t.Fatalf("a's sync after ending s-gone: %+v", res)
	}
	want = strings.Join([]string{"refs/ao/prs/o/r/7", sessRef(t, "s-live"), sessRef(t, "s-owner"), sessRef(t, "s-prev")}, "\n")
	if res := syncAt(t, b, 8); len(res.Pushed) != 0 || res.Retired != 1 {
		t.Errorf("b's sync: %+v", res)
	}
	for _, dir := range []string{a.Dir(), b.Dir(), tm.remote} {
		if got := live(dir); got != want {
			t.Errorf("%s live records:\n%s\nwant\n%s", dir, got, want)
		}
	}
	if ga, gb := git(t, a.Dir(), "rev-parse", "refs/ao/archive/"+month), git(t, b.Dir(), "rev-parse", "refs/ao/archive/"+month); ga != gb {
		t.Errorf("the clones' archives differ: %s and %s", ga, gb)
	}
	for _, id := range []string{"s-old", "s-gone"} {
		found, err := session.Find(ctx, open(t, b.Dir()), id)
		if err != nil || found.Archived != month || found.Status != session.StatusEnded {
			t.Fatalf("the archived session %s is not found: %+v %v", id, found, err)
		}
		if _, err := session.Read(ctx, b, id); !errors.Is(err, refstore.ErrNotFound) {
			t.Errorf("the retired session %s is still live: %v", id, err)
		}
	}
	if pr, err := prown.Find(ctx, open(t, b.Dir()), "o/r", 8); err != nil || pr.Archived != month || !pr.Merged() {
		t.Errorf("the merged pull request's record is not found: %+v %v", pr, err)
	}
	// s-recent replaced s-old, both archived now: not a broken link.
	_, notices, err := handoff.SessionListEach(ctx, open(t, b.Dir()), handoff.SessionListOptions{All: true}, func(r *session.Record) string { return r.ID })
	if err != nil || len(notices) != 0 {
		t.Errorf("session ls after retirement: %q %v", notices, err)
	}
	// A listing of all reaches back into the archive as far as asked
	// (`session ls --all`: the retention age), the archived marked.
	for since, want := range map[int]string{20: "s-live s-owner s-prev s-recent", 0: "s-live s-owner s-prev s-gone s-old s-recent"} {
		items, _, err := handoff.SessionListEach(ctx, open(t, b.Dir()), handoff.SessionListOptions{All: true, Recent: at(since)}, func(r *session.Record) string { return r.ID })
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range items {
			if (it.Archived != "") != (it.V == "s-recent" || it.V == "s-old" || it.V == "s-gone") {
				t.Errorf("since %d: %s listed with archived %q", since, it.V, it.Archived)
			}
			got = append(got, it.V)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("session ls --all since %d: %q, want %q", since, strings.Join(got, " "), want)
		}
	}
	if RetireDue(b, "origin", at(8).Add(time.Hour)) {
		t.Errorf("retirement is due again an hour after a sync judged every record")
	}
}

// Two clones retiring into the same month keep both's records: the months
// join by their union.
func TestArchiveMonthsJoin(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	put(t, a, sessRef(t, "s-a"), sess("s-a", session.StatusEnded, "", 0))
	put(t, b, sessRef(t, "s-b"), sess("s-b", session.StatusEnded, "", 1))
	later := int(DefaultRetention/time.Minute) + 100
	// Each retires its own session before it learns of the other's.
	retireAt(t, a, later)
	if _, err := Sync(context.Background(), b, Options{Remote: "origin", Now: at(later), Retention: DefaultRetention, Retire: true}); err != nil {
		t.Fatal(err)
	}
	syncAt(t, a, later+1)
	month := archive.Month(at(0))
	for _, dir := range []string{a.Dir(), b.Dir(), tm.remote} {
		if got := git(t, dir, "ls-tree", "-r", "--name-only", "refs/ao/archive/"+month); got != "sessions/s-a\nsessions/s-b" {
			t.Errorf("%s: the archive holds\n%s", dir, got)
		}
		if got := git(t, dir, "for-each-ref", "refs/ao/sessions/"); got != "" {
			t.Errorf("%s: live sessions left:\n%s", dir, got)
		}
	}
}

// A session's snapshot retires with it, here and on the remote; the
// snapshot of a session still live stays.
func TestSnapshotRetiresWithItsSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tm := newTeam(t, 1)
	a := tm.clones[0]
	snap := func(id string, min int) {
		t.Helper()
		if _, err := handoff.Start(ctx, a, handoff.StartOptions{Session: id, Owner: "dev", Branch: "main"}, clock(min)); err != nil {
			t.Fatal(err)
		}
		gittest.WriteFile(t, a.Dir(), id+".txt", []byte("work\n"))
		if _, err := handoff.End(ctx, a, handoff.EndOptions{Session: id, Owner: "dev", Branch: "main", Next: []string{"go on"}, Snapshot: true}, clock(min+1)); err != nil {
			t.Fatal(err)
		}
	}
	// s-old's snapshot waits with its baton, at the remote too; s-new
	// claims that baton, and the sync that sees it retires s-old and its
	// snapshot, here and there. s-new's waits with its own baton.
	snap("s-old", 0)
	if res := syncAt(t, a, 2); len(res.Snapshots) != 1 {
		t.Fatalf("s-old's snapshot was not pushed: %+v", res.Snapshots)
	}
	snap("s-new", 10)
	res := syncAt(t, a, 20)
	snaps := 0
	for _, c := range res.Snapshots {
		if c.Reason == "retired" && c.Ref == "refs/ao/snapshots/s-old" {
			snaps++
		}
	}
	if snaps != 2 {
		t.Errorf("the snapshot of s-old did not retire here and at the remote: %+v", res.Snapshots)
	}
	for _, dir := range []string{a.Dir(), tm.remote} {
		if got := git(t, dir, "for-each-ref", "--format=%(refname)", "refs/ao/snapshots/"); got != "refs/ao/snapshots/s-new" {
			t.Errorf("%s snapshots: %q", dir, got)
		}
	}
}

// TestRetentionOfThousands: retention retires thousands of sessions in
// one sync, here and at the remote (the archive month pushed before the
// deletions), and the month's archive holds every one. It runs over the in-memory twins (memstore): the point is the
// workflow at that size, and with real git it took 80 s of make test.
// What git adds at that size, one push's arguments past refstore's bound
// split into several pushes, is refstore's TestPushOfThousandsGoesInChunks,
// which make test runs.
func TestRetentionOfThousands(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Setenv("GIT_HANDOFF_SESSION", "")
	const remote = "mem://team/remote.git"
	net := memstore.NewNetwork()
	origin, err := net.NewRepository(remote, refstore.FormatSHA1)
	if err != nil {
		t.Fatal(err)
	}
	a, err := net.NewClone(remote, "/mem/a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Init(ctx, a, "origin"); err != nil {
		t.Fatal(err)
	}
	const n = 6000
	ups := make([]refstore.Update, 0, n)
	for i := range n {
		r := sess(fmt.Sprintf("s-%05d", i), session.StatusEnded, "", 0)
		data, err := refstore.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		oid, err := a.WriteBlob(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		ups = append(ups, refstore.Update{Ref: sessRef(t, r.ID), New: oid})
	}
	if err := a.Apply(ctx, "test", ups...); err != nil {
		t.Fatal(err)
	}
	// The remote holds them live too, as one that a release before
	// retirement was immediate filled: the sync that meets it retires
	// them there.
	for _, u := range ups {
		if _, err := origin.WriteBlob(ctx, mustBlob(t, a, u.New)); err != nil {
			t.Fatal(err)
		}
	}
	if err := origin.Apply(ctx, "test", ups...); err != nil {
		t.Fatal(err)
	}
	type lister interface {
		RefIDs(ctx context.Context, prefix string) ([]refstore.RefID, error)
		ListTree(ctx context.Context, tree, dir string) ([]refstore.TreeEntry, error)
	}
	live := func(st lister) int {
		t.Helper()
		ids, err := st.RefIDs(ctx, "refs/ao/sessions/")
		if err != nil {
			t.Fatal(err)
		}
		return len(ids)
	}
	if got := live(origin); got != n {
		t.Fatalf("the remote holds %d sessions, want %d", got, n)
	}
	// Nothing differs between the two sides: what judges them is the
	// retirement due now and then, which the first sync of this release
	// finds due (RetireDue).
	if !RetireDue(a, "origin", at(1)) {
		t.Fatal("retirement is not due at a clone's first sync")
	}
	res, err := Sync(ctx, a, Options{Remote: "origin", Now: at(1), Retire: true})
	if err != nil {
		t.Fatalf("retiring sync: %v", err)
	}
	if res.Retired != n {
		t.Fatalf("retired %d, want %d", res.Retired, n)
	}
	for name, st := range map[string]lister{"the clone": a, "the remote": origin} {
		if got := live(st); got != 0 {
			t.Errorf("%s: %d live sessions left", name, got)
		}
		list, err := st.ListTree(ctx, "refs/ao/archive/"+archive.Month(at(0)), "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(list) != n {
			t.Errorf("%s: the archive holds %d sessions, want %d", name, len(list), n)
		}
	}
}

// mustBlob is the content of blob oid in st.
func mustBlob(t *testing.T, st refstore.Records, oid string) []byte {
	t.Helper()
	e, err := st.ReadObject(context.Background(), oid)
	if err != nil {
		t.Fatal(err)
	}
	return e.Data
}

func count(t *testing.T, dir, prefix string) int {
	t.Helper()
	return len(strings.Fields(git(t, dir, "for-each-ref", "--format=x", prefix)))
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "720h": 720 * time.Hour, "1d": 24 * time.Hour, "never": Never, "0": Never, " 7d ": 7 * 24 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "30", "-1d", "0d", "d", "1w", "-5h", "99999999d", "forever"} {
		if got, err := ParseAge(in); err == nil {
			t.Errorf("ParseAge(%q) = %v, want an error", in, got)
		}
	}
}

// handoff.retention wins over the older handoff.tombstoneMaxAge, which is
// read when it is unset; a bad value is an error naming the key.
func TestRetentionConfig(t *testing.T) {
	tm := newTeam(t, 1)
	dir := tm.clones[0].Dir()
	age := func() (time.Duration, error) { return Retention(context.Background(), open(t, dir)) }
	if d, err := age(); err != nil || d != DefaultRetention {
		t.Fatalf("unset: %v %v", d, err)
	}
	git(t, dir, "config", MaxAgeKey, "48h")
	if d, err := age(); err != nil || d != 48*time.Hour {
		t.Fatalf("the older key: %v %v", d, err)
	}
	git(t, dir, "config", RetentionKey, "never")
	if d, err := age(); err != nil || d != Never {
		t.Fatalf("never: %v %v", d, err)
	}
	git(t, dir, "config", RetentionKey, "soon")
	if _, err := age(); err == nil || !strings.Contains(err.Error(), RetentionKey) {
		t.Fatalf("a bad value: %v", err)
	}
}

// Retirement racing a teammate who changes the record it retires: a ends
// a session and its sync retires it while b, holding it active, writes a
// summary and syncs. Whatever the interleaving, the clones and the remote
// end up agreeing, and b's version is either what they keep (live, or in
// the archive) or reported to b as a conflict: never dropped unsaid.
func TestRetentionRacingAWriter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	for round := range 6 {
		id := fmt.Sprintf("s-race%d", round)
		put(t, a, sessRef(t, id), sess(id, session.StatusActive, "", 0))
		syncAt(t, a, 1)
		syncAt(t, b, 1)
		summary := fmt.Sprintf("written by b in round %d", round)
		errs := make(chan error, 2)
		var told []Conflict
		go func() {
			sa := open(t, a.Dir())
			if _, err := session.Modify(ctx, sa, id, "test: end", func(r *session.Record) error {
				r.Status, r.EndedAt, r.UpdatedAt = session.StatusEnded, atp(2), at(2)
				return nil
			}); err != nil {
				errs <- err
				return
			}
			_, err := Sync(ctx, sa, Options{Remote: "origin", Now: at(3)})
			errs <- err
		}()
		go func() {
			sb := open(t, b.Dir())
			if _, err := session.SetSummary(ctx, sb, id, summary, at(2)); err != nil {
				errs <- err
				return
			}
			res, err := Sync(ctx, sb, Options{Remote: "origin", Now: at(3)})
			told = append(told, res.Conflicts...)
			errs <- err
		}()
		for range 2 {
			if err := <-errs; err != nil && !errors.Is(err, refstore.ErrConflict) {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		// Both settle.
		for i, st := range []*refstore.Store{a, b, a, b} {
			res := syncAt(t, st, 4+i)
			if st == b {
				told = append(told, res.Conflicts...)
			}
		}
		var kept []string
		for _, st := range []*refstore.Store{a, b, open(t, tm.remote)} {
			got, err := session.Find(ctx, st, id)
			if err != nil {
				t.Fatalf("round %d: %s: %v", round, st.Dir(), err)
			}
			kept = append(kept, got.OID)
			if got.Summary != summary && len(told) == 0 {
				t.Fatalf("round %d: b's summary is neither kept (%s has %+v) nor reported", round, st.Dir(), got.Record)
			}
		}
		if kept[0] != kept[1] || kept[1] != kept[2] {
			t.Fatalf("round %d: the clones and the remote disagree: %v", round, kept)
		}
	}
}

// A ref of ours naming an object a gc pruned (a hold of a decision in
// flight, here) stops every git fetch: sync and a start's fetch remove it
// and go on.
func TestFetchHealsARefNamingAPrunedObject(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := end(t, a, 0, "write the parser")
	syncAt(t, a, 1)
	for _, st := range []*refstore.Store{a, b} {
		oid := git(t, st.Dir(), "hash-object", "-w", "--stdin", "--path", "x")
		git(t, st.Dir(), "update-ref", "refs/ao/inflight/vm/1-claim/0", oid)
		if err := os.Remove(filepath.Join(st.Dir(), ".git", "objects", oid[:2], oid[2:])); err != nil {
			t.Skipf("the object is not loose here (%v): nothing to prune by hand", err)
		}
	}
	// b's start fetches the batons waiting: it heals, and claims.
	res, err := handoff.Start(ctx, open(t, b.Dir()), handoff.StartOptions{Session: "s-b", Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(2))
	if err != nil || res.Handoff == nil || res.Handoff.ID != h.ID || !res.Claimed {
		t.Fatalf("start past a dangling ref: %+v %v (notices %q)", res.Handoff, err, res.Notices)
	}
	// a's sync heals and says so.
	sres, err := Sync(ctx, open(t, a.Dir()), Options{Remote: "origin", Now: at(3)})
	if err != nil {
		t.Fatalf("sync past a dangling ref: %v", err)
	}
	if !hasWarning(sres.Warnings, "removed refs/ao/inflight/vm/1-claim/0") {
		t.Errorf("sync did not say what it removed: %q", sres.Warnings)
	}
	for _, st := range []*refstore.Store{a, b} {
		if out := git(t, st.Dir(), "for-each-ref", "refs/ao/inflight/"); out != "" {
			t.Errorf("%s: the dangling ref is still there: %s", st.Dir(), out)
		}
	}
}

// A claim's push the remote refuses whole (its hook said no) landed
// nowhere: the session is told it did not claim, and no note is left for
// the next claim to complete at the arbiter on that session's behalf.
func TestRefusedClaimLeavesNothingToSettle(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := end(t, a, 0, "write the parser")
	syncAt(t, a, 1)
	syncAt(t, b, 1)
	hook := filepath.Join(tm.remote, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'no, not now' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := handoff.Start(ctx, b, handoff.StartOptions{Session: "s-refused", Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(2))
	if err != nil || res.Claimed || !hasWarning(res.Notices, "was not claimed") {
		t.Fatalf("a start whose claim was refused: claimed %v, %v, notices %q", res.Claimed, err, res.Notices)
	}
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	got, err := claim(b, "s-next", 3, Arbiter{})
	if err != nil || got.Handoff.ID != h.ID {
		t.Fatalf("the next claim: %+v %v", got, err)
	}
	if hasWarning(got.Notices, "s-refused") {
		t.Errorf("the next claim completed the refused session's claim: %q", got.Notices)
	}
	if out := git(t, tm.remote, "cat-file", "-p", mainRef); !strings.Contains(out, `"claimedBySession":"s-next"`) {
		t.Errorf("the remote holds %s", out)
	}
}

// A baton the lazy merge drops by tie-break goes to the archive here at
// once, as sync's join keeps what it drops: its live ref retires with the
// claimed baton that beat it, and that ref's reflog with it, and a gc
// then left the notes of a successful end nowhere (found by the soak).
func TestLazyMergeArchivesTheBatonItDrops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	end(t, a, 0, "first")
	syncAt(t, a, 1)
	syncAt(t, b, 1)
	if _, err := claim(b, "s-b", 3, Arbiter{}); err != nil {
		t.Fatal(err)
	}
	// a, not knowing of the claim, has a baton of its own there, written
	// without seeing the first (no prev): concurrent with the claim, which
	// has more writes and wins.
	dropped := baton.Baton{Schema: baton.Schema, ID: "h-dropped", Owner: "dev", Branch: "main", NextSteps: []string{"my notes"}, CreatedAt: at(4), Cause: refstore.Cause{Rev: 1}}
	put(t, a, mainRef, dropped)
	fetchRecords(t, a)
	res, err := Lazy(ctx, a)
	if err != nil || len(res.Conflicts) != 1 || res.Conflicts[0].KeptFrom != "remote" {
		t.Fatalf("lazy merge: %+v %v", res, err)
	}
	// The claimed baton retires at a's sync; the dropped one stays in
	// the archive, here and at the remote, through a gc that prunes.
	syncAt(t, a, 5)
	git(t, a.Dir(), "gc", "-q", "--prune=now")
	for _, st := range []*refstore.Store{a, open(t, tm.remote)} {
		e, month, err := archive.Find(ctx, st, "handoffs/h-dropped")
		if err != nil || !strings.Contains(string(e.Data), "my notes") {
			t.Fatalf("%s: the dropped baton is not archived: %q %s %v", st.Dir(), e.Data, month, err)
		}
	}
	if got := lastBaton(t, a, mainRef); got.ClaimedBySession != "s-b" {
		t.Fatalf("a: %+v", got.Baton)
	}
}

// A session retired at the sync after its end is still restored in place:
// its archived version goes back live and the restore is written after
// it, so the next sync keeps the revived session live, on both sides.
func TestRestoreOfARetiredSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	if _, err := handoff.Start(ctx, a, handoff.StartOptions{Session: "s-a", Owner: "dev", Branch: "main", Harness: "claude-code"}, clock(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := handoff.EndSession(ctx, a, "s-a", session.EndAgentExit, clock(2)); err != nil {
		t.Fatal(err)
	}
	if res := syncAt(t, a, 3); res.Retired == 0 {
		t.Fatalf("the ended session did not retire: %+v", res)
	}
	if _, err := session.Read(ctx, a, "s-a"); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("s-a is still live: %v", err)
	}
	res, err := handoff.SessionRestore(ctx, a, handoff.SessionRelaunchOptions{ID: "s-a", By: "test", Prompt: "go on"}, clock(4))
	if err != nil || res.Session.Status != session.StatusActive {
		t.Fatalf("restore of a retired session: %+v, %v", res.Session.Record, err)
	}
	syncAt(t, a, 5)
	syncAt(t, b, 6)
	for _, st := range []*refstore.Store{a, b} {
		got, err := session.Read(ctx, st, "s-a")
		if err != nil || got.Status != session.StatusActive {
			t.Fatalf("%s: the restored session after sync: %+v %v", st.Dir(), got.Record, err)
		}
	}
}

// A session started in a worktree here and ended on another clone retires
// at the sync that brings its end: the worktrees bound to it (this one,
// and the session's own linked worktree) are unbound first, so no binding
// names a ref that is gone (git fsck fails on one), while a worktree bound
// to a live session stays bound.
func TestSyncUnbindsASessionEndedElsewhere(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	there, live := filepath.Join(tm.dir, "wt-there"), filepath.Join(tm.dir, "wt-live")
	git(t, b.Dir(), "worktree", "add", "-q", "-b", "there", there)
	git(t, b.Dir(), "worktree", "add", "-q", "-b", "live", live)
	for id, dir := range map[string]string{"s-here": b.Dir(), "s-there": there, "s-live": live} {
		r := sess(id, session.StatusActive, "", 0)
		r.Worktree = dir
		put(t, b, sessRef(t, id), r)
		git(t, dir, "symbolic-ref", refstore.WorktreeSession, sessRef(t, id))
	}
	syncAt(t, b, 1)
	syncAt(t, a, 2)
	for _, id := range []string{"s-here", "s-there"} {
		if _, err := session.Modify(ctx, a, id, "test", func(s *session.Record) error {
			s.Status, s.EndedAt, s.UpdatedAt = session.StatusEnded, atp(3), at(3)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if res := syncAt(t, a, 4); res.Retired != 2 {
		t.Fatalf("a's sync after ending two sessions retired %d: %+v", res.Retired, res)
	}
	res := syncAt(t, b, 5)
	if res.Retired != 2 || len(res.Unbound) != 2 {
		t.Errorf("b's sync retired %d and unbound %q: want 2 and 2", res.Retired, res.Unbound)
	}
	for dir, want := range map[string]string{b.Dir(): "", there: "", live: sessRef(t, "s-live")} {
		cmd := exec.CommandContext(ctx, "git", "symbolic-ref", "-q", refstore.WorktreeSession)
		cmd.Dir = dir
		out, _ := cmd.Output()
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s is bound to %q, want %q", dir, got, want)
		}
	}
	cmd := exec.CommandContext(ctx, "git", "fsck", "--no-dangling")
	cmd.Dir = b.Dir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("git fsck in b: %v\n%s", err, out)
	}
}
