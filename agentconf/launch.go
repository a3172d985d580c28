package agentconf

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/git-handoff/git-handoff/harness"
)

// Launch is what a launch of an agent in a worktree must add so that the
// hooks `init --agent` installed there run.
type Launch struct {
	Hooks []harness.Hook // to pass on the agent's command line
	// BypassTrust runs the hooks the agent loads without its own trust:
	// set only when every project hook is ours.
	BypassTrust bool
	Note        string // what keeps them from running, for the user
}

// LaunchFor says how to launch the agent in root so that our hooks run. Only
// Codex needs anything (checked with 0.171.0): it runs project hooks only
// once each is trusted, by the path of its hooks.json, so a new linked
// worktree never runs them; it loads a project's configuration at all only
// when the project (or, for a linked worktree, its main worktree) is
// trusted; and hooks passed on the command line run only with
// --dangerously-bypass-hook-trust, which then bypasses the trust of every
// hook loaded. So the launch carries our hooks on its command line only when
// no project hooks load (an untrusted project), and never when the project's
// hooks.json holds hooks git-handoff did not write. Nothing is added where
// the user did not install our hooks for the agent.
func LaunchFor(root, harnessName string, o Options) Launch {
	if harnessName != "codex" {
		return Launch{}
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(codexHooks)))
	if err != nil {
		return Launch{}
	}
	ours, foreign := hookCommands(data)
	if ours == 0 {
		return Launch{}
	}
	hooks := []harness.Hook{
		{Event: "SessionStart", Command: Command("codex", EventStart)},
		{Event: "Stop", Command: Command("codex", EventStop)},
	}
	trusted := codexProjectTrusted(filepath.Join(codexHome(o), "config.toml"), root)
	switch {
	case !trusted:
		// Codex loads no project hooks here (until the user trusts the
		// folder, when ours run twice at once: the hook serializes on
		// the agent's id, so one session starts and one stop asks).
		return Launch{Hooks: hooks, BypassTrust: true}
	case foreign:
		return Launch{Note: "codex runs the project's hooks only once trusted, and " + codexHooks + " holds hooks git-handoff did not write, so they are not bypassed: trust them in codex's /hooks screen"}
	default:
		// The project's hooks are all ours: run them whatever their trust,
		// without passing them twice.
		return Launch{BypassTrust: true}
	}
}

// hookCommands counts the hook commands in a Claude-shaped hooks file that
// are ours, and says whether any is not.
func hookCommands(data []byte) (ours int, foreign bool) {
	var file struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return 0, true // unreadable: nothing can be vouched for
	}
	for _, groups := range file.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if isCommand(h.Command) {
					ours++
				} else {
					foreign = true
				}
			}
		}
	}
	return ours, foreign
}

// codexProjectTrusted reads whether config.toml trusts root, or the main
// worktree of a linked worktree root ([projects."<path>"] trust_level =
// "trusted", the table Codex writes when the user trusts a folder).
func codexProjectTrusted(configPath, root string) bool {
	want := map[string]bool{}
	for _, p := range []string{root, mainWorktree(root)} {
		if p == "" {
			continue
		}
		want[filepath.Clean(p)] = true
		if real, err := filepath.EvalSymlinks(p); err == nil {
			want[real] = true
		}
	}
	trusted := false
	codexTables(configPath, "projects", func(name, key, value string) {
		if key == "trust_level" && value == "trusted" && want[filepath.Clean(name)] {
			trusted = true
		}
	})
	return trusted
}
