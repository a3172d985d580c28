package prown

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
	"github.com/git-handoff/git-handoff/session"
)

const repo = "Octo-Org/hello-world"

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

func open(t *testing.T, dir string) *refstore.Store {
	t.Helper()
	st, err := refstore.Open(context.Background(), dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newRepo(t *testing.T) (string, *refstore.Store) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	return dir, open(t, dir)
}

// newMem is the in-memory store the ownership logic runs over: claims,
// releases, routes and merges need records and a writer, not git.
func newMem(t *testing.T) *memstore.Store {
	t.Helper()
	st, err := memstore.New(refstore.FormatSHA1)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func mkSession(t *testing.T, st refstore.Writer, s session.Record) {
	t.Helper()
	if s.Status == "" {
		s.Status = session.StatusActive
	}
	if s.Owner == "" {
		s.Owner, s.Branch = "dev@example.com", "main"
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = t0
	}
	if _, err := session.Create(context.Background(), st, s, "test: create "+s.ID); err != nil {
		t.Fatal(err)
	}
}

func readSession(t *testing.T, st refstore.Records, id string) session.Record {
	t.Helper()
	s, err := session.Read(context.Background(), st, id)
	if err != nil {
		t.Fatal(err)
	}
	return s.Record
}

func claim(st refstore.Writer, sess string, n int, noTakeover bool, at time.Time) (ClaimResult, error) {
	return Claim(context.Background(), st, ClaimOptions{Repo: repo, Number: n, URL: fmt.Sprintf("https://github.com/%s/pull/%d", repo, n), Session: sess, NoTakeover: noTakeover}, at)
}

func TestClaimTakeoverRelease(t *testing.T) {
	ctx := context.Background()
	st := newMem(t)
	for _, id := range []string{"s1", "s2", "s3"} {
		mkSession(t, st, session.Record{ID: id, Harness: "codex"})
	}

	res, err := claim(st, "s1", 7, false, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Previous != "" || res.Record.OwnerSession != "s1" || len(res.Record.History) != 1 {
		t.Fatalf("first claim: %+v", res)
	}
	if ref := res.Record.Ref; ref != "refs/ao/prs/octo-org/hello-world/7" {
		t.Errorf("ref %s: owner and repo should be lower case", ref)
	}
	if p := readSession(t, st, "s1").PR; !pointsAt(p, repo, 7) || p.URL == "" {
		t.Errorf("s1 pointer: %+v", p)
	}

	// Idempotent: nothing written.
	oid := res.Record.OID
	res, err = claim(st, "s1", 7, true, t0.Add(time.Minute))
	if err != nil || res.Changed || res.Record.OID != oid {
		t.Fatalf("re-claim: %+v %v", res, err)
	}

	// --no-takeover against an active owner: a conflict naming it.
	_, err = claim(st, "s2", 7, true, t0.Add(time.Minute))
	var owned *OwnedError
	if !errors.As(err, &owned) || owned.Owner != "s1" || !errors.Is(err, refstore.ErrConflict) {
		t.Fatalf("no-takeover: %v", err)
	}

	// Takeover: the old pointer is cleared in the same transaction.
	res, err = claim(st, "s2", 7, false, t0.Add(2*time.Minute))
	if err != nil || !res.TookOver || res.Previous != "s1" {
		t.Fatalf("takeover: %+v %v", res, err)
	}
	if p := readSession(t, st, "s1").PR; p != nil {
		t.Errorf("s1 still points at %+v", p)
	}
	if h := res.Record.History; len(h) != 2 || h[1].From != "s1" || h[1].Session != "s2" || h[1].Reason != "taken over" || h[1].Harness != "codex" {
		t.Errorf("history: %+v", h)
	}

	// A session owns one pull request at a time.
	if _, err := claim(st, "s2", 8, false, t0.Add(3*time.Minute)); !errors.As(err, new(*BusyError)) {
		t.Errorf("second PR: %v", err)
	}

	// An owner that ended is replaced even with --no-takeover.
	if _, err := session.Modify(ctx, st, "s2", "test: end", func(s *session.Record) error {
		s.Status = session.StatusEnded
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err = claim(st, "s3", 7, true, t0.Add(4*time.Minute))
	if err != nil || res.TookOver || res.PreviousStatus != session.StatusEnded {
		t.Fatalf("claim from ended: %+v %v", res, err)
	}
	if r := res.Record.History[2].Reason; r != "claimed (previous owner ended)" {
		t.Errorf("reason %q", r)
	}
	if p := readSession(t, st, "s2").PR; p != nil {
		t.Errorf("ended s2 still points at %+v", p)
	}

	// An inactive session cannot claim.
	if _, err := claim(st, "s2", 7, false, t0.Add(5*time.Minute)); !errors.As(err, new(*InactiveError)) {
		t.Errorf("ended claimer: %v", err)
	}
	// An unknown session is not found.
	if _, err := claim(st, "nobody", 7, false, t0); !errors.Is(err, refstore.ErrNotFound) {
		t.Errorf("unknown claimer: %v", err)
	}

	rel, err := Release(ctx, st, repo, 7, t0.Add(6*time.Minute))
	if err != nil || !rel.Changed || rel.Previous != "s3" || rel.Record.OwnerSession != "" {
		t.Fatalf("release: %+v %v", rel, err)
	}
	if p := readSession(t, st, "s3").PR; p != nil {
		t.Errorf("released s3 still points at %+v", p)
	}
	// The comment says nobody owns it, released by s3 at the release's time.
	info := Comment(rel.Record.Record)
	if info.Session != "" || info.ReleasedBy != "s3" || !info.ReleasedAt.Equal(t0.Add(6*time.Minute)) || !info.ClaimedAt.IsZero() || len(info.History) != 4 {
		t.Errorf("comment of a released record: %+v", info)
	}
	if rel, err = Release(ctx, st, repo, 7, t0); err != nil || rel.Changed {
		t.Errorf("second release: %+v %v", rel, err)
	}
	if again := Comment(rel.Record.Record); !again.ReleasedAt.Equal(info.ReleasedAt) || again.ReleasedBy != "s3" {
		t.Errorf("comment after a second release: %+v", again)
	}
	_, err = Route(ctx, st, repo, 7)
	var un *UnownedError
	if !errors.As(err, &un) || un.Released != "s3" || !errors.Is(err, refstore.ErrNotFound) {
		t.Errorf("route after release: %v", err)
	}
	if _, err := Route(ctx, st, repo, 99); !errors.Is(err, refstore.ErrNotFound) {
		t.Errorf("route of unknown PR: %v", err)
	}

	recs, warns, err := List(ctx, st)
	if err != nil || len(warns) != 0 || len(recs) != 1 || len(recs[0].History) != 4 {
		t.Fatalf("list: %+v %v %v", recs, warns, err)
	}
}

func TestRouteFollowsReplacement(t *testing.T) {
	ctx := context.Background()
	st := newMem(t)
	mkSession(t, st, session.Record{ID: "a", Status: session.StatusReplaced, ReplacedBy: "b"})
	mkSession(t, st, session.Record{ID: "b", Status: session.StatusReplaced, Supersedes: "a", ReplacedBy: "c", CreatedAt: t0.Add(time.Hour)})
	mkSession(t, st, session.Record{ID: "c", Supersedes: "b", CreatedAt: t0.Add(2 * time.Hour)})
	mkSession(t, st, session.Record{ID: "x"})
	// a owned it before it was replaced: write the record as it would be.
	rec := Record{Repo: repo, Number: 3, OwnerSession: "a", ClaimedAt: t0, History: []Transfer{{Session: "a", At: t0, Reason: "claimed"}}}
	up, err := update(ctx, st, rec, Stored{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test", up); err != nil {
		t.Fatal(err)
	}
	r, err := Route(ctx, st, repo, 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.Owner != "a" || r.Session != "c" || r.Status != session.StatusActive || strings.Join(r.Chain, ",") != "a,b,c" || len(r.Notices) != 0 {
		t.Errorf("route: %+v", r)
	}

	// The live successor terminated: still routed there, with a notice.
	if _, _, err := session.Terminate(ctx, st, "c", "", t0); err != nil {
		t.Fatal(err)
	}
	if r, err = Route(ctx, st, repo, 3); err != nil || r.Session != "c" || len(r.Notices) != 1 || !strings.Contains(r.Notices[0], "terminated") {
		t.Errorf("route to terminated: %+v %v", r, err)
	}
}

func TestTransferUpdatesAndMerge(t *testing.T) {
	ctx := context.Background()
	st := newMem(t)
	mkSession(t, st, session.Record{ID: "old", Harness: "claude-code"})
	if _, err := claim(st, "old", 5, false, t0); err != nil {
		t.Fatal(err)
	}
	// Nothing to move for a session that owns nothing.
	mkSession(t, st, session.Record{ID: "idle"})
	if ups, rec, err := TransferUpdates(ctx, st, "idle", session.Record{ID: "n"}, "stuck", t0); err != nil || ups != nil || rec != nil {
		t.Fatalf("idle: %v %v %v", ups, rec, err)
	}

	// What replace does: one transaction, both session records and the PR.
	old, _ := session.Read(ctx, st, "old")
	next := session.Record{ID: "new", Owner: old.Owner, Branch: old.Branch, Harness: "codex", Status: session.StatusActive, Supersedes: "old", CreatedAt: t0.Add(time.Hour)}
	ups, rec, err := TransferUpdates(ctx, st, "old", next, "stuck", t0.Add(time.Hour))
	if err != nil || rec == nil || len(ups) != 1 {
		t.Fatalf("transfer: %v %v %v", ups, rec, err)
	}
	next.PR = rec.Pointer()
	prev := old.Record
	prev.Status, prev.ReplacedBy, prev.PR = session.StatusReplaced, "new", nil
	pu, _ := session.Written(ctx, st, prev, old)
	nu, _ := session.Written(ctx, st, next, session.Stored{})
	if err := st.Apply(ctx, "test: replace", append([]refstore.Update{pu, nu}, ups...)...); err != nil {
		t.Fatal(err)
	}
	got, err := Read(ctx, st, repo, 5)
	if err != nil || got.OwnerSession != "new" {
		t.Fatalf("after transfer: %+v %v", got, err)
	}
	if h := got.History[len(got.History)-1]; h.From != "old" || h.Session != "new" || h.Reason != "replaced: stuck" || h.Harness != "codex" {
		t.Errorf("history: %+v", h)
	}
	if info := Comment(got.Record); info.Session != "new" || info.Harness != "codex" || len(info.History) != 2 {
		t.Errorf("comment: %+v", info)
	}
	if r, err := Route(ctx, st, repo, 5); err != nil || r.Session != "new" || len(r.Chain) != 1 {
		t.Errorf("route: %+v %v", r, err)
	}

	m, err := MarkMerged(ctx, st, repo, 5, t0.Add(2*time.Hour))
	if err != nil || !m.Changed || m.Session == nil || m.Session.Status != session.StatusMerged || m.Record.MergedAt == nil {
		t.Fatalf("merged: %+v %v", m, err)
	}
	if s := readSession(t, st, "new"); s.Status != session.StatusMerged || s.EndedAt == nil {
		t.Errorf("session after merge: %+v", s)
	}
	if m, err = MarkMerged(ctx, st, repo, 5, t0.Add(3*time.Hour)); err != nil || m.Changed {
		t.Errorf("merged twice: %+v %v", m, err)
	}
	if m, err = MarkMerged(ctx, st, repo, 77, t0); err != nil || m.Changed {
		t.Errorf("merged unknown: %+v %v", m, err)
	}
	mkSession(t, st, session.Record{ID: "late"})
	if _, err := claim(st, "late", 5, false, t0.Add(4*time.Hour)); !errors.As(err, new(*MergedError)) || !errors.Is(err, ghpr.ErrNotOpen) {
		t.Errorf("claim after merge: %v", err)
	}
	if _, err := Release(ctx, st, repo, 5, t0); !errors.As(err, new(*MergedError)) {
		t.Errorf("release after merge: %v", err)
	}
}

// TestClaimRace: claimers in parallel, each with its own store as separate
// processes would have. It stays on git: what it proves is that git's
// compare-and-swap, across stores, lets one claimer win each round. With --no-takeover exactly one wins and every other
// is told who did; with takeover everyone wins in turn, and the history is
// one unbroken chain whose last entry is the owner, the only session whose
// pointer names the pull request.
func TestClaimRace(t *testing.T) {
	dir, st := newRepo(t)
	const claimers = 8
	for round, noTakeover := range []bool{true, false} {
		n := 10 + round
		ids := make([]string, claimers)
		for i := range ids {
			ids[i] = fmt.Sprintf("r%d-c%d", round, i)
			mkSession(t, st, session.Record{ID: ids[i]})
		}
		errs := make([]error, claimers)
		stores := make([]*refstore.Store, claimers)
		for i := range stores {
			stores[i] = open(t, dir)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range ids {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				_, errs[i] = claim(stores[i], ids[i], n, noTakeover, t0.Add(time.Duration(i)*time.Second))
			}(i)
		}
		close(start)
		wg.Wait()
		rec, err := Read(context.Background(), st, repo, n)
		if err != nil {
			t.Fatal(err)
		}
		var winners []string
		for i, err := range errs {
			var owned *OwnedError
			switch {
			case err == nil:
				winners = append(winners, ids[i])
			case noTakeover && errors.As(err, &owned):
				if owned.Owner != rec.OwnerSession {
					t.Errorf("%s told %s owns it; %s does", ids[i], owned.Owner, rec.OwnerSession)
				}
			default:
				t.Errorf("%s: %v", ids[i], err)
			}
		}
		want := 1
		if !noTakeover {
			want = claimers
		}
		if len(winners) != want {
			t.Errorf("round %d: %d winners %v", round, len(winners), winners)
		}
		h := rec.History
		if len(h) != want || h[len(h)-1].Session != rec.OwnerSession {
			t.Fatalf("round %d: history %+v, owner %s", round, h, rec.OwnerSession)
		}
		seen := map[string]bool{}
		for i, e := range h {
			prev := ""
			if i > 0 {
				prev = h[i-1].Session
			}
			if e.From != prev || seen[e.Session] {
				t.Errorf("round %d: history broken at %d: %+v", round, i, h)
			}
			seen[e.Session] = true
		}
		pointing := 0
		for _, id := range ids {
			if pointsAt(readSession(t, st, id).PR, repo, n) {
				pointing++
				if id != rec.OwnerSession {
					t.Errorf("round %d: %s points at the PR but %s owns it", round, id, rec.OwnerSession)
				}
			}
		}
		if pointing != 1 {
			t.Errorf("round %d: %d sessions point at the PR", round, pointing)
		}
	}
}
