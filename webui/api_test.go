package webui_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/webui"
)

func ids(t *testing.T, out map[string]any) []string {
	t.Helper()
	items, ok := out["items"].([]any)
	if !ok {
		t.Fatalf("no items in %v", out)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.(map[string]any)["id"].(string))
	}
	return got
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func wantStatus(t *testing.T, what string, got, want int, out map[string]any) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %d, want %d: %v", what, got, want, out)
	}
	if want >= 400 {
		if msg, _ := out["error"].(string); msg == "" {
			t.Fatalf("%s: error answer without a message: %v", what, out)
		}
	}
}

func TestProjectIsRequired(t *testing.T) {
	f := newFixture(t, webui.Options{})
	for _, path := range []string{"/api/handoffs", "/api/handoffs?project=all", "/api/sessions", "/api/prs?project=all", "/api/events", "/api/sessions/s5/lineage?project=all"} {
		code, out := f.do(t, "GET", path, "", nil)
		wantStatus(t, path, code, http.StatusBadRequest, out)
	}
	code, out := f.do(t, "DELETE", "/api/handoffs/"+f.waiting, "", nil)
	wantStatus(t, "dismiss without a project", code, http.StatusBadRequest, out)
	code, out = f.do(t, "GET", "/api/handoffs?project=nope", "", nil)
	wantStatus(t, "unknown project", code, http.StatusNotFound, out)
}

func TestHandoffsListAndFilters(t *testing.T) {
	f := newFixture(t, webui.Options{})
	code, out := f.do(t, "GET", "/api/handoffs?project=repo", "", nil)
	wantStatus(t, "list", code, http.StatusOK, out)
	all := ids(t, out)
	if len(all) != 3 || out["total"].(float64) != 3 || out["projectId"] != "repo" || out["lastSeenRoot"] == "" {
		t.Fatalf("list = %v", out)
	}
	// Nobody signs in the fixture: every waiting baton is unverified,
	// and only the ones by others than the reader (dev) are fenced; a
	// claimed one, delivered to nobody again, is not checked.
	for _, it := range out["items"].([]any) {
		h := it.(map[string]any)
		sig, _ := h["signature"].(map[string]any)
		if h["claimed"] == true {
			if sig != nil {
				t.Errorf("claimed baton %v: signature %v", h["id"], sig)
			}
			continue
		}
		if sig == nil || sig["state"] != "unverified" || sig["trusted"] != false || sig["fenced"] != (h["owner"] != "dev@example.com") {
			t.Errorf("baton %v of %v: signature %v", h["id"], h["owner"], sig)
		}
	}
	for q, want := range map[string][]string{
		"claimed=false":             {f.waiting, f.shared},
		"claimed=true":              {f.claimed},
		"owner=bob":                 {f.claimed},
		"shared=true":               {f.shared},
		"branch=main&claimed=false": {f.waiting},
	} {
		code, out := f.do(t, "GET", "/api/handoffs?project=repo&"+q, "", nil)
		wantStatus(t, q, code, http.StatusOK, out)
		got := ids(t, out)
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", q, got, want)
		}
		for _, w := range want {
			if !has(got, w) {
				t.Fatalf("%s: %v, want %v", q, got, want)
			}
		}
	}
	code, out = f.do(t, "GET", "/api/handoffs?project=repo&claimed=maybe", "", nil)
	wantStatus(t, "bad filter", code, http.StatusBadRequest, out)
}

func TestDismiss(t *testing.T) {
	f := newFixture(t, webui.Options{})
	code, out := f.do(t, "DELETE", "/api/handoffs/"+f.claimed+"?project=repo", "", nil)
	wantStatus(t, "dismiss a claimed baton", code, http.StatusConflict, out)
	if !f.live(t, f.claimed) {
		t.Fatal("the claimed baton went away")
	}
	code, out = f.do(t, "DELETE", "/api/handoffs/h-nosuchthing?project=repo", "", nil)
	wantStatus(t, "dismiss an unknown baton", code, http.StatusNotFound, out)
	code, out = f.do(t, "DELETE", "/api/handoffs/"+f.waiting+"?project=repo", "", nil)
	wantStatus(t, "dismiss", code, http.StatusOK, out)
	if out["dismissed"] != true || out["handoff"].(map[string]any)["deleted"].(map[string]any)["reason"] != "dismissed" {
		t.Fatalf("dismiss = %v", out)
	}
	if f.live(t, f.waiting) {
		t.Fatal("the dismissed baton is still listed")
	}
	code, out = f.do(t, "DELETE", "/api/handoffs/"+f.waiting+"?project=repo", "", nil)
	// the second finds it dismissed already: there, in a state that rules
	// the action out (409, as for the CLI's exit 5), not unknown (404)
	wantStatus(t, "dismiss twice", code, http.StatusConflict, out)
}

// A change from anywhere but the page itself is refused, and changes
// nothing: another origin, no origin, no token, a wrong token, a host
// name that is not loopback (a rebound DNS name).
func TestChangesOnlyFromThePage(t *testing.T) {
	f := newFixture(t, webui.Options{})
	attempts := map[string]func(*http.Request){
		"another origin":   func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") },
		"another port":     func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:9999") },
		"no origin":        func(r *http.Request) { r.Header.Del("Origin") },
		"null origin":      func(r *http.Request) { r.Header.Set("Origin", "null") },
		"no token":         func(r *http.Request) { r.Header.Del("Authorization") },
		"wrong token":      func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") },
		"token in the URL": func(r *http.Request) { r.Header.Del("Authorization"); r.URL.RawQuery += "&token=" + f.srv.PageToken() },
		"rebound host name": func(r *http.Request) {
			r.Host = "evil.example:3124"
			r.Header.Set("Origin", "http://evil.example:3124")
		},
	}
	for name, edit := range attempts {
		code, out := f.do(t, "DELETE", "/api/handoffs/"+f.waiting+"?project=repo", "", edit)
		wantStatus(t, "dismiss from "+name, code, http.StatusForbidden, out)
		code, out = f.do(t, "POST", "/api/sessions/s5/switch?project=repo", `{"harness":"gemini"}`, edit)
		wantStatus(t, "switch from "+name, code, http.StatusForbidden, out)
		code, out = f.do(t, "POST", "/api/sessions/s5/replace?project=repo", `{}`, edit)
		wantStatus(t, "replace from "+name, code, http.StatusForbidden, out)
	}
	if !f.live(t, f.waiting) {
		t.Fatal("a refused dismissal dismissed the baton")
	}
	if s := f.session(t, "s5"); s.Harness != "claude-code" || s.Status != "active" {
		t.Fatalf("a refused change changed s5: %+v", s)
	}
	code, out := f.do(t, "GET", "/api/sessions?project=repo", "", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") })
	wantStatus(t, "a read from another origin", code, http.StatusForbidden, out)
	code, out = f.do(t, "GET", "/", "", func(r *http.Request) { r.Host = "evil.example:3124" })
	wantStatus(t, "the page under a rebound host name", code, http.StatusForbidden, out)
}

func TestTokenGuardsEveryRequest(t *testing.T) {
	f := newFixture(t, webui.Options{Token: "s3cret-token"})
	if f.srv.PageToken() != "s3cret-token" {
		t.Fatal("the page must send the server's token")
	}
	code, out := f.do(t, "GET", "/api/handoffs?project=repo", "", func(r *http.Request) { r.Header.Del("Authorization") })
	wantStatus(t, "no token", code, http.StatusUnauthorized, out)
	code, out = f.do(t, "GET", "/api/handoffs?project=repo", "", func(r *http.Request) {
		r.Host = "build.example:3124"
		r.Header.Set("Origin", "http://build.example:3124")
	})
	wantStatus(t, "with the token from another host", code, http.StatusOK, out)
	code, _ = f.do(t, "GET", "/?token=s3cret-token", "", func(r *http.Request) { r.Header.Del("Authorization") })
	if code != http.StatusOK {
		t.Fatalf("the page with ?token=: %d", code)
	}
	code, out = f.do(t, "DELETE", "/api/handoffs/"+f.waiting+"?project=repo&token=s3cret-token", "", func(r *http.Request) { r.Header.Del("Authorization") })
	wantStatus(t, "a change with the token in the URL", code, http.StatusUnauthorized, out)
	code, out = f.do(t, "DELETE", "/api/handoffs/"+f.waiting+"?project=repo", "", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") })
	wantStatus(t, "a change with the token from another origin", code, http.StatusForbidden, out)
	if !f.live(t, f.waiting) {
		t.Fatal("a refused dismissal dismissed the baton")
	}
}

func TestSessions(t *testing.T) {
	f := newFixture(t, webui.Options{})
	code, out := f.do(t, "GET", "/api/sessions?project=repo", "", nil)
	wantStatus(t, "active sessions", code, http.StatusOK, out)
	if got := ids(t, out); has(got, "s3") || !has(got, "s5") {
		t.Fatalf("active sessions = %v", got)
	}
	code, out = f.do(t, "GET", "/api/sessions?project=repo&all=true", "", nil)
	wantStatus(t, "all sessions", code, http.StatusOK, out)
	if got := ids(t, out); !has(got, "s3") || !has(got, "s6") {
		t.Fatalf("all sessions = %v", got)
	}
	for _, it := range out["items"].([]any) {
		s := it.(map[string]any)
		if s["readOnly"] != (s["id"] == "s6") {
			t.Fatalf("readOnly of %v = %v", s["id"], s["readOnly"])
		}
	}
	code, out = f.do(t, "GET", "/api/sessions/s5?project=repo", "", nil)
	wantStatus(t, "show", code, http.StatusOK, out)
	if s := out["session"].(map[string]any); s["supersedes"] != "s3" || s["pr"].(map[string]any)["number"].(float64) != 7 {
		t.Fatalf("show = %v", out)
	}
	code, out = f.do(t, "GET", "/api/sessions/nope?project=repo", "", nil)
	wantStatus(t, "show unknown", code, http.StatusNotFound, out)
	// Any id is one path segment, escaped: a slash, a space, a dot.
	odd := "team/a b.lock"
	if _, err := handoff.Start(context.Background(), f.store(t), handoff.StartOptions{Session: odd, Harness: "codex"}, clock); err != nil {
		t.Fatal(err)
	}
	code, out = f.do(t, "GET", "/api/sessions/"+url.PathEscape(odd)+"?project=repo", "", nil)
	wantStatus(t, "show an odd id", code, http.StatusOK, out)
	if id := out["session"].(map[string]any)["id"]; id != odd {
		t.Fatalf("showed %q, want %q", id, odd)
	}
	code, out = f.do(t, "GET", "/api/sessions/s3/lineage?project=repo", "", nil)
	wantStatus(t, "lineage", code, http.StatusOK, out)
	chain := out["lineage"].(map[string]any)["chain"].([]any)
	if len(chain) != 2 || chain[0].(map[string]any)["id"] != "s3" || chain[1].(map[string]any)["id"] != "s5" {
		t.Fatalf("lineage = %v", out)
	}
	code, out = f.do(t, "GET", "/api/sessions/nope/lineage?project=repo", "", nil)
	wantStatus(t, "lineage of unknown", code, http.StatusNotFound, out)
}

func TestSwitch(t *testing.T) {
	f := newFixture(t, webui.Options{})
	for _, c := range []struct {
		what, id, body string
		want           int
	}{
		{"unknown harness", "s5", `{"harness":"no-such-agent"}`, http.StatusBadRequest},
		{"no harness", "s5", `{}`, http.StatusBadRequest},
		{"not JSON", "s5", `{"harness":`, http.StatusBadRequest},
		{"unknown field", "s5", `{"harness":"gemini","force":true}`, http.StatusBadRequest},
		{"unknown session", "nope", `{"harness":"gemini"}`, http.StatusNotFound},
		{"merged session", "s6", `{"harness":"gemini"}`, http.StatusConflict},
		{"switch in progress", "s7", `{"harness":"gemini"}`, http.StatusConflict},
		{"replaced session", "s3", `{"harness":"gemini"}`, http.StatusConflict},
		// The page never revives an ended session: that is `session restore`.
		{"ended session", "s1", `{"harness":"gemini"}`, http.StatusConflict},
	} {
		code, out := f.do(t, "POST", "/api/sessions/"+c.id+"/switch?project=repo", c.body, nil)
		wantStatus(t, c.what, code, c.want, out)
	}
	if s := f.session(t, "s1"); s.Harness != "codex" || s.Status != "ended" {
		t.Fatalf("a refused switch changed s1: %+v", s)
	}
	if s := f.session(t, "s6"); s.Harness != "codex" || s.Status != "merged" {
		t.Fatalf("a refused switch changed s6: %+v", s)
	}
	code, out := f.do(t, "POST", "/api/sessions/s5/switch?project=repo", `{"harness":"gemini","model":"gemini-2.5-pro"}`, nil)
	wantStatus(t, "switch", code, http.StatusOK, out)
	if out["from"] != "claude-code" || out["changed"] != true {
		t.Fatalf("switch = %v", out)
	}
	if s := f.session(t, "s5"); s.Harness != "gemini" || s.Model != "gemini-2.5-pro" || s.Switching != nil {
		t.Fatalf("after the switch s5 = %+v", s)
	}
}

func TestReplace(t *testing.T) {
	f := newFixture(t, webui.Options{})
	code, out := f.do(t, "POST", "/api/sessions/nope/replace?project=repo", `{}`, nil)
	wantStatus(t, "replace unknown", code, http.StatusNotFound, out)
	code, out = f.do(t, "POST", "/api/sessions/s6/replace?project=repo", `{}`, nil)
	wantStatus(t, "replace merged", code, http.StatusConflict, out)
	code, out = f.do(t, "POST", "/api/sessions/s5/replace?project=repo", `{"harness":"nope"}`, nil)
	wantStatus(t, "replace with an unknown harness", code, http.StatusBadRequest, out)
	code, out = f.do(t, "POST", "/api/sessions/s5/replace?project=repo", `{"reason":"confused","newId":"s8","carryContext":"none"}`, nil)
	wantStatus(t, "replace", code, http.StatusOK, out)
	if out["new"].(map[string]any)["id"] != "s8" || out["old"].(map[string]any)["status"] != "replaced" {
		t.Fatalf("replace = %v", out)
	}
	// The CLI's shape (view.Replace): what was done on GitHub too.
	if gh, ok := out["github"].(map[string]any); !ok || gh["comment"] != "skipped" {
		t.Fatalf("replace github = %v", out["github"])
	}
	if s := f.session(t, "s5"); s.ReplacedBy != "s8" {
		t.Fatalf("s5 after the replacement: %+v", s)
	}
	code, out = f.do(t, "POST", "/api/sessions/s5/replace?project=repo", `{}`, nil)
	wantStatus(t, "replace again", code, http.StatusConflict, out)
}

func TestPRs(t *testing.T) {
	f := newFixture(t, webui.Options{})
	code, out := f.do(t, "GET", "/api/prs?project=repo", "", nil)
	wantStatus(t, "prs", code, http.StatusOK, out)
	items := out["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("prs = %v", out)
	}
	p := items[0].(map[string]any)
	if p["number"].(float64) != 7 || p["ownerSession"] != "s5" || len(p["history"].([]any)) != 1 {
		t.Fatalf("pr = %v", p)
	}
}

func TestAgentsInstalled(t *testing.T) {
	f := newFixture(t, webui.Options{})
	code, out := f.do(t, "GET", "/api/agents", "", nil)
	wantStatus(t, "agents", code, http.StatusOK, out)
	installed := map[string]bool{}
	for _, a := range out["agents"].([]any) {
		a := a.(map[string]any)
		installed[a["name"].(string)] = a["installed"].(bool)
	}
	if !installed["gemini"] || !installed["shell"] || installed["aider"] || installed["codex"] {
		t.Fatalf("installed = %v", installed)
	}
}

// The change stream says so when a record changes.
func TestChangeStream(t *testing.T) {
	f := newFixture(t, webui.Options{})
	base := f.start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events?project=repo", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := bufio.NewScanner(resp.Body)
	next := func() map[string]any {
		t.Helper()
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				var ev map[string]any
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatal(err)
				}
				return ev
			}
		}
		t.Fatalf("the stream ended: %v", events.Err())
		return nil
	}
	first := next()
	_, list := f.do(t, "GET", "/api/handoffs?project=repo", "", nil)
	if first["root"] != list["lastSeenRoot"] {
		t.Fatalf("first event %v, listing read at %v", first, list["lastSeenRoot"])
	}
	code, out := f.do(t, "DELETE", "/api/handoffs/"+f.waiting+"?project=repo", "", nil)
	wantStatus(t, "dismiss", code, http.StatusOK, out)
	if second := next(); second["root"] == first["root"] {
		t.Fatalf("a change event without a change: %v", second)
	}
}

// The API's error text is the command's: the same failure through both
// surfaces reads the same. And `git handoff serve` itself serves the
// repository it runs in, under its directory's name, on the pinned clock,
// until interrupted.
func TestCommand(t *testing.T) {
	// Built before the fixture isolates HOME, so that go finds its own
	// build and module caches.
	bin := filepath.Join(t.TempDir(), "git-handoff")
	build := exec.Command("go", "build", "-o", bin, "github.com/git-handoff/git-handoff/cmd/git-handoff")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the command: %v\n%s", err, out)
	}
	f := newFixture(t, webui.Options{})
	for _, c := range []struct {
		args         []string
		method, path string
		body         string
	}{
		{[]string{"dismiss", f.claimed}, "DELETE", "/api/handoffs/" + f.claimed + "?project=repo", ""},
		{[]string{"dismiss", "h-nosuchthing"}, "DELETE", "/api/handoffs/h-nosuchthing?project=repo", ""},
		{[]string{"session", "switch", "s6", "--harness", "gemini"}, "POST", "/api/sessions/s6/switch?project=repo", `{"harness":"gemini"}`},
		{[]string{"session", "switch", "nope", "--harness", "gemini"}, "POST", "/api/sessions/nope/switch?project=repo", `{"harness":"gemini"}`},
		{[]string{"session", "switch", "s5", "--harness", "no-such-agent"}, "POST", "/api/sessions/s5/switch?project=repo", `{"harness":"no-such-agent"}`},
		{[]string{"session", "show", "nope"}, "GET", "/api/sessions/nope?project=repo", ""},
		{[]string{"session", "replace", "s6"}, "POST", "/api/sessions/s6/replace?project=repo", ""},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = f.dir
		cmd.Env = append(os.Environ(), "GIT_HANDOFF_NOW=2026-11-02T09:00:00Z")
		stderr, _ := cmd.CombinedOutput()
		line, _, _ := strings.Cut(string(stderr), "\n")
		_, out := f.do(t, c.method, c.path, c.body, nil)
		if want := "error: " + out["error"].(string); line != want {
			t.Fatalf("%v:\ncommand: %s\nAPI:     %s", c.args, line, want)
		}
	}

	serve := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	serve.Dir = f.dir
	serve.Env = append(os.Environ(), "GIT_HANDOFF_NOW=2030-01-02T03:04:05Z")
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	serve.Stderr = &stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer serve.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no address: %v; stderr: %s", err, stderr.String())
	}
	base := strings.TrimSpace(line)
	resp, err := http.Get(base + "api/handoffs?project=repo&claimed=false")
	if err != nil {
		t.Fatal(err)
	}
	var list map[string]any
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || list["now"] != "2030-01-02T03:04:05Z" || len(list["items"].([]any)) != 2 {
		t.Fatalf("GET %s: %d %v", base, resp.StatusCode, list)
	}
	if err := serve.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := serve.Wait(); err != nil {
		t.Fatalf("serve after an interrupt: %v; stderr: %s", err, stderr.String())
	}
}
