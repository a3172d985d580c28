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
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// gitEnv isolates the tests from the user's git configuration.
func gitEnv(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "t@example.com",
		"GIT_TERMINAL_PROMPT": "0", "GIT_HANDOFF_SESSION": "",
	} {
		t.Setenv(k, v)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func open(t testing.TB, dir string) *refstore.Store {
	t.Helper()
	st, err := refstore.Open(context.Background(), dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// team is a bare remote and clones of it, each set up by Init.
type team struct {
	dir    string
	remote string // path or URL the clones use
	clones []*refstore.Store
}

func newTeam(t *testing.T, n int) *team {
	t.Helper()
	gitEnv(t)
	dir := t.TempDir()
	tm := &team{dir: dir, remote: filepath.Join(dir, "remote.git")}
	git(t, dir, "init", "-q", "--bare", "remote.git")
	seed := filepath.Join(dir, "seed")
	git(t, dir, "init", "-q", seed)
	git(t, seed, "commit", "-q", "--allow-empty", "-m", "first")
	git(t, seed, "push", "-q", tm.remote, "main")
	for i := 0; i < n; i++ {
		tm.clones = append(tm.clones, tm.clone(t, fmt.Sprintf("clone%d", i), tm.remote))
	}
	return tm
}

func (tm *team) clone(t *testing.T, name, url string) *refstore.Store {
	t.Helper()
	git(t, tm.dir, "clone", "-q", url, name)
	st := open(t, filepath.Join(tm.dir, name))
	if _, err := Init(context.Background(), st, "origin"); err != nil {
		t.Fatal(err)
	}
	return st
}

func clock(min int) handoff.Clock { return func() time.Time { return at(min) } }

// retireAt is syncAt judging every record for collection, as retention
// does now and then.
func retireAt(t *testing.T, st *refstore.Store, min int) Result {
	t.Helper()
	res, err := Sync(context.Background(), st, Options{Remote: "origin", Now: at(min), Retention: DefaultRetention, Retire: true})
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return res
}

// fetchRecords fetches origin's records into the tracking refs, as a
// claim's fetch from the arbiter does, merging nothing.
func fetchRecords(t *testing.T, st *refstore.Store) {
	t.Helper()
	if _, err := fetchPatiently(context.Background(), st, "origin", mustRefspecs(t), 1); err != nil {
		t.Fatal(err)
	}
}

func syncAt(t *testing.T, st *refstore.Store, min int) Result {
	t.Helper()
	res, err := Sync(context.Background(), st, Options{Remote: "origin", Now: at(min), Retention: DefaultRetention})
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return res
}

func end(t *testing.T, st *refstore.Store, min int, next string) baton.Stored {
	t.Helper()
	res, err := handoff.End(context.Background(), st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{next}}, clock(min))
	if err != nil {
		t.Fatal(err)
	}
	return res.Handoff
}

func claim(st *refstore.Store, session string, min int, arb handoff.Arbiter) (handoff.ClaimResult, error) {
	return handoff.Claim(context.Background(), st, handoff.ClaimOptions{Session: session, Owner: "dev", Branch: "main", Arbiter: arb}, clock(min))
}

const mainRef = "refs/ao/handoffs/private/dev/main"

// trackMainRef is mainRef's copy from origin.
const trackMainRef = "refs/ao/remotes/origin/handoffs/private/dev/main"

func readBaton(t *testing.T, st *refstore.Store, ref string) baton.Stored {
	t.Helper()
	b, err := baton.Read(context.Background(), st, ref)
	if err != nil {
		t.Fatalf("reading %s: %v", ref, err)
	}
	return b
}

// lastBaton is the baton ref's current version: the live one, else, once
// it retired (claimed, cancelled), the newest floor the archive keeps of
// the ref (archive.KeyDir), by write count.
func lastBaton(t *testing.T, st *refstore.Store, ref string) baton.Stored {
	t.Helper()
	ctx := context.Background()
	b, err := baton.Read(ctx, st, ref)
	if !errors.Is(err, refstore.ErrNotFound) {
		if err != nil {
			t.Fatalf("reading %s: %v", ref, err)
		}
		return b
	}
	dir, err := archive.KeyDir(ref)
	if err != nil {
		t.Fatal(err)
	}
	months, err := archive.Months(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	var best baton.Stored
	var rev uint64
	for _, m := range months {
		floors, err := st.ListTree(ctx, m.OID, dir)
		if err != nil {
			t.Fatalf("listing %s in %s: %v", dir, m.Ref, err)
		}
		for _, f := range floors {
			e, err := st.ReadObject(ctx, f.OID)
			if err != nil {
				t.Fatal(err)
			}
			e.Ref = ref
			v, err := baton.Decode(e)
			if err != nil {
				t.Fatalf("floor %s: %v", f.Path, err)
			}
			if r := refstore.RevOf(e.Data).Rev; best.ID == "" || r > rev {
				best, rev = v, r
			}
		}
	}
	if best.ID == "" {
		t.Fatalf("%s: no baton live or archived at %s", st.Dir(), ref)
	}
	return best
}

func TestInitLeavesFetchRefspecsAlone(t *testing.T) {
	tm := newTeam(t, 1)
	st := tm.clones[0]
	res, err := Init(context.Background(), st, "origin")
	if err != nil || res.Changed() {
		t.Fatalf("second init: %+v %v", res, err)
	}
	if specs := git(t, st.Dir(), "config", "--get-all", "remote.origin.fetch"); specs != "+refs/heads/*:refs/remotes/origin/*" {
		t.Errorf("init changed the fetch refspecs:\n%s", specs)
	}
	if got := strings.TrimSpace(git(t, st.Dir(), "config", "--get-all", RemoteKey)); got != "origin" {
		t.Errorf("git config %s = %q, want origin once", RemoteKey, got)
	}
	if out, _ := exec.Command("git", "-C", st.Dir(), "config", "--get-all", "remote.origin.push").Output(); len(out) != 0 {
		t.Errorf("init added push refspecs: %s", out)
	}
	if _, err := Init(context.Background(), st, "nosuch"); !errors.Is(err, ErrUnknownRemote) {
		t.Errorf("unknown remote: %v", err)
	}
}

// A clone set up by an earlier init has our fetch refspecs: the next sync
// takes them out (and says so), names the remote in handoff.remote, and
// the user's own refspecs stay as they were.
func TestSyncMigratesEarlierFetchRefspecs(t *testing.T) {
	tm := newTeam(t, 1)
	st := tm.clones[0]
	dir := st.Dir()
	git(t, dir, "config", "--unset-all", RemoteKey)
	legacy := []string{"+refs/ao/handoffs/*:refs/ao/remotes/origin/handoffs/*", "+refs/ao/sessions/*:refs/ao/remotes/origin/sessions/*", "+refs/ao/config/*:refs/ao/arbiters/origin/*"}
	for _, s := range legacy {
		git(t, dir, "config", "--add", "remote.origin.fetch", s)
	}
	git(t, dir, "config", "--add", "remote.origin.fetch", "+refs/notes/*:refs/notes/*")
	st2 := open(t, dir)
	if ok, err := Initialized(context.Background(), st2, "origin"); err != nil || !ok {
		t.Fatalf("a clone with the earlier refspecs is set up: %v %v", ok, err)
	}
	res := syncAt(t, st2, 1)
	if !hasWarning(res.Warnings, "took 3 fetch refspec(s)") {
		t.Errorf("no notice of the migration: %q", res.Warnings)
	}
	specs := git(t, dir, "config", "--get-all", "remote.origin.fetch")
	if specs != "+refs/heads/*:refs/remotes/origin/*\n+refs/notes/*:refs/notes/*" {
		t.Errorf("fetch refspecs after the migration:\n%s", specs)
	}
	if got := strings.TrimSpace(git(t, dir, "config", "--get-all", RemoteKey)); got != "origin" {
		t.Errorf("git config %s = %q", RemoteKey, got)
	}
	res = syncAt(t, open(t, dir), 2)
	if hasWarning(res.Warnings, "fetch refspec") {
		t.Errorf("second sync migrated again: %q", res.Warnings)
	}
}

// retired reports whether changes retire ref.
func retired(changes []Change, ref string) bool {
	for _, c := range changes {
		if c.Ref == ref && c.Reason == "retired" && c.New == "" {
			return true
		}
	}
	return false
}

func hasWarning(ws []string, part string) bool {
	for _, w := range ws {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

func TestSyncCarriesBatonAndClaim(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	h := end(t, a, 0, "write the parser")
	res := syncAt(t, a, 1)
	if len(res.Pushed) != 1 || res.Pushed[0].Ref != mainRef {
		t.Fatalf("pushed %+v", res.Pushed)
	}
	// preserved refs belong to another tool: never pushed.
	git(t, a.Dir(), "update-ref", "refs/ao/preserved/x", h.OID)
	syncAt(t, b, 2)
	got := readBaton(t, b, mainRef)
	if got.ID != h.ID || !got.Live() {
		t.Fatalf("b has %+v", got)
	}
	if _, err := claim(b, "s-b", 3, Arbiter{}); err != nil {
		t.Fatal(err)
	}
	if out := git(t, tm.remote, "cat-file", "-p", mainRef); !strings.Contains(out, `"claimedBySession":"s-b"`) {
		t.Fatalf("remote was not told of the claim: %s", out)
	}
	// A second claimer, even one that never synced, loses at the remote.
	_, err := claim(a, "s-a", 5, Arbiter{})
	var ce *baton.ClaimedError
	if !errors.As(err, &ce) || ce.Baton.ClaimedBySession != "s-b" {
		t.Fatalf("second claim: %v", err)
	}
	syncAt(t, a, 4)
	if got := lastBaton(t, a, mainRef); !got.Claimed || got.ClaimedBySession != "s-b" {
		t.Fatalf("a has %+v", got)
	}
	if out, _ := exec.Command("git", "-C", tm.remote, "for-each-ref", "refs/ao/preserved/").Output(); len(out) != 0 {
		t.Fatalf("preserved ref pushed: %s", out)
	}

}

func TestClaimLosesAtRemoteAndLocalAdopts(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	end(t, a, 0, "next")
	syncAt(t, a, 1)
	syncAt(t, b, 1)
	if _, err := claim(a, "s-a", 2, Arbiter{}); err != nil {
		t.Fatal(err)
	}
	_, err := claim(b, "s-b", 2, Arbiter{})
	var ce *baton.ClaimedError
	if !errors.As(err, &ce) || ce.Baton.ClaimedBySession != "s-a" || !errors.Is(err, refstore.ErrConflict) {
		t.Fatalf("b's claim: %v", err)
	}
	if got := readBaton(t, b, mainRef); got.ClaimedBySession != "s-a" {
		t.Fatalf("b's local ref: %+v", got.Baton)
	}
	// start degrades to a notice and no baton.
	res, err := handoff.Start(context.Background(), b, handoff.StartOptions{Session: "s-c", Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(3))
	if err != nil || res.Claimed {
		t.Fatalf("start: %+v %v", res, err)
	}
}

func TestStartNoticeWhenRemoteClaimedFirst(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	end(t, a, 0, "next")
	syncAt(t, a, 1)
	syncAt(t, b, 1)
	if _, err := claim(a, "s-a", 2, Arbiter{}); err != nil {
		t.Fatal(err)
	}
	res, err := handoff.Start(context.Background(), b, handoff.StartOptions{Session: "s-b", Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(3))
	if err != nil {
		t.Fatal(err)
	}
	if res.Claimed || !strings.Contains(strings.Join(res.Notices, "\n"), "s-a") {
		t.Fatalf("start: claimed=%v notices=%q", res.Claimed, res.Notices)
	}
}

func TestUnreachableRemoteClaimsNothing(t *testing.T) {
	tm := newTeam(t, 1)
	a := tm.clones[0]
	end(t, a, 0, "next")
	syncAt(t, a, 1)
	// The remote goes away (its URL stays, so it is still the arbiter).
	if err := os.Rename(tm.remote, filepath.Join(tm.dir, "gone.git")); err != nil {
		t.Fatal(err)
	}
	_, err := claim(a, "s-a", 2, Arbiter{})
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--offline") {
		t.Fatalf("claim: %v", err)
	}
	if got := readBaton(t, a, mainRef); !got.Live() {
		t.Fatal("claimed locally despite the remote being unreachable")
	}
	// start still starts the session, neither claiming nor showing the
	// baton, and says why.
	res, err := handoff.Start(context.Background(), a, handoff.StartOptions{Session: "s-start", Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(2))
	if err != nil || res.Claimed || res.Handoff != nil || strings.Contains(res.Brief, "Active Session Handoff") {
		t.Fatalf("start while unreachable: %+v, %v", res, err)
	}
	if len(res.Notices) == 0 || !strings.Contains(strings.Join(res.Notices, "\n"), "was not claimed") {
		t.Fatalf("start notices: %q", res.Notices)
	}
	if got := readBaton(t, a, mainRef); !got.Live() {
		t.Fatal("start claimed locally despite the remote being unreachable")
	}
	if _, err := claim(a, "s-a", 2, handoff.Local{}); err != nil {
		t.Fatalf("offline claim: %v", err)
	}
}

func TestOfflineClaimsSettledBySync(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	end(t, a, 0, "next")
	syncAt(t, a, 1)
	syncAt(t, b, 1)
	if _, err := claim(a, "s-late", 5, handoff.Local{}); err != nil {
		t.Fatal(err)
	}
	if _, err := claim(b, "s-early", 3, handoff.Local{}); err != nil {
		t.Fatal(err)
	}
	lost := readBaton(t, a, mainRef)
	syncAt(t, a, 6)
	res := syncAt(t, b, 7) // b's earlier claim beats a's pushed one
	if len(res.Conflicts) != 1 || res.Conflicts[0].KeptFrom != "local" || !strings.Contains(res.Conflicts[0].Diff, `"claimedBySession": "s-late"`) {
		t.Fatalf("conflicts %+v", res.Conflicts)
	}
	res = syncAt(t, a, 8)
	if len(res.Conflicts) != 1 || res.Conflicts[0].KeptFrom != "remote" || !strings.Contains(res.Conflicts[0].Summary, "s-early") {
		t.Fatalf("a's conflicts %+v", res.Conflicts)
	}
	// The session that lost hears that another has the task too.
	if why := res.Conflicts[0].Why; !strings.Contains(why, "two sessions claimed the baton, and each may have been handed it") {
		t.Fatalf("a's conflict says why %q, want both claims named as handed", why)
	}
	for _, st := range []*refstore.Store{a, b} {
		if got := lastBaton(t, st, mainRef); got.ClaimedBySession != "s-early" {
			t.Fatalf("%s has %+v", st.Dir(), got.Baton)
		}
	}
	// A claim is final: both retired at once, a's first (the remote never
	// held it live), so the loser is kept where its retirement put it: a
	// tree a's archive month named before the join replaced it (git
	// resolves <ref>@{N}).
	month := archive.Ref(archive.Month(at(5)))
	var kept bool
	for _, tree := range gittest.ReflogOIDs(t, a.Dir(), month) {
		kept = kept || strings.Contains(git(t, a.Dir(), "ls-tree", "-r", tree), lost.OID)
	}
	if !kept {
		t.Fatalf("loser %s is in no tree of %s's reflog", lost.OID, month)
	}
}

func TestCancelIsNotUndoneByFetch(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	h := end(t, a, 0, "next")
	syncAt(t, a, 1)
	syncAt(t, b, 1)
	if _, err := baton.Delete(context.Background(), a, h, "cancelled", at(2)); err != nil {
		t.Fatal(err)
	}
	syncAt(t, b, 3) // b still holds it live and pushes nothing new
	// A cancel is final: the sync that carries it retires it, here and
	// at the remote.
	if res := syncAt(t, a, 4); res.Retired != 1 || !retired(res.Local, mainRef) || len(res.Pushed) == 0 {
		t.Fatalf("a's sync: %+v", res)
	}
	// b's waiting copy is behind what the archive holds: it retires too,
	// and b is told.
	if res := syncAt(t, b, 5); !hasWarning(res.Warnings, "retired") {
		t.Fatalf("b's sync: %+v", res)
	}
	for _, st := range []*refstore.Store{a, b} {
		if got := lastBaton(t, st, mainRef); got.Deleted == nil {
			t.Fatalf("%s: cancelled baton came back: %+v", st.Dir(), got.Baton)
		}
		list, _, err := baton.List(context.Background(), st, baton.Filter{All: true})
		if err != nil || len(list) != 0 {
			t.Fatalf("list --all shows %+v %v", list, err)
		}
	}
	if _, err := a.Get(context.Background(), mainRef); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("tombstone left: %v", err)
	}
	if out, _ := exec.Command("git", "-C", tm.remote, "for-each-ref", mainRef).Output(); len(out) != 0 {
		t.Fatalf("tombstone left on the remote: %s", out)
	}
}

func TestUntrustedRemoteRecordsAreSkipped(t *testing.T) {
	tm := newTeam(t, 1)
	a := tm.clones[0]
	mine := end(t, a, 0, "mine")
	syncAt(t, a, 1)
	// A hostile or broken teammate's records, written straight to the remote.
	put := func(ref, content string) {
		f := filepath.Join(tm.dir, "blob")
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		oid := git(t, tm.remote, "hash-object", "-w", f)
		git(t, tm.remote, "update-ref", ref, oid)
	}
	put(mainRef, "not json")
	put("refs/ao/handoffs/private/eve/main", `{"schema":"handoff/v9"}`)
	put("refs/ao/handoffs/private/mallory/main", `{"schema":"handoff/v1","id":"h-x","owner":"dev","branch":"main"}`)
	put("refs/ao/sessions/s-big", `{"schema":"session/v1","id":"s-big","summary":"`+strings.Repeat("x", refstore.MaxRecord)+`"}`)
	res := syncAt(t, a, 2)
	warn := strings.Join(res.Warnings, "\n")
	for _, ref := range []string{"refs/ao/remotes/origin/handoffs/private/dev/main", "refs/ao/remotes/origin/handoffs/private/eve/main", "refs/ao/remotes/origin/handoffs/private/mallory/main", "refs/ao/remotes/origin/sessions/s-big"} {
		if !strings.Contains(warn, ref) {
			t.Errorf("no warning names %s:\n%s", ref, warn)
		}
	}
	if len(res.Local) != 0 || len(res.Pushed) != 0 {
		t.Fatalf("sync changed something: %+v", res)
	}
	if got := readBaton(t, a, mainRef); got.OID != mine.OID {
		t.Fatal("local baton lost")
	}
}

func TestLostLeaseFetchesAndMergesAgain(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	end(t, a, 0, "from a")
	syncAt(t, a, 1)
	// A teammate's push lands between a's fetch and a's push: the remote's
	// pre-receive hook plays the teammate, once.
	bOID := func() string {
		// b has seen a's first baton, as a has: b's and a's next batons
		// are concurrent (one rev), and the clock decides.
		syncAt(t, b, 2)
		end(t, b, 5, "from b, newer")
		return readBaton(t, b, mainRef).OID
	}()
	git(t, b.Dir(), "push", "-q", tm.remote, bOID+":refs/teammate/blob") // the object must be on the remote
	a2 := end(t, a, 3, "from a, again")
	hook := filepath.Join(tm.remote, "hooks", "pre-receive")
	script := fmt.Sprintf("#!/bin/sh\ncat >/dev/null\n[ -e %[1]s/raced ] && exit 0\ntouch %[1]s/raced\nunset GIT_QUARANTINE_PATH\ngit update-ref %[2]s %[3]s\nexit 0\n", tm.dir, mainRef, bOID)
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	res := syncAt(t, a, 6)
	if res.Attempts != 2 {
		t.Fatalf("attempts %d, want 2 (one lost lease)", res.Attempts)
	}
	if got := readBaton(t, a, mainRef); got.OID != bOID {
		t.Fatalf("a kept %s (its own %s), want the newer %s", got.OID, a2.OID, bOID)
	}
}

// replacedInA has session s-1 start active in a, both clones sync, and a
// replace it by s-2 (minute 2), unsynced.
func replacedInA(t *testing.T, a, b *refstore.Store) {
	t.Helper()
	ctx := context.Background()
	s := session.Record{ID: "s-1", Owner: "dev", Branch: "main", Status: session.StatusActive, CreatedAt: at(0), UpdatedAt: at(0)}
	if _, err := session.Create(ctx, a, s, "test"); err != nil {
		t.Fatal(err)
	}
	syncAt(t, a, 1)
	syncAt(t, b, 1)
	if _, err := session.Modify(ctx, a, "s-1", "test", func(s *session.Record) error {
		s.Status, s.ReplacedBy, s.UpdatedAt = session.StatusReplaced, "s-2", at(2)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestSessionsStayReplaced(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ctx := context.Background()
	replacedInA(t, a, b)
	if _, err := session.Modify(ctx, b, "s-1", "test", func(s *session.Record) error {
		s.Summary, s.UpdatedAt = "still going", at(9) // newer, but not replaced
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	syncAt(t, a, 10)
	// a's sync retired the replaced s-1 at once; b's concurrent copy
	// joins with the archived version, and loses, as it would have to
	// the live one.
	if res := syncAt(t, b, 11); len(res.Conflicts) != 1 || res.Conflicts[0].KeptFrom != "remote" {
		t.Fatalf("b's sync: conflicts %+v", res.Conflicts)
	}
	syncAt(t, a, 12)
	for _, st := range []*refstore.Store{a, b} {
		if _, err := session.Read(ctx, st, "s-1"); !errors.Is(err, refstore.ErrNotFound) {
			t.Fatalf("%s: the replaced session is still live: %v", st.Dir(), err)
		}
		got, err := session.Find(ctx, st, "s-1")
		if err != nil || got.ReplacedBy != "s-2" || got.Status != session.StatusReplaced {
			t.Fatalf("%s: %+v %v", st.Dir(), got.Record, err)
		}
	}
}

// A plain git fetch brings no records (init leaves the fetch refspecs
// alone); a fetch of ours that does not merge (a claim's fetch from the
// arbiter) is merged by the next command.
func TestLazyMergeAfterAFetchOfOurs(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	h := end(t, a, 0, "next")
	syncAt(t, a, 1)
	ctx := context.Background()
	git(t, b.Dir(), "fetch", "-q")
	if out := git(t, b.Dir(), "for-each-ref", "refs/ao/"); strings.Contains(out, "handoffs") {
		t.Fatalf("a plain fetch brought records:\n%s", out)
	}
	if res, err := Lazy(ctx, b); err != nil || len(res.Merged) != 0 {
		t.Fatalf("nothing fetched yet: %+v %v", res, err)
	}
	fetchRecords(t, b)
	res, err := Lazy(ctx, b)
	if err != nil || len(res.Merged) != 1 {
		t.Fatalf("lazy: %+v %v", res, err)
	}
	if got := readBaton(t, b, mainRef); got.ID != h.ID {
		t.Fatalf("b has %+v", got)
	}
	// nothing new: no work, not even a read of the tracking refs
	start := time.Now()
	if res, err := Lazy(ctx, b); err != nil || len(res.Merged) != 0 {
		t.Fatalf("again: %+v %v", res, err)
	}
	t.Logf("idle lazy check: %v", time.Since(start))
	// after sync, a fetch that brings nothing new merges nothing
	syncAt(t, b, 2)
	fetchRecords(t, b)
	if res, err := Lazy(ctx, b); err != nil || len(res.Merged) != 0 {
		t.Fatalf("after sync: %+v %v", res, err)
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	end(t, a, 0, "next")
	res, err := Sync(context.Background(), a, Options{Remote: "origin", Now: at(1), DryRun: true})
	if err != nil || len(res.Pushed) != 1 {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	syncAt(t, b, 2)
	if _, err := b.Get(context.Background(), mainRef); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatal("dry run pushed")
	}
}

// A clone away longer than the tombstone age holds a baton that was
// cancelled and collected meanwhile: sync withholds it rather than push it
// back to the team, until it changes here. A remote at a new URL is not
// taken for one that dropped everything.
func TestAwayCloneDoesNotBringCollectedBatonBack(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	h := end(t, a, 0, "next")
	syncAt(t, a, 1)
	syncAt(t, b, 1) // b saw the live baton at the remote, then went away
	if _, err := baton.Delete(context.Background(), a, h, "cancelled", at(2)); err != nil {
		t.Fatal(err)
	}
	// The cancel is final: the sync that carries it retires it.
	if res := syncAt(t, a, 3); res.Retired != 1 || !retired(res.Local, mainRef) {
		t.Fatalf("collect: %+v", res)
	}
	later := 4
	onRemote := func() string {
		out, _ := exec.Command("git", "-C", tm.remote, "for-each-ref", mainRef).Output()
		return string(out)
	}

	// b's waiting copy was decided (cancelled) and retired at the remote:
	// the archive says so, so it goes here too, told as retired, and is
	// never pushed back (nor claimable: it was cancelled).
	res := syncAt(t, b, later+1)
	if len(res.Withheld) != 0 || len(res.Pushed) != 0 || res.Retired != 1 || len(res.Local) == 0 || res.Local[0].Ref != mainRef || res.Local[0].New != "" || res.Local[0].Reason != "retired" {
		t.Fatalf("away clone's sync: %+v", res)
	}
	if got := onRemote(); got != "" {
		t.Fatalf("the collected baton is back on the remote: %s", got)
	}
	if _, err := baton.Read(context.Background(), b, mainRef); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("b still holds its stale copy: %v", err)
	}
	if res := syncAt(t, b, later+2); len(res.Withheld) != 0 || len(res.Pushed) != 0 || len(res.Local) != 0 {
		t.Fatalf("second sync: %+v", res)
	}
	if got, err := claim(b, "s-b", later+3, handoff.Local{}); err == nil && got.Handoff.ID == h.ID {
		t.Fatalf("b claimed the cancelled baton: %+v", got)
	}

	// A remote pointed somewhere new is not one that dropped records:
	// it gets the archive this clone holds.
	git(t, tm.dir, "init", "-q", "--bare", "moved.git")
	git(t, b.Dir(), "remote", "set-url", "origin", filepath.Join(tm.dir, "moved.git"))
	if res := syncAt(t, b, later+5); len(res.Withheld) != 0 || len(res.Pushed) != 1 || res.Pushed[0].Reason != "archived" {
		t.Fatalf("sync with a new remote: %+v", res)
	}
}

// A sync with nothing new costs what changed: nothing. It reads no record
// (a malformed one both sides hold alike is not even looked at; a sync
// that retires reads it and says so) and moves no ref.
func TestSyncWithNothingNewReadsAndWritesNothing(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ctx := context.Background()
	end(t, a, 0, "next")
	syncAt(t, a, 1)
	syncAt(t, b, 2)
	bad := git(t, a.Dir(), "hash-object", "-w", "--stdin")
	const badRef = "refs/ao/sessions/s-bad"
	git(t, a.Dir(), "update-ref", badRef, bad)
	git(t, a.Dir(), "push", "-q", "origin", badRef+":"+badRef)
	git(t, a.Dir(), "update-ref", "refs/ao/remotes/origin/sessions/s-bad", bad)
	// The remote moved since a's last sync (the push above): that sync
	// judges every record, and says the malformed one is skipped.
	if res := syncAt(t, a, 3); !hasWarning(res.Warnings, "skipping "+badRef) {
		t.Errorf("a sync that judges every record reads the malformed one too: %q", res.Warnings)
	}

	refs := func() string { return git(t, a.Dir(), "for-each-ref", "refs/ao/") }
	logs := func() int {
		return len(gittest.ReflogMessages(t, a.Dir(), mainRef)) + len(gittest.ReflogMessages(t, a.Dir(), trackMainRef))
	}
	beforeRefs, beforeLogs := refs(), logs()
	res, err := Sync(ctx, open(t, a.Dir()), Options{Remote: "origin", Now: at(3), Retention: DefaultRetention})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 || len(res.Local) != 0 || len(res.Pushed) != 0 || res.Records != 2 {
		t.Fatalf("sync with nothing new: %+v", res)
	}
	if after := refs(); after != beforeRefs {
		t.Errorf("refs moved:\n%s\nthen\n%s", beforeRefs, after)
	}
	if after := logs(); after != beforeLogs {
		t.Errorf("reflogs grew from %d to %d entries", beforeLogs, after)
	}
	res = retireAt(t, open(t, a.Dir()), 4)
	if !hasWarning(res.Warnings, "skipping "+badRef) {
		t.Errorf("a sync that retires reads every record, the malformed one too: %q", res.Warnings)
	}
}

// A session replaced here and written concurrently as active elsewhere,
// retired here by a sync that died once it had applied its join (its
// push and its notes never made): neither a command's lazy merge nor the
// next sync takes the remote's active copy for news, though the seen note
// does not name it and the teammate wrote the session again meanwhile.
// Each joins it with the archive here, and the session stays replaced
// on every clone.
func TestSessionRetiredByASyncThatDiedStaysReplaced(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ctx := context.Background()
	replacedInA(t, a, b)
	still := func(min int, summary string) {
		t.Helper()
		if _, err := session.Modify(ctx, b, "s-1", "test", func(s *session.Record) error {
			s.Summary, s.UpdatedAt = summary, at(min)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		syncAt(t, b, min+1)
	}
	still(3, "still going")
	// a's sync joins b's copy (the replaced version wins), retires s-1
	// here and cannot push; the notes are put back as they were before
	// it, as a kill after its local writes leaves them.
	seenPath, err := remoteNote("seen", "origin")
	if err != nil {
		t.Fatal(err)
	}
	seenBefore, err := a.Local().Read(seenPath)
	if err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(tm.remote, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ncat >/dev/null\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(ctx, a, Options{Remote: "origin", Now: at(5), Retention: DefaultRetention}); err == nil {
		t.Fatal("a's sync pushed through a remote that refuses every push")
	}
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	if err := a.Local().Write(ctx, seenPath, seenBefore); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Read(ctx, a, "s-1"); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("a's sync did not retire s-1 here: %v", err)
	}
	still(6, "more")
	fetchRecords(t, a)
	if res, err := Lazy(ctx, a); err != nil {
		t.Fatal(err)
	} else if _, err := session.Read(ctx, a, "s-1"); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("the lazy merge took b's active copy back: %+v %v", res, err)
	}
	if res := syncAt(t, a, 8); len(res.Conflicts) != 1 {
		t.Errorf("a's sync: conflicts %+v, want b's active copy dropped", res.Conflicts)
	}
	syncAt(t, b, 9)
	for _, st := range []*refstore.Store{a, b, open(t, tm.remote)} {
		if _, err := session.Read(ctx, st, "s-1"); !errors.Is(err, refstore.ErrNotFound) {
			t.Fatalf("%s: s-1 is live again: %v", st.Dir(), err)
		}
		got, err := session.Find(ctx, st, "s-1")
		if err != nil || got.ReplacedBy != "s-2" || got.Status != session.StatusReplaced {
			t.Fatalf("%s: %+v %v", st.Dir(), got.Record, err)
		}
	}
}
