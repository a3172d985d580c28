package agentconf

import _ "embed"

// OpenCode has no hook commands: its plugins are JS modules auto-loaded
// from .opencode/plugins/ (the plugin guide built into opencode-ai 1.18.33:
// a module exporting a function of {client, directory, worktree, …} that
// returns hooks). Ours starts the session on session.created (or, for a
// resumed session, on its first model request), injects the brief through
// experimental.chat.system.transform, restarts on session.compacted, and
// runs stop on session.idle, sending a block's reason back as a prompt
// (client.session.promptAsync).
//
//go:embed opencode.js
var opencodePlugin string

func opencode() agent {
	return agent{name: "opencode", parts: []part{ownedFile{
		path:    ".opencode/plugins/git-handoff.js",
		marker:  "// git-handoff:opencode-plugin",
		content: opencodePlugin,
	}}}
}
