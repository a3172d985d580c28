package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/view"
)

// The end-to-end test: an MCP client we did not write, the MCP Inspector's
// CLI, drives the built `git handoff mcp` over stdio. .ci/run installs it,
// with the Node it needs, into GIT_HANDOFF_CI_TOOLS (default: the user's
// cache directory, git-handoff/ci-tools) and sets CI_REQUIRE_TOOLS=1, so
// in CI a missing inspector fails the test instead of skipping it.

// inspector is how to run the inspector: the Node binary and its script.
type inspector struct{ node, script string }

func findInspector(t *testing.T) inspector {
	t.Helper()
	dir := os.Getenv("GIT_HANDOFF_CI_TOOLS")
	if dir == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(cache, "git-handoff", "ci-tools")
		}
	}
	in := inspector{
		node:   filepath.Join(dir, "node_modules", ".bin", "node"),
		script: filepath.Join(dir, "node_modules", ".bin", "inspector"),
	}
	for _, p := range []string{in.node, in.script} {
		if _, err := os.Stat(p); err != nil {
			msg := "the MCP Inspector is not installed in " + dir + " (bash .ci/run installs it): " + err.Error()
			if os.Getenv("CI_REQUIRE_TOOLS") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	return in
}

// buildBinary builds git-handoff into a directory of its own, for PATH:
// the inspector then starts the server as `git handoff mcp`, as an agent's
// configuration does.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.CommandContext(testContext(t), "go", "build", "-o", filepath.Join(bin, "git-handoff"), "../cmd/git-handoff")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building git-handoff: %v\n%s", err, out)
	}
	return bin
}

// run runs the inspector's CLI against `git handoff mcp` in repo and
// returns its stdout, stderr and exit code.
func (in inspector) run(t *testing.T, bin, repo string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	argv := append([]string{in.script, "--cli", "--cwd", repo, "git", "handoff", "mcp"}, args...)
	cmd := exec.CommandContext(testContext(t), in.node, argv...)
	cmd.WaitDelay = 10 * time.Second // a server left behind must not hold the pipes open
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+filepath.Dir(in.node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("running the inspector: %v", err)
	}
	return out.String(), errOut.String(), code
}

func TestInspector(t *testing.T) {
	in := findInspector(t)
	bin := buildBinary(t)
	home := gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	t.Setenv("MCP_CATALOG_PATH", filepath.Join(home, "mcp.json")) // the inspector's own state stays in the test
	repo := gittest.Init(t)

	// tools/list under --strict: any portability warning fails.
	out, errOut, code := in.run(t, bin, repo, "--method", "tools/list", "--strict")
	if code != 0 || strings.TrimSpace(errOut) != "" {
		t.Fatalf("tools/list --strict: exit %d, stderr:\n%s", code, errOut)
	}
	var list struct {
		Tools []struct {
			Name         string         `json:"name"`
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list printed no JSON (anything but the protocol on stdout breaks it): %v\n%s", err, out)
	}
	var names []string
	outputs := map[string]map[string]any{}
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		outputs[tl.Name] = tl.OutputSchema
		if tl.InputSchema["type"] != "object" || tl.OutputSchema["type"] != "object" {
			t.Errorf("%s: schemas of type %v and %v, want object", tl.Name, tl.InputSchema["type"], tl.OutputSchema["type"])
		}
	}
	if got, want := strings.Join(names, " "), "bootstrap cancel_handoff handoff_list handoff_show lease_list lease_release lease_take pr_route session_continue session_end session_replace session_start"; got != want {
		t.Errorf("tools = %s, want %s", got, want)
	}

	// A round trip: one session leaves a baton, the next claims it.
	type result struct {
		IsError           bool `json:"isError"`
		Content           []struct{ Text string }
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	callTool := func(name string, args ...string) (result, int) {
		t.Helper()
		argv := []string{"--method", "tools/call", "--tool-name", name}
		if len(args) > 0 {
			argv = append(append(argv, "--tool-arg"), args...)
		}
		out, errOut, code := in.run(t, bin, repo, argv...)
		var r result
		if err := json.Unmarshal([]byte(firstJSON(out)), &r); err != nil {
			t.Fatalf("%s: exit %d, no result JSON: %v\nstdout:\n%s\nstderr:\n%s", name, code, err, out, errOut)
		}
		return r, code
	}
	// Each result: its structuredContent matches the outputSchema the
	// inspector listed, and its text is prose or Markdown, not JSON.
	check := func(name string, r result) {
		t.Helper()
		matchesSchema(t, name, outputs[name], r.StructuredContent)
		if len(r.Content) != 1 || json.Valid([]byte(r.Content[0].Text)) {
			t.Errorf("%s: content %+v, want one text of Markdown", name, r.Content)
		}
	}
	r, code := callTool("session_end", `next=["write the parser, then its tests"]`, `failed=["a regex"]`)
	var end view.End
	if code != 0 || r.IsError || json.Unmarshal(r.StructuredContent, &end) != nil || end.Handoff.ID == "" {
		t.Fatalf("session_end: exit %d, %+v", code, r)
	}
	check("session_end", r)
	if len(end.Handoff.NextSteps) != 1 || !strings.HasPrefix(r.Content[0].Text, "Left baton "+end.Handoff.ID) {
		t.Errorf("session_end: %q, %+v", r.Content[0].Text, end.Handoff)
	}

	r, code = callTool("handoff_show")
	if code != 0 || r.IsError {
		t.Fatalf("handoff_show: exit %d, %+v", code, r)
	}
	check("handoff_show", r)
	if md := r.Content[0].Text; !strings.HasPrefix(md, "## Baton "+end.Handoff.ID+"\n") || !strings.Contains(md, "### Next steps\n\n1. write the parser, then its tests\n") {
		t.Errorf("handoff_show text is not the baton in Markdown:\n%s", md)
	}

	// The baton as a resource and the brief as a prompt: both Markdown,
	// neither claims (session_start below does).
	out, errOut, code = in.run(t, bin, repo, "--method", "resources/read", "--uri", "handoff://baton")
	var read struct {
		Contents []struct{ URI, MIMEType, Text string }
	}
	if err := json.Unmarshal([]byte(out), &read); code != 0 || err != nil || len(read.Contents) != 1 ||
		read.Contents[0].MIMEType != "text/markdown" || !strings.Contains(read.Contents[0].Text, "## Baton "+end.Handoff.ID) {
		t.Errorf("resources/read handoff://baton: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	out, errOut, code = in.run(t, bin, repo, "--method", "prompts/get", "--prompt-name", "brief")
	var prompt struct {
		Messages []struct {
			Role    string
			Content struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal([]byte(out), &prompt); code != 0 || err != nil || len(prompt.Messages) != 1 ||
		prompt.Messages[0].Role != "user" || !strings.Contains(prompt.Messages[0].Content.Text, "1. write the parser, then its tests") {
		t.Errorf("prompts/get brief: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}

	r, code = callTool("session_start", "session=s-inspected", "objective=parse the config")
	var start view.Start
	if code != 0 || r.IsError || json.Unmarshal(r.StructuredContent, &start) != nil {
		t.Fatalf("session_start: exit %d, %+v", code, r)
	}
	check("session_start", r)
	if !start.Claimed || start.Handoff == nil || start.Handoff.ID != end.Handoff.ID || start.Session.ID != "s-inspected" || !strings.Contains(start.Brief, "write the parser") {
		t.Errorf("session_start = %+v, want baton %s claimed with its step in the brief", start, end.Handoff.ID)
	}
	if r.Content[0].Text != start.Brief || !strings.HasPrefix(start.Brief, "## 🤝 Active Session Handoff\n") {
		t.Errorf("session_start text = %q, want the brief itself", r.Content[0].Text)
	}
	// Written to the repository, as the CLI would have.
	if got := gittest.Run(t, repo, "for-each-ref", "--format=%(refname)", "refs/ao/sessions/"); !strings.Contains(got, "s-inspected") {
		t.Errorf("session refs after session_start: %q", got)
	}

	// A lease, the key given as one string where a list is wanted; then
	// another session refused as a tool error naming the holder.
	r, code = callTool("lease_take", "keys=#42", "session=s-inspected")
	var took view.LeaseResult
	if code != 0 || r.IsError || json.Unmarshal(r.StructuredContent, &took) != nil || len(took.Leases) != 1 || took.Leases[0].Key != "issue:42" || !took.Leases[0].Lease.Mine {
		t.Fatalf("lease_take keys=#42: exit %d, %+v", code, r)
	}
	check("lease_take", r)
	r, code = callTool("lease_take", "keys=issue:42", "session=s-rival")
	if code == 0 || !r.IsError || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, "held by session s-inspected") {
		t.Errorf("lease_take of a held key: exit %d, %+v; want a tool error naming s-inspected", code, r)
	}
	r, code = callTool("lease_list")
	if code != 0 || r.IsError {
		t.Fatalf("lease_list: exit %d, %+v", code, r)
	}
	check("lease_list", r)

	// A tool error reaches the client as one (isError), with the CLI's text.
	r, code = callTool("session_start", "session=s-inspected")
	if code == 0 || !r.IsError || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, "starting session: ") {
		t.Errorf("session_start on a taken id: exit %d, %+v; want a tool error", code, r)
	}

	// A pull request given as a JSON number (--tool-arg makes 7 one).
	gittest.Run(t, repo, "remote", "add", "origin", "https://github.com/octo-org/hello-world.git")
	ownPR(t, repo, 7, "s-inspected")
	r, code = callTool("pr_route", "pr=7")
	var route view.PRRoute
	if code != 0 || r.IsError || json.Unmarshal(r.StructuredContent, &route) != nil || route.Number != 7 || route.Session != "s-inspected" {
		t.Fatalf("pr_route pr=7: exit %d, %+v", code, r)
	}
	check("pr_route", r)

	// Two session_starts in one server (the inspector's load test calls
	// one tool over one connection, here two at once): one new session,
	// the second call continuing it.
	before := activeSessions(t, repo)
	out, errOut, code = in.run(t, bin, repo, "--method", "tools/call", "--tool-name", "session_start",
		"--load", "--load-requests", "2", "--load-concurrency", "2", "--format", "json")
	var load struct {
		Result struct{ Requests, OK, ToolErrors, Errors int }
	}
	if err := json.Unmarshal([]byte(out), &load); code != 0 || err != nil || load.Result.Requests != 2 || load.Result.OK != 2 {
		t.Fatalf("two session_starts in one server: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	after := activeSessions(t, repo)
	all := gittest.Run(t, repo, "for-each-ref", "--format=%(refname)", "refs/ao/sessions/")
	if len(before) != 1 || len(after) != 1 || after[0] == before[0] || strings.Count(all, "\n") != 1 {
		t.Errorf("active sessions %v before and %v after two session_starts in one server (all: %q), want one new one", before, after, all)
	}
}

// matchesSchema validates a result against the output schema a client
// was given.
func matchesSchema(t *testing.T, name string, schema map[string]any, raw json.RawMessage) {
	t.Helper()
	b, _ := json.Marshal(schema)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: output schema: %v", name, err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: resolving the output schema: %v", name, err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: structuredContent %s: %v", name, raw, err)
	}
	if err := resolved.Validate(v); err != nil {
		t.Errorf("%s: structuredContent %s does not match its outputSchema: %v", name, raw, err)
	}
}

// ownPR records session as the owner of octo-org/hello-world's pull
// request n in repo, as `git handoff pr claim` does in git.
func ownPR(t *testing.T, repo string, n int, session string) {
	t.Helper()
	ctx := testContext(t)
	st, err := refstore.Open(ctx, repo, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := prown.Claim(ctx, st, prown.ClaimOptions{Repo: "octo-org/hello-world", Number: n, Session: session}, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// firstJSON is the first JSON document in out (the inspector prints its
// own error object after a tool error's result).
func firstJSON(out string) string {
	dec := json.NewDecoder(strings.NewReader(out))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return out
	}
	return string(v)
}

// TestClaimRaceProcesses: eight `git handoff mcp` processes, one per
// agent, race session_start on one baton over real stdio. Exactly one
// brief carries it; a loser told of the baton is told who won.
func TestClaimRaceProcesses(t *testing.T) {
	bin := buildBinary(t)
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	repo := gittest.Init(t)
	ctx := testContext(t)
	const n = 8
	clients := make([]*mcp.ClientSession, n)
	for i := range clients {
		cmd := exec.Command(filepath.Join(bin, "git-handoff"), "mcp")
		cmd.Dir = repo
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent-" + strconv.Itoa(i), Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		clients[i] = cs
	}
	e := ok[view.End](t, clients[0], "session_end", map[string]any{"next": []string{"the one step"}})
	results, errs := startAll(ctx, clients)
	checkOneWinner(t, e.Handoff.ID, results, errs)
}
