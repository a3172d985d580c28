package plugin_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/fakemodel"
)

// uninstallDeadline bounds one `git handoff plugin uninstall`: it runs the
// agent's list command before each of its remove commands, four starts of
// the agent's CLI on a loaded machine.
const uninstallDeadline = 4 * time.Minute

type uninstallJSON struct {
	Agent string `json:"agent"`
	Dir   string `json:"dir"`
	Steps []struct {
		Command []string `json:"command"`
		Remove  string   `json:"remove"`
		Skipped bool     `json:"skipped"`
		Output  string   `json:"output"`
	} `json:"steps"`
	Ran          bool     `json:"ran"`
	Missing      string   `json:"missing"`
	NotInstalled bool     `json:"notInstalled"`
	Removed      []string `json:"removed"`
}

// agentOutput runs the agent's own CLI with args as the user would, in
// the agent's HOME, and returns its output, stdout and stderr (Gemini CLI
// prints its lists on stderr).
func agentOutput(t *testing.T, a *agenttest.Agent, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, a.Bin, args...)
	cmd.Dir, cmd.Env = dir, a.Environ("PWD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", a.Name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// agentOutputIn is agentOutput run in dir (a project).
func agentOutputIn(t *testing.T, a *agenttest.Agent, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.Bin, args...)
	cmd.Dir, cmd.Env = dir, a.Environ("PWD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", a.Name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// uninstallLists are the agents' own lists that name an installed plugin.
var uninstallLists = map[string][][]string{
	agenttest.Claude:  {{"plugin", "list", "--json"}, {"plugin", "marketplace", "list", "--json"}},
	agenttest.Codex:   {{"plugin", "list", "--json"}, {"plugin", "marketplace", "list", "--json"}},
	agenttest.Gemini:  {{"extensions", "list", "--output-format", "json"}},
	agenttest.Copilot: {{"plugin", "list", "--json"}, {"plugin", "marketplace", "list", "--json"}},
}

// checkUninstall is the uninstall half of a plugin's life, run by
// TestPluginDeliversBaton (Claude Code, Codex, Gemini) and
// TestCopilotPluginStartsThroughSkill (Copilot) on the agent whose plugin
// they installed (instDir, from installDir) and proved working in dir; it
// was TestPluginUninstalls, which installed each plugin again for itself.
// `git handoff plugin uninstall` runs the agent's own remove commands,
// after which the agent's own lists (plugins, marketplaces) no longer name
// the plugin, its written files are gone, neither a project-scoped Claude
// Code install nor Copilot's settings entry is left, and (where a session
// start hook delivers the baton) a headless session is no longer given a
// waiting baton, which stays unclaimed; a second uninstall succeeds,
// running nothing and saying nothing was installed.
func checkUninstall(t *testing.T, a *agenttest.Agent, fake *fakemodel.Server, bin, installDir, instDir, dir string, env []string) {
	t.Helper()
	agent := a.Name
	start := time.Now()
	agentEnv := a.Environ("PWD=" + installDir)
	for _, args := range uninstallLists[agent] {
		if out := agentOutput(t, a, args...); !strings.Contains(out, `"git-handoff`) {
			t.Fatalf("after install, `%s %s` does not name the plugin: the check below would prove nothing\n%s", agent, strings.Join(args, " "), out)
		}
	}
	// A project-scoped install beside the user's: Claude Code
	// enables it in the project's own settings.
	projectSettings := filepath.Join(dir, ".claude", "settings.json")
	if agent == agenttest.Claude {
		agentOutputIn(t, a, dir, "plugin", "install", "git-handoff@git-handoff", "--scope", "project")
		if b, _ := os.ReadFile(projectSettings); !strings.Contains(string(b), `"git-handoff@git-handoff": true`) {
			t.Fatalf("after a project-scoped install, %s does not enable the plugin: the check below would prove nothing\n%s", projectSettings, b)
		}
	}
	copilotSettings := filepath.Join(a.Home, ".copilot", "settings.json")
	if agent == agenttest.Copilot {
		if b, _ := os.ReadFile(copilotSettings); !strings.Contains(string(b), `"git-handoff@git-handoff"`) {
			t.Fatalf("after install, %s does not name the plugin: the check below would prove nothing\n%s", copilotSettings, b)
		}
	}

	var un uninstallJSON
	decode(t, handoffWithin(t, uninstallDeadline, bin, installDir, agentEnv, "plugin", "uninstall", agent, "--json"), &un)
	if !un.Ran || un.NotInstalled || un.Missing != "" || !slices.Contains(un.Removed, instDir) {
		t.Fatalf("plugin uninstall: %+v", un)
	}
	for _, st := range un.Steps {
		if st.Skipped {
			t.Errorf("after an install, uninstall skipped %v%s", st.Command, st.Remove)
		}
	}
	for _, args := range uninstallLists[agent] {
		if out := agentOutput(t, a, args...); strings.Contains(out, `"git-handoff`) {
			t.Errorf("after uninstall, `%s %s` still names the plugin\n%s", agent, strings.Join(args, " "), out)
		}
	}
	if _, err := os.Stat(instDir); !os.IsNotExist(err) {
		t.Errorf("the written plugin %s is still there: %v", instDir, err)
	}
	if agent == agenttest.Claude {
		if b, _ := os.ReadFile(projectSettings); strings.Contains(string(b), `"git-handoff@git-handoff"`) {
			t.Errorf("after uninstall, the project's %s still names the plugin\n%s", projectSettings, b)
		}
	}
	if agent == agenttest.Copilot {
		if b, _ := os.ReadFile(copilotSettings); strings.Contains(string(b), `"git-handoff@git-handoff"`) {
			t.Errorf("after uninstall, %s still names the plugin\n%s", copilotSettings, b)
		}
	}

	// Copilot's start hook delivers nothing (a skill asks for
	// `git handoff start`): only the others' sessions tell.
	if agent != agenttest.Copilot {
		next := "NEXT-UNINSTALLED-" + token()
		var left struct {
			Handoff batonJSON `json:"handoff"`
		}
		decode(t, handoff(t, bin, dir, env, "end", "--next", "look at "+next, "--json"), &left)
		before := len(fake.Requests())
		res := a.Run(agenttest.Run{Dir: dir, Prompt: "carry on", Timeout: 2 * agenttest.DefaultTimeout})
		if res.Code != 0 {
			t.Fatalf("%s run: %s\nrequests:\n%s", agent, res, fake.Dump())
		}
		if len(fake.Requests()) == before {
			t.Fatalf("the %s run made no request: the check below would prove nothing\n%s", agent, res)
		}
		for _, r := range fake.Requests()[before:] {
			if r.Contains(next) {
				t.Fatalf("a session after uninstall was given the baton\n%s", fake.Dump())
			}
		}
		var batons struct {
			Handoffs []batonJSON `json:"handoffs"`
		}
		decode(t, handoff(t, bin, dir, env, "list", "--all", "--json"), &batons)
		for _, b := range batons.Handoffs {
			if b.ID == left.Handoff.ID && b.Claimed {
				t.Errorf("baton %s was claimed by %q after uninstall", b.ID, b.ClaimedBySession)
			}
		}
	}

	var again uninstallJSON
	decode(t, handoffWithin(t, uninstallDeadline, bin, installDir, agentEnv, "plugin", "uninstall", agent, "--json"), &again)
	if !again.Ran || !again.NotInstalled || len(again.Removed) != 0 {
		t.Errorf("second uninstall: %+v", again)
	}
	t.Logf("%s: uninstall, session, uninstall again in %v", agent, time.Since(start).Round(time.Second))
}
