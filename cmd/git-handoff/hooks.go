package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/agentconf"
	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/refstore"
)

func hooksCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "hooks",
		Usage: "install, check or remove git-handoff's git hooks",
		Subcommands: []*cli.Command{
			{
				Name:  "install",
				Usage: "install the hooks (a hook you already have is kept and still runs; prepare-commit-msg once a session is bound)",
				Description: "Where git runs hooks from config (git 2.54 and later), the hooks go there: one config hook each,\n" +
					"hook.git-handoff-<name> in the repository's config, and your hooks directory is left alone. Elsewhere,\n" +
					"or with --hooks=files, shims go into the hooks directory and a hook you had there runs first.\n" +
					"Hooks installed in one form stay in it; --hooks=config or --hooks=files moves them.",
				Flags: []cli.Flag{hooksFormFlag, jsonFlag},
				Action: func(c *cli.Context) error {
					form, err := hooks.ParseForm(c.String("hooks"))
					if err != nil {
						return usageErrorf(c, "--hooks: %v", err)
					}
					return changeHooks(c, d, "installing hooks", func(dir string) (hooks.Report, error) {
						return hooks.Install(c.Context, dir, hooks.Options{Form: form})
					})
				},
			},
			{
				Name:  "uninstall",
				Usage: "remove the hooks, from config or the hooks directory, and put back the ones you had",
				Flags: []cli.Flag{jsonFlag},
				Action: func(c *cli.Context) error {
					return changeHooks(c, d, "removing hooks", func(dir string) (hooks.Report, error) {
						return hooks.Uninstall(c.Context, dir)
					})
				},
			},
			{
				Name:  "check",
				Usage: "report each hook and where it is (config or files): installed, idle (prepare-commit-msg while no session is bound), missing, stale, not executable, someone else's, broken (its shim or program is missing), ignored (a config hook git does not run) or duplicate (in config and a file), and each coding agent's hook configuration init --agent wrote (exit 1 unless all are installed or idle, and no agent's hooks are partial, stale or kept from running)",
				Flags: []cli.Flag{jsonFlag},
				Action: func(c *cli.Context) error {
					st, err := d.Store(c.Context)
					if err != nil {
						return err
					}
					sts, err := hooks.Check(c.Context, st.Dir())
					if err != nil {
						return fmt.Errorf("checking hooks: %w", err)
					}
					ok := true
					out := make([]hookStatusJSON, len(sts))
					for i, s := range sts {
						ok = ok && s.OK()
						out[i] = hookStatusJSON{Name: s.Name, Path: s.Path, Form: string(s.Form), Config: s.Config, State: string(s.State), Chained: s.Chained, ChainedExecutable: s.ChainedExecutable, Note: s.Note}
					}
					agents, err := checkAgents(st.Dir(), st.Bare())
					if err != nil {
						return fmt.Errorf("checking agents' hooks: %w", err)
					}
					for _, a := range agents {
						ok = ok && (a.OK || a.State == string(agentconf.Missing))
					}
					if c.Bool("json") {
						if err := d.printJSON(hooksCheckJSON{OK: ok, Hooks: out, Agents: agents}); err != nil {
							return err
						}
					} else {
						tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
						for _, s := range out {
							about := s.Note
							switch {
							case s.Chained != "":
								about = "runs " + s.Chained + " first"
							case s.Config != "" && about == "":
								about = "hook." + s.Config
							}
							fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.State, s.Form, about)
						}
						tw.Flush()
						printAgentStatus(d, agents)
					}
					if !ok {
						return &silentCode{code: exitError}
					}
					return nil
				},
			},
		},
	}
}

// changeHooks runs install or uninstall (change) on the repository's hooks
// and prints what it did, its warnings as notices, even when it failed.
func changeHooks(c *cli.Context, d *deps, doing string, change func(dir string) (hooks.Report, error)) error {
	st, err := d.Store(c.Context)
	if err != nil {
		return err
	}
	rep, err := change(st.Dir())
	out := toHookReportJSON(rep)
	if c.Bool("json") {
		if perr := d.printJSON(out); perr != nil {
			return perr
		}
	} else {
		notify(d.stderr, out.Notices)
		for _, h := range out.Hooks {
			fmt.Fprintln(d.stdout, h.Name+": "+hookResultText(h))
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	return nil
}

// hooksFormFlag chooses where init and hooks install put the hooks.
var hooksFormFlag = &cli.StringFlag{Name: "hooks", Value: "auto", Usage: "where the hooks go (`FORM`): config (hook.git-handoff-* in the repository's config; git 2.54 and later), files (the hooks directory) or auto (the form installed, else config where git runs it, else files)"}

// hookResultText is what install did to one hook, in words: the action,
// then the detail and, for a config hook, its name.
func hookResultText(h hookResultJSON) string {
	detail := h.Detail
	if h.Config != "" && h.Action != string(hooks.Removed) {
		detail = joinNonEmpty("config hook "+h.Config, detail)
	}
	if detail == "" {
		return h.Action
	}
	return h.Action + " (" + detail + ")"
}

func joinNonEmpty(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// refreshCommitHook arms or disarms the prepare-commit-msg hook in the
// hooks directory of the worktree at dir, after a command bound or unbound
// a worktree (hooks.Refresh; it must run after the change). dir is the
// worktree whose binding changed: worktrees share one hooks directory, but
// a relative core.hooksPath gives each its own. "" does nothing. A failure
// is a warning: the command itself succeeded. A bound worktree whose hook
// cannot be armed is unbound again (hooks.ErrNotArmed): its commits would
// not name the session.
func (d *deps) refreshCommitHook(ctx context.Context, dir string) {
	if dir == "" {
		return
	}
	_, err := hooks.Refresh(ctx, dir)
	if errors.Is(err, hooks.ErrNotArmed) {
		st, oerr := refstore.Open(ctx, dir, refstore.Options{})
		if oerr == nil {
			err = unbindUnarmed(ctx, st, err)
			st.Close()
		}
	}
	d.warnCommitHook(err)
}

// refreshStoreCommitHook is refreshCommitHook for the worktree st works
// in, whose layout st found already.
func (d *deps) refreshStoreCommitHook(ctx context.Context, st *refstore.Store) {
	_, err := hooks.RefreshIn(ctx, st.Dir(), st.Layout())
	if errors.Is(err, hooks.ErrNotArmed) {
		err = unbindUnarmed(ctx, st, err)
	}
	d.warnCommitHook(err)
}

// unbindUnarmed undoes st's worktree's binding after Refresh could not arm
// the commit hook for it (err), and says so.
func unbindUnarmed(ctx context.Context, st *refstore.Store, err error) error {
	if uerr := st.Unbind(ctx); uerr != nil {
		return fmt.Errorf("%w; this worktree stays bound, and its commits may not name the session: %v", err, uerr)
	}
	return fmt.Errorf("%w; this worktree was unbound, so its commits will not name the session (GIT_HANDOFF_SESSION names it, or start again)", err)
}

func (d *deps) warnCommitHook(err error) {
	if err != nil {
		fmt.Fprintf(d.stderr, "warning: updating the %s hook: %v\n", hooks.PrepareCommitMsg, err)
	}
}

// agentStatusJSON is one coding agent's hook configuration in
// `hooks check --json`: every agent, "missing" where init --agent never ran.
type agentStatusJSON struct {
	Agent    string             `json:"agent"`
	State    string             `json:"state"` // installed, missing, stale, partial, unreadable
	OK       bool               `json:"ok"`    // installed and nothing known keeps the hooks from running
	Files    []agentFileStatus  `json:"files"`
	Problems []agentProblemJSON `json:"problems"`
}

type agentFileStatus struct {
	Path   string `json:"path"`
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
}

type agentProblemJSON struct {
	Problem string `json:"problem"`
	Remedy  string `json:"remedy"`
}

func checkAgents(dir string, bare bool) ([]agentStatusJSON, error) {
	out := []agentStatusJSON{}
	if bare || dir == "" {
		return out, nil
	}
	sts, err := agentconf.Check(dir, agentconf.Names(), agentconf.Options{})
	if err != nil {
		return nil, err
	}
	for _, s := range sts {
		a := agentStatusJSON{Agent: s.Agent, State: string(s.State), OK: s.OK(), Files: []agentFileStatus{}, Problems: []agentProblemJSON{}}
		for _, f := range s.Files {
			a.Files = append(a.Files, agentFileStatus{Path: f.Path, State: string(f.State), Detail: f.Detail})
		}
		for _, p := range s.Problems {
			a.Problems = append(a.Problems, agentProblemJSON{Problem: p.Problem, Remedy: p.Remedy})
		}
		out = append(out, a)
	}
	return out, nil
}

// printAgentStatus lists the agents init --agent configured (the others
// are no concern of a check), each file that is not as init writes it,
// and what keeps installed hooks from running.
func printAgentStatus(d *deps, agents []agentStatusJSON) {
	width := 0
	for _, a := range agents {
		width = max(width, len(a.Agent))
	}
	for _, a := range agents {
		if a.State == string(agentconf.Missing) {
			continue
		}
		fmt.Fprintf(d.stdout, "agent %-*s  %s\n", width, a.Agent, a.State)
		for _, f := range a.Files {
			if f.State != string(agentconf.Installed) {
				line := "  " + f.Path + ": " + f.State
				if f.Detail != "" {
					line += " (" + f.Detail + ")"
				}
				fmt.Fprintln(d.stdout, line)
			}
		}
		for _, p := range a.Problems {
			fmt.Fprintf(d.stdout, "  problem: %s\n  remedy: %s\n", p.Problem, p.Remedy)
		}
	}
}
