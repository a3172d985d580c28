package agentconf

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Gemini CLI reads project hooks from .gemini/settings.json (its settings
// schema in @google/gemini-cli 0.61.0: hooks.<Event> is an array of
// {matcher, hooks:[{name, type:"command", command, timeout (ms)}]}).
// AfterAgent is its Stop; BeforeTool, matched to write_file and replace
// (its matcher is an unanchored regular expression), refuses a write
// under another session's path lease. hooksConfig.enabled defaults to true there, so
// nothing needs switching on; a user's explicit false is reported, not
// overridden.
func gemini() agent {
	const h = "gemini"
	named := func(ev string) map[string]any { return map[string]any{"name": "git-handoff-" + ev} }
	return agent{
		name: h,
		parts: []part{hooksFile{
			path:    geminiSettings,
			grouped: true,
			cmdKey:  "command",
			events: []hookEvent{
				{"SessionStart", groupEntry("", h, EventStart, named(EventStart))},
				{"BeforeTool", groupEntry("^(write_file|replace)$", h, EventPreToolUse, named(EventPreToolUse))},
				{"AfterAgent", groupEntry("", h, EventStop, named(EventStop))},
				{"SessionEnd", groupEntry("", h, EventEnd, named(EventEnd))},
			},
		}},
		problems: geminiProblems,
	}
}

const geminiSettings = ".gemini/settings.json"

func geminiProblems(root string, _ Options) []Problem {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(geminiSettings)))
	if err != nil {
		return nil
	}
	var s struct {
		HooksConfig struct {
			Enabled *bool `json:"enabled"`
		} `json:"hooksConfig"`
	}
	if json.Unmarshal(b, &s) == nil && s.HooksConfig.Enabled != nil && !*s.HooksConfig.Enabled {
		return []Problem{{
			Problem: geminiSettings + " sets hooksConfig.enabled to false: Gemini CLI runs no hooks",
			Remedy:  "set hooksConfig.enabled to true in " + geminiSettings,
		}}
	}
	return nil
}
