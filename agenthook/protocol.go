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
	// writes are the agent's tools that write files, by the name its
	// pre-tool hook gives, each with where its arguments name the files;
	// deny is its pre-tool hook's refusal. Agents without a pre-tool hook
	// have neither.
	writes map[string]writeTool
	deny   func(reason string) any
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

// preToolDeny is Claude Code's refusal of a tool call, which Codex takes
// too (codex 0.171.0 refuses "allow" without updatedInput, so allowing is
// answering nothing). The reason reaches the model as the tool's result.
type preToolDeny struct {
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

func claudeDeny(reason string) any {
	var out preToolDeny
	out.HookSpecificOutput.HookEventName = "PreToolUse"
	out.HookSpecificOutput.PermissionDecision = "deny"
	out.HookSpecificOutput.PermissionDecisionReason = reason
	return out
}

// The tools that write files, per agent, as their pre-tool hooks name them
// (checked in each released CLI: Claude Code 2.1.197's tool schemas, Codex
// 0.171.0's apply_patch hook payload {"command": patch}, Gemini CLI
// 0.61.0's write_file and replace, Copilot CLI 1.0.102's create and edit
// (seen refused through its preToolUse, toolArgs an object), and the
// str_replace_editor and apply_patch it carries for other models; Cursor's
// from its documentation only).
// Shells are not among them: a command line is not parsed for the files
// it might write.
var (
	claudeWrites = map[string]writeTool{
		"Write": pathArg("file_path"), "Edit": pathArg("file_path"), "MultiEdit": pathArg("file_path"),
		"NotebookEdit": pathArg("notebook_path"),
	}
	codexWrites  = map[string]writeTool{"apply_patch": patchPaths("command", "input")}
	geminiWrites = map[string]writeTool{"write_file": pathArg("file_path"), "replace": pathArg("file_path")}
	// Copilot's str_replace_editor also views files: only its writing
	// commands count.
	copilotWrites = map[string]writeTool{
		"create": pathArg("path"), "edit": pathArg("path"), "apply_patch": patchPaths("input", "patch", "command"),
		"str_replace_editor": func(args map[string]any) []string {
			if c, _ := args["command"].(string); c == "view" {
				return nil
			}
			return pathArg("path")(args)
		},
	}
	cursorWrites = map[string]writeTool{
		"Write": pathArg("file_path", "path", "target_file"), "Edit": pathArg("file_path", "path", "target_file"),
		"Delete": pathArg("file_path", "path", "target_file"),
	}
)

// The caps: Claude Code's 10,000 characters per field is checked (over it
// the model sees a 2,000-character preview). The others publish none that
// we found, so they get the same: a brief that fits Claude fits them.
var protocols = map[string]protocol{
	"claude-code": {
		injects: true, maxChars: handoff.DefaultAgentChars, startAnswer: claudeStart, stopAnswer: block,
		writes: claudeWrites, deny: claudeDeny,
	},
	"codex": {
		injects: true, maxChars: handoff.DefaultAgentChars, startAnswer: claudeStart, stopAnswer: block,
		writes: codexWrites, deny: claudeDeny,
	},
	// Gemini CLI: AfterAgent is its Stop; "deny" makes the reason the
	// next prompt. Plain stdout reaches the user only, never the model.
	// BeforeTool's "deny" blocks the tool and gives the model the reason
	// as the tool's error.
	"gemini": {
		injects: true, maxChars: handoff.DefaultAgentChars, startAnswer: claudeStart,
		stopAnswer: func(reason string) any { return decision{Decision: "deny", Reason: reason} },
		writes:     geminiWrites,
		deny:       func(reason string) any { return decision{Decision: "deny", Reason: reason} },
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
		// preToolUse: permission "deny", agent_message for the model,
		// user_message for the person.
		writes: cursorWrites,
		deny: func(reason string) any {
			return struct {
				Permission   string `json:"permission"`
				UserMessage  string `json:"user_message"`
				AgentMessage string `json:"agent_message"`
			}{"deny", reason, reason}
		},
	},
	// Copilot CLI names a fresh session "new" and a resumed one "resume".
	// Its preToolUse refuses with permissionDecision "deny".
	"copilot": {
		sources: map[string]string{"new": handoff.SourceStartup}, stopAnswer: block,
		writes: copilotWrites,
		deny: func(reason string) any {
			return struct {
				PermissionDecision       string `json:"permissionDecision"`
				PermissionDecisionReason string `json:"permissionDecisionReason"`
			}{"deny", reason}
		},
	},
	"goose": {stopAnswer: block},
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
