package harness

import "testing"

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"nothing", nil, ""},
		{"claude", map[string]string{"CLAUDECODE": "1"}, "claude-code"},
		{"codex sandbox", map[string]string{"CODEX_SANDBOX": "seatbelt"}, "codex"},
		{"codex thread", map[string]string{"CODEX_THREAD_ID": codexID}, "codex"},
		{"gemini", map[string]string{"GEMINI_CLI": "1"}, "gemini"},
		{"cursor", map[string]string{"CURSOR_AGENT": "1"}, "cursor"},
		{"copilot", map[string]string{"COPILOT_CLI": "1"}, "copilot"},
		{"AI_AGENT by alias", map[string]string{"AI_AGENT": "Claude"}, "claude-code"},
		// What Claude Code 2.1.197 sets in its shell tool's environment.
		{"AI_AGENT as claude sets it", map[string]string{"AI_AGENT": "claude-code_2.1.197_agent"}, "claude-code"},
		{"codex session", map[string]string{"CODEX_SESSION_ID": codexID}, "codex"},
		{"AI_AGENT wins over a specific variable", map[string]string{"AI_AGENT": "goose", "CLAUDECODE": "1"}, "goose"},
		{"unknown AI_AGENT falls through", map[string]string{"AI_AGENT": "something-new", "GEMINI_CLI": "1"}, "gemini"},
		{"unknown AI_AGENT alone", map[string]string{"AI_AGENT": "something-new"}, ""},
		{"set to 0 means off", map[string]string{"CLAUDECODE": "0"}, ""},
		{"empty means unset", map[string]string{"CURSOR_AGENT": ""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Detect(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("Detect(%v) = %q, want %q", tt.env, got, tt.want)
			}
		})
	}
}

func TestDetectNative(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		wantName   string
		wantNative string
	}{
		{"codex shell tool", map[string]string{"CODEX_THREAD_ID": codexID, "CODEX_CI": "1"}, "codex", codexID},
		{"codex id of the wrong shape is not kept", map[string]string{"CODEX_THREAD_ID": "not-an-id"}, "codex", ""},
		{"claude has no id in its shell", map[string]string{"CLAUDECODE": "1", "AI_AGENT": "claude-code_2.1.197_agent"}, "claude-code", ""},
		// What Copilot CLI 1.0.102 sets in its shell tool's environment.
		{"copilot shell tool", map[string]string{"COPILOT_CLI": "1", "COPILOT_AGENT_SESSION_ID": codexID, "COPILOT_CLI_BINARY_VERSION": "1.0.102"}, "copilot", codexID},
		{"nothing", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, id := DetectNative(func(k string) string { return tt.env[k] })
			if name != tt.wantName || id != tt.wantNative {
				t.Errorf("DetectNative(%v) = %q, %q; want %q, %q", tt.env, name, id, tt.wantName, tt.wantNative)
			}
		})
	}
}
