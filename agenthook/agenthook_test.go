package agenthook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// recorder stands in for the workflows (tested in package handoff) so that
// what reaches them from each agent's JSON, and what each agent is
// answered, can be checked field by field.
type recorder struct {
	dir       string
	start     handoff.AgentStartOptions
	stop      handoff.AgentStopOptions
	end       handoff.AgentEndOptions
	calls     []string
	delivered string
	startErr  error
	block     bool
	redeliver bool // Stop gives the brief the start hook never gave
	renew     []handoff.AgentRenewOptions
	renewErr  error
	now       time.Time // the workflows' clock; zero: time.Now
}

func (r *recorder) Start(_ context.Context, dir string, o handoff.AgentStartOptions) (handoff.AgentStartResult, error) {
	r.dir, r.start, r.calls = dir, o, append(r.calls, "start")
	res := handoff.AgentStartResult{Context: "THE BRIEF"}
	res.Session.ID = "s-started"
	return res, r.startErr
}

func (r *recorder) Stop(_ context.Context, dir string, o handoff.AgentStopOptions) (handoff.AgentStopResult, error) {
	r.dir, r.stop, r.calls = dir, o, append(r.calls, "stop")
	if r.redeliver {
		return handoff.AgentStopResult{Session: "s-started", Block: true, Reason: "THE BRIEF AGAIN", Redelivered: true}, nil
	}
	return handoff.AgentStopResult{Session: "s-started", Block: r.block, Reason: "LEAVE A BATON"}, nil
}

func (r *recorder) Delivered(_ context.Context, dir, id string) error {
	r.delivered, r.calls = id, append(r.calls, "delivered")
	return nil
}

func (r *recorder) End(_ context.Context, dir string, o handoff.AgentEndOptions) (string, error) {
	r.dir, r.end, r.calls = dir, o, append(r.calls, "end")
	return "", nil
}

func (r *recorder) RenewLeases(_ context.Context, dir string, o handoff.AgentRenewOptions) error {
	r.dir, r.calls, r.renew = dir, append(r.calls, "renew"), append(r.renew, o)
	return r.renewErr
}

func (r *recorder) Now() time.Time {
	if r.now.IsZero() {
		return time.Now()
	}
	return r.now
}

const uuid = "0b9c5a3e-1111-4222-8333-444455556666"

func run(t *testing.T, harnessName, event, in string, r *recorder) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	Run(context.Background(), harnessName, event, strings.NewReader(in), &out, &errb, r)
	return out.String(), errb.String()
}

func TestStartAnswersInEachAgentsFormat(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		harness, in, want string
	}{
		{"claude", `{"session_id":"` + uuid + `","source":"compact","cwd":"` + dir + `"}`,
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"THE BRIEF"}}`},
		{"codex", `{"session_id":"` + uuid + `","source":"startup","cwd":"` + dir + `","model":"m","permission_mode":"default"}`,
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"THE BRIEF"}}`},
		{"gemini", `{"session_id":"` + uuid + `","source":"startup","cwd":"` + dir + `"}`,
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"THE BRIEF"}}`},
		{"cursor", `{"conversation_id":"` + uuid + `","workspace_roots":["` + dir + `"]}`,
			`{"additional_context":"THE BRIEF"}`},
		{"opencode", `{"session_id":"ses_3eabc1234567890ABCDEFGHIJK","source":"startup","cwd":"` + dir + `"}`,
			`{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"THE BRIEF"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.harness, func(t *testing.T) {
			r := &recorder{}
			out, _ := run(t, tt.harness, EventSessionStart, tt.in, r)
			if strings.TrimSpace(out) != tt.want {
				t.Fatalf("answer\n got %s\nwant %s", out, tt.want)
			}
			if r.dir != dir || r.start.NativeID == "" || r.start.MaxChars != handoff.DefaultAgentChars {
				t.Fatalf("workflow got dir %q, options %+v", r.dir, r.start)
			}
		})
	}
}

func TestStartOfAgentsThatCannotInjectDoesNothing(t *testing.T) {
	for _, h := range []string{"copilot", "goose"} {
		r := &recorder{}
		out, _ := run(t, h, EventSessionStart, `{"sessionId":"`+uuid+`","source":"new"}`, r)
		if out != "" || len(r.calls) != 0 {
			t.Fatalf("%s: answered %q, calls %v: a baton claimed there would reach nobody", h, out, r.calls)
		}
	}
}

func TestStopAnswersInEachAgentsFormat(t *testing.T) {
	tests := []struct {
		harness, in, want string
		active            bool
	}{
		{"claude-code", `{"session_id":"` + uuid + `","stop_hook_active":true}`, `{"decision":"block","reason":"LEAVE A BATON"}`, true},
		{"codex", `{"session_id":"` + uuid + `","stop_hook_active":false}`, `{"decision":"block","reason":"LEAVE A BATON"}`, false},
		{"gemini", `{"session_id":"` + uuid + `"}`, `{"decision":"deny","reason":"LEAVE A BATON"}`, false},
		{"cursor", `{"conversation_id":"` + uuid + `","loop_count":1}`, `{"followup_message":"LEAVE A BATON"}`, true},
		{"copilot", `{"sessionId":"` + uuid + `"}`, `{"decision":"block","reason":"LEAVE A BATON"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.harness, func(t *testing.T) {
			r := &recorder{block: true}
			out, _ := run(t, tt.harness, EventStop, tt.in, r)
			if strings.TrimSpace(out) != tt.want {
				t.Fatalf("answer\n got %s\nwant %s", out, tt.want)
			}
			if r.stop.Active != tt.active || r.stop.NativeID != uuid {
				t.Fatalf("workflow got %+v", r.stop)
			}
			r = &recorder{}
			if out, _ := run(t, tt.harness, EventStop, tt.in, r); out != "" {
				t.Fatalf("answered %q when not blocking", out)
			}
		})
	}
}

func TestFailsOpen(t *testing.T) {
	t.Run("start error is told to the model", func(t *testing.T) {
		r := &recorder{startErr: errors.New("reading refs: disk on fire")}
		out, errs := run(t, "claude", EventSessionStart, `{}`, r)
		var got sessionStartContext
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("answer %q: %v", out, err)
		}
		if !strings.Contains(got.HookSpecificOutput.AdditionalContext, "disk on fire") || !strings.Contains(errs, "disk on fire") {
			t.Fatalf("context %q, stderr %q", got.HookSpecificOutput.AdditionalContext, errs)
		}
	})
	// A plugin's hooks run in every folder the agent opens: outside a
	// repository they say nothing at all.
	t.Run("outside a repository the start is silent", func(t *testing.T) {
		r := &recorder{startErr: fmt.Errorf("opening: %w (or any of the parent directories): /tmp", refstore.ErrNotRepository)}
		out, errs := run(t, "claude", EventSessionStart, `{}`, r)
		if out != "" || errs != "" || len(r.calls) != 1 {
			t.Fatalf("out %q, stderr %q, calls %v", out, errs, r.calls)
		}
	})
	t.Run("input that is not JSON", func(t *testing.T) {
		r := &recorder{}
		out, errs := run(t, "claude", EventSessionStart, `{"session_id":`, r)
		if !strings.Contains(errs, "not JSON") || r.calls[0] != "start" || r.start.NativeID != "" || out == "" {
			t.Fatalf("out %q, stderr %q, calls %v", out, errs, r.calls)
		}
	})
	t.Run("an id of the wrong shape is dropped", func(t *testing.T) {
		r := &recorder{}
		_, errs := run(t, "claude", EventSessionStart, `{"session_id":"../../etc/passwd"}`, r)
		if r.start.NativeID != "" || !strings.Contains(errs, "ignoring the agent's session id") {
			t.Fatalf("native id %q, stderr %q", r.start.NativeID, errs)
		}
	})
	t.Run("unknown agent or event", func(t *testing.T) {
		for _, args := range [][2]string{{"vim", EventStop}, {"shell", EventStop}, {"claude", "PreToolUse"}} {
			r := &recorder{}
			out, errs := run(t, args[0], args[1], `{}`, r)
			if out != "" || errs == "" || len(r.calls) != 0 {
				t.Fatalf("%v: out %q, stderr %q, calls %v", args, out, errs, r.calls)
			}
		}
	})
	t.Run("GIT_HANDOFF_SKIP", func(t *testing.T) {
		t.Setenv(SkipEnv, "1")
		r := &recorder{block: true}
		for _, ev := range Events() {
			if out, _ := run(t, "claude", ev, `{"session_id":"`+uuid+`"}`, r); out != "" {
				t.Fatalf("%s answered %q", ev, out)
			}
		}
		if len(r.calls) != 0 {
			t.Fatalf("calls %v", r.calls)
		}
	})
}

func TestStdinThatNeverEndsDoesNotHang(t *testing.T) {
	old := stdinDeadline
	stdinDeadline = 50 * time.Millisecond
	t.Cleanup(func() { stdinDeadline = old })
	pr, pw := io.Pipe()
	defer pw.Close()
	r := &recorder{}
	var out, errb bytes.Buffer
	Run(context.Background(), "claude", EventSessionStart, pr, &out, &errb, r)
	if !strings.Contains(errb.String(), "did not end") || r.calls[0] != "start" {
		t.Fatalf("stderr %q, calls %v", errb.String(), r.calls)
	}
}

func TestStopPassesTheLastMessageAndTranscript(t *testing.T) {
	tests := []struct{ harness, in, msg string }{
		{"claude", `{"session_id":"` + uuid + `","transcript_path":"/t/c.jsonl","last_assistant_message":"Done: the lexer handles block comments."}`, "Done: the lexer handles block comments."},
		{"codex", `{"session_id":"` + uuid + `","turn_id":"1","transcript_path":"/t/c.jsonl","last_assistant_message":"All tests pass."}`, "All tests pass."},
		{"gemini", `{"session_id":"` + uuid + `","transcript_path":"/t/c.jsonl","prompt":"fix it","prompt_response":"Fixed the parser."}`, "Fixed the parser."},
		{"copilot", `{"sessionId":"` + uuid + `","transcriptPath":"/t/c.jsonl","stopReason":"end_turn"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.harness, func(t *testing.T) {
			r := &recorder{}
			run(t, tt.harness, EventStop, tt.in, r)
			if r.stop.LastMessage != tt.msg || r.stop.Transcript != "/t/c.jsonl" || r.stop.Compacting {
				t.Fatalf("workflow got %+v", r.stop)
			}
		})
	}
}

func TestPreCompactKeepsTheSummaryAndAnswersNothing(t *testing.T) {
	r := &recorder{block: true}
	out, _ := run(t, "claude", EventPreCompact, `{"session_id":"`+uuid+`","transcript_path":"/t/c.jsonl","trigger":"auto"}`, r)
	if out != "" || !r.stop.Compacting || r.stop.Transcript != "/t/c.jsonl" {
		t.Fatalf("answered %q, workflow got %+v", out, r.stop)
	}
}

func TestDeliveredOnlyOnceTheAnswerIsWritten(t *testing.T) {
	r := &recorder{}
	run(t, "claude", EventSessionStart, `{"session_id":"`+uuid+`"}`, r)
	if r.delivered != "s-started" || r.calls[len(r.calls)-1] != "delivered" {
		t.Fatalf("delivered %q, calls %v", r.delivered, r.calls)
	}
	r = &recorder{startErr: errors.New("boom")}
	run(t, "claude", EventSessionStart, `{"session_id":"`+uuid+`"}`, r)
	if r.delivered != "" {
		t.Fatalf("a start that failed was marked delivered: %v", r.calls)
	}
	r = &recorder{}
	var errb bytes.Buffer
	Run(context.Background(), "claude", EventSessionStart, strings.NewReader(`{"session_id":"`+uuid+`"}`), failingWriter{}, &errb, r)
	if r.delivered != "" {
		t.Fatalf("an answer that could not be written was marked delivered: %v", r.calls)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("pipe closed") }

// A stop that gives the brief the start hook never finished giving is
// delivered, like the start's answer, once written and not before.
func TestRedeliveredAtStopOnlyOnceTheAnswerIsWritten(t *testing.T) {
	r := &recorder{redeliver: true}
	out, _ := run(t, "claude", EventStop, `{"session_id":"`+uuid+`"}`, r)
	if !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "THE BRIEF AGAIN") {
		t.Fatalf("stop answered %q", out)
	}
	if r.delivered != "s-started" || r.calls[len(r.calls)-1] != "delivered" {
		t.Fatalf("delivered %q, calls %v", r.delivered, r.calls)
	}
	r = &recorder{redeliver: true}
	var errb bytes.Buffer
	Run(context.Background(), "claude", EventStop, strings.NewReader(`{"session_id":"`+uuid+`"}`), failingWriter{}, &errb, r)
	if r.delivered != "" {
		t.Fatalf("a stop answer that could not be written was marked delivered: %v", r.calls)
	}
	// The baton request at a stop delivers nothing.
	r = &recorder{block: true}
	run(t, "claude", EventStop, `{"session_id":"`+uuid+`"}`, r)
	if r.delivered != "" {
		t.Fatalf("a stop asking for a baton was marked delivered: %v", r.calls)
	}
}
