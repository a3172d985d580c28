package agenttest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// updateClaudeState writes ~/.claude.json, the state file Claude Code keeps
// for its user: onboarding done, our API key approved (else it asks), and
// dir's trust dialog accepted (else project settings and hooks are
// ignored). Claude rewrites the file itself, so what it added is kept.
func (a *Agent) updateClaudeState(dir string) error {
	path := filepath.Join(a.Home, ".claude.json")
	state := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &state); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	state["hasCompletedOnboarding"] = true
	state["bypassPermissionsModeAccepted"] = true
	// Claude remembers a key by its last 20 characters.
	key := APIKey
	if len(key) > 20 {
		key = key[len(key)-20:]
	}
	state["customApiKeyResponses"] = map[string]any{"approved": []any{key}, "rejected": []any{}}
	if dir != "" {
		projects, _ := state["projects"].(map[string]any)
		if projects == nil {
			projects = map[string]any{}
		}
		for _, d := range realAndGiven(dir) {
			p, _ := projects[d].(map[string]any)
			if p == nil {
				p = map[string]any{}
			}
			p["hasTrustDialogAccepted"] = true
			p["hasCompletedProjectOnboarding"] = true
			projects[d] = p
		}
		state["projects"] = projects
	}
	b, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// realAndGiven is dir as given and with symlinks resolved (agents key
// their per-project state by one or the other).
func realAndGiven(dir string) []string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	out := []string{abs}
	if r, err := filepath.EvalSymlinks(abs); err == nil && r != abs {
		out = append(out, r)
	}
	return out
}

// writeCodexConfig writes $CODEX_HOME/config.toml: the fake as the model
// provider over the Responses API, no retries (a fault shows at once, not
// after back-offs), no approvals, no sandbox (the tests' shell commands
// write files), and no background app-server outliving the run.
func (a *Agent) writeCodexConfig() error {
	if err := os.MkdirAll(a.CodexHome(), 0o700); err != nil {
		return err
	}
	conf := fmt.Sprintf(`model = "gpt-fake"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = %q
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
daemon_auto_start = false
`, a.Fake.URL+"/v1")
	return os.WriteFile(filepath.Join(a.CodexHome(), "config.toml"), []byte(conf), 0o600)
}

// trustCodexProject marks dir trusted in config.toml: codex loads a
// project's .codex/ configuration (its hooks.json included) only then.
func (a *Agent) trustCodexProject(dir string) error {
	path := filepath.Join(a.CodexHome(), "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	conf := string(b)
	for _, d := range realAndGiven(dir) {
		header := fmt.Sprintf("[projects.%q]", d)
		if strings.Contains(conf, header) {
			continue
		}
		conf += "\n" + header + "\ntrust_level = \"trusted\"\n"
	}
	return os.WriteFile(path, []byte(conf), 0o600)
}

// writeGeminiSettings writes ~/.gemini/settings.json: API-key auth (the
// fake's), hooks enabled, no update checks or usage statistics.
func (a *Agent) writeGeminiSettings() error {
	dir := filepath.Join(a.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return a.WriteJSON(filepath.Join(dir, "settings.json"), GeminiUserSettings())
}

// GeminiUserSettings is the user-level settings.json New writes; a test
// that adds user hooks starts from it.
func GeminiUserSettings() map[string]any {
	return map[string]any{
		"security":    map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"hooksConfig": map[string]any{"enabled": true},
		"general":     map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"privacy":     map[string]any{"usageStatisticsEnabled": false},
	}
}

// WriteJSON writes v as indented JSON to path, making its directory.
func (a *Agent) WriteJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
