package agenthook

import (
	"github.com/git-handoff/git-handoff/handoff"
)

// protocol is how one agent's hooks are answered.
type protocol struct {
	// injects is false for agents that ignore what a start hook prints
	// (Copilot CLI, Goose): claiming there would deliver a baton to nobody,
	// so their start hook does nothing and an instruction file tells the
	// agent to run `git handoff start` itself.
	injects bool
	// maxChars is the most context text the agent takes in whole.
	maxChars int
	// sources maps the agent's own names for why a session starts onto
	// handoff's (a name not listed passes through).
	sources     map[string]string
	startAnswer func(text string) any
	stopAnswer  func(reason string) any
}

func (p protocol) source(s string) string {
	if v, ok := p.sources[s]; ok {
		return v
	}
	if s == "" {
		return handoff.SourceStartup
	}
	return s
}

// sessionStartContext is Claude Code's shape for text given to the model,
// which Codex and Gemini CLI take as well (Gemini injects nothing else).
type sessionStartContext struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func claudeStart(text string) any {
	var out sessionStartContext
	out.HookSpecificOutput.HookEventName = "SessionStart"
	out.HookSpecificOutput.AdditionalContext = text
	return out
}

type decision struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

func block(reason string) any { return decision{Decision: "block", Reason: reason} }

// The caps: Claude Code's 10,000 characters per field is checked (over it
// the model sees a 2,000-character preview). The others publish none that
// we found, so they get the same: a brief that fits Claude fits them.
var protocols = map[string]protocol{
	"claude-code": {injects: true, maxChars: handoff.DefaultAgentChars, startAnswer: claudeStart, stopAnswer: block},
	"codex":       {injects: true, maxChars: handoff.DefaultAgentChars, startAnswer: claudeStart, stopAnswer: block},
	// Gemini CLI: AfterAgent is its Stop; "deny" makes the reason the
	// next prompt. Plain stdout reaches the user only, never the model.
	"gemini": {
		injects: true, maxChars: handoff.DefaultAgentChars, startAnswer: claudeStart,
		stopAnswer: func(reason string) any { return decision{Decision: "deny", Reason: reason} },
	},
	// Cursor: sessionStart may return additional_context; stop returns a
	// follow-up message (loop_count counts the ones already sent).
	"cursor": {
		injects: true, maxChars: handoff.DefaultAgentChars,
		startAnswer: func(text string) any {
			return struct {
				AdditionalContext string `json:"additional_context"`
			}{text}
		},
		stopAnswer: func(reason string) any {
			return struct {
				FollowupMessage string `json:"followup_message"`
			}{reason}
		},
	},
	// Copilot CLI names a fresh session "new" and a resumed one "resume".
	"copilot": {sources: map[string]string{"new": handoff.SourceStartup}, stopAnswer: block},
	"goose":   {stopAnswer: block},
	// OpenCode's hooks are git-handoff's own plugin, which speaks Claude
	// Code's shapes.
	"opencode": {injects: true, maxChars: handoff.DefaultAgentChars, startAnswer: claudeStart, stopAnswer: block},
}

// Injects reports whether the agent's start hook can give the model a brief;
// for the others an instruction file must ask it to run `git handoff start`.
func Injects(harnessName string) bool { return protocols[harnessName].injects }

// Hooked reports whether git-handoff answers hooks of this agent.
func Hooked(harnessName string) bool {
	_, ok := protocols[harnessName]
	return ok
}
