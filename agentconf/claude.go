package agentconf

import "encoding/json"

// Claude Code reads project hooks from .claude/settings.json (HARNESSES.md,
// checked with claude 2.1.197): SessionStart's matcher is the session's
// source, so one entry covers a fresh start, a resume, /clear and a
// compaction; Stop can block once with a reason; PreCompact and Stop keep the
// agent's last message as the session's summary; SessionEnd ends it;
// StopFailure (a turn ended on an API error: a usage limit, billing,
// credentials, the API down) may continue the session in a fallback agent
// (handoff.fallback); its matcher is the error's kind, none takes all;
// PreToolUse, matched to the tools that write files (Write, Edit,
// NotebookEdit, and MultiEdit of earlier releases), refuses a write under
// another session's path lease.
func claudeCode() agent {
	const h = "claude-code"
	return agent{name: h, parts: []part{hooksFile{
		path:    ".claude/settings.json",
		grouped: true,
		cmdKey:  "command",
		events: []hookEvent{
			{"SessionStart", groupEntry("startup|resume|clear|compact", h, EventStart, nil)},
			{"PreToolUse", groupEntry("Write|Edit|MultiEdit|NotebookEdit", h, EventPreToolUse, nil)},
			{"Stop", groupEntry("", h, EventStop, nil)},
			{"PreCompact", groupEntry("", h, EventCompact, nil)},
			{"SessionEnd", groupEntry("", h, EventEnd, nil)},
			{"StopFailure", groupEntry("", h, EventStopFailure, nil)},
		},
	}}}
}

// groupEntry is one grouped hook entry: an optional matcher and our one
// command hook, with extra keys (a name, a timeout) where the agent takes
// them.
func groupEntry(matcher, harnessName, event string, extra map[string]any) []byte {
	hook := object{{"type", mustJSON("command")}, {"command", mustJSON(Command(harnessName, event))}}
	for _, k := range []string{"name", "timeout"} {
		if v, ok := extra[k]; ok {
			hook = append(hook, member{k, mustJSON(v)})
		}
	}
	var g object
	if matcher != "" {
		g = append(g, member{"matcher", mustJSON(matcher)})
	}
	g = append(g, member{"hooks", rawArray([]json.RawMessage{mustJSON(hook)})})
	return mustJSON(g)
}
