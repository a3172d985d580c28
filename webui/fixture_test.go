package webui_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/webui"
)

var clock handoff.Clock = func() time.Time { return time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC) }

// hostile is record text that would run if it ever became markup.
const hostile = `<img src=x onerror="document.body.dataset.pwned=1">`

// fixture is one real repository with every kind of record the page
// shows, served by a real server.
type fixture struct {
	dir  string
	srv  *webui.Server
	http *httptest.Server
	// batons: waiting (mine), claimed (bob's), shared (carol's).
	waiting, claimed, shared string
	// sessions: s3 replaced by s5 (active, owns #7), s6 merged, s7 in
	// the middle of a switch.
	bin string // a directory holding the only "installed" agent, gemini
}

func newFixture(t testing.TB, opts webui.Options) *fixture {
	t.Helper()
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	ctx := context.Background()
	f := &fixture{dir: gittest.Init(t)}
	st := f.store(t)

	start := func(id, owner, branch, agent string) *handoff.StartResult {
		t.Helper()
		// As if from a worktree of its own: a start where another active
		// session is bound ends that one.
		if err := st.Unbind(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: id, Harness: agent, Owner: owner, Branch: branch,
			Objective: "finish the lexer"}, clock)
		if err != nil {
			t.Fatal(err)
		}
		return &res
	}
	end := func(id, owner, branch string, shared bool, next ...string) string {
		t.Helper()
		res, err := handoff.End(ctx, st, handoff.EndOptions{Session: id, Owner: owner, Branch: branch, Shared: shared,
			Next: next, Failed: []string{"regexp pre-pass"}, Questions: []string{"keep doc comments?"}}, clock)
		if err != nil {
			t.Fatal(err)
		}
		return res.Handoff.ID
	}
	start("s1", "dev@example.com", "main", "codex")
	f.waiting = end("s1", "dev@example.com", "main", false, "wire the parser", hostile)
	start("s2", "bob", "feat", "aider")
	f.claimed = end("s2", "bob", "feat", false, "bob's next step")
	if r := start("s3", "bob", "feat", "claude-code"); !r.Claimed {
		t.Fatalf("s3 did not claim bob's baton: %+v", r)
	}
	if _, err := handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{
		ReplaceOptions: session.ReplaceOptions{OldID: "s3", NewID: "s5", Reason: "stuck", Context: session.ContextNone},
	}, clock); err != nil {
		t.Fatal(err)
	}
	if _, err := prown.Claim(ctx, st, prown.ClaimOptions{Repo: "octo-org/hello-world", Number: 7,
		URL: "https://github.com/octo-org/hello-world/pull/7", Session: "s5"}, clock()); err != nil {
		t.Fatal(err)
	}
	start("s6", "dev@example.com", "done", "codex")
	f.modify(t, "s6", func(r *session.Record) { r.Status = session.StatusMerged })
	start("s7", "dev@example.com", "busy", "codex")
	f.modify(t, "s7", func(r *session.Record) {
		r.Switching = &session.Switching{By: "someone else", Since: clock(), Until: clock().Add(24 * time.Hour), To: "aider"}
	})

	// Last: a shared baton is eligible on any branch, so a session started
	// after it would claim it.
	start("s4", "carol", "docs", "goose")
	f.shared = end("s4", "carol", "docs", true, "carol's shared step")

	f.bin = t.TempDir()
	if err := os.WriteFile(filepath.Join(f.bin, "gemini"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if opts.Repos == nil {
		opts.Repos = []webui.Repo{{Name: "repo", Dir: f.dir}}
	}
	if opts.Clock == nil {
		opts.Clock = clock
	}
	if opts.LookPath == nil {
		opts.LookPath = f.lookPath
	}
	if opts.Poll == 0 {
		opts.Poll = 20 * time.Millisecond
	}
	srv, err := webui.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	return f
}

// lookPath finds programs in the fixture's bin only, as exec.LookPath
// would on a machine where gemini is the one agent installed.
func (f *fixture) lookPath(name string) (string, error) {
	p := filepath.Join(f.bin, name)
	if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
		return p, nil
	}
	return "", exec.ErrNotFound
}

func (f *fixture) store(t testing.TB) *refstore.Store {
	t.Helper()
	st, err := refstore.Open(context.Background(), f.dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func (f *fixture) modify(t testing.TB, id string, fn func(*session.Record)) {
	t.Helper()
	if _, err := session.Modify(context.Background(), f.store(t), id, "test", func(r *session.Record) error { fn(r); return nil }); err != nil {
		t.Fatal(err)
	}
}

// session reads a session record afresh.
func (f *fixture) session(t *testing.T, id string) session.Record {
	t.Helper()
	s, err := session.Read(context.Background(), f.store(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return s.Record
}

// live reports whether baton id is still there, unclaimed or claimed.
func (f *fixture) live(t *testing.T, id string) bool {
	t.Helper()
	list, _, err := baton.List(context.Background(), f.store(t), baton.Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range list {
		if b.ID == id {
			return true
		}
	}
	return false
}

// start serves f on a loopback port.
func (f *fixture) start(t *testing.T) string {
	t.Helper()
	f.http = httptest.NewServer(f.srv)
	t.Cleanup(f.http.Close)
	return f.http.URL
}

// do sends one request as the page would (its origin, its token) unless
// edit changes it, and decodes the JSON answer.
func (f *fixture) do(t *testing.T, method, path, body string, edit func(*http.Request)) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://127.0.0.1:3124"+path, rd)
	req.Header.Set("Origin", "http://127.0.0.1:3124")
	req.Header.Set("Authorization", "Bearer "+f.srv.PageToken())
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if edit != nil {
		edit(req)
	}
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, req)
	var out map[string]any
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		return rec.Code, nil
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("%s %s: answer is not JSON (%v): %s", method, path, err, rec.Body)
	}
	return rec.Code, out
}

// startSession starts one more session in the fixture's repository, as
// if from a worktree of its own.
func (f *fixture) startSession(t *testing.T, id, owner, branch, agent string) {
	t.Helper()
	st := f.store(t)
	if err := st.Unbind(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := handoff.Start(context.Background(), st, handoff.StartOptions{Session: id, Harness: agent, Owner: owner, Branch: branch}, clock); err != nil {
		t.Fatal(err)
	}
}
