package transcript

import "testing"

func TestUserText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"fix the build", "fix the build"},
		{"  fix it  ", "fix it"},
		// Gemini CLI: a start hook's context before the prompt.
		{"<hook_context>_git-handoff session S1 started._\n\nNo baton.</hook_context>\n\nfix it", "fix it"},
		{"<hook_context>a</hook_context><hook_context>b</hook_context> fix it", "fix it"},
		{"<hook_context>never closed", ""},
		{"<hook_context>only context</hook_context>", ""},
		// git-handoff's own texts, as each agent passes them on.
		{"_git-handoff session S1 started for this claude-code session._\n\nbrief", ""},
		{"_You are continuing git-handoff session S1 (resume)", ""},
		{"Before you stop: this git-handoff session (S1) changed the repository", ""},
		{"Stop hook feedback:\nBefore you stop: this git-handoff session (S1) changed", ""},
		{"Stop hook feedback:\n[/usr/bin/git handoff hook agent stop]: Before you stop: this git-handoff session (S1) x", ""},
		{"<hook_prompt hook_run_id=\"r1\">Before you stop: this git-handoff session (S1) x</hook_prompt>", ""},
		// Someone else's hook is the user's concern: kept.
		{"Stop hook feedback:\nrun the tests first", "Stop hook feedback:\nrun the tests first"},
		{"<hook_prompt hook_run_id=\"r1\">run the tests</hook_prompt>", "<hook_prompt hook_run_id=\"r1\">run the tests</hook_prompt>"},
		// The agents' own context.
		{"<environment_context>\n  <cwd>/x</cwd>\n</environment_context>", ""},
		{"<session_context>\nThis is the Gemini CLI.", ""},
		{"# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>", ""},
		// Mentioning git-handoff is not being git-handoff's.
		{"why did _git-handoff session S1 fail?", "why did _git-handoff session S1 fail?"},
	}
	for _, tt := range tests {
		if got := userText(tt.in); got != tt.want {
			t.Errorf("userText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
