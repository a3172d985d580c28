package webui_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/tmuxrt/tmuxrttest"
	"github.com/git-handoff/git-handoff/webui"
)

func TestUndismissAPI(t *testing.T) {
	f := newFixture(t, webui.Options{})
	code, out := f.do(t, "POST", "/api/handoffs/"+f.waiting+"/restore?project=repo", "", nil)
	wantStatus(t, "restore a waiting baton", code, http.StatusConflict, out)
	code, out = f.do(t, "POST", "/api/handoffs/h-nosuchthing/restore?project=repo", "", nil)
	wantStatus(t, "restore an unknown baton", code, http.StatusNotFound, out)
	code, out = f.do(t, "DELETE", "/api/handoffs/"+f.waiting+"?project=repo", "", nil)
	wantStatus(t, "dismiss", code, http.StatusOK, out)
	// Only from the page: another origin cannot bring a baton back.
	code, out = f.do(t, "POST", "/api/handoffs/"+f.waiting+"/restore?project=repo", "", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") })
	wantStatus(t, "restore from another origin", code, http.StatusForbidden, out)
	code, out = f.do(t, "POST", "/api/handoffs/"+f.waiting+"/restore?project=repo", "", nil)
	wantStatus(t, "restore", code, http.StatusOK, out)
	if h := out["handoff"].(map[string]any); out["restored"] != true || h["id"] != f.waiting || h["deleted"] != nil {
		t.Fatalf("restore = %v", out)
	}
	if !f.live(t, f.waiting) {
		t.Fatal("the restored baton is not waiting")
	}
}

// Sessions list where each runs and what tmux says of it; launch,
// attach and the pane refuse a session whose agent is not running here.
func TestSessionActionsAPI(t *testing.T) {
	f := newFixture(t, webui.Options{})
	code, out := f.do(t, "GET", "/api/sessions?project=repo&all=true", "", nil)
	wantStatus(t, "sessions", code, http.StatusOK, out)
	for _, it := range out["items"].([]any) {
		s := it.(map[string]any)
		if s["id"] == "s5" && (s["objective"].(map[string]any)["text"] != "finish the lexer" || s["worktree"] == "" || s["host"] == "" || s["otherHost"] != false) {
			t.Fatalf("s5 listed as %v", s)
		}
		if s["id"] == "s1" && s["objective"] != nil {
			t.Fatalf("an ended session listed with an objective: %v", s)
		}
	}
	code, out = f.do(t, "GET", "/api/sessions/s5/attach?project=repo", "", nil)
	wantStatus(t, "attach to a session not under tmux", code, http.StatusConflict, out)
	if !strings.Contains(out["error"].(string), "runs in no tmux session") {
		t.Fatalf("attach = %v", out)
	}
	code, out = f.do(t, "GET", "/api/sessions/s5/pane?project=repo", "", nil)
	wantStatus(t, "pane of a session not under tmux", code, http.StatusNotFound, out)
	code, out = f.do(t, "GET", "/api/sessions/s5/pane?project=repo&lines=500", "", nil)
	wantStatus(t, "too many lines", code, http.StatusBadRequest, out)
	code, out = f.do(t, "POST", "/api/sessions/s6/launch?project=repo", "", nil)
	wantStatus(t, "launch a merged session", code, http.StatusConflict, out)
	code, out = f.do(t, "POST", "/api/sessions/s5/restore?project=repo", `{"prompt":1}`, nil)
	wantStatus(t, "restore with a bad body", code, http.StatusBadRequest, out)
	code, out = f.do(t, "POST", "/api/sessions/s5/restore?project=repo", "", nil)
	wantStatus(t, "restore an active session", code, http.StatusOK, out)
	if out["changed"] != false {
		t.Fatalf("restoring an active session changed it: %v", out)
	}
}

// However often pages ask, tmux is read once per session per PaneEvery.
func TestPaneIsReadAtMostOncePerInterval(t *testing.T) {
	tmuxrttest.Socket(t)
	tmuxrttest.Agents(t, "codex")
	f := newFixture(t, webui.Options{PaneEvery: time.Hour})
	f.startSession(t, "s9", "dev@example.com", "work", "codex")
	f.modify(t, "s9", func(r *session.Record) { r.Prompt = "tokenize nested comments" })
	code, out := f.do(t, "POST", "/api/sessions/s9/launch?project=repo", "", nil)
	wantStatus(t, "launch", code, http.StatusOK, out)
	if out["attach"] != "git handoff session attach s9" || out["runtime"].(map[string]any)["state"] != "live" {
		t.Fatalf("launch = %v", out)
	}
	code, out = f.do(t, "POST", "/api/sessions/s9/launch?project=repo", "", nil)
	wantStatus(t, "launch again while it runs", code, http.StatusConflict, out)

	srv := tmuxrt.FromEnv()
	tmuxrttest.Wait(t, srv, tmuxrt.SessionName("s9"), func(_ tmuxrt.Pane, found bool, screen string) bool {
		return found && strings.Contains(screen, "first (Test Dev")
	})
	code, first := f.do(t, "GET", "/api/sessions/s9/pane?project=repo&lines=3", "", nil)
	wantStatus(t, "pane", code, http.StatusOK, first)
	lines := first["lines"].([]any)
	if first["state"] != "live" || len(lines) != 3 || !strings.Contains(lines[2].(string), "first (Test Dev") {
		t.Fatalf("pane = %v", first)
	}
	// Within the interval the capture is served again, asked for fewer
	// lines too, not read anew.
	code, again := f.do(t, "GET", "/api/sessions/s9/pane?project=repo&lines=2", "", nil)
	wantStatus(t, "pane again", code, http.StatusOK, again)
	if again["at"] != first["at"] || len(again["lines"].([]any)) != 2 {
		t.Fatalf("a second read within the interval asked tmux again: %v then %v", first, again)
	}
	code, out = f.do(t, "GET", "/api/sessions/s9/attach?project=repo", "", nil)
	wantStatus(t, "attach", code, http.StatusOK, out)
	if out["command"] != "git handoff session attach s9" {
		t.Fatalf("attach = %v", out)
	}
}

// A restore's body is outside input: whatever it holds, the answer is a
// decision (done, refused as bad, or refused by the session's state),
// never a server error.
func FuzzRestoreBody(f *testing.F) {
	for _, seed := range []string{``, `{}`, `{"prompt":"go on"}`, `{"prompt":1}`, `{"prompt":"x","extra":true}`, `[`, `null`, "{\"prompt\":\"\\u0000\"}"} {
		f.Add(seed)
	}
	fx := newFixture(f, webui.Options{})
	f.Fuzz(func(t *testing.T, body string) {
		code, out := fx.do(t, "POST", "/api/sessions/s5/restore?project=repo", body, nil)
		if code != http.StatusOK && code != http.StatusBadRequest {
			t.Fatalf("restore with body %q: %d %v", body, code, out)
		}
	})
}

func TestRecentClaimedAPI(t *testing.T) {
	f := newFixture(t, webui.Options{})
	// s9 claims carol's shared baton an hour after s3 claimed bob's.
	st := f.store(t)
	if err := st.Unbind(context.Background()); err != nil {
		t.Fatal(err)
	}
	later := func() time.Time { return clock().Add(time.Hour) }
	if r, err := handoff.Start(context.Background(), st, handoff.StartOptions{Session: "s9", Harness: "codex", Owner: "dev@example.com", Branch: "work"}, later); err != nil || !r.Claimed {
		t.Fatalf("s9 did not claim carol's baton: %v, %+v", err, r)
	}
	for _, c := range []struct {
		n    string
		want []string
	}{
		{"0", []string{f.waiting}},
		{"1", []string{f.waiting, f.shared}},
		{"5", []string{f.waiting, f.shared, f.claimed}},
	} {
		code, out := f.do(t, "GET", "/api/handoffs?project=repo&recentClaimed="+c.n, "", nil)
		wantStatus(t, "recentClaimed="+c.n, code, http.StatusOK, out)
		got := ids(t, out)
		if len(got) != len(c.want) {
			t.Fatalf("recentClaimed=%s: %v, want %v", c.n, got, c.want)
		}
		for _, w := range c.want {
			if !has(got, w) {
				t.Fatalf("recentClaimed=%s: %v, want %v", c.n, got, c.want)
			}
		}
	}
	code, out := f.do(t, "GET", "/api/handoffs?project=repo&recentClaimed=-1", "", nil)
	wantStatus(t, "a negative count", code, http.StatusBadRequest, out)
}

// A restore from the page says what uncommitted work the session left in a
// snapshot, and how to bring it back, as `session restore` does; it
// applies nothing.
func TestRestoreOffersTheSessionsSnapshot(t *testing.T) {
	f := newFixture(t, webui.Options{})
	st := f.store(t)
	if err := os.WriteFile(filepath.Join(f.dir, "draft.go"), []byte("package draft\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	taken, err := handoff.TakeSnapshot(context.Background(), st, "s1")
	if err != nil || taken.Snapshot == nil {
		t.Fatalf("snapshot of s1: %+v, %v", taken, err)
	}
	if err := os.Remove(filepath.Join(f.dir, "draft.go")); err != nil {
		t.Fatal(err)
	}
	code, out := f.do(t, "POST", "/api/sessions/s1/restore?project=repo", `{"prompt":"go on"}`, nil)
	wantStatus(t, "restore s1", code, http.StatusOK, out)
	notices := fmt.Sprint(out["notices"])
	if !strings.Contains(notices, "session s1 left uncommitted work") || !strings.Contains(notices, "git handoff snapshot apply") {
		t.Fatalf("the restore's notices do not offer the snapshot: %s", notices)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "draft.go")); err == nil {
		t.Fatal("the page applied the snapshot")
	}
}
