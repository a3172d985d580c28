package handoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/teamsync"
)

// These tests run the workflows over the in-memory twins (memstore): no
// git process is started. They say that every workflow depends on the
// roles only, and what each does to the records.

const teamRemote = "mem://team"

// twinClone is a clone of the team's remote in memory, its user set.
func twinClone(t *testing.T, net *memstore.Network, name string) *memstore.Clone {
	t.Helper()
	c, err := net.NewClone(teamRemote, "/mem/"+name)
	if err != nil {
		t.Fatal(err)
	}
	c.Configure("user.email", "dev@example.com")
	return c
}

func twinNetwork(t *testing.T) *memstore.Network {
	t.Helper()
	t.Setenv("GIT_HANDOFF_SESSION", "")
	net := memstore.NewNetwork()
	if _, err := net.NewRepository(teamRemote, refstore.FormatSHA1); err != nil {
		t.Fatal(err)
	}
	return net
}

// twinTeam is two clones of one remote, each set up with init.
func twinTeam(t *testing.T, ctx context.Context) (a, b *memstore.Clone) {
	t.Helper()
	net := twinNetwork(t)
	a, b = twinClone(t, net, "a"), twinClone(t, net, "b")
	for _, c := range []*memstore.Clone{a, b} {
		if _, err := teamsync.Init(ctx, c, "origin"); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

func twinCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startIn starts session id in c, as from a worktree of its own.
func startIn(t *testing.T, ctx context.Context, c refstore.Clone, id string, arb handoff.Arbiter) handoff.StartResult {
	t.Helper()
	if err := c.Unbind(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := handoff.Start(ctx, c, handoff.StartOptions{Session: id, Harness: "claude-code", Arbiter: arb}, clock)
	if err != nil {
		t.Fatalf("start %s: %v", id, err)
	}
	return res
}

func endWith(t *testing.T, ctx context.Context, c refstore.Clone, id, next string) baton.Stored {
	t.Helper()
	res, err := handoff.End(ctx, c, handoff.EndOptions{Session: id, Next: []string{next}}, clock)
	if err != nil || !res.Left {
		t.Fatalf("end %s: %+v, %v", id, res, err)
	}
	return res.Handoff
}

func TestTwinBatonIsClaimedOnceCancelledDismissedAndRestored(t *testing.T) {
	ctx := twinCtx(t)
	c := twinClone(t, twinNetwork(t), "a")

	startIn(t, ctx, c, "s1", nil)
	left := endWith(t, ctx, c, "s1", "finish the parser")
	got := startIn(t, ctx, c, "s2", nil)
	if !got.Claimed || got.Handoff == nil || got.Handoff.ID != left.ID || !strings.Contains(got.Brief, "finish the parser") {
		t.Fatalf("s2 = claimed %v, handoff %+v, brief %q", got.Claimed, got.Handoff, got.Brief)
	}
	if again := startIn(t, ctx, c, "s3", nil); again.Claimed {
		t.Fatalf("s3 claimed %s, delivered already to s2", again.Handoff.ID)
	}

	// cancel: the baton s3 leaves is taken back before anyone claims it.
	endWith(t, ctx, c, "s3", "cancel me")
	cres, err := handoff.Cancel(ctx, c, handoff.CancelOptions{}, clock)
	if err != nil || cres.Cancelled == nil {
		t.Fatalf("cancel = %+v, %v", cres, err)
	}
	if next := startIn(t, ctx, c, "s4", nil); next.Claimed {
		t.Fatalf("s4 claimed the cancelled baton %s", next.Handoff.ID)
	}

	// dismiss, then undismiss: the same baton waits again and is claimed.
	b := endWith(t, ctx, c, "s4", "dismiss me")
	if _, err := handoff.Dismiss(ctx, c, handoff.DismissOptions{ID: b.ID}, clock); err != nil {
		t.Fatal(err)
	}
	if _, err := handoff.Dismiss(ctx, c, handoff.DismissOptions{ID: b.ID}, clock); !errors.Is(err, refstore.ErrNotFound) && !errors.Is(err, refstore.ErrConflict) {
		t.Fatalf("a second dismissal = %v, want not found or conflict", err)
	}
	if _, err := handoff.Undismiss(ctx, c, handoff.UndismissOptions{ID: b.ID}, clock); err != nil {
		t.Fatal(err)
	}
	if back := startIn(t, ctx, c, "s5", nil); !back.Claimed || back.Handoff.ID != b.ID {
		t.Fatalf("s5 = claimed %v %+v, want the restored %s", back.Claimed, back.Handoff, b.ID)
	}
}

func TestTwinObjective(t *testing.T) {
	ctx := twinCtx(t)
	c := twinClone(t, twinNetwork(t), "a")
	if err := c.SetHead(refstore.Head{Branch: "feature"}); err != nil {
		t.Fatal(err)
	}
	set, err := handoff.Objective(ctx, c, handoff.ObjectiveOptions{Text: "ship the lexer"}, clock)
	if err != nil || !set.Changed || set.Objective == nil || set.Who.Branch != "feature" {
		t.Fatalf("set = %+v, %v", set, err)
	}
	read, err := handoff.Objective(ctx, c, handoff.ObjectiveOptions{}, clock)
	if err != nil || read.Objective == nil || read.Objective.Text != "ship the lexer" {
		t.Fatalf("read = %+v, %v", read, err)
	}
	cleared, err := handoff.Objective(ctx, c, handoff.ObjectiveOptions{Clear: true}, clock)
	if err != nil || !cleared.Changed {
		t.Fatalf("clear = %+v, %v", cleared, err)
	}
}

// Two clones of one remote: a baton one leaves reaches the other through
// sync, and of two starts that race for it at the arbiter exactly one
// claims it; the loser is told, and a later sync agrees everywhere.
func TestTwinClonesClaimOnceAtTheArbiter(t *testing.T) {
	ctx := twinCtx(t)
	a, b := twinTeam(t, ctx)
	arb := teamsync.Arbiter{Remote: "origin"}
	sync := func(c *memstore.Clone) {
		t.Helper()
		if _, err := teamsync.Sync(ctx, c, teamsync.Options{Remote: "origin", Now: clock()}); err != nil {
			t.Fatalf("sync %s: %v", c.Dir(), err)
		}
	}
	startIn(t, ctx, a, "s1", arb)
	left := endWith(t, ctx, a, "s1", "review the plan")
	sync(a)
	sync(b)

	ra := startIn(t, ctx, a, "s2", arb)
	rb := startIn(t, ctx, b, "s3", arb)
	claimed := 0
	for _, r := range []handoff.StartResult{ra, rb} {
		if r.Claimed {
			claimed++
			if r.Handoff.ID != left.ID {
				t.Fatalf("claimed %s, want %s", r.Handoff.ID, left.ID)
			}
		}
	}
	if claimed != 1 {
		t.Fatalf("%d starts claimed the baton, want exactly 1", claimed)
	}
	sync(a)
	sync(b)
	sync(a)
	ref, err := refstore.HandoffRef(false, "dev@example.com", "main")
	if err != nil {
		t.Fatal(err)
	}
	// Claimed, the baton is final: the syncs retired it on both clones,
	// into the same archive, which holds the claim.
	for _, st := range []refstore.Clone{a, b} {
		if _, err := st.Get(ctx, ref); !errors.Is(err, refstore.ErrNotFound) {
			t.Fatalf("%s: the claimed baton is still live: %v", st.Dir(), err)
		}
	}
	p, err := archive.BatonPath(left.ID)
	if err != nil {
		t.Fatal(err)
	}
	ea, _, errA := archive.Find(ctx, a, p)
	eb, _, errB := archive.Find(ctx, b, p)
	if errA != nil || errB != nil || ea.OID != eb.OID {
		t.Fatalf("the clones' archives disagree on %s: %s (%v) and %s (%v)", p, ea.OID, errA, eb.OID, errB)
	}
	ea.Ref = ref
	st, err := baton.Decode(ea)
	if err != nil || !st.Claimed {
		t.Fatalf("the archived baton = %+v, %v", st, err)
	}
}

// A session that worked and left no baton is handed on by git-handoff:
// the next start gets its automatic handoff.
func TestTwinAutomaticHandoff(t *testing.T) {
	ctx := twinCtx(t)
	c := twinClone(t, twinNetwork(t), "a")
	startIn(t, ctx, c, "s1", nil)
	c.MarkChanged("parser.go", time.Now().Add(time.Minute)) // the hooks measure work by the real clock (noteSince)
	if _, err := handoff.EndSession(ctx, c, "s1", session.EndAgentExit, clock); err != nil {
		t.Fatal(err)
	}
	next := startIn(t, ctx, c, "s2", nil)
	if !next.Claimed || next.Handoff == nil || next.Handoff.Auto == nil || next.Handoff.Auto.Session != "s1" {
		t.Fatalf("s2 = claimed %v, handoff %+v", next.Claimed, next.Handoff)
	}
}

// Replacing a session hands its line on: the old one is replaced by the
// new, both ways.
func TestTwinReplace(t *testing.T) {
	ctx := twinCtx(t)
	c := twinClone(t, twinNetwork(t), "a")
	startIn(t, ctx, c, "s1", nil)
	res, err := handoff.SessionReplace(ctx, c, handoff.SessionReplaceOptions{ReplaceOptions: session.ReplaceOptions{OldID: "s1", NewID: "s2", Reason: "stuck"}, NoSnapshot: true}, clock)
	if err != nil {
		t.Fatal(err)
	}
	old, err := session.Read(ctx, c, "s1")
	if err != nil || old.ReplacedBy != "s2" {
		t.Fatalf("s1 = %+v, %v", old.Record, err)
	}
	if res.New.Supersedes != "s1" {
		t.Fatalf("s2 supersedes %q", res.New.Supersedes)
	}
}

// PR ownership over the twins: a claim records the owner and tells the
// (faked) GitHub, routing finds the owner, a release frees it.
func TestTwinPROwnership(t *testing.T) {
	ctx := twinCtx(t)
	c := twinClone(t, twinNetwork(t), "a")
	startIn(t, ctx, c, "s1", nil)
	_, gh := fakeGitHub(t, token)
	res, err := handoff.PRClaim(ctx, c, gh, handoff.PRClaimOptions{Number: 7, Session: "s1"}, clock)
	if err != nil || !res.Changed || res.Record.OwnerSession != "s1" {
		t.Fatalf("claim = %+v, %v", res, err)
	}
	route, err := handoff.PRRoute(ctx, c, res.Record.Repo, 7)
	if err != nil || route.Owner != "s1" || route.Session != "s1" {
		t.Fatalf("route = %+v, %v", route, err)
	}
	rel, err := handoff.PRRelease(ctx, c, handoff.PRReleaseOptions{Repo: res.Record.Repo, Number: 7, NoComment: true}, clock)
	if err != nil || !rel.Changed {
		t.Fatalf("release = %+v, %v", rel, err)
	}
}

// Retirement over the twins: a claimed baton and an ended session, final
// for longer than the retention, leave the live refs for the archive on
// both the clone and the remote, and stay readable from the other clone.
func TestTwinRetirement(t *testing.T) {
	ctx := twinCtx(t)
	a, b := twinTeam(t, ctx)
	startIn(t, ctx, a, "s1", nil)
	endWith(t, ctx, a, "s1", "take it from here")
	got := startIn(t, ctx, a, "s2", nil)
	if !got.Claimed {
		t.Fatal("s2 claimed nothing")
	}
	if _, err := handoff.End(ctx, a, handoff.EndOptions{Session: "s2", NoBaton: true}, clock); err != nil {
		t.Fatal(err)
	}
	later := clock().Add(60 * 24 * time.Hour)
	res, err := teamsync.Sync(ctx, a, teamsync.Options{Remote: "origin", Now: later, Retire: true, Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if res.Retired == 0 {
		t.Fatalf("nothing retired: %+v", res)
	}
	if _, err := teamsync.Sync(ctx, b, teamsync.Options{Remote: "origin", Now: later}); err != nil {
		t.Fatal(err)
	}
	s, err := session.Find(ctx, b, "s1")
	if err != nil || s.ID != "s1" {
		t.Fatalf("s1 from the other clone after retirement = %+v, %v", s, err)
	}
}

// A replacement carries the baton its old session left only if the
// arbiter gives it the claim: claimed by a start in another clone first,
// it stays that session's, and the replacement says so.
func TestTwinReplaceCarriesOnlyWhatTheArbiterGives(t *testing.T) {
	ctx := twinCtx(t)
	a, b := twinTeam(t, ctx)
	arb := teamsync.Arbiter{Remote: "origin"}
	startIn(t, ctx, a, "s1", arb)
	left := endWith(t, ctx, a, "s1", "carry me")
	if _, err := teamsync.Sync(ctx, a, teamsync.Options{Remote: "origin", Now: clock()}); err != nil {
		t.Fatal(err)
	}
	if got := startIn(t, ctx, b, "s2", arb); !got.Claimed || got.Handoff.ID != left.ID {
		t.Fatalf("b's start = claimed %v %+v", got.Claimed, got.Handoff)
	}
	res, err := handoff.SessionReplace(ctx, a, handoff.SessionReplaceOptions{
		ReplaceOptions: session.ReplaceOptions{OldID: "s1", NewID: "s3", Reason: "stuck"}, NoSnapshot: true, Arbiter: arb,
	}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if res.Carried != nil {
		t.Fatalf("the replacement carried %s, claimed by s2 already", res.Carried.ID)
	}
	if !strings.Contains(strings.Join(res.Notices, "\n"), "was not carried") {
		t.Fatalf("notices = %q", res.Notices)
	}
}
