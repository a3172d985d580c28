package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/agentconf"
	"github.com/git-handoff/git-handoff/plugin"
	"github.com/git-handoff/git-handoff/view"
)

// pluginCommand installs git-handoff's plugin for a coding agent from the
// binary's own copy; package plugin does the work.
func pluginCommand(d *deps) *cli.Command {
	agents := strings.Join(plugin.Agents(), ", ")
	return &cli.Command{
		Name:  "plugin",
		Usage: "install (or uninstall) git-handoff as a plugin of a coding agent, for every repository",
		Description: "The plugin runs the same hooks `git handoff init --agent` writes into a repository, starts the MCP\n" +
			"server (`git handoff mcp`) and carries a skill on leaving good batons; it works in any repository,\n" +
			"with or without init. Agents: " + agents + ".",
		Subcommands: []*cli.Command{
			{
				Name:      "install",
				Usage:     "write the plugin to the user's data directory and install it with the agent's own commands",
				ArgsUsage: "AGENT",
				Description: "Writes the plugin this binary carries to $XDG_DATA_HOME/git-handoff/plugins/AGENT, then runs the\n" +
					"agent's own install: `claude plugin marketplace add` and `claude plugin install`, `codex plugin\n" +
					"marketplace add` and `codex plugin add`, `gemini extensions install --consent`; for Cursor and\n" +
					"OpenCode it copies the plugin into the directory the agent loads plugins from. Codex runs a plugin's\n" +
					"hooks only once the user trusts them: install records that trust as Codex's /hooks screen does,\n" +
					"through `codex app-server`, and says what to do when it cannot. When the agent's\n" +
					"CLI is not on PATH (or with --print), it prints the commands to run instead. Run it again after\n" +
					"upgrading git-handoff.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "print", Usage: "write the plugin's files but only print the agent's install commands"},
					jsonFlag,
				},
				Action: func(c *cli.Context) error {
					agent, o, err := pluginRun(c, d)
					if err != nil {
						return err
					}
					res, err := plugin.Install(c.Context, agent, o)
					if err != nil {
						return fmt.Errorf("installing the %s plugin: %w", agent, err)
					}
					if c.Bool("json") {
						return d.printJSON(toPluginInstallJSON(res))
					}
					notify(d.stderr, res.Notices)
					fmt.Fprintf(d.stdout, "wrote the %s plugin to %s\n", res.Agent, res.Dir)
					switch {
					case res.Ran:
						fmt.Fprintf(d.stdout, "installed it: %s\n", stepsLine(res.Steps))
					case res.Missing != "":
						fmt.Fprintf(d.stdout, "%s is not on PATH; to install the plugin, run:\n", res.Missing)
						printSteps(d, res.Steps)
					default:
						fmt.Fprintln(d.stdout, "to install it, run:")
						printSteps(d, res.Steps)
					}
					return nil
				},
			},
			{
				Name:      "uninstall",
				Usage:     "uninstall the agent's plugin with the agent's own commands, and remove its written files",
				ArgsUsage: "AGENT",
				Description: "The reverse of install: runs the agent's own uninstall (`claude plugin uninstall` and `claude\n" +
					"plugin marketplace remove`, `codex plugin remove` and `codex plugin marketplace remove`, `gemini\n" +
					"extensions uninstall`, `copilot plugin uninstall` and `copilot plugin marketplace remove`), each\n" +
					"only when the agent's own list shows what it removes; for Cursor and OpenCode it removes the copy\n" +
					"install made, only where the files are the plugin's; then removes\n" +
					"$XDG_DATA_HOME/git-handoff/plugins/AGENT. Uninstalling a plugin that is not installed succeeds and\n" +
					"says so. When the agent's CLI is not on PATH (or with --print), it removes nothing and prints the\n" +
					"commands to run instead.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "print", Usage: "remove nothing; only print the commands that uninstall the plugin"},
					jsonFlag,
				},
				Action: func(c *cli.Context) error {
					agent, o, err := pluginRun(c, d)
					if err != nil {
						return err
					}
					res, err := plugin.Uninstall(c.Context, agent, o)
					if err != nil {
						return fmt.Errorf("uninstalling the %s plugin: %w", agent, err)
					}
					if c.Bool("json") {
						return d.printJSON(toPluginUninstallJSON(res))
					}
					notify(d.stderr, res.Notices)
					var todo []plugin.Step
					for _, st := range res.Steps {
						if !st.Skipped {
							todo = append(todo, st)
						}
					}
					switch {
					case res.NotInstalled:
						fmt.Fprintf(d.stdout, "the %s plugin is not installed: nothing to uninstall\n", res.Agent)
					case res.Ran:
						fmt.Fprintf(d.stdout, "uninstalled the %s plugin: %s\n", res.Agent, stepsLine(todo))
					case len(todo) == 0:
						fmt.Fprintf(d.stdout, "the %s plugin is not installed: nothing to uninstall\n", res.Agent)
					case res.Missing != "":
						fmt.Fprintf(d.stdout, "%s is not on PATH; to uninstall the %s plugin, run:\n", res.Missing, res.Agent)
						printSteps(d, todo)
					default:
						fmt.Fprintf(d.stdout, "to uninstall the %s plugin, run:\n", res.Agent)
						printSteps(d, todo)
					}
					return nil
				},
			},
			{
				Name:  "list",
				Usage: "list the agents with a plugin: whether each has it installed and where, where its files are written, and how it installs",
				Description: "Asks each agent's own list command (claude plugin list, codex plugin list, gemini extensions list,\n" +
					"copilot plugin list) whether the plugin is installed, and where: Claude Code's scopes (user, or a\n" +
					"project's), the agent's copy; for Cursor and OpenCode, which have no such command, the copy install\n" +
					"made. An agent whose CLI is not on PATH is \"unknown\". The commands run at once, each some seconds.",
				ArgsUsage: " ",
				Flags:     []cli.Flag{jsonFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf(c, "plugin list takes no arguments, got %q", c.Args().First())
					}
					infos, err := plugin.List(c.Context, plugin.Env{})
					if err != nil {
						return err
					}
					if c.Bool("json") {
						out := make([]pluginJSON, len(infos))
						for i, in := range infos {
							out[i] = toPluginJSON(in)
						}
						return d.printJSON(map[string]any{"plugins": out})
					}
					for _, in := range infos {
						installed := "not installed"
						switch {
						case !in.Installed.Known:
							installed = "unknown: " + firstLineOf(in.Installed.Why)
						case len(in.Installed.Where) > 0:
							installed = "installed: " + strings.Join(in.Installed.Where, "; ")
						}
						written := "not written"
						switch {
						case in.Written:
							written = "written"
						case in.Stale:
							written = "written by another version"
						}
						fmt.Fprintf(d.stdout, "%-12s %s\n", in.Agent, installed)
						fmt.Fprintf(d.stdout, "%-12s files %s: %s\n", "", written, in.Dir)
						fmt.Fprintf(d.stdout, "%-12s install: %s\n", "", stepsLine(in.Steps))
					}
					return nil
				},
			},
			{
				Name:      "path",
				Usage:     "print the directory the agent's plugin is written to",
				ArgsUsage: "AGENT",
				Action: func(c *cli.Context) error {
					agent, err := pluginAgent(c)
					if err != nil {
						return err
					}
					dir, err := plugin.Path(agent, plugin.Env{})
					if err != nil {
						return err
					}
					fmt.Fprintln(d.stdout, dir)
					return nil
				},
			},
		},
	}
}

// pluginRun is what install and uninstall were asked: the agent, and how
// to run its commands (the agent's own output is progress: stderr, unless
// --json keeps it out of the way).
func pluginRun(c *cli.Context, d *deps) (string, plugin.Options, error) {
	agent, err := pluginAgent(c)
	if err != nil {
		return "", plugin.Options{}, err
	}
	o := plugin.Options{NoRun: c.Bool("print"), Stdin: d.stdin, Stderr: d.stderr}
	if !c.Bool("json") {
		o.Stdout = d.stderr
	}
	return agent, o, nil
}

// pluginAgent is the command's one argument, an agent with a plugin.
func pluginAgent(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usageErrorf(c, "name one agent: %s", strings.Join(plugin.Agents(), ", "))
	}
	agent, err := plugin.Resolve(c.Args().First())
	if errors.Is(err, agentconf.ErrUnknownAgent) {
		return "", usageErrorf(c, "%v", err)
	}
	return agent, err
}

func printSteps(d *deps, steps []plugin.Step) {
	for _, s := range steps {
		fmt.Fprintf(d.stdout, "  %s\n", s)
	}
}

func stepsLine(steps []plugin.Step) string {
	var s []string
	for _, st := range steps {
		s = append(s, st.String())
	}
	return strings.Join(s, " && ")
}

type pluginStepJSON struct {
	Command []string `json:"command,omitempty"`
	CopyTo  string   `json:"copyTo,omitempty"`
	Remove  string   `json:"remove,omitempty"`
	Dir     string   `json:"dir,omitempty"`
	Edit    string   `json:"edit,omitempty"`
	Member  []string `json:"member,omitempty"`
	Output  string   `json:"output,omitempty"`
	Skipped bool     `json:"skipped,omitempty"`
}

type pluginInstallJSON struct {
	Agent   string           `json:"agent"`
	Dir     string           `json:"dir"`
	Steps   []pluginStepJSON `json:"steps"`
	Ran     bool             `json:"ran"`
	Missing string           `json:"missing,omitempty"`
	// Trusted are the hooks whose trust install recorded (Codex's).
	Trusted []string `json:"trusted"`
	Notices []string `json:"notices"`
}

type pluginUninstallJSON struct {
	Agent   string           `json:"agent"`
	Dir     string           `json:"dir"`
	Steps   []pluginStepJSON `json:"steps"`
	Ran     bool             `json:"ran"`
	Missing string           `json:"missing,omitempty"`
	// NotInstalled: the steps ran and none had anything to remove.
	NotInstalled bool     `json:"notInstalled"`
	Removed      []string `json:"removed"`
	Notices      []string `json:"notices"`
}

type pluginJSON struct {
	Agent   string           `json:"agent"`
	Dir     string           `json:"dir"`
	Written bool             `json:"written"`
	Stale   bool             `json:"stale"`
	Steps   []pluginStepJSON `json:"steps"`
	// Installed is null when it could not be told (Unknown says why);
	// Where lists the places it is installed.
	Installed *bool    `json:"installed"`
	Unknown   string   `json:"unknown,omitempty"`
	Where     []string `json:"where"`
}

func toPluginStepsJSON(steps []plugin.Step) []pluginStepJSON {
	out := make([]pluginStepJSON, len(steps))
	for i, s := range steps {
		out[i] = pluginStepJSON{Command: s.Args, CopyTo: s.CopyTo, Remove: s.Remove, Dir: s.Dir, Edit: s.Edit, Member: s.Member, Output: s.Output, Skipped: s.Skipped}
	}
	return out
}

func toPluginInstallJSON(r plugin.Result) pluginInstallJSON {
	return pluginInstallJSON{Agent: r.Agent, Dir: r.Dir, Steps: toPluginStepsJSON(r.Steps), Ran: r.Ran, Missing: r.Missing, Trusted: view.NonNil(r.Trusted), Notices: view.NonNil(r.Notices)}
}

func toPluginUninstallJSON(r plugin.Result) pluginUninstallJSON {
	return pluginUninstallJSON{Agent: r.Agent, Dir: r.Dir, Steps: toPluginStepsJSON(r.Steps), Ran: r.Ran, Missing: r.Missing,
		NotInstalled: r.NotInstalled, Removed: view.NonNil(r.Removed), Notices: view.NonNil(r.Notices)}
}

func toPluginJSON(in plugin.Info) pluginJSON {
	out := pluginJSON{Agent: in.Agent, Dir: in.Dir, Written: in.Written, Stale: in.Stale, Steps: toPluginStepsJSON(in.Steps), Where: view.NonNil(in.Installed.Where)}
	if in.Installed.Known {
		yes := len(in.Installed.Where) > 0
		out.Installed = &yes
	} else {
		out.Unknown = in.Installed.Why
	}
	return out
}

// firstLineOf is s up to its first newline (a failed list's error carries
// the command's output after it).
func firstLineOf(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
