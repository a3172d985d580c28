package transcript

import "strings"

// ours are the starts of the texts git-handoff's own hooks give an agent
// (handoff/agent.go: the brief's header on start and on resume, the stop
// hook's request for a baton). The next session gets them again from
// git-handoff; in an excerpt they would only crowd out what the agent did.
var ours = []string{
	"_git-handoff session ",
	"_You are continuing git-handoff session ",
	"Before you stop: this git-handoff session ",
}

// agentContext are the starts of texts an agent files as a user message
// but writes itself: its environment, the project's instruction files, a
// slash command's bookkeeping. None is the user's prompt.
var agentContext = []string{
	"<environment_context>",    // Codex
	"<user_instructions>",      // Codex, older
	"# AGENTS.md instructions", // Codex
	"<session_context>",        // Gemini CLI
	"<system-reminder>",        // Claude Code
	"<local-command-",          // Claude Code
	"<command-name>",           // Claude Code
}

// userText is what of a user message the excerpt shows: the text less
// the context hooks put in front of it or wrapped it in, "" when nothing
// else is left.
func userText(text string) string {
	text = strings.TrimSpace(text)
	// Gemini CLI puts a start hook's context in front of the prompt.
	for strings.HasPrefix(text, "<hook_context>") {
		end := strings.Index(text, "</hook_context>")
		if end < 0 {
			return ""
		}
		text = strings.TrimSpace(text[end+len("</hook_context>"):])
	}
	if isOurs(hookReason(text)) {
		return ""
	}
	for _, p := range agentContext {
		if strings.HasPrefix(text, p) {
			return ""
		}
	}
	return text
}

// hookReason unwraps a stop hook's reason from the way an agent passes it
// on as the next user message; other text is returned as it is.
func hookReason(text string) string {
	// Claude Code: "Stop hook feedback:\n[command]: reason" (one line a
	// hook when several blocked).
	if rest, ok := strings.CutPrefix(text, "Stop hook feedback:"); ok {
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, "[") {
			if i := strings.Index(rest, "]: "); i >= 0 {
				rest = rest[i+len("]: "):]
			}
		}
		return rest
	}
	// Codex: <hook_prompt hook_run_id="…">reason</hook_prompt>.
	if strings.HasPrefix(text, "<hook_prompt") {
		if i := strings.Index(text, ">"); i >= 0 {
			return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text[i+1:]), "</hook_prompt>"))
		}
	}
	return text
}

func isOurs(text string) bool {
	text = strings.TrimSpace(text)
	for _, p := range ours {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}
