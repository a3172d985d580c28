package agentconf

import "fmt"

// PluginHooks is the hooks file of agent's plugin (package plugin): the
// entries `init --agent` merges into the project's own file, alone in a
// file of their own, so that a plugin and a committed configuration run
// the same commands and cannot drift apart.
func PluginHooks(name string) ([]byte, error) {
	a, ok := find(name)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownAgent, name)
	}
	for _, p := range a.parts {
		if f, ok := p.(hooksFile); ok {
			b, _, err := f.install(nil, false)
			return b, err
		}
	}
	return nil, fmt.Errorf("agent %q has no hook commands", name)
}

// PluginInstructions is the instruction text a plugin carries (Gemini's
// context file, Cursor's rule): every plugin also has a start hook that
// hands the brief over, so the text asks for `git handoff start` only
// where that did not happen, as Cursor's project rule does.
func PluginInstructions() string { return cursorInstructions }

// OpenCodePlugin is the module `init --agent opencode` writes into
// .opencode/plugins/: OpenCode's plugins are such modules, project or user
// level alike.
func OpenCodePlugin() string { return opencodePlugin }
