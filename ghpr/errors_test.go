package ghpr_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
	"github.com/google/go-github/v60/github"
)

func TestAuthErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("wrong token is 401", func(t *testing.T) {
		_, c, _ := setup(t, baseState(), "ghp_wrongwrongwrongwrong")
		_, err := c.PR(ctx, 7)
		var ae *ghpr.AuthError
		if !errors.As(err, &ae) || ae.Status != 401 || ae.NoToken || !strings.Contains(err.Error(), "rejected the token") {
			t.Fatalf("err = %v", err)
		}
		if strings.Contains(err.Error(), "ghp_wrong") {
			t.Error("error repeats the token")
		}
	})
	t.Run("403 names the missing permission", func(t *testing.T) {
		s, c, _ := setup(t, baseState(), token)
		s.AddFault(ghprtest.Fault{Op: "issues/create-comment", Status: 403,
			Headers: map[string]string{"X-Accepted-GitHub-Permissions": "issues=write; pull_requests=write"}})
		_, _, err := c.UpsertOwnershipComment(ctx, 7, ghpr.OwnershipMarker+"\nx")
		var ae *ghpr.AuthError
		if !errors.As(err, &ae) || ae.Status != 403 || ae.Missing != "issues=write; pull_requests=write" ||
			!strings.Contains(err.Error(), "needs issues=write; pull_requests=write") {
			t.Fatalf("err = %v", err)
		}
		if h := ghpr.ErrorHint(err); !strings.Contains(h, "issues=write") {
			t.Errorf("hint = %q", h)
		}
	})
	t.Run("403 with classic scopes", func(t *testing.T) {
		s, c, _ := setup(t, baseState(), token)
		s.AddFault(ghprtest.Fault{Op: "pulls/get", Status: 403, Headers: map[string]string{"X-Accepted-OAuth-Scopes": "repo"}})
		_, err := c.PR(ctx, 7)
		var ae *ghpr.AuthError
		if !errors.As(err, &ae) || ae.Missing != "OAuth scope repo" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("404", func(t *testing.T) {
		_, c, _ := setup(t, baseState(), token)
		_, err := c.PR(ctx, 99)
		var ae *ghpr.AuthError
		if !errors.As(err, &ae) || !ae.NotFound() || !strings.Contains(err.Error(), "#99") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("anonymous read of a private repository", func(t *testing.T) {
		_, c, _ := setup(t, baseState(), "")
		_, err := c.PR(ctx, 7)
		var ae *ghpr.AuthError
		if !errors.As(err, &ae) || !ae.NotFound() || !ae.NoToken || !strings.Contains(err.Error(), "no token found: set GH_TOKEN or run gh auth login") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("anonymous reads of a public repository work, writes refuse before sending", func(t *testing.T) {
		st := baseState()
		st.Public = true
		st.Threads = []ghprtest.Thread{{PR: 7, Path: "a.go", Line: 1, Comments: []ghprtest.ThreadComment{{Author: "x", Body: "y"}}}}
		st.ReviewComments = []ghprtest.ReviewComment{
			{PR: 7, ID: 50, User: "rev", Path: "a.go", Line: 1, Body: "fix this"},
			{PR: 7, ID: 51, User: "me", Path: "a.go", Line: 1, Body: "done", InReplyTo: 50},
		}
		s, c, _ := setup(t, st, "")
		f, err := c.Facts(ctx, 7)
		if err != nil {
			t.Fatal(err)
		}
		// GraphQL needs a token even for public repositories: the threads
		// come from REST, resolution unknown, and it says so.
		if f.ThreadsKnown || len(f.Threads) != 1 || f.Threads[0].Resolved != nil || f.Threads[0].Excerpt != "fix this" || len(f.Warnings) == 0 {
			t.Errorf("facts = %+v", f)
		}
		n := len(s.Requests())
		for name, err := range map[string]error{
			"comment": func() error { _, _, err := c.UpsertOwnershipComment(ctx, 7, ghpr.OwnershipMarker+"\n"); return err }(),
			"assign":  c.Assign(ctx, 7, "x"),
			"label":   c.AddLabel(ctx, 7, "x"),
		} {
			var ae *ghpr.AuthError
			if !errors.As(err, &ae) || !ae.NoToken || ae.Status != 0 || !strings.Contains(err.Error(), "no token found") {
				t.Errorf("%s: %v", name, err)
			}
		}
		if len(s.Requests()) != n {
			t.Error("a write was sent without a token")
		}
	})
}

func TestRateLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("429 waits once then succeeds", func(t *testing.T) {
		s, c, sl := setup(t, baseState(), token)
		s.AddFault(ghprtest.Fault{Op: "pulls/get", Status: 429, Headers: map[string]string{"Retry-After": "2"}})
		if _, err := c.PR(ctx, 7); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(sl.got()); got != "[2s]" {
			t.Errorf("sleeps = %s", got)
		}
		if n := countOps(s.Requests(), "GET", "pulls/get"); n != 2 {
			t.Errorf("GETs = %d", n)
		}
	})
	t.Run("secondary limit waits once then succeeds", func(t *testing.T) {
		s, c, sl := setup(t, baseState(), token)
		s.AddFault(ghprtest.Fault{Op: "checks/list-for-ref", Status: 403, Headers: map[string]string{"Retry-After": "1"}})
		if _, err := c.Checks(ctx, head); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(sl.got()); got != "[1s]" {
			t.Errorf("sleeps = %s", got)
		}
	})
	t.Run("graphql query is retried", func(t *testing.T) {
		s, c, sl := setup(t, baseState(), token)
		s.AddFault(ghprtest.Fault{Op: "graphql", Status: 403, Headers: map[string]string{"Retry-After": "3"}})
		if _, _, err := c.ReviewThreads(ctx, 7); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(sl.got()); got != "[3s]" {
			t.Errorf("sleeps = %s", got)
		}
	})
	t.Run("waits only once", func(t *testing.T) {
		s, c, sl := setup(t, baseState(), token)
		s.AddFault(ghprtest.Fault{Op: "pulls/get", Status: 429, Headers: map[string]string{"Retry-After": "1"}, Times: 2})
		_, err := c.PR(ctx, 7)
		var re *ghpr.RateLimitError
		if !errors.As(err, &re) || len(sl.got()) != 1 {
			t.Fatalf("err = %v sleeps %v", err, sl.got())
		}
	})
	t.Run("long Retry-After is an error saying when", func(t *testing.T) {
		s, c, sl := setup(t, baseState(), token)
		s.AddFault(ghprtest.Fault{Op: "pulls/get", Status: 403, Headers: map[string]string{"Retry-After": "120"}})
		_, err := c.PR(ctx, 7)
		var re *ghpr.RateLimitError
		if !errors.As(err, &re) || !re.Secondary || time.Until(re.RetryAt) < 100*time.Second || !strings.Contains(err.Error(), "retry after") {
			t.Fatalf("err = %v", err)
		}
		if len(sl.got()) != 0 {
			t.Errorf("slept %v", sl.got())
		}
	})
	t.Run("primary limit with reset soon waits", func(t *testing.T) {
		s, c, sl := setup(t, baseState(), token)
		reset := time.Now().Add(3 * time.Second).Unix()
		s.AddFault(ghprtest.Fault{Op: "pulls/get", Status: 403, Headers: map[string]string{
			"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": fmt.Sprint(reset)}})
		if _, err := c.PR(ctx, 7); err != nil {
			t.Fatal(err)
		}
		if d := sl.got(); len(d) != 1 || d[0] > 4*time.Second {
			t.Errorf("sleeps = %v", d)
		}
	})
	t.Run("primary limit far away", func(t *testing.T) {
		s, c, _ := setup(t, baseState(), token)
		reset := time.Now().Add(time.Hour).Unix()
		s.AddFault(ghprtest.Fault{Op: "pulls/get", Status: 403, Headers: map[string]string{
			"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": fmt.Sprint(reset)}})
		_, err := c.PR(ctx, 7)
		var re *ghpr.RateLimitError
		if !errors.As(err, &re) || re.Secondary || re.RetryAt.Unix() != reset {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a POST is never sent twice", func(t *testing.T) {
		s, c, sl := setup(t, baseState(), token)
		s.AddFault(ghprtest.Fault{Op: "issues/create-comment", Status: 429, Headers: map[string]string{"Retry-After": "1"}})
		_, _, err := c.UpsertOwnershipComment(ctx, 7, ghpr.OwnershipMarker+"\nx")
		var re *ghpr.RateLimitError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v", err)
		}
		if n := countOps(s.Requests(), "POST", "issues/create-comment"); n != 1 || len(sl.got()) != 0 {
			t.Errorf("POSTs = %d sleeps %v", n, sl.got())
		}
		if len(s.Comments(7)) != 0 {
			t.Error("comment created")
		}
	})
}

func TestEnterprisePaths(t *testing.T) {
	st := baseState()
	st.Threads = []ghprtest.Thread{{PR: 7, Path: "a.go", Line: 2, Comments: []ghprtest.ThreadComment{{Author: "r", Body: "b"}}}}
	s := ghprtest.NewServer(t, ghprtest.WithState(st), ghprtest.Enterprise())
	if !strings.HasSuffix(s.URL, "/api/v3/") || !strings.HasSuffix(s.GraphQLURL, "/api/graphql") {
		t.Fatalf("fake at %s %s", s.URL, s.GraphQLURL)
	}
	// Only the REST root is given: GraphQL must be derived as /api/graphql.
	c, err := ghpr.New(context.Background(), ghpr.Options{
		Repo: ghpr.Repo{Host: "ghe.example.com", Owner: st.Owner, Name: st.Repo}, Token: token, APIURL: s.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Facts(context.Background(), 7)
	if err != nil || !f.ThreadsKnown || len(f.Threads) != 1 {
		t.Fatalf("%v %+v", err, f)
	}
	if _, _, err := c.UpsertOwnershipComment(context.Background(), 7, ghpr.OwnershipMarker+"\nx"); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Requests() {
		if !strings.HasPrefix(r.Path, "/api/v3/") && r.Path != "/api/graphql" {
			t.Errorf("request to %s", r.Path)
		}
	}
	if countOps(s.Requests(), "POST", "graphql") != 1 {
		t.Error("no GraphQL request")
	}
}

func TestEndpoints(t *testing.T) {
	none := func(string) string { return "" }
	for _, tc := range []struct{ host, api, gql string }{
		{"github.com", "https://api.github.com/", "https://api.github.com/graphql"},
		{"acme.ghe.com", "https://api.acme.ghe.com/", "https://api.acme.ghe.com/graphql"},
		{"git.corp.example", "https://git.corp.example/api/v3/", "https://git.corp.example/api/graphql"},
	} {
		api, gql := ghpr.Endpoints(tc.host, none)
		if api != tc.api || gql != tc.gql {
			t.Errorf("%s: %s %s", tc.host, api, gql)
		}
	}
	env := map[string]string{"GITHUB_API_URL": "http://127.0.0.1:9/prefix/"}
	api, gql := ghpr.Endpoints("github.com", func(k string) string { return env[k] })
	if api != "http://127.0.0.1:9/prefix/" || gql != "http://127.0.0.1:9/prefix/graphql" {
		t.Errorf("env: %s %s", api, gql)
	}
	env["GITHUB_GRAPHQL_URL"] = "http://127.0.0.1:9/gql"
	if _, gql = ghpr.Endpoints("github.com", func(k string) string { return env[k] }); gql != "http://127.0.0.1:9/gql" {
		t.Errorf("env graphql: %s", gql)
	}
}

func TestGraphQLErrorsOn200(t *testing.T) {
	s, c, _ := setup(t, baseState(), token)
	body := []byte(`{"data": null, "errors": [{"type": "FORBIDDEN", "message": "Resource not accessible by integration"}]}`)
	s.AddFault(ghprtest.Fault{Op: "graphql", Status: 200, Body: body})
	_, _, err := c.ReviewThreads(context.Background(), 7)
	var ge *ghpr.GraphQLError
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "FORBIDDEN: Resource not accessible by integration") {
		t.Fatalf("err = %v", err)
	}
	// Inside Facts the same failure falls back to REST and says so.
	s.AddFault(ghprtest.Fault{Op: "graphql", Status: 200, Body: body})
	f, err := c.Facts(context.Background(), 7)
	if err != nil || f.ThreadsKnown || !strings.Contains(strings.Join(f.Warnings, "\n"), "resolution unknown") {
		t.Fatalf("%v %+v", err, f)
	}
	// The fake's own GraphQL errors (a missing repository) come back as errors too.
	c2, _ := ghpr.New(context.Background(), ghpr.Options{Repo: ghpr.Repo{Owner: "octo-org", Name: "nope"}, Token: token, APIURL: s.URL})
	if _, _, err := c2.ReviewThreads(context.Background(), 7); !errors.As(err, &ge) || !strings.Contains(err.Error(), "NOT_FOUND") {
		t.Errorf("missing repo: %v", err)
	}
}

// TestFakeRejectsWrongRequests proves the fake is strict: requests GitHub
// would not accept are answered with errors and recorded as failures.
func TestFakeRejectsWrongRequests(t *testing.T) {
	s := ghprtest.NewServer(t, ghprtest.WithState(baseState()))
	hc := s.Client()
	send := func(method, path, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, path, bytes.NewBufferString(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct{ name, method, path, body, want string }{
		{"wrong body field", "POST", s.URL + "repos/octo-org/hello-world/issues/7/comments", `{"text": "hi"}`, "does not match GitHub's description"},
		{"wrong type", "PATCH", s.URL + "repos/octo-org/hello-world/issues/comments/1", `{"body": 5}`, "does not match GitHub's description"},
		{"state not in the enum", "GET", s.URL + "repos/octo-org/hello-world/pulls?state=merged", "", "does not match GitHub's description"},
		{"no such path", "GET", s.URL + "repos/octo-org/hello-world/pull/7", "", "no GitHub operation matches"},
		{"outside the prefix", "GET", strings.TrimSuffix(s.URL, "prefix/") + "repos/octo-org/hello-world/pulls/7", "", "outside the API prefix"},
		{"graphql unknown field", "POST", s.GraphQLURL, `{"query": "{ repository(owner: \"a\", name: \"b\") { pullRequest(number: 1) { reviewThreadz(first: 1) { totalCount } } } }"}`, "does not match GitHub's schema"},
		{"graphql wrong variable type", "POST", s.GraphQLURL, `{"query": "query($n: Int!) { repository(owner: \"a\", name: \"b\") { pullRequest(number: $n) { id } } }", "variables": {"n": "seven"}}`, "variables do not match"},
	} {
		code := send(tc.method, tc.path, tc.body)
		fails := s.TakeFailures()
		if len(fails) != 1 || !strings.Contains(fails[0], tc.want) {
			t.Errorf("%s: failures %q", tc.name, fails)
		}
		if tc.method != "POST" || !strings.Contains(tc.path, "graphql") {
			if code < 400 {
				t.Errorf("%s: answered %d", tc.name, code)
			}
		}
	}
	// go-github's AddLabelsToIssue sends a bare array; GitHub's description
	// documents {"labels": [...]} only, which is why ghpr does not use it.
	gh := github.NewClient(hc).WithAuthToken(token)
	gh.BaseURL, _ = gh.BaseURL.Parse(s.URL)
	if _, _, err := gh.Issues.AddLabelsToIssue(context.Background(), "octo-org", "hello-world", 7, []string{"x"}); err == nil {
		t.Error("bare label array accepted")
	}
	if fails := s.TakeFailures(); len(fails) != 1 || !strings.Contains(fails[0], "issues/add-labels") {
		t.Errorf("bare array: %q", fails)
	}
}

func TestGraphQLRateLimitedIsARateLimit(t *testing.T) {
	s, c, _ := setup(t, baseState(), token)
	body := []byte(`{"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]}`)
	s.AddFault(ghprtest.Fault{Op: "graphql", Status: 200, Body: body})
	// Facts must not hide a rate limit behind the REST fallback.
	_, err := c.Facts(context.Background(), 7)
	var re *ghpr.RateLimitError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v", err)
	}
}
