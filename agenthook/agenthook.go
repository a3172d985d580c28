// Package agenthook answers the coding agents' own hooks: `git handoff hook
// agent <harness> <event>`. It reads the agent's JSON on standard input
// (with a deadline), runs the workflow for the event (package handoff) and
// answers in that agent's format. It fails open: whatever goes wrong, the
// agent goes on, and it is told what went wrong where it can be.
//
// Events are git-handoff's names, whatever the agent calls them:
// session-start, stop, pre-compact, stop-failure, session-end, and
// pre-tool-use (pretool.go). Which agent event is installed under
// which name is package agentconf's business.
package agenthook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/refstore"
)

// Events.
const (
	EventSessionStart = "session-start"
	EventStop         = "stop"
	EventSessionEnd   = "session-end"
	// EventPreCompact: the agent is about to compact its context.
	EventPreCompact = "pre-compact"
	// EventStopFailure: the agent's turn ended on an API error (Claude
	// Code's StopFailure), which may mean it cannot go on (a usage limit).
	EventStopFailure = "stop-failure"
	// EventPreToolUse: the agent is about to run a tool (pretool.go).
	EventPreToolUse = "pre-tool-use"
)

// Events lists them, in the order an agent fires them.
func Events() []string {
	return []string{EventSessionStart, EventPreToolUse, EventStop, EventStopFailure, EventPreCompact, EventSessionEnd}
}

// SkipEnv, set to 1 in an agent's environment, keeps git-handoff out of that
// agent session: no session is started, no brief given, no baton asked for.
const SkipEnv = "GIT_HANDOFF_SKIP"

// Workflows runs the events' workflows in the repository at dir (the
// directory the agent gave, or the hook's own).
type Workflows interface {
	Start(ctx context.Context, dir string, opts handoff.AgentStartOptions) (handoff.AgentStartResult, error)
	Stop(ctx context.Context, dir string, opts handoff.AgentStopOptions) (handoff.AgentStopResult, error)
	End(ctx context.Context, dir string, opts handoff.AgentEndOptions) (string, error)
	// Delivered is told once the start hook's answer, holding the brief
	// of session id, is written for the agent.
	Delivered(ctx context.Context, dir, id string) error
	// RenewLeases renews the due leases of the agent's session
	// (handoff.AgentRenewLeases): the pre-tool hook calls it only once a
	// lease of the session may be due.
	RenewLeases(ctx context.Context, dir string, opts handoff.AgentRenewOptions) error
	// Now is the clock the workflows read (GIT_HANDOFF_NOW pins it).
	Now() time.Time
}

// Deadlines. An agent waits for its hooks (Claude Code kills a hook after
// 60 s, and gives SessionEnd 1.5 s): a start that claims at the remote gets
// the longest, the end the shortest.
var (
	stdinDeadline = 2 * time.Second
	deadlines     = map[string]time.Duration{
		EventSessionStart: 40 * time.Second,
		EventStop:         15 * time.Second,
		EventPreCompact:   15 * time.Second,
		EventStopFailure:  15 * time.Second,
		EventSessionEnd:   1200 * time.Millisecond,
		// The agent waits on it before each write; past this the write
		// goes ahead (Copilot denies a tool whose hook fails or times out,
		// so the hook must answer well within its own timeout).
		EventPreToolUse: 5 * time.Second,
	}
)

// maxInput bounds what is read from the agent: its hook input is a few
// hundred bytes, plus, for Stop, the last message (of which the session
// keeps the first few kilobytes).
const maxInput = 4 << 20

// Run answers one hook call. It never fails: errors are written to stderr
// (where agents log them) and, for a start, into the context itself.
func Run(ctx context.Context, harnessName, event string, stdin io.Reader, stdout, stderr io.Writer, wf Workflows) {
	h, err := harness.Lookup(harnessName)
	if err != nil {
		fmt.Fprintf(stderr, "git-handoff: agent hook: %v\n", err)
		return
	}
	p, ok := protocols[h.Name]
	if !ok {
		fmt.Fprintf(stderr, "git-handoff: agent hook: %s has no hooks git-handoff answers\n", h.Name)
		return
	}
	limit, ok := deadlines[event]
	if !ok {
		fmt.Fprintf(stderr, "git-handoff: agent hook: unknown event %q (known: %s)\n", event, strings.Join(Events(), ", "))
		return
	}
	if v := os.Getenv(SkipEnv); v != "" && v != "0" {
		return
	}
	in, err := readInput(stdin, stdinDeadline)
	if err != nil {
		fmt.Fprintf(stderr, "git-handoff: agent hook: %v (going on without it)\n", err)
	}
	if err := in.validate(h); err != nil {
		fmt.Fprintf(stderr, "git-handoff: agent hook: %v\n", err)
		in.SessionID = ""
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	dir := in.dir()
	var answer any
	delivered := "" // the session whose brief the answer carries
	switch event {
	case EventSessionStart:
		if !p.injects {
			return // the instruction file tells the agent to run `git handoff start`
		}
		res, err := wf.Start(ctx, dir, handoff.AgentStartOptions{
			Harness: h.Name, NativeID: in.SessionID, Source: p.source(in.Source), MaxChars: p.maxChars,
			Transcript: in.TranscriptPath,
		})
		text := res.Context
		if errors.Is(err, refstore.ErrNotRepository) {
			return // a plugin's hooks run in every folder: outside a repository there is nothing to say
		}
		if err == nil {
			delivered = res.Session.ID
		}
		if err != nil {
			fmt.Fprintf(stderr, "git-handoff: agent hook: %v\n", err)
			text = fmt.Sprintf("git-handoff could not prepare this session's brief (%s). Run `git handoff start` in a shell to see what is waiting for you.\n", err)
		}
		if text == "" {
			return // the brief was given already, by the same hook installed twice
		}
		answer = p.startAnswer(text)
	case EventStop:
		res, err := wf.Stop(ctx, dir, handoff.AgentStopOptions{
			Harness: h.Name, NativeID: in.SessionID, Active: in.active(),
			LastMessage: in.lastMessage(), Transcript: in.TranscriptPath,
		})
		if errors.Is(err, refstore.ErrNotRepository) {
			return
		}
		for _, n := range res.Notices {
			fmt.Fprintf(stderr, "git-handoff: agent hook: %s\n", n)
		}
		if err != nil {
			fmt.Fprintf(stderr, "git-handoff: agent hook: %v\n", err)
			return
		}
		if !res.Block {
			return
		}
		answer = p.stopAnswer(res.Reason)
		if res.Redelivered && answer != nil {
			delivered = res.Session
		}
	case EventPreCompact:
		res, err := wf.Stop(ctx, dir, handoff.AgentStopOptions{
			Harness: h.Name, NativeID: in.SessionID, Compacting: true, Transcript: in.TranscriptPath,
		})
		for _, n := range res.Notices {
			fmt.Fprintf(stderr, "git-handoff: agent hook: %s\n", n)
		}
		if err != nil && !errors.Is(err, refstore.ErrNotRepository) {
			fmt.Fprintf(stderr, "git-handoff: agent hook: %v\n", err)
		}
		return
	case EventStopFailure:
		answer = stopFailure(ctx, h.Name, dir, in, stderr, wf)
	case EventPreToolUse:
		answer = preToolUse(ctx, p, h.Name, dir, in, stderr, wf)
	case EventSessionEnd:
		if _, err := wf.End(ctx, dir, handoff.AgentEndOptions{Harness: h.Name, NativeID: in.SessionID, Reason: in.Reason, Transcript: in.TranscriptPath}); err != nil && !errors.Is(err, refstore.ErrNotRepository) {
			fmt.Fprintf(stderr, "git-handoff: agent hook: %v\n", err)
		}
		return
	}
	if answer == nil {
		return
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false) // the reason holds a command line with <placeholders>
	if err := enc.Encode(answer); err != nil {
		fmt.Fprintf(stderr, "git-handoff: agent hook: writing the answer: %v\n", err)
		return
	}
	if delivered != "" {
		// Only now has the agent the brief, and the baton in it: a hook
		// killed before this line leaves the claim to be offered again.
		if err := wf.Delivered(ctx, dir, delivered); err != nil {
			fmt.Fprintf(stderr, "git-handoff: agent hook: %v\n", err)
		}
	}
}

// input is the union of the fields the agents send that we use.
type input struct {
	SessionID      string   `json:"session_id"`
	SessionIDCamel string   `json:"sessionId"`
	Conversation   string   `json:"conversation_id"`
	Source         string   `json:"source"`
	Reason         string   `json:"reason"` // session-end: why (Claude's "clear" goes on)
	Cwd            string   `json:"cwd"`
	WorkspaceRoots []string `json:"workspace_roots"`
	StopHookActive bool     `json:"stop_hook_active"`
	LoopCount      int      `json:"loop_count"`
	TranscriptPath string   `json:"transcript_path"`
	// Copilot names it so under its own event names (agentStop).
	TranscriptPathCamel string `json:"transcriptPath"`
	// The agent's last reply, at its end of turn: Claude's and Codex's
	// Stop name it last_assistant_message, Gemini's AfterAgent
	// prompt_response. Copilot's Stop gives none (its transcript has it).
	LastAssistantMessage string `json:"last_assistant_message"`
	PromptResponse       string `json:"prompt_response"`
	// A failure's kind and details (Claude Code's StopFailure: error,
	// error_details; its last_assistant_message is then the error's text).
	Error        string `json:"error"`
	ErrorDetails string `json:"error_details"`
	// The tool a pre-tool hook is asked about, and its arguments: Claude
	// Code, Codex, Gemini CLI and Cursor send tool_name and tool_input (an
	// object); Copilot CLI toolName and toolArgs (a string holding JSON).
	ToolName      string          `json:"tool_name"`
	ToolNameCamel string          `json:"toolName"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolArgs      json.RawMessage `json:"toolArgs"`
}

func (in input) lastMessage() string {
	if in.LastAssistantMessage != "" {
		return in.LastAssistantMessage
	}
	return in.PromptResponse
}

// readInput reads the agent's JSON until it closes standard input or the
// deadline passes; an agent that never closes it must not hang the hook.
func readInput(r io.Reader, deadline time.Duration) (input, error) {
	if r == nil {
		return input{}, nil
	}
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
		done <- read{data, err}
	}()
	var got read
	select {
	case got = <-done:
	case <-time.After(deadline):
		return input{}, fmt.Errorf("the agent's input did not end within %s", deadline)
	}
	if got.err != nil {
		return input{}, fmt.Errorf("reading the agent's input: %w", got.err)
	}
	if len(got.data) > maxInput {
		return input{}, fmt.Errorf("the agent's input is over %d bytes", maxInput)
	}
	var in input
	if len(strings.TrimSpace(string(got.data))) == 0 {
		return in, nil
	}
	if err := json.Unmarshal(got.data, &in); err != nil {
		return input{}, fmt.Errorf("the agent's input is not JSON: %w", err)
	}
	for _, id := range []string{in.SessionIDCamel, in.Conversation} {
		if in.SessionID == "" {
			in.SessionID = id
		}
	}
	if in.TranscriptPath == "" {
		in.TranscriptPath = in.TranscriptPathCamel
	}
	return in, nil
}

// validate drops an id that is not of the agent's shape: it would be
// handed back to the agent on resume, and becomes a file name.
func (in input) validate(h harness.Harness) error {
	if in.SessionID == "" {
		return nil
	}
	if err := h.ValidateNativeID(in.SessionID); err != nil {
		return fmt.Errorf("ignoring the agent's session id: %w", err)
	}
	return nil
}

func (in input) dir() string {
	d := in.Cwd
	if d == "" && len(in.WorkspaceRoots) > 0 {
		d = in.WorkspaceRoots[0]
	}
	if d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return "."
}

func (in input) active() bool { return in.StopHookActive || in.LoopCount > 0 }
