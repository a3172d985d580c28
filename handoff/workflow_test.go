package handoff_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// These tests call the workflows as the MCP server and the web API will:
// a real repository, a real HTTP GitHub fake behind *ghpr.Client, no CLI.

const token = "t0ken-for-tests"

var clock handoff.Clock = func() time.Time { return time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC) }

func open(t *testing.T) *refstore.Store {
	t.Helper()
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	st, err := refstore.Open(context.Background(), gittest.Init(t), refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func fakeGitHub(t *testing.T, tok string) (*ghprtest.Server, *ghpr.Client) {
	t.Helper()
	s := ghprtest.NewServer(t, ghprtest.WithState(ghprtest.State{
		Token: token, Public: true,
		PRs: []ghprtest.PR{{Number: 7, Title: "Fix the parser", Head: "fix-parser", HeadSHA: strings.Repeat("1", 40)}},
	}))
	c, err := ghpr.New(context.Background(), ghpr.Options{
		Repo: ghpr.Repo{Host: "github.com", Owner: "octo-org", Name: "hello-world"}, Token: tok,
		APIURL: s.URL, HTTPClient: s.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func start(t *testing.T, st *refstore.Store, id string) {
	t.Helper()
	// As if from a worktree of its own: a start where another active
	// session is bound ends that one.
	if err := st.Unbind(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := handoff.Start(context.Background(), st, handoff.StartOptions{Session: id, Harness: "claude-code"}, clock); err != nil {
		t.Fatal(err)
	}
}

func TestPRClaimTellsGitHubAfterTheSwap(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	start(t, st, "s1")
	s, gh := fakeGitHub(t, token)

	res, err := handoff.PRClaim(ctx, st, gh, handoff.PRClaimOptions{Number: 7, Session: "s1", Assign: true, Label: "handoff"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Record.OwnerSession != "s1" || res.Number != 7 {
		t.Fatalf("claim = %+v", res)
	}
	if g := res.GitHub; g.Comment != handoff.CommentCreated || g.Assigned != "agent-bot" || g.Labeled != "handoff" || len(g.Errors) != 0 {
		t.Fatalf("github = %+v", g)
	}
	if cs := s.Comments(7); len(cs) != 1 || !strings.Contains(cs[0].Body, "`s1`") {
		t.Fatalf("comments on #7 = %+v", cs)
	}
	rec, err := prown.Read(ctx, st, "octo-org/hello-world", 7)
	if err != nil || rec.OwnerSession != "s1" {
		t.Fatalf("record = %+v, %v", rec, err)
	}

	// GitHub failing after the swap is reported in the result; the claim stands.
	start(t, st, "s2")
	s.AddFault(ghprtest.Fault{Op: "issues/update-comment", Status: 502})
	res, err = handoff.PRClaim(ctx, st, gh, handoff.PRClaimOptions{Number: 7, Session: "s2"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if res.GitHub.Comment != handoff.CommentFailed || len(res.GitHub.Errors) != 1 || !res.TookOver {
		t.Fatalf("claim after fault = %+v", res)
	}
	if rec, _ := prown.Read(ctx, st, "octo-org/hello-world", 7); rec.OwnerSession != "s2" {
		t.Fatalf("owner after fault = %q, want s2", rec.OwnerSession)
	}
}

func TestPRClaimWithoutTokenChangesNothing(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	start(t, st, "s1")
	s, gh := fakeGitHub(t, "")
	_, err := handoff.PRClaim(ctx, st, gh, handoff.PRClaimOptions{Number: 7, Session: "s1"}, clock)
	var ae *ghpr.AuthError
	if !errors.As(err, &ae) || !ae.NoToken {
		t.Fatalf("err = %v, want *ghpr.AuthError with NoToken", err)
	}
	if _, err := prown.Read(ctx, st, "octo-org/hello-world", 7); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("record after a refused claim: %v", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("%d requests to GitHub, want none", n)
	}
}

func TestPRReleaseEditsTheComment(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	start(t, st, "s1")
	s, gh := fakeGitHub(t, token)
	if _, err := handoff.PRClaim(ctx, st, gh, handoff.PRClaimOptions{Number: 7, Session: "s1"}, clock); err != nil {
		t.Fatal(err)
	}
	connect := func(context.Context) (handoff.PRHost, error) { return gh, nil }
	res, err := handoff.PRRelease(ctx, st, handoff.PRReleaseOptions{Repo: "octo-org/hello-world", Number: 7, Connect: connect}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Previous != "s1" || res.GitHub.Comment != handoff.CommentUpdated {
		t.Fatalf("release = %+v", res)
	}
	if cs := s.Comments(7); len(cs) != 1 || strings.Contains(cs[0].Body, "`s1`") && !strings.Contains(cs[0].Body, "released") {
		t.Fatalf("comment after release = %+v", cs)
	}
	// Again: nothing changes in git, and the comment is written again
	// (that is how a release whose comment failed is finished).
	res, err = handoff.PRRelease(ctx, st, handoff.PRReleaseOptions{Repo: "octo-org/hello-world", Number: 7, Connect: connect}, clock)
	if err != nil || res.Changed || res.GitHub.Comment != handoff.CommentUpdated {
		t.Fatalf("second release = %+v, %v", res, err)
	}
	// With --no-comment no connection is made at all.
	never := func(context.Context) (handoff.PRHost, error) { t.Fatal("connected to GitHub"); return nil, nil }
	res, err = handoff.PRRelease(ctx, st, handoff.PRReleaseOptions{Repo: "octo-org/hello-world", Number: 7, NoComment: true, Connect: never}, clock)
	if err != nil || res.GitHub.Comment != handoff.CommentSkipped {
		t.Fatalf("release --no-comment = %+v, %v", res, err)
	}
}

func TestSessionReplaceMovesThePR(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	start(t, st, "s1")
	s, gh := fakeGitHub(t, token)
	if _, err := handoff.PRClaim(ctx, st, gh, handoff.PRClaimOptions{Number: 7, Session: "s1"}, clock); err != nil {
		t.Fatal(err)
	}
	connects := 0
	connect := func(context.Context) (handoff.PRHost, error) { connects++; return gh, nil }
	res, err := handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{
		ReplaceOptions: session.ReplaceOptions{OldID: "s1", NewID: "s2", Reason: "stuck", Context: session.ContextSummary},
		ClaimPR:        true, Connect: connect,
	}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if res.New.PR == nil || res.New.PR.Number != 7 || res.GitHub.Comment != handoff.CommentUpdated {
		t.Fatalf("replace = new %+v, github %+v", res.New.Record, res.GitHub)
	}
	if !strings.Contains(res.Package, "Fix the parser") {
		t.Fatalf("the package lacks the pull request's facts:\n%s", res.Package)
	}
	if rec, _ := prown.Read(ctx, st, "octo-org/hello-world", 7); rec.OwnerSession != "s2" {
		t.Fatalf("owner = %q, want s2", rec.OwnerSession)
	}
	if cs := s.Comments(7); len(cs) != 1 || !strings.Contains(cs[0].Body, "`s2`") {
		t.Fatalf("comment after replace = %+v", cs)
	}
	if connects == 0 {
		t.Fatal("never connected")
	}

	// Without ClaimPR the pull request stays, and the result says so.
	res, err = handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{
		ReplaceOptions: session.ReplaceOptions{OldID: "s2", NewID: "s3", Context: session.ContextSummary},
		Connect:        connect,
	}, clock)
	if err != nil || !hasNotice(res.Notices, "stays owned by s2") || res.GitHub.Comment != handoff.CommentSkipped {
		t.Fatalf("replace without ClaimPR = notices %q, github %+v, %v", res.Notices, res.GitHub, err)
	}

	// A session that owns no pull request never connects.
	start(t, st, "t1")
	never := func(context.Context) (handoff.PRHost, error) { t.Fatal("connected to GitHub"); return nil, nil }
	if _, err := handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{
		ReplaceOptions: session.ReplaceOptions{OldID: "t1", NewID: "t2", Context: session.ContextSummary},
		ClaimPR:        true, Connect: never,
	}, clock); err != nil {
		t.Fatal(err)
	}
}

func TestCancelDismissObjective(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	res, err := handoff.Cancel(ctx, st, handoff.CancelOptions{}, clock)
	if err != nil || res.Cancelled != nil {
		t.Fatalf("cancel of nothing = %+v, %v", res, err)
	}
	if _, err := handoff.End(ctx, st, handoff.EndOptions{Next: []string{"one"}}, clock); err != nil {
		t.Fatal(err)
	}
	res, err = handoff.Cancel(ctx, st, handoff.CancelOptions{}, clock)
	if err != nil || res.Cancelled == nil || res.Cancelled.Deleted == nil || res.Cancelled.Deleted.Reason != "cancelled" {
		t.Fatalf("cancel = %+v, %v", res, err)
	}

	// a claimed baton cannot be cancelled: a notice, not an error
	if _, err := handoff.End(ctx, st, handoff.EndOptions{Next: []string{"two"}}, clock); err != nil {
		t.Fatal(err)
	}
	if _, err := handoff.Claim(ctx, st, handoff.ClaimOptions{Session: "c1"}, clock); err != nil {
		t.Fatal(err)
	}
	res, err = handoff.Cancel(ctx, st, handoff.CancelOptions{}, clock)
	if err != nil || res.Cancelled != nil || !hasNotice(res.Notices, "already claimed by session c1") {
		t.Fatalf("cancel of a claimed baton = %+v, %v", res, err)
	}

	end, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "bob", Shared: true, Next: []string{"three"}}, clock)
	if err != nil {
		t.Fatal(err)
	}
	dis, err := handoff.Dismiss(ctx, st, handoff.DismissOptions{ID: end.Handoff.ID}, clock)
	if err != nil || dis.Dismissed.ID != end.Handoff.ID || dis.Dismissed.Deleted == nil {
		t.Fatalf("dismiss = %+v, %v", dis, err)
	}
	// The second finds the baton dismissed: a conflict of state, not an
	// id unknown here.
	var gone *baton.DeletedError
	if _, err := handoff.Dismiss(ctx, st, handoff.DismissOptions{ID: end.Handoff.ID}, clock); !errors.As(err, &gone) || !errors.Is(err, refstore.ErrConflict) || gone.Baton.Deleted.Reason != "dismissed" {
		t.Fatalf("second dismiss: %v, want already dismissed (a conflict)", err)
	}
	if _, err := handoff.Dismiss(ctx, st, handoff.DismissOptions{ID: "h-nosuchbaton"}, clock); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("dismiss of an unknown id: %v, want not found", err)
	}

	obj, err := handoff.Objective(ctx, st, handoff.ObjectiveOptions{Text: "ship it"}, clock)
	if err != nil || !obj.Changed || obj.Objective == nil || obj.Objective.Text != "ship it" {
		t.Fatalf("objective = %+v, %v", obj, err)
	}
	obj, err = handoff.Objective(ctx, st, handoff.ObjectiveOptions{Clear: true}, clock)
	if err != nil || !obj.Changed || obj.Objective != nil {
		t.Fatalf("cleared objective = %+v, %v", obj, err)
	}
	if _, err := handoff.Objective(ctx, st, handoff.ObjectiveOptions{Text: "x", Clear: true}, clock); err == nil {
		t.Fatal("text and clear together were accepted")
	}
}

func hasNotice(notices []string, part string) bool {
	for _, n := range notices {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}
