package ghprtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as the standalone fake, so the command
// is tested as a process without building it separately.
func TestMain(m *testing.M) {
	if os.Getenv("GHPRTEST_RUN_MAIN") == "1" {
		Main()
	}
	os.Exit(m.Run())
}

func send(t *testing.T, s *Server, method, url, body string, auth string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestResponsesStartFromGitHubExamples(t *testing.T) {
	s := NewServer(t, WithState(State{Token: "tok", PRs: []PR{{Number: 1, Head: "feat", HeadSHA: strings.Repeat("a", 40)}}}))
	code, _, body := send(t, s, "GET", s.URL+"repos/octo-org/hello-world/pulls/1", "", "Bearer tok")
	var pr map[string]any
	if err := json.Unmarshal([]byte(body), &pr); err != nil || code != 200 {
		t.Fatalf("%d %v %s", code, err, body)
	}
	// Seeded fields win; unseeded ones are GitHub's example values.
	if pr["number"] != float64(1) || pr["head"].(map[string]any)["ref"] != "feat" || pr["_links"] == nil || pr["author_association"] == nil {
		t.Errorf("pr = %v", pr)
	}
}

func TestTokenCheck(t *testing.T) {
	s := NewServer(t, WithState(State{Token: "tok", PRs: []PR{{Number: 1, Head: "f", HeadSHA: "a"}}}))
	u := s.URL + "repos/octo-org/hello-world/pulls/1"
	for auth, want := range map[string]int{"Bearer tok": 200, "token tok": 200, "Bearer nope": 401, "Basic tok": 401, "": 404} {
		if code, _, _ := send(t, s, "GET", u, "", auth); code != want {
			t.Errorf("%q: %d, want %d", auth, code, want)
		}
	}
	s.Update(func(st *State) { st.Public = true })
	if code, _, _ := send(t, s, "GET", u, "", ""); code != 200 {
		t.Errorf("public anonymous read: %d", code)
	}
	if code, _, _ := send(t, s, "POST", s.URL+"repos/octo-org/hello-world/issues/1/comments", `{"body":"x"}`, ""); code != 401 {
		t.Errorf("anonymous write: %d", code)
	}
	if code, _, _ := send(t, s, "POST", s.GraphQLURL, `{"query":"{ viewer { login } }"}`, ""); code != 401 {
		t.Errorf("anonymous graphql: %d", code)
	}
}

func TestPaginationLinks(t *testing.T) {
	st := State{Token: "tok"}
	for i := 0; i < 5; i++ {
		st.CheckRuns = append(st.CheckRuns, CheckRun{SHA: "abc", Name: "c", Conclusion: "success"})
	}
	s := NewServer(t, WithState(st))
	_, h, body := send(t, s, "GET", s.URL+"repos/octo-org/hello-world/commits/abc/check-runs?per_page=2&page=2", "", "Bearer tok")
	link := h.Get("Link")
	for _, want := range []string{"page=3", `rel="next"`, `rel="last"`, `rel="prev"`, "/prefix/repos/"} {
		if !strings.Contains(link, want) {
			t.Errorf("Link %q lacks %s", link, want)
		}
	}
	var out struct {
		Total int              `json:"total_count"`
		Runs  []map[string]any `json:"check_runs"`
	}
	_ = json.Unmarshal([]byte(body), &out)
	if out.Total != 5 || len(out.Runs) != 2 {
		t.Errorf("total %d runs %d", out.Total, len(out.Runs))
	}
}

func TestLoadStateRejectsUnknownFields(t *testing.T) {
	p := filepath.Join(t.TempDir(), "seed.json")
	os.WriteFile(p, []byte(`{"prs": [{"number": 1, "hed": "x"}]}`), 0o644)
	if _, err := LoadState(p); err == nil {
		t.Error("typo in seed accepted")
	}
}

// TestStandalone runs the fake as a process the way an end-to-end script
// would: serve with a seed, read the URL file, call it, queue a fault
// through the admin endpoint, stop it with SIGTERM and read the dumped state.
func TestStandalone(t *testing.T) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.json")
	os.WriteFile(seed, []byte(`{"token": "tok", "prs": [{"number": 3, "head": "feat", "headSha": "abc"}]}`), 0o644)
	urlFile, envFile, stateFile := filepath.Join(dir, "url"), filepath.Join(dir, "env"), filepath.Join(dir, "state.json")
	cmd := exec.Command(os.Args[0], "serve", "-seed", seed, "-url-file", urlFile, "-env-file", envFile, "-state-file", stateFile, "-enterprise")
	cmd.Env = append(os.Environ(), "GHPRTEST_RUN_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var base string
	for i := 0; i < 200 && base == ""; i++ {
		b, _ := os.ReadFile(urlFile)
		base = string(b)
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.HasSuffix(base, "/api/v3/") {
		t.Fatalf("url file: %q; stderr %s", base, stderr.String())
	}
	env, _ := os.ReadFile(envFile)
	if !strings.Contains(string(env), "GITHUB_GRAPHQL_URL=") || !strings.Contains(string(env), "/api/graphql") {
		t.Errorf("env file: %s", env)
	}
	post := func(path, body string) int {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("repos/octo-org/hello-world/issues/3/comments", `{"body": "hello"}`); code != 201 {
		t.Errorf("comment: %d", code)
	}
	var out bytes.Buffer
	if code := Run([]string{"fault", urlFile, `{"op": "issues/create-comment", "status": 403}`}, &out, &out); code != 0 {
		t.Fatalf("fault: %d %s", code, out.String())
	}
	if code := post("repos/octo-org/hello-world/issues/3/comments", `{"body": "again"}`); code != 403 {
		t.Errorf("after fault: %d", code)
	}
	out.Reset()
	if code := Run([]string{"state", urlFile}, &out, &out); code != 0 || !strings.Contains(out.String(), `"body":"hello"`) {
		t.Errorf("state: %d %s", code, out.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v; %s", err, stderr.String())
	}
	var d Dump
	b, _ := os.ReadFile(stateFile)
	if err := json.Unmarshal(b, &d); err != nil || len(d.State.Comments) != 1 || len(d.Requests) != 2 || len(d.Failures) != 0 {
		t.Errorf("dump: %v %s", err, b)
	}
}

func TestDeleteComment(t *testing.T) {
	s := NewServer(t, WithState(State{Token: "tok", Public: true, PRs: []PR{{Number: 1, Head: "f", HeadSHA: strings.Repeat("a", 40)}},
		Comments: []Comment{{Issue: 1, User: "agent-bot", Body: "one"}, {Issue: 1, User: "octocat", Body: "two"}}}))
	first := s.Comments(1)[0]
	u := s.URL + "repos/octo-org/hello-world/issues/comments/" + strconv.FormatInt(first.ID, 10)
	// Without a token a write is refused, as every other write is.
	if code, _, _ := send(t, s, "DELETE", u, "", ""); code != 401 {
		t.Errorf("anonymous DELETE = %d, want 401", code)
	}
	if code, _, body := send(t, s, "DELETE", u, "", "Bearer tok"); code != 204 || body != "" {
		t.Errorf("DELETE = %d %q, want 204 and no body", code, body)
	}
	// Gone: a second DELETE and an edit are 404; the id is not reused.
	if code, _, _ := send(t, s, "DELETE", u, "", "Bearer tok"); code != 404 {
		t.Errorf("second DELETE = %d, want 404", code)
	}
	if code, _, _ := send(t, s, "PATCH", u, `{"body":"x"}`, "Bearer tok"); code != 404 {
		t.Errorf("PATCH of a deleted comment = %d, want 404", code)
	}
	if cs := s.Comments(1); len(cs) != 1 || cs[0].Body != "two" {
		t.Errorf("comments = %+v", cs)
	}
	if d := s.DeletedComments(1); len(d) != 1 || d[0].ID != first.ID || d[0].Body != "one" {
		t.Errorf("deleted = %+v", d)
	}
	if code, _, body := send(t, s, "POST", s.URL+"repos/octo-org/hello-world/issues/1/comments", `{"body":"three"}`, "Bearer tok"); code != 201 || strings.Contains(body, `"id":`+strconv.FormatInt(first.ID, 10)+",") {
		t.Errorf("POST = %d %s", code, body)
	}
	// A fault answers a DELETE like any other write (a token without issues=write).
	s.AddFault(Fault{Op: "issues/delete-comment", Status: 403, Headers: map[string]string{"X-Accepted-GitHub-Permissions": "issues=write"}})
	u2 := s.URL + "repos/octo-org/hello-world/issues/comments/" + strconv.FormatInt(s.Comments(1)[0].ID, 10)
	if code, _, _ := send(t, s, "DELETE", u2, "", "Bearer tok"); code != 403 {
		t.Errorf("DELETE under a fault = %d, want 403", code)
	}
	if n := len(s.Comments(1)); n != 2 {
		t.Errorf("%d comments after a refused DELETE, want 2", n)
	}
}
