package agentconf

// Cursor reads .cursor/hooks.json ({"version":1,"hooks":{…}}, flat entries
// {"command":…}; its docs, per HARNESSES.md). sessionStart may return
// additional_context, but some builds reject that event and -p mode fires
// no stop hooks, so an always-applied rule asks the agent to run
// `git handoff start` itself when no brief reached it. preToolUse (its
// docs: one hook for every tool, a matcher on the tool's type) covers the
// tools that write files.
func cursor() agent {
	const h = "cursor"
	entry := func(ev string) []byte { return mustJSON(object{{"command", mustJSON(Command(h, ev))}}) }
	matched := func(matcher, ev string) []byte {
		return mustJSON(object{{"command", mustJSON(Command(h, ev))}, {"matcher", mustJSON(matcher)}})
	}
	return agent{name: h, parts: []part{
		hooksFile{
			path:   ".cursor/hooks.json",
			cmdKey: "command",
			top:    []member{{"version", mustJSON(1)}},
			events: []hookEvent{
				{"sessionStart", entry(EventStart)},
				{"preToolUse", matched("Write|Edit|Delete", EventPreToolUse)},
				{"stop", entry(EventStop)},
				{"sessionEnd", entry(EventEnd)},
			},
		},
		ownedFile{
			path:   ".cursor/rules/git-handoff.mdc",
			marker: "<!-- git-handoff:cursor-rule -->",
			content: "---\ndescription: Pick up the baton a previous session left (git-handoff)\nalwaysApply: true\n---\n" +
				"<!-- git-handoff:cursor-rule -->\n<!-- written by git handoff init --agent cursor; removed by --remove -->\n\n" +
				cursorInstructions,
		},
	}}
}

// cursorInstructions: the start hook may already have delivered the brief,
// so the rule asks for `git handoff start` only when it did not.
const cursorInstructions = `## git-handoff

If this session did not begin with a git-handoff brief, run ` + "`git handoff start`" + ` before any other work
and read what it prints: it claims the baton a previous session left for this branch and gives you its
next steps, failures and open questions. When you stop with work left, leave a baton:
` + "`git handoff end --next \"…\" --failed \"…\" --question \"…\"`" + `.
`
