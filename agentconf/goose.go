package agentconf

// Goose discovers project plugins under .agents/plugins/<name>/, each with
// a plugin.json manifest and hooks/hooks.json in Claude Code's grouped
// shape under "hooks" (goose's hooks guide; commands run with sh -c,
// timeout in seconds, default 30). SessionStart only observes, so
// .goosehints tells the agent to run `git handoff start`; Stop can block.
// .goosehints rather than AGENTS.md: AGENTS.md is read by agents whose
// start hook already injects the brief.
func goose() agent {
	const h = "goose"
	return agent{name: h, parts: []part{
		ownedFile{
			path:    ".agents/plugins/git-handoff/plugin.json",
			marker:  `"name": "git-handoff"`,
			content: "{\n  \"name\": \"git-handoff\",\n  \"version\": \"1.0.0\",\n  \"description\": \"Hands the baton between sessions (written by git handoff init --agent goose)\"\n}\n",
		},
		hooksFile{
			path:    ".agents/plugins/git-handoff/hooks/hooks.json",
			grouped: true,
			cmdKey:  "command",
			events: []hookEvent{
				{"SessionStart", groupEntry("", h, EventStart, nil)},
				{"Stop", groupEntry("", h, EventStop, nil)},
				{"SessionEnd", groupEntry("", h, EventEnd, nil)},
			},
		},
		section{path: ".goosehints", body: startInstructions},
	}}
}
