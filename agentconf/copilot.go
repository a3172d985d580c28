package agentconf

// Copilot CLI reads every .github/hooks/*.json ({"version":1,"hooks":{…}},
// flat entries {"type":"command","bash":…,"timeoutSec":…}; its docs, per
// HARNESSES.md). It ignores sessionStart's output, so the brief cannot be
// injected: .github/copilot-instructions.md tells the agent to run
// `git handoff start` itself, and sessionStart only does the bookkeeping.
// preToolUse, whose matcher must match a tool's whole name (1.0.102's
// changelog), covers the tools that write files; Copilot denies a tool
// whose preToolUse hook fails, so the command's `|| true` matters here.
func copilot() agent {
	const h = "copilot"
	entry := func(ev string) []byte {
		return mustJSON(object{
			{"type", mustJSON("command")},
			{"bash", mustJSON(Command(h, ev))},
			{"timeoutSec", mustJSON(30)},
		})
	}
	matched := func(matcher, ev string) []byte {
		return mustJSON(object{
			{"type", mustJSON("command")},
			{"matcher", mustJSON(matcher)},
			{"bash", mustJSON(Command(h, ev))},
			{"timeoutSec", mustJSON(30)},
		})
	}
	return agent{name: h, parts: []part{
		hooksFile{
			path:   ".github/hooks/git-handoff.json",
			cmdKey: "bash",
			top:    []member{{"version", mustJSON(1)}},
			events: []hookEvent{
				{"sessionStart", entry(EventStart)},
				{"preToolUse", matched("create|edit|str_replace_editor|apply_patch", EventPreToolUse)},
				{"agentStop", entry(EventStop)},
				{"sessionEnd", entry(EventEnd)},
			},
		},
		section{path: ".github/copilot-instructions.md", body: startInstructions},
	}}
}
