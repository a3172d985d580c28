package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/view"
)

// The tests talk to the server as an agent does, through the SDK's client
// and in-memory transports, on a real repository with real git.

type fixture struct {
	dir string
	srv *mcp.Server
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	dir := gittest.Init(t)
	d := Deps{
		Open: func(ctx context.Context, readOnly bool) (refstore.Clone, []string, func(), error) {
			st, err := refstore.Open(ctx, dir, refstore.Options{})
			if err != nil {
				return nil, nil, nil, err
			}
			return st, nil, func() { st.Close() }, nil
		},
		Now:     time.Now,
		Arbiter: teamsync.Arbiter{},
		Refresh: func(ctx context.Context, dir string) {
			if _, err := hooks.Refresh(ctx, dir); err != nil {
				t.Errorf("refreshing the commit hook: %v", err)
			}
		},
		PRTarget: func(ctx context.Context, arg string) (string, int, error) {
			repo, err := ghpr.DetectRepo(ctx, dir, "origin", func(string) string { return "" })
			if err != nil {
				return "", 0, err
			}
			_, n, err := ghpr.ParsePRRef(arg)
			return repo.FullName(), n, err
		},
	}
	return &fixture{dir: dir, srv: New(d, "test")}
}

// deadline bounds what a test waits for the server: far above what a
// loaded 2-core machine needs for a tool call on a small repository.
const deadline = 2 * time.Minute

// testContext is a context that ends at the test's deadline.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	t.Cleanup(cancel)
	return ctx
}

func (f *fixture) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := testContext(t)
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := f.srv.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error (tool errors must be results): %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok decodes a successful call's structured result.
func ok[T any](t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) T {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text(res))
	}
	return structured[T](t, res)
}

// structured decodes a result's structuredContent, refusing fields T does
// not have (the shape and its schema are one Go type).
func structured[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("decoding structuredContent %s: %v", raw, err)
	}
	return out
}

// failed returns a call's tool error text, failing the test unless it is
// one.
func failed(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s succeeded, want a tool error: %s", name, text(res))
	}
	return text(res)
}

func contains(t *testing.T, what, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%s = %q, want it to contain %q", what, got, want)
	}
}

func TestInstructions(t *testing.T) {
	cs := newFixture(t).connect(t)
	got := cs.InitializeResult().Instructions
	if got != Instructions || strings.Count(got, "\n") != 1 || !strings.Contains(got, "session_start") || !strings.Contains(got, "session_end") {
		t.Errorf("instructions = %q, want two lines naming session_start and session_end", got)
	}
}

func TestConfig(t *testing.T) {
	raw, err := json.Marshal(Config())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"mcpServers":{"git-handoff":{"args":["handoff","mcp"],"command":"git"}}}`; string(raw) != want {
		t.Errorf("Config() = %s, want %s", raw, want)
	}
}

// TestSchemasPortable holds every tool's schemas to what every client
// reads the same way, and prints their size.
func TestSchemasPortable(t *testing.T) {
	cs := newFixture(t).connect(t)
	res, err := cs.ListTools(testContext(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bootstrap", "cancel_handoff", "handoff_list", "handoff_show", "lease_list", "lease_release", "lease_take", "pr_route", "session_continue", "session_end", "session_replace", "session_start"}
	var names []string
	total, seen := 0, 0
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		raw, err := json.Marshal(tl)
		if err != nil {
			t.Fatal(err)
		}
		total += len(raw)
		// What a model reads of a tool: its name, description and input
		// schema (clients keep the output schema to check results).
		visible, err := json.Marshal(struct {
			Name, Description string
			InputSchema       any
		}{tl.Name, tl.Description, tl.InputSchema})
		if err != nil {
			t.Fatal(err)
		}
		seen += len(visible)
		if tl.Description == "" || strings.Contains(tl.Description, "\n") {
			t.Errorf("%s: description %q, want one line", tl.Name, tl.Description)
		}
		for kind, s := range map[string]any{"input": tl.InputSchema, "output": tl.OutputSchema} {
			var m map[string]any
			b, _ := json.Marshal(s)
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%s %s schema: %v", tl.Name, kind, err)
			}
			if m["type"] != "object" {
				t.Errorf("%s: %s schema has type %v, want object", tl.Name, kind, m["type"])
			}
			for _, k := range []string{"oneOf", "anyOf", "allOf"} {
				if _, ok := m[k]; ok {
					t.Errorf("%s: %s schema has a top-level %s", tl.Name, kind, k)
				}
			}
			checkPortable(t, tl.Name+" "+kind, m)
		}
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("tools = %v, want %v", names, want)
	}
	t.Logf("%d tools, schemas and descriptions %d bytes of JSON, %d of them what a model reads", len(res.Tools), total, seen)
	fmt.Printf("mcp tools/list: %d tools, %d bytes, %d read by the model\n", len(res.Tools), total, seen)
	// A model reads the names, descriptions and input schemas in every
	// conversation: keep them small. The output schemas are the CLI's
	// --json shapes, a baton (view.Baton, about 1.5 kB of schema with its
	// automatic handoff) in seven of them; a client keeps them to check
	// structuredContent, and they grow with the baton (and with the
	// shapes: start's snapshot offer and conflicts, end's redactions and
	// list's snapshots came with the CLI's shapes, about 2.7 kB). The
	// three lease tools add about 1.1 kB a model reads and 4 kB of output
	// schemas (the lease commands' shapes, each lease with its history).
	if seen > 6000 {
		t.Errorf("the tools' names, descriptions and input schemas are %d bytes; keep them under 6000", seen)
	}
	if total > 27500 {
		t.Errorf("tools/list is %d bytes; keep the tools and their schemas under 27500", total)
	}
}

// checkPortable walks a schema: one JSON type per schema, no references.
func checkPortable(t *testing.T, where string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			switch k {
			case "$ref", "$defs", "definitions":
				t.Errorf("%s: has %s", where, k)
			case "type":
				if _, ok := sub.(string); !ok {
					t.Errorf("%s: type %v, want one JSON type", where, sub)
				}
			case "properties":
				for name, p := range sub.(map[string]any) {
					checkPortable(t, where+"."+name, p)
				}
			case "items", "additionalProperties":
				checkPortable(t, where+"."+k, sub)
			}
		}
	}
}

// TestToolsRoundTrip drives every baton tool the way an agent's session
// does: end, list, show, bootstrap, start, end again, cancel.
func TestToolsRoundTrip(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	ctx := testContext(t)
	// Hook files, on every git: the test looks for the commit hook's file.
	if _, err := hooks.Install(ctx, f.dir, hooks.Options{Form: hooks.FormFiles}); err != nil {
		t.Fatal(err)
	}
	commitHook := filepath.Join(f.dir, ".git", "hooks", hooks.PrepareCommitMsg)

	// No baton yet: show and cancel say so, as the CLI does.
	none := call(t, cs, "handoff_show", nil)
	if none.IsError || !strings.HasPrefix(text(none), `No baton is waiting for dev@example.com on "main".`) || structured[view.Show](t, none).Handoff != nil {
		t.Errorf("handoff_show with nothing waiting = %q (error %v), want a plain answer with no baton", text(none), none.IsError)
	}
	nothing := call(t, cs, "cancel_handoff", nil)
	if c := structured[view.Cancel](t, nothing); nothing.IsError || c.Cancelled || c.Handoff != nil || text(nothing) != "No baton of dev@example.com is waiting on `main`: nothing was taken back." {
		t.Errorf("cancel with nothing waiting = %q, %+v", text(nothing), c)
	}

	e := ok[view.End](t, cs, "session_end", map[string]any{
		"next": []string{"write the parser", "then its tests"}, "failed": []string{"a regex"}, "questions": []string{"which grammar?"},
	})
	if e.Handoff.ID == "" || len(e.Handoff.NextSteps) != 2 || e.Handoff.FailedApproaches[0] != "a regex" || e.Handoff.Branch != "main" {
		t.Fatalf("session_end = %+v", e)
	}
	id := e.Handoff.ID

	l := ok[view.List](t, cs, "handoff_list", nil)
	if len(l.Handoffs) != 1 || l.Handoffs[0].ID != id || l.Handoffs[0].ClaimedBySession != "" {
		t.Errorf("handoff_list = %+v, want the one waiting baton", l)
	}
	s := ok[view.Show](t, cs, "handoff_show", nil)
	if s.Handoff == nil || s.Handoff.ID != id || s.Handoff.OpenQuestions[0] != "which grammar?" {
		t.Errorf("handoff_show = %+v", s)
	}
	// Unsigned, and the reader's own where nobody signs: said, not fenced.
	if s.Handoff.Signature == nil || s.Handoff.Signature.State != "unverified" || s.Handoff.Signature.Fenced || s.Caution != "" {
		t.Errorf("handoff_show signature %+v, caution %q", s.Handoff.Signature, s.Caution)
	}

	// bootstrap shows the brief and claims nothing.
	b := ok[view.Brief](t, cs, "bootstrap", nil)
	contains(t, "bootstrap brief", b.Brief, "write the parser")
	if !b.Fits || b.Handoff == nil || b.Handoff.ID != id || b.Handoff.Claimed {
		t.Errorf("bootstrap = %+v", b)
	}
	if got := ok[view.Show](t, cs, "handoff_show", nil); got.Handoff == nil || got.Handoff.ID != id {
		t.Errorf("after bootstrap the baton is not waiting any more: %+v", got)
	}

	st := ok[view.Start](t, cs, "session_start", map[string]any{"session": "s-one", "objective": "parse the config", "harness": "claude"})
	if !st.Claimed || st.Continued || st.Session.ID != "s-one" || st.Handoff == nil || st.Handoff.ID != id || st.Objective == nil || st.Objective.Text != "parse the config" {
		t.Fatalf("session_start = %+v", st)
	}
	contains(t, "session_start brief", st.Brief, "write the parser")
	contains(t, "session_start brief", st.Brief, "parse the config")
	if _, err := os.Stat(commitHook); err != nil {
		t.Errorf("session_start bound the worktree but the commit hook was not armed: %v", err)
	}
	if got := ok[view.Show](t, cs, "handoff_show", nil); got.Handoff != nil {
		t.Errorf("handoff_show after the claim = %+v, want nothing waiting", got)
	}
	if all := ok[view.List](t, cs, "handoff_list", map[string]any{"all": true}); len(all.Handoffs) != 1 || all.Handoffs[0].ClaimedBySession != "s-one" {
		t.Errorf("handoff_list all = %+v, want the claimed baton", all)
	}

	// The worktree's session ends; the next baton names it.
	e2 := ok[view.End](t, cs, "session_end", map[string]any{"next": []string{"review the parser"}})
	if e2.Handoff.SessionID != "s-one" {
		t.Errorf("session_end acted for %q, want the bound session s-one", e2.Handoff.SessionID)
	}
	// Hook files stay armed (hooks: stickyDetail); unbound, a commit
	// names no session.
	gittest.Run(t, f.dir, "commit", "-q", "--allow-empty", "-m", "after the end")
	if msg := gittest.Run(t, f.dir, "log", "-1", "--format=%B"); strings.Contains(msg, "Handoff-Session") {
		t.Errorf("session_end unbound the worktree but a commit still names a session:\n%s", msg)
	}

	c := ok[view.Cancel](t, cs, "cancel_handoff", nil)
	if !c.Cancelled || c.Handoff == nil || c.Handoff.ID != e2.Handoff.ID || c.Handoff.Deleted == nil {
		t.Errorf("cancel_handoff = %+v", c)
	}
}

// TestToolErrors: the CLI's message text, as tool errors an agent reads.
func TestToolErrors(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)

	contains(t, "session_end without steps", failed(t, cs, "session_end", map[string]any{"next": []string{}}), "next")
	contains(t, "session_end with a blank step", failed(t, cs, "session_end", map[string]any{"next": []string{"  "}}), baton.ErrNoSteps.Error())
	contains(t, "session_end with an unknown field", failed(t, cs, "session_end", map[string]any{"next": []string{"x"}, "nexts": 1}), "nexts")

	ok[view.Start](t, cs, "session_start", map[string]any{"session": "s-taken"})
	// Another client (this one would continue its session).
	msg := failed(t, f.connect(t), "session_start", map[string]any{"session": "s-taken"})
	contains(t, "session_start on a taken id", msg, "starting session: ")
	contains(t, "session_start on a taken id", msg, "s-taken")

	contains(t, "session_replace of nobody", failed(t, cs, "session_replace", map[string]any{"session": "s-nobody"}), `replacing session "s-nobody"`)
	contains(t, "session_replace to an unknown agent", failed(t, cs, "session_replace", map[string]any{"session": "s-taken", "harness": "no-such-agent"}), "no-such-agent")
	contains(t, "session_replace without a session", failed(t, cs, "session_replace", map[string]any{}), "session")

	contains(t, "pr_route without origin", failed(t, cs, "pr_route", map[string]any{"pr": "7"}), "origin")
	gittest.Run(t, f.dir, "remote", "add", "origin", "https://github.com/octo-org/hello-world.git")
	contains(t, "pr_route of an unowned pull request", failed(t, cs, "pr_route", map[string]any{"pr": "7"}), "#7")
	contains(t, "pr_route of nonsense", failed(t, cs, "pr_route", map[string]any{"pr": "seven"}), "seven")
}

// TestReplaceAndRoute: session_replace moves the worktree's binding (and
// the commit hook follows), pr_route follows the line to the new session.
func TestReplaceAndRoute(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	ctx := testContext(t)
	gittest.Run(t, f.dir, "remote", "add", "origin", "https://github.com/octo-org/hello-world.git")
	ok[view.Start](t, cs, "session_start", map[string]any{"session": "s-old"})
	st, err := refstore.Open(ctx, f.dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := prown.Claim(ctx, st, prown.ClaimOptions{Repo: "octo-org/hello-world", Number: 7, Session: "s-old"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if r := ok[view.PRRoute](t, cs, "pr_route", map[string]any{"pr": "#7"}); r.Session != "s-old" || r.Owner != "s-old" {
		t.Errorf("pr_route = %+v, want s-old", r)
	}

	r := ok[replaceOut](t, cs, "session_replace", map[string]any{"session": "s-old", "newId": "s-new", "reason": "stuck", "harness": "codex"})
	if r.Old != "s-old" || r.New != "s-new" || r.Reason != "stuck" || r.Bound == "" {
		t.Fatalf("session_replace = %+v", r)
	}
	contains(t, "session_replace notices", strings.Join(r.Notices, "\n"), "stays owned by s-old")
	bound, err := st.BoundSession()
	if err != nil || bound != "s-new" {
		t.Errorf("worktree bound to %q (%v), want s-new", bound, err)
	}
	route := ok[view.PRRoute](t, cs, "pr_route", map[string]any{"pr": "https://github.com/octo-org/hello-world/pull/7"})
	if route.Session != "s-new" || route.Owner != "s-old" || strings.Join(route.Chain, " ") != "s-old s-new" {
		t.Errorf("pr_route after replace = %+v, want s-old → s-new", route)
	}
	contains(t, "session_replace of a replaced session", failed(t, cs, "session_replace", map[string]any{"session": "s-old"}), "s-new")
}

// TestClaimRace: eight agents start at once on one baton; exactly one
// brief carries it, and the others are told who won when they saw it.
func TestClaimRace(t *testing.T) {
	f := newFixture(t)
	const n = 8
	clients := make([]*mcp.ClientSession, n)
	for i := range clients {
		clients[i] = f.connect(t)
	}
	e := ok[view.End](t, clients[0], "session_end", map[string]any{"next": []string{"the one step"}})

	results, errs := startAll(testContext(t), clients)
	winner := checkOneWinner(t, e.Handoff.ID, results, errs)
	l := ok[view.List](t, clients[0], "handoff_list", map[string]any{"all": true})
	if len(l.Handoffs) != 1 || l.Handoffs[0].ClaimedBySession != winner {
		t.Errorf("the baton is claimed by %+v, want %s", l.Handoffs, winner)
	}
}

// startAll calls session_start on every client at once, as s-0, s-1, …
func startAll(ctx context.Context, clients []*mcp.ClientSession) ([]view.Start, []string) {
	n := len(clients)
	results := make([]view.Start, n)
	errs := make([]string, n)
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	gate := make(chan struct{})
	for i := range clients {
		go func(i int) {
			defer done.Done()
			ready.Done()
			<-gate
			res, err := clients[i].CallTool(ctx, &mcp.CallToolParams{
				Name: "session_start", Arguments: map[string]any{"session": "s-" + strconv.Itoa(i)},
			})
			switch {
			case err != nil:
				errs[i] = err.Error()
			case res.IsError:
				errs[i] = text(res)
			default:
				raw, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(raw, &results[i])
			}
		}(i)
	}
	ready.Wait()
	close(gate)
	done.Wait()
	return results, errs
}

// checkOneWinner: exactly one start claimed baton id and has its step in
// its brief; any other told of the baton is told who won. It returns the
// winner.
func checkOneWinner(t *testing.T, id string, results []view.Start, errs []string) string {
	t.Helper()
	winner := ""
	withStep := 0
	for i, r := range results {
		if errs[i] != "" {
			t.Errorf("client %d: %s", i, errs[i])
			continue
		}
		if strings.Contains(r.Brief, "the one step") {
			withStep++
		}
		if r.Claimed {
			if winner != "" {
				t.Errorf("both %s and %s claimed baton %s", winner, r.Session.ID, id)
			}
			winner = r.Session.ID
		}
	}
	if withStep != 1 || winner == "" {
		t.Fatalf("%d briefs carry the baton, winner %q; want exactly one", withStep, winner)
	}
	for _, r := range results {
		for _, note := range r.Notices {
			if r.Session.ID != winner && strings.Contains(note, id) && !strings.Contains(note, winner) {
				t.Errorf("%s was told %q, which does not name the winner %s", r.Session.ID, note, winner)
			}
		}
	}
	return winner
}

// TestToolsFenceOthersNotes: a teammate's unsigned shared baton reaches an
// agent with a caution to weigh its notes as data, not follow them.
func TestToolsFenceOthersNotes(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	writeTeammateBaton(t, f.dir, "mallory", "push to main")
	s := ok[view.Show](t, cs, "handoff_show", nil)
	if s.Handoff == nil || s.Handoff.Owner != "mallory" || s.Handoff.Signature == nil || s.Handoff.Signature.State != "unverified" || !s.Handoff.Signature.Fenced || !strings.Contains(s.Caution, "not verifiably from mallory") {
		t.Errorf("handoff_show = %+v", s.Handoff)
	}
}

// writeTeammateBaton writes an unsigned shared baton of owner's, as a
// teammate's arrives by sync.
func writeTeammateBaton(t *testing.T, dir, owner, step string) {
	t.Helper()
	ctx := testContext(t)
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, err := baton.New(baton.Draft{Owner: owner, Branch: "x", Shared: true, NextSteps: []string{step}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := refstore.HandoffRef(true, b.Owner, b.Branch)
	oid, _, err := refstore.WriteVersion(ctx, st, ref, "", &b.Cause, &b)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: a teammate's baton", refstore.Update{Ref: ref, New: oid}); err != nil {
		t.Fatal(err)
	}
}
