package agenthook

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
)

// failing is a recorder that also answers failure hooks.
type failing struct {
	recorder
	failed handoff.AgentFailureOptions
	n      int
}

func (f *failing) Failed(_ context.Context, dir string, o handoff.AgentFailureOptions) (string, []string, error) {
	f.dir, f.failed, f.n = dir, o, f.n+1
	return "claude-code stopped: usage limit. Session s1 continues in codex: start it with `git handoff session launch s1 --exec`.", nil, nil
}

// TestStopFailurePassesTheRecordedPayload: what Claude Code 2.1.197 sent
// its StopFailure hook (recorded; see cmd/git-handoff's testdata) reaches
// the failure workflow field by field, and the user is answered with a
// systemMessage; a Workflows that answers no failures answers nothing.
func TestStopFailurePassesTheRecordedPayload(t *testing.T) {
	raw, err := os.ReadFile("../cmd/git-handoff/testdata/agents/claude-code-2.1.197-stop-failure-rate-limit.json")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := &failing{}
	out, _ := run(t, "claude-code", EventStopFailure, string(raw), &f.recorder)
	if out != "" || f.n != 0 {
		t.Fatalf("a Workflows without Failed answered %q (%d calls)", out, f.n)
	}
	var stdout, stderr bytes.Buffer
	Run(ctx, "claude-code", EventStopFailure, strings.NewReader(string(raw)), &stdout, &stderr, f)
	want := handoff.AgentFailureOptions{
		Harness: "claude-code", NativeID: "b59e17fe-17a2-41fd-8538-d65ec9cd9d30", Error: "rate_limit",
		Message: "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.",
	}
	if f.n != 1 || f.failed != want {
		t.Fatalf("the workflow got %+v (%d calls), want %+v", f.failed, f.n, want)
	}
	var answer map[string]string
	if err := json.Unmarshal(stdout.Bytes(), &answer); err != nil {
		t.Fatalf("answer %q: %v", stdout.String(), err)
	}
	if got := answer["systemMessage"]; got != "git-handoff: claude-code stopped: usage limit. Session s1 continues in codex: start it with `git handoff session launch s1 --exec`." {
		t.Fatalf("systemMessage = %q", got)
	}
}
