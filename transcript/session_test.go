package transcript_test

import (
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/transcript"
)

// session is the conversation the fake model scripts, named by a token:
// the end-to-end runs use a random one, the fixtures in testdata FIXTURE.
type session struct{ tok string }

func (s session) prompt() string     { return "PROMPT-" + s.tok + " look around the repository" }
func (s session) firstReply() string { return "Looked around.\nFIRST-" + s.tok }
func (s session) lastReply() string  { return "Left a baton.\nREPLY-" + s.tok }
func (s session) okCommand() string  { return "git status --short && echo ran-" + s.tok }
func (s session) badCommand() string { return "ls no-such-file-" + s.tok }

// injected is what the start hook gives the model, as git-handoff's own
// brief begins (handoff/agent.go); JSON-escaped.
func (s session) injected() string {
	return `_git-handoff session S-` + s.tok + ` started for this session._\n\nNo baton is waiting.`
}

// stopReason is what the stop hook asks, as git-handoff's own does.
func (s session) stopReason() string {
	return "Before you stop: this git-handoff session (S-" + s.tok + ") changed the repository but left no baton for the next session. Leave one now."
}

// model answers a main turn: a command that works, one that fails, the
// first answer; after the stop hook's request, the last one.
func (s session) model(r *fakemodel.Request) fakemodel.Reply {
	if !r.OffersShell() {
		return fakemodel.Say("a title") // Claude Code's side requests
	}
	switch {
	case r.Contains("Before you stop: this git-handoff session"):
		return fakemodel.Say(s.lastReply())
	case len(r.ToolResults) == 0:
		rep, _ := r.Shell(s.okCommand())
		rep.Text = "Let me look."
		return rep
	case len(r.ToolResults) == 1:
		rep, _ := r.Shell(s.badCommand())
		return rep
	}
	return fakemodel.Say(s.firstReply())
}

// excerpt is the whole conversation as Excerpt renders it: the start
// hook's context and the stop hook's request left out.
func (s session) excerpt() string {
	return strings.Join([]string{
		"user: " + s.prompt(),
		"assistant: Let me look.",
		"tool: $ " + s.okCommand() + " (ok)",
		"tool: $ " + s.badCommand() + " (failed)",
		"assistant: Looked around.",
		"  FIRST-" + s.tok,
		"assistant: Left a baton.",
		"  REPLY-" + s.tok,
	}, "\n")
}

// check reads the transcript of a finished session.
func (s session) check(t *testing.T, agent, path string) {
	t.Helper()
	got, err := transcript.LastReply(agent, path)
	if err != nil || got != s.lastReply() {
		t.Errorf("LastReply = %q, %v; want %q", got, err, s.lastReply())
	}
	ex, err := transcript.Excerpt(agent, path, 64<<10)
	if err != nil || ex != s.excerpt() {
		t.Errorf("Excerpt = %v\n%s\nwant\n%s", err, ex, s.excerpt())
	}
	// Short: the end, marked as cut.
	const short = 80
	ex, err = transcript.Excerpt(agent, path, short)
	want := "(earlier lines cut)\nassistant: Left a baton.\n  REPLY-" + s.tok
	if err != nil || ex != want {
		t.Errorf("Excerpt(%d) = %q, %v; want %q", short, ex, err, want)
	}
}
