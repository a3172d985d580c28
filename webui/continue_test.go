package webui_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/tmuxrt/tmuxrttest"
	"github.com/git-handoff/git-handoff/webui"
)

// refs is every ref of the repository with what it names: what a preview
// must leave as it found it.
func (f *fixture) refs(t *testing.T) string {
	t.Helper()
	return gittest.Run(t, f.dir, "for-each-ref", "--format=%(refname) %(objectname)")
}

// Continue in… from the page: the preview gives the brief and writes
// nothing; the continuation then records the new agent, gives the new
// agent that same brief, and answers the one command that starts it (s5
// runs under no tmux). Refusals come with the command's reasons.
func TestContinueAPI(t *testing.T) {
	f := newFixture(t, webui.Options{})
	f.modify(t, "s5", func(r *session.Record) { r.Summary = "The lexer reads nested comments; numbers are next." })
	for _, c := range []struct {
		what, method, path, body string
		want                     int
	}{
		{"preview without an agent", "GET", "/api/sessions/s5/continue?project=repo", "", http.StatusBadRequest},
		{"preview in an unknown agent", "GET", "/api/sessions/s5/continue?project=repo&in=nope", "", http.StatusBadRequest},
		{"preview of an unknown session", "GET", "/api/sessions/nope/continue?project=repo&in=gemini", "", http.StatusNotFound},
		{"preview of an ended session", "GET", "/api/sessions/s1/continue?project=repo&in=gemini", "", http.StatusConflict},
		{"continue without an agent", "POST", "/api/sessions/s5/continue?project=repo", `{}`, http.StatusBadRequest},
		{"continue with an unknown field", "POST", "/api/sessions/s5/continue?project=repo", `{"in":"gemini","now":true}`, http.StatusBadRequest},
		{"continue a merged session", "POST", "/api/sessions/s6/continue?project=repo", `{"in":"gemini"}`, http.StatusConflict},
		{"continue while a switch holds the guard", "POST", "/api/sessions/s7/continue?project=repo", `{"in":"gemini"}`, http.StatusConflict},
	} {
		code, out := f.do(t, c.method, c.path, c.body, nil)
		wantStatus(t, c.what, code, c.want, out)
	}
	code, out := f.do(t, "GET", "/api/sessions/s5/continue?project=repo&in=claude", "", nil)
	if code < 400 || !strings.Contains(out["error"].(string), "runs claude-code already") {
		t.Fatalf("continuing s5 in the agent it runs: %d %v", code, out)
	}
	code, out = f.do(t, "POST", "/api/sessions/s5/continue?project=repo", `{"in":"gemini"}`, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") })
	wantStatus(t, "continue from another origin", code, http.StatusForbidden, out)

	before := f.refs(t)
	code, preview := f.do(t, "GET", "/api/sessions/s5/continue?project=repo&in=gemini", "", nil)
	wantStatus(t, "preview", code, http.StatusOK, preview)
	brief, _ := preview["brief"].(string)
	if preview["preview"] != true || preview["from"] != "claude-code" || preview["to"] != "gemini" ||
		!strings.Contains(brief, "numbers are next") || !strings.Contains(brief, "continued by hand from claude-code") {
		t.Fatalf("preview = %v", preview)
	}
	if after := f.refs(t); after != before {
		t.Fatalf("the preview changed refs:\nbefore\n%s\nafter\n%s", before, after)
	}
	if s := f.session(t, "s5"); s.Harness != "claude-code" || s.Continued != nil {
		t.Fatalf("after the preview s5 = %+v", s)
	}

	// Continued by someone else since the preview (it runs claude-code,
	// not the codex the page saw): refused, and nothing written.
	code, out = f.do(t, "POST", "/api/sessions/s5/continue?project=repo", `{"in":"gemini","from":"codex"}`, nil)
	wantStatus(t, "continue from an agent the session no longer runs", code, http.StatusConflict, out)
	if !strings.Contains(out["error"].(string), "no longer runs codex") || f.refs(t) != before {
		t.Fatalf("continue from codex = %v", out)
	}
	code, out = f.do(t, "POST", "/api/sessions/s5/continue?project=repo", `{"in":"gemini","from":"claude-code"}`, nil)
	wantStatus(t, "continue", code, http.StatusOK, out)
	if out["preview"] != false || out["started"] != false || out["command"] != "git handoff session launch s5 --exec" || out["baton"] == "" {
		t.Fatalf("continue = %v", out)
	}
	if out["brief"] != brief {
		t.Fatalf("the new agent's brief is not the one previewed:\npreview\n%s\ncontinue\n%s", brief, out["brief"])
	}
	s5 := f.session(t, "s5")
	if s5.Harness != "gemini" || s5.Continued == nil || s5.Continued.From != "claude-code" || s5.Continued.To != "gemini" || s5.Continued.Auto {
		t.Fatalf("after the continuation s5 = %+v (continued %+v)", s5, s5.Continued)
	}
	code, out = f.do(t, "GET", "/api/sessions/s5?project=repo", "", nil)
	wantStatus(t, "show s5", code, http.StatusOK, out)
	if k, _ := out["session"].(map[string]any)["continued"].(map[string]any); k == nil || k["to"] != "gemini" || k["start"] != "git handoff session launch s5 --exec" {
		t.Fatalf("session show after the continuation = %v", out)
	}
}

// A session whose agent runs under tmux continues in its pane, as
// `continue` does there: the answer is the line that attaches to it.
func TestContinueUnderTmuxAPI(t *testing.T) {
	tmuxrttest.Socket(t)
	tmuxrttest.Agents(t, "codex", "gemini")
	f := newFixture(t, webui.Options{})
	f.startSession(t, "s9", "dev@example.com", "work", "codex")
	f.modify(t, "s9", func(r *session.Record) { r.Prompt = "tokenize nested comments" })
	code, out := f.do(t, "POST", "/api/sessions/s9/launch?project=repo", "", nil)
	wantStatus(t, "launch", code, http.StatusOK, out)
	srv := tmuxrt.FromEnv()
	name := tmuxrt.SessionName("s9")
	before, _ := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, found bool, screen string) bool {
		return found && !p.Dead && strings.Contains(screen, "stand-in codex pid")
	})

	code, out = f.do(t, "POST", "/api/sessions/s9/continue?project=repo", `{"in":"gemini"}`, nil)
	wantStatus(t, "continue under tmux", code, http.StatusOK, out)
	if out["started"] != true || out["attach"] != "git handoff session attach s9" || out["command"] != nil {
		t.Fatalf("continue under tmux = %v", out)
	}
	p, screen := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, found bool, screen string) bool {
		return found && !p.Dead && strings.Contains(screen, "stand-in gemini pid")
	})
	if p.PID == before.PID || !strings.Contains(screen, "continued by hand from codex") {
		t.Fatalf("the pane after the continuation (pid %d, was %d):\n%s", p.PID, before.PID, screen)
	}
	if s := f.session(t, "s9"); s.Harness != "gemini" || s.Runtime == nil || s.Waiting() {
		t.Fatalf("after the continuation under tmux s9 = %+v", s)
	}
}
