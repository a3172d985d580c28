package ghprtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func do(t *testing.T, s *Server, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer tok")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestSmoke(t *testing.T) {
	s := NewServer(t, WithState(State{Token: "tok", PRs: []PR{{Number: 1, Head: "feat", HeadSHA: strings.Repeat("a", 40)}}}))
	code, body := do(t, s, "GET", "repos/octo-org/hello-world/pulls/1", "")
	t.Log(code, body[:200])
	code, body = do(t, s, "POST", "repos/octo-org/hello-world/issues/1/comments", `{"body":"hi"}`)
	t.Log(code, body[:100])
	t.Log(s.TakeFailures())
}
