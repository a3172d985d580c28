package agentconf

// Cursor reads .cursor/hooks.json ({"version":1,"hooks":{…}}, flat entries
// {"command":…}; its docs, per HARNESSES.md). sessionStart may return
// additional_context, but some builds reject that event and -p mode fires
// no stop hooks, so an always-applied rule asks the agent to run
// `git handoff start` as well. A second start in a session that the hook
// already started delivers the same baton again; it never claims twice.
func cursor() agent {
	const h = "cursor"
	entry := func(ev string) []byte { return mustJSON(object{{"command", mustJSON(Command(h, ev))}}) }
	return agent{name: h, parts: []part{
		hooksFile{
			path:   ".cursor/hooks.json",
			cmdKey: "command",
			top:    []member{{"version", mustJSON(1)}},
			events: []hookEvent{
				{"sessionStart", entry(EventStart)},
				{"stop", entry(EventStop)},
				{"sessionEnd", entry(EventEnd)},
			},
		},
		ownedFile{
			path:   ".cursor/rules/git-handoff.mdc",
			marker: "<!-- git-handoff:cursor-rule -->",
			content: "---\ndescription: Pick up the baton a previous session left (git-handoff)\nalwaysApply: true\n---\n" +
				"<!-- git-handoff:cursor-rule -->\n<!-- written by git handoff init --agent cursor; removed by --remove -->\n\n" +
				startInstructions,
		},
	}}
}
