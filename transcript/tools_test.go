package transcript

import (
	"strings"
	"testing"
)

func TestToolSummary(t *testing.T) {
	tests := []struct {
		name  string
		input any
		want  string
	}{
		{"Bash", map[string]any{"command": "git commit -m 'x'", "description": "commit"}, "$ git commit -m 'x'"},
		{"exec_command", map[string]any{"cmd": "go test ./...", "yield_time_ms": 1000.0}, "$ go test ./..."},
		{"shell", map[string]any{"command": []any{"bash", "-lc", "make"}}, "$ make"},
		{"local_shell", map[string]any{"command": []any{"ls", "-la"}}, "$ ls -la"},
		{"run_shell_command", map[string]any{"command": "npm test\nnpm run lint"}, "$ npm test npm run lint"},
		{"Read", map[string]any{"file_path": "/src/main.go"}, "Read /src/main.go"},
		{"Grep", map[string]any{"pattern": "TODO", "path": "src"}, "Grep src"},
		{"WebFetch", map[string]any{"url": "https://example.com"}, "WebFetch https://example.com"},
		{"TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "a"}}, "merge": true}, `TodoWrite merge=true todos=[{"content":"a"}]`},
		{"report_intent", nil, "report_intent"},
		{"apply_patch", "*** Begin Patch\n*** Update File: a.go\n@@\n*** Add File: b.go\n*** End Patch", "apply_patch a.go b.go"},
		{"Bash", map[string]any{"command": strings.Repeat("x", 500)}, "$ " + strings.Repeat("x", maxToolLine-2-len("…")) + "…"},
	}
	for _, tt := range tests {
		if got := toolSummary(tt.name, tt.input); got != tt.want {
			t.Errorf("toolSummary(%q, %v) = %q, want %q", tt.name, tt.input, got, tt.want)
		}
	}
}
