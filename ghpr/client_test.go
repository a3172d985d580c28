package ghpr_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
)

const (
	token = "ghp_testtoken0123456789abcdef"
	head  = "1111111111111111111111111111111111111111"
	other = "2222222222222222222222222222222222222222"
)

// sleeps records the waits a client asked for instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return nil
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func baseState() ghprtest.State {
	return ghprtest.State{
		Owner: "octo-org", Repo: "hello-world", Token: token, Login: "agent-bot",
		PRs: []ghprtest.PR{{Number: 7, Title: "Add feature", Head: "feature/x", HeadSHA: head}},
	}
}

// setup starts a fake and a real client (go-github underneath) aimed at it.
func setup(t *testing.T, st ghprtest.State, tok string, opts ...ghprtest.Option) (*ghprtest.Server, *ghpr.Client, *sleeps) {
	t.Helper()
	s := ghprtest.NewServer(t, append([]ghprtest.Option{ghprtest.WithState(st)}, opts...)...)
	sl := &sleeps{}
	c, err := ghpr.New(context.Background(), ghpr.Options{
		Repo:       ghpr.Repo{Host: "github.com", Owner: st.Owner, Name: st.Repo},
		Token:      tok,
		APIURL:     s.URL,
		HTTPClient: s.Client(),
		Sleep:      sl.sleep,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, c, sl
}

func countOps(reqs []ghprtest.Request, method, op string) int {
	n := 0
	for _, r := range reqs {
		if r.Method == method && r.Op == op {
			n++
		}
	}
	return n
}

func names(cs []ghpr.Check) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return strings.Join(out, ",")
}

func TestFactsBucketsReviewsAndThreads(t *testing.T) {
	st := baseState()
	st.PRs[0].ReviewDecision = "CHANGES_REQUESTED"
	st.CheckRuns = []ghprtest.CheckRun{
		{SHA: head, Name: "ok", Conclusion: "success"},
		{SHA: head, Name: "fail", Conclusion: "failure"},
		{SHA: head, Name: "cancel", Conclusion: "cancelled"},
		{SHA: head, Name: "timeout", Conclusion: "timed_out"},
		{SHA: head, Name: "action", Conclusion: "action_required"},
		{SHA: head, Name: "running", Status: "in_progress"},
		{SHA: head, Name: "queued", Status: "queued"},
		{SHA: head, Name: "neutral", Conclusion: "neutral"},
		{SHA: head, Name: "skipped", Conclusion: "skipped"},
		{SHA: other, Name: "elsewhere", Conclusion: "failure"},
	}
	st.Statuses = []ghprtest.Status{
		{SHA: head, Context: "ci/err", State: "error"},
		{SHA: head, Context: "ci/fail", State: "failure"},
		{SHA: head, Context: "ci/wait", State: "pending"},
		{SHA: head, Context: "ci/good", State: "failure"},
		{SHA: head, Context: "ci/good", State: "success"}, // newer wins
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st.Reviews = []ghprtest.Review{
		{PR: 7, User: "alice", State: "CHANGES_REQUESTED", SubmittedAt: t0},
		{PR: 7, User: "alice", State: "COMMENTED", SubmittedAt: t0.Add(time.Hour)},
		{PR: 7, User: "bob", State: "CHANGES_REQUESTED", SubmittedAt: t0},
		{PR: 7, User: "bob", State: "APPROVED", SubmittedAt: t0.Add(time.Hour)},
		{PR: 7, User: "carol", State: "CHANGES_REQUESTED", SubmittedAt: t0},
		{PR: 7, User: "carol", State: "DISMISSED", SubmittedAt: t0.Add(time.Hour)},
	}
	st.Threads = []ghprtest.Thread{
		{PR: 7, Path: "a.go", Line: 3, Comments: []ghprtest.ThreadComment{{Author: "alice", Body: "Please   rename\nthis thing"}}},
		{PR: 7, Path: "b.go", Line: 9, Resolved: true, Comments: []ghprtest.ThreadComment{{Author: "bob", Body: "done"}}},
		{PR: 7, Path: "c.go", Outdated: true, Comments: []ghprtest.ThreadComment{{Author: "bob", Body: "old"}}},
	}
	_, c, _ := setup(t, st, token)
	before := time.Now().UTC()
	f, err := c.Facts(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if f.FetchedAt.Before(before.Add(-time.Second)) || f.FetchedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("FetchedAt %v not now", f.FetchedAt)
	}
	p := f.PR
	if p.Number != 7 || p.Title != "Add feature" || p.State != "open" || p.HeadBranch != "feature/x" || p.HeadSHA != head || p.Base != "main" ||
		p.URL != "https://github.com/octo-org/hello-world/pull/7" || p.Mergeable == nil || !*p.Mergeable || p.MergeableState != "clean" {
		t.Errorf("PR = %+v", p)
	}
	if got := names(f.Checks.Failing); got != "fail,cancel,timeout,action,ci/err,ci/fail" {
		t.Errorf("failing = %s", got)
	}
	if got := names(f.Checks.Pending); got != "running,queued,ci/wait" {
		t.Errorf("pending = %s", got)
	}
	if got := names(f.Checks.Skipping); got != "neutral,skipped" {
		t.Errorf("skipping = %s", got)
	}
	if got := names(f.Checks.Passing); got != "ok,ci/good" {
		t.Errorf("passing = %s", got)
	}
	if f.ReviewDecision != "CHANGES_REQUESTED" || fmt.Sprint(f.ChangesRequestedBy) != "[alice]" || fmt.Sprint(f.ApprovedBy) != "[bob]" {
		t.Errorf("reviews: %q %v %v", f.ReviewDecision, f.ChangesRequestedBy, f.ApprovedBy)
	}
	if !f.ThreadsKnown || len(f.Threads) != 2 {
		t.Fatalf("threads known=%v %+v", f.ThreadsKnown, f.Threads)
	}
	th := f.Threads[0]
	if th.Path != "a.go" || th.Line != 3 || th.Author != "alice" || th.Excerpt != "Please rename" || th.URL == "" || th.Resolved == nil || *th.Resolved {
		t.Errorf("thread = %+v", th)
	}
	if !f.Threads[1].Outdated {
		t.Errorf("thread 2 not outdated: %+v", f.Threads[1])
	}
	if len(f.Warnings) != 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}
}

func TestBuckets(t *testing.T) {
	for _, tc := range []struct{ status, conclusion, want string }{
		{"completed", "success", "pass"},
		{"completed", "failure", "fail"},
		{"completed", "cancelled", "fail"},
		{"completed", "timed_out", "fail"},
		{"completed", "action_required", "fail"},
		{"completed", "neutral", "skipping"},
		{"completed", "skipped", "skipping"},
		{"in_progress", "", "pending"},
		{"queued", "", "pending"},
		{"waiting", "", "pending"},
		{"completed", "stale", "pending"},
	} {
		if got := ghpr.BucketCheckRun(tc.status, tc.conclusion); got != tc.want {
			t.Errorf("check run %s/%s = %s, want %s", tc.status, tc.conclusion, got, tc.want)
		}
	}
	for st, want := range map[string]string{"error": "fail", "failure": "fail", "pending": "pending", "success": "pass"} {
		if got := ghpr.BucketStatus(st); got != want {
			t.Errorf("status %s = %s, want %s", st, got, want)
		}
	}
}

func TestChecksNotOnHeadAreFlagged(t *testing.T) {
	s, c, _ := setup(t, baseState(), token)
	// A canned answer: a check run that reports another commit than the
	// one asked for must not pass as the head's.
	s.AddFault(ghprtest.Fault{Op: "checks/list-for-ref", Status: 200, Body: []byte(`{"total_count": 1, "check_runs": [
		{"id": 1, "name": "old", "head_sha": "` + other + `", "status": "completed", "conclusion": "failure"}]}`)})
	f, err := c.Facts(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if f.Checks.Stale != 1 || len(f.Checks.Failing) != 1 || !f.Checks.Failing[0].NotHead || f.Checks.Failing[0].SHA != other {
		t.Errorf("checks = %+v", f.Checks)
	}
	if !strings.Contains(strings.Join(f.Warnings, "\n"), "other than the head 111111111111") {
		t.Errorf("warnings = %v", f.Warnings)
	}
}

func TestPaginatedChecksAndThreads(t *testing.T) {
	st := baseState()
	for i := 0; i < 250; i++ {
		conc := "success"
		if i%50 == 0 {
			conc = "failure"
		}
		st.CheckRuns = append(st.CheckRuns, ghprtest.CheckRun{SHA: head, Name: fmt.Sprintf("job-%03d", i), Conclusion: conc})
	}
	for i := 0; i < 230; i++ {
		st.Threads = append(st.Threads, ghprtest.Thread{PR: 7, Path: fmt.Sprintf("f%d.go", i), Line: i + 1, Resolved: i%3 == 0,
			Comments: []ghprtest.ThreadComment{{Author: "rev", Body: fmt.Sprintf("comment %d", i)}}})
	}
	s, c, _ := setup(t, st, token)
	f, err := c.Facts(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if f.Checks.Total() != 250 || len(f.Checks.Failing) != 5 {
		t.Errorf("checks total %d failing %d", f.Checks.Total(), len(f.Checks.Failing))
	}
	if len(f.Threads) != 230-77 {
		t.Errorf("unresolved threads = %d, want %d", len(f.Threads), 230-77)
	}
	reqs := s.Requests()
	if n := countOps(reqs, "GET", "checks/list-for-ref"); n != 3 {
		t.Errorf("check-run pages = %d, want 3", n)
	}
	if n := countOps(reqs, "POST", "graphql"); n != 3 {
		t.Errorf("graphql pages = %d, want 3", n)
	}
}

func TestMergeableNullThenValue(t *testing.T) {
	st := baseState()
	f := false
	st.PRs[0].Mergeable = &f
	st.PRs[0].MergeableState = "dirty"
	st.PRs[0].MergeablePending = 2
	s, c, sl := setup(t, st, token)
	p, err := c.PR(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mergeable == nil || *p.Mergeable || p.MergeableState != "dirty" {
		t.Errorf("mergeable = %v %q", p.Mergeable, p.MergeableState)
	}
	if got := fmt.Sprint(sl.got()); got != "[1s 2s]" {
		t.Errorf("sleeps = %s", got)
	}
	if n := countOps(s.Requests(), "GET", "pulls/get"); n != 3 {
		t.Errorf("GETs = %d", n)
	}

	// Bounded: still computing after every poll → nil, and a warning in Facts.
	s.Update(func(st *ghprtest.State) { st.PRs[0].MergeablePending = 100 })
	fa, err := c.Facts(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if fa.PR.Mergeable != nil || fa.PR.MergeableState != "unknown" {
		t.Errorf("mergeable = %v %q", fa.PR.Mergeable, fa.PR.MergeableState)
	}
	if n := countOps(s.Requests(), "GET", "pulls/get"); n != 3+4 {
		t.Errorf("GETs = %d, want 7 (3 + 1 + 3 polls)", n)
	}
	if !strings.Contains(strings.Join(fa.Warnings, "\n"), "still computing") {
		t.Errorf("warnings = %v", fa.Warnings)
	}
}

func TestOpenPRForBranch(t *testing.T) {
	st := baseState()
	st.PRs = append(st.PRs,
		ghprtest.PR{Number: 8, Head: "old", HeadSHA: other, Merged: true},
		ghprtest.PR{Number: 9, Head: "feature/x", HeadSHA: other, HeadOwner: "forker"},
		ghprtest.PR{Number: 10, Head: "gone", HeadSHA: other, State: "closed"},
	)
	_, c, _ := setup(t, st, token)
	ctx := context.Background()
	p, err := c.OpenPRForBranch(ctx, "", "feature/x")
	if err != nil || p.Number != 7 {
		t.Fatalf("feature/x: %v %+v", err, p)
	}
	p, err = c.OpenPRForBranch(ctx, "forker", "feature/x")
	if err != nil || p.Number != 9 || p.HeadOwner != "forker" {
		t.Fatalf("fork: %v %+v", err, p)
	}
	p, err = c.OpenPRForBranch(ctx, "", "old")
	if !errors.Is(err, ghpr.ErrNotOpen) || p.Number != 8 || p.State != "merged" {
		t.Errorf("merged: %v %+v", err, p)
	}
	if _, err = c.OpenPRForBranch(ctx, "", "gone"); !errors.Is(err, ghpr.ErrNotOpen) || !strings.Contains(err.Error(), "#10 is closed") {
		t.Errorf("closed: %v", err)
	}
	if _, err = c.OpenPRForBranch(ctx, "", "nothing"); !errors.Is(err, ghpr.ErrNoPR) {
		t.Errorf("none: %v", err)
	}
}

func TestUpsertCommentCreatesOnceThenEdits(t *testing.T) {
	st := baseState()
	// Someone quoting the marker is not us; a marker below the first line
	// does not count either.
	st.Comments = []ghprtest.Comment{
		{Issue: 7, User: "mallory", Body: ghpr.OwnershipMarker + "\nfake owner"},
		{Issue: 7, User: "agent-bot", Body: "hello\n" + ghpr.OwnershipMarker},
	}
	s, c, _ := setup(t, st, token)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	info := ghpr.OwnershipInfo{Session: "s-1", Harness: "claude-code", ClaimedAt: t0,
		History: []ghpr.Transfer{{At: t0, To: "s-1", Harness: "claude-code", Reason: "claimed"}}}
	body1 := ghpr.RenderOwnershipComment(info)
	id, created, err := c.UpsertOwnershipComment(ctx, 7, body1)
	if err != nil || !created {
		t.Fatalf("first: %v created=%v", err, created)
	}
	info.Session = "s-2"
	info.ClaimedAt = t0.Add(time.Hour)
	info.History = append(info.History, ghpr.Transfer{At: t0.Add(time.Hour), From: "s-1", To: "s-2", Harness: "codex", Reason: "replaced"})
	body2 := ghpr.RenderOwnershipComment(info)
	for i := 0; i < 2; i++ { // the second run is a no-op
		id2, created, err := c.UpsertOwnershipComment(ctx, 7, body2)
		if err != nil || created || id2 != id {
			t.Fatalf("edit %d: %v created=%v id=%d want %d", i, err, created, id2, id)
		}
	}
	reqs := s.Requests()
	if n := countOps(reqs, "POST", "issues/create-comment"); n != 1 {
		t.Errorf("POSTs = %d, want 1", n)
	}
	if n := countOps(reqs, "PATCH", "issues/update-comment"); n != 1 {
		t.Errorf("PATCHes = %d, want 1", n)
	}
	if n := countOps(reqs, "GET", "users/get-authenticated"); n != 1 {
		t.Errorf("GET /user = %d, want 1 (cached)", n)
	}
	cs := s.Comments(7)
	if len(cs) != 3 || cs[2].ID != id || cs[2].Body != body2 || cs[2].User != "agent-bot" || cs[0].Body != st.Comments[0].Body {
		t.Fatalf("comments = %+v", cs)
	}
	for _, want := range []string{"`s-2`", "(codex)", "| 2026-03-01 12:00 | — | `s-1` (claude-code) | claimed |", "| `s-1` | `s-2` (codex) | replaced |"} {
		if !strings.Contains(cs[2].Body, want) {
			t.Errorf("comment lacks %q:\n%s", want, cs[2].Body)
		}
	}
	for _, r := range reqs {
		if strings.Contains(r.Body, token) {
			t.Errorf("token sent in a body: %s %s", r.Method, r.Path)
		}
	}
}

func TestCommentNeverCarriesTokenOrPath(t *testing.T) {
	info := ghpr.OwnershipInfo{Session: "s-1 | evil", Harness: "x<script>",
		History: []ghpr.Transfer{{To: "s-1", Reason: "moved from /home/me/src/proj with " + token + " and ~/secret\nsecond line"}}}
	body := ghpr.RenderOwnershipComment(info)
	if !strings.HasPrefix(body, ghpr.OwnershipMarker+"\n") {
		t.Errorf("marker not on the first line:\n%s", body)
	}
	for _, bad := range []string{token, "/home/me", "~/secret", "<script>", "\nsecond", "s-1 | evil"} {
		if strings.Contains(body, bad) {
			t.Errorf("comment contains %q:\n%s", bad, body)
		}
	}
	if !strings.Contains(body, "(redacted)") || !strings.Contains(body, "(path)") {
		t.Errorf("expected redactions:\n%s", body)
	}

	s, c, _ := setup(t, baseState(), token)
	_, _, err := c.UpsertOwnershipComment(context.Background(), 7, ghpr.OwnershipMarker+"\nleak "+token)
	if err == nil || strings.Contains(err.Error(), token) {
		t.Errorf("token body: %v", err)
	}
	if _, _, err := c.UpsertOwnershipComment(context.Background(), 7, "no marker"); err == nil {
		t.Error("body without marker accepted")
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent for refused bodies", n)
	}
}

func TestAssignAndLabel(t *testing.T) {
	s, c, _ := setup(t, baseState(), token)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := c.Assign(ctx, 7, "agent-bot"); err != nil {
			t.Fatal(err)
		}
		if err := c.AddLabel(ctx, 7, "agent: owned"); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := s.PR(7)
	if fmt.Sprint(p.Assignees) != "[agent-bot]" || fmt.Sprint(p.Labels) != "[agent: owned]" {
		t.Errorf("assignees %v labels %v", p.Assignees, p.Labels)
	}
	got, err := c.PR(ctx, 7)
	if err != nil || fmt.Sprint(got.Assignees) != "[agent-bot]" || fmt.Sprint(got.Labels) != "[agent: owned]" {
		t.Errorf("read back: %v %+v", err, got)
	}
}

func TestNumberZeroIsRefused(t *testing.T) {
	s, c, _ := setup(t, baseState(), token)
	ctx := context.Background()
	if _, err := c.RESTThreads(ctx, 0); err == nil {
		t.Error("RESTThreads(0) accepted")
	}
	if _, _, err := c.UpsertOwnershipComment(ctx, 0, ghpr.OwnershipMarker+"\n"); err == nil {
		t.Error("Upsert(0) accepted")
	}
	if _, err := c.PR(ctx, 0); err == nil {
		t.Error("PR(0) accepted")
	}
	if _, _, err := c.ReviewThreads(ctx, -1); err == nil {
		t.Error("ReviewThreads(-1) accepted")
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
