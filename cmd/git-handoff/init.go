package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/agentconf"
	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/view"
)

func initCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "let a remote carry the team's records and install the hooks",
		Description: "Names the remote in git config handoff.remote, so that `git handoff sync`, `start` and the hooks\n" +
			"exchange the team's records with it, and makes that remote the arbiter of claims. It leaves the\n" +
			"remote's fetch refspecs alone: a plain `git fetch` or `git pull` fetches what it fetched before, and\n" +
			"our commands fetch only our refs (git's protocol v2 asks the remote for their prefixes alone).\n" +
			"Fetch refspecs an earlier version of init added are taken out, with a notice. Records are pushed by\n" +
			"`git handoff sync` and the pre-push hook, each with a lease. Running init again changes nothing.\n\n" +
			"It then checks that the remote takes records: a probe ref under refs/ao/probe/ pointing at a blob is\n" +
			"pushed, moved with a forced push under a lease, and deleted; a refusal says what the server refused\n" +
			"and why servers do that. Without a remote, init installs the hooks and says how to add one.\n\n" +
			"The hooks go into the repository's config where git runs hooks from there (git 2.54 and later), else\n" +
			"into the hooks directory; --hooks chooses (see `git handoff hooks install`).\n\n" +
			"--agent NAME (repeat the flag for more agents, or all) also writes that coding agent's project-level hook\n" +
			"configuration, merged into the files there, so that the agent runs `git handoff hook agent` when a\n" +
			"session starts, stops and ends. --agent NAME --remove takes out only what init wrote, and nothing else.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "remote", Value: "origin", Usage: "the remote `NAME`"},
			&cli.BoolFlag{Name: "no-hooks", Usage: "do not install the git hooks"},
			hooksFormFlag,
			&cli.BoolFlag{Name: "no-check", Usage: "do not check that the remote takes records (a probe ref pushed, updated and deleted)"},
			&cli.StringSliceFlag{Name: "agent", Usage: "also configure the hooks of coding agent `NAME` (" + strings.Join(agentconf.Names(), ", ") + ", or all); repeat the flag for more, one name each"},
			&cli.BoolFlag{Name: "remove", Usage: "with --agent: remove those agents' hook configuration (and do nothing else)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			var agents []string
			if c.IsSet("agent") {
				names, err := agentNames(c.StringSlice("agent"))
				if err != nil {
					return usageErrorf(c, "%v", err)
				}
				if agents, err = agentconf.Resolve(names); err != nil {
					return usageErrorf(c, "%v", err)
				}
			}
			if c.Bool("remove") {
				if agents == nil {
					return usageErrorf(c, "--remove needs --agent NAME: it removes agents' hook configuration")
				}
				return runAgentRemove(c, d, agents)
			}
			return runInit(c, d, agents)
		},
	}
}

// runInit sets the remote up, installs the hooks, then checks that the
// remote takes what records need. The hooks go in whatever the remote
// does: a repository without a remote yet still gets them, and is told how
// to add one.
func runInit(c *cli.Context, d *deps, agents []string) error {
	form, err := hooks.ParseForm(c.String("hooks"))
	if err != nil {
		return usageErrorf(c, "--hooks: %v", err)
	}
	if c.Bool("no-hooks") && c.IsSet("hooks") {
		return usageErrorf(c, "--no-hooks and --hooks: install the hooks or do not")
	}
	st, err := d.Store(c.Context)
	if err != nil {
		return err
	}
	remote := c.String("remote")
	out := initJSON{Remote: remote, RemovedFetchRefspecs: []string{}, Notices: []string{}}
	res, err := teamsync.Init(c.Context, st, remote)
	noRemote := false
	if errors.Is(err, teamsync.ErrUnknownRemote) {
		if names, lerr := st.Remotes(c.Context); lerr == nil && len(names) == 0 {
			noRemote, err = true, nil
			out.Remote = ""
			out.Notices = append(out.Notices, fmt.Sprintf("this repository has no remote yet, so records stay here: add one with `git remote add %s URL && git handoff init`", remote))
		} else {
			return withHint(fmt.Errorf("setting up remote: %w", err), "add it with `git remote add "+remote+" <url>`, or name another with --remote")
		}
	}
	if err != nil {
		return fmt.Errorf("setting up remote %q: %w", remote, err)
	}
	out.Notices = append(out.Notices, res.Warnings...)
	if !noRemote {
		out.Arbiter = res.Arbiter
		out.Changed = res.Changed()
		out.RemovedFetchRefspecs = res.Removed
	}
	var hookErr error
	if !c.Bool("no-hooks") {
		rep, err := hooks.Install(c.Context, st.Dir(), hooks.Options{Form: form})
		hookErr = err
		out.Hooks = toHookReportJSON(rep)
		out.Changed = out.Changed || rep.Changed()
	}
	var agentErr error
	if agents != nil {
		var rep agentconf.Report
		rep, agentErr = installAgents(st.Dir(), st.Bare(), agents)
		out.Agents = toAgentsJSON(rep)
		out.Changed = out.Changed || rep.Changed()
	}
	var checkErr error
	if !noRemote && !c.Bool("no-check") {
		chk, err := teamsync.CheckRemote(c.Context, st, remote)
		checkErr = err
		out.Check = &checkJSON{OK: err == nil, Ref: chk.Ref}
		var re *teamsync.RefusedError
		if errors.As(err, &re) {
			out.Check.Refused, out.Check.Why = re.Step, re.Why
			if re.Unreachable {
				out.Check.Refused = ""
			}
			out.Check.Error = re.Err.Error()
		} else if err != nil {
			out.Check.Error = err.Error()
		}
		out.Notices = append(out.Notices, chk.Notices...)
	}
	if c.Bool("json") {
		if err := d.printJSON(out); err != nil {
			return err
		}
	} else {
		for _, s := range out.RemovedFetchRefspecs {
			fmt.Fprintf(d.stderr, "removed fetch refspec %s\n", s)
		}
		if out.Hooks != nil {
			notify(d.stderr, out.Hooks.Notices)
			for _, h := range out.Hooks.Hooks {
				if h.Action != string(hooks.Unchanged) {
					fmt.Fprintf(d.stderr, "%s hook: %s\n", h.Name, hookResultText(h))
				}
			}
		}
		printAgents(d, out.Agents)
		if out.Arbiter != "" {
			fmt.Fprintf(d.stderr, "claims are decided at remote %s (git config %s)\n", out.Arbiter, teamsync.ArbiterKey)
		}
		switch {
		case noRemote:
		case checkErr != nil:
		case out.Changed:
			fmt.Fprintf(d.stderr, "remote %s now carries the team's records: `git handoff sync` exchanges them\n", res.Remote)
		default:
			fmt.Fprintf(d.stderr, "remote %s was already set up: nothing changed\n", res.Remote)
		}
		notify(d.stderr, out.Notices)
	}
	var re *teamsync.RefusedError
	switch {
	case hookErr != nil || agentErr != nil:
		return errors.Join(wrapIf("installing hooks: %w", hookErr), wrapIf("configuring agents: %w", agentErr), checkErr)
	case errors.As(checkErr, &re):
		return withHint(checkErr, re.Why)
	case checkErr != nil:
		return fmt.Errorf("checking remote %s takes records: %w", remote, checkErr)
	}
	return nil
}

type initJSON struct {
	Remote  string `json:"remote"`
	Arbiter string `json:"arbiter"` // the remote that decides claims ("" without a remote)
	Changed bool   `json:"changed"`
	// RemovedFetchRefspecs are the fetch refspecs of our records an earlier
	// init added to the remote's config, taken out (records are fetched by
	// sync, start and the hooks, not by a plain git fetch).
	RemovedFetchRefspecs []string        `json:"removedFetchRefspecs"`
	Hooks                *hookReportJSON `json:"hooks"`  // null with --no-hooks; the shape of hooks install
	Agents               *agentsJSON     `json:"agents"` // null without --agent; the shape of init --agent --remove
	// Check is the probe of the remote: null with --no-check or no remote.
	Check   *checkJSON `json:"remoteCheck"`
	Notices []string   `json:"notices"`
}

// checkJSON says whether the remote took a probe ref under refs/ao/: what
// it refused, why servers do that, and git's error with the server's reason.
type checkJSON struct {
	OK      bool   `json:"ok"`
	Ref     string `json:"ref"`
	Refused string `json:"refused,omitempty"`
	Why     string `json:"why,omitempty"`
	Error   string `json:"error,omitempty"`
}

func wrapIf(format string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format, err)
}

func installAgents(dir string, bare bool, agents []string) (agentconf.Report, error) {
	if bare || dir == "" {
		return agentconf.Report{}, errors.New("a bare repository has no worktree to hold agents' configuration")
	}
	return agentconf.Install(dir, agents)
}

// runAgentRemove takes git-handoff's entries out of the agents'
// configuration and touches nothing else: not the remote, not the git hooks.
func runAgentRemove(c *cli.Context, d *deps, agents []string) error {
	st, err := d.Store(c.Context)
	if err != nil {
		return err
	}
	if st.Bare() || st.Dir() == "" {
		return errors.New("a bare repository has no worktree to hold agents' configuration")
	}
	rep, err := agentconf.Remove(st.Dir(), agents)
	out := toAgentsJSON(rep)
	if c.Bool("json") {
		if perr := d.printJSON(*out); perr != nil {
			return perr
		}
	} else {
		printAgents(d, out)
		if err == nil && !out.Changed {
			fmt.Fprintln(d.stderr, "no agent configuration of git-handoff was there: nothing changed")
		}
	}
	if err != nil {
		return fmt.Errorf("removing agents' configuration: %w", err)
	}
	return nil
}

// printAgents says, on stderr like the rest of init, which files changed;
// an agent whose files were all as they should be gets one line saying so.
func printAgents(d *deps, out *agentsJSON) {
	if out == nil {
		return
	}
	for _, a := range out.Agents {
		changed := false
		for _, f := range a.Files {
			if f.Action != string(agentconf.Unchanged) && f.Action != string(agentconf.Absent) {
				fmt.Fprintf(d.stderr, "%s: %s %s\n", a.Agent, f.Path, f.Action)
				changed = true
			}
		}
		if !changed {
			fmt.Fprintf(d.stderr, "%s: already configured, nothing changed\n", a.Agent)
		}
		notify(d.stderr, a.Notices)
	}
	notify(d.stderr, out.Notices)
}

// agentsJSON is what init --agent (under "agents") and init --agent
// --remove report.
type agentsJSON struct {
	Changed bool              `json:"changed"`
	Agents  []agentResultJSON `json:"agents"`
	Notices []string          `json:"notices"`
}

type agentResultJSON struct {
	Agent   string          `json:"agent"`
	Changed bool            `json:"changed"`
	Files   []agentFileJSON `json:"files"`
	Notices []string        `json:"notices"` // what to do by hand
}

type agentFileJSON struct {
	Path   string `json:"path"`   // relative to the worktree's top directory
	Action string `json:"action"` // created, updated, unchanged, removed, absent
}

func toAgentsJSON(rep agentconf.Report) *agentsJSON {
	out := &agentsJSON{Changed: rep.Changed(), Agents: []agentResultJSON{}, Notices: []string{}}
	for _, a := range rep.Agents {
		r := agentResultJSON{Agent: a.Agent, Changed: a.Changed(), Files: []agentFileJSON{}, Notices: view.NonNil(a.Notices)}
		for _, f := range a.Files {
			r.Files = append(r.Files, agentFileJSON{Path: f.Path, Action: string(f.Action)})
		}
		out.Agents = append(out.Agents, r)
	}
	return out
}

// agentNames checks --agent's values against the rule every list flag
// follows: the flag is repeated, one value each, kept whole (prose flags
// keep their commas, as the app has no separator). No agent's name has a
// comma, so a value with one is someone's `--agent claude,codex`, refused
// with the spelling that works rather than read two ways.
func agentNames(values []string) ([]string, error) {
	for _, v := range values {
		if strings.Contains(v, ",") {
			var fix []string
			for _, n := range strings.Split(v, ",") {
				if n = strings.TrimSpace(n); n != "" {
					fix = append(fix, "--agent "+n)
				}
			}
			return nil, fmt.Errorf("--agent takes one name, as every list flag takes one value: repeat it (%s)", strings.Join(fix, " "))
		}
	}
	return values, nil
}
