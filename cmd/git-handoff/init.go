package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/teamsync"
)

func initCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "let a remote carry the team's records (fetch refspecs) and install the hooks",
		ArgsUsage: " ",
		Description: "Adds fetch refspecs for batons, objectives, sessions and pull-request records to the remote,\n" +
			"so a plain `git fetch` brings the team's records into refs/ao/remotes/<remote>/, and makes that\n" +
			"remote the arbiter of claims. Records are pushed by `git handoff sync` and the pre-push hook,\n" +
			"each with a lease. Running init again changes nothing.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "remote", Value: "origin", Usage: "the remote `NAME`"},
			&cli.BoolFlag{Name: "no-hooks", Usage: "do not install the git hooks"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "init takes no arguments, got %q", c.Args().First())
			}
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			res, err := teamsync.Init(c.Context, st, c.String("remote"))
			notify(d.stderr, res.Warnings)
			if err != nil {
				if errors.Is(err, teamsync.ErrUnknownRemote) {
					return withHint(fmt.Errorf("setting up remote: %w", err), "add it with `git remote add "+c.String("remote")+" <url>`, or name another with --remote")
				}
				return fmt.Errorf("setting up remote %q: %w", c.String("remote"), err)
			}
			out := initJSON{Remote: res.Remote, Arbiter: res.Arbiter, Changed: res.Changed(), Fetch: refspecsJSON{Added: res.Added, Present: res.Present}}
			var hookErr error
			if !c.Bool("no-hooks") {
				rep, err := hooks.Install(c.Context, st.Dir(), hooks.Options{})
				hookErr = err
				hj := &hooksJSON{Dir: rep.Dir, Changed: rep.Changed(), Hooks: []hookJSON{}}
				for _, h := range rep.Hooks {
					hj.Hooks = append(hj.Hooks, hookJSON{Name: h.Name, Action: string(h.Action), Detail: h.Detail})
				}
				out.Hooks = hj
				out.Changed = out.Changed || rep.Changed()
			}
			if c.Bool("json") {
				if err := printJSON(d.stdout, out); err != nil {
					return err
				}
			} else {
				for _, s := range res.Added {
					fmt.Fprintf(d.stderr, "added fetch refspec %s\n", s)
				}
				if out.Hooks != nil {
					for _, h := range out.Hooks.Hooks {
						if h.Action != string(hooks.Unchanged) {
							line := fmt.Sprintf("%s hook: %s", h.Name, h.Action)
							if h.Detail != "" {
								line += " (" + h.Detail + ")"
							}
							fmt.Fprintln(d.stderr, line)
						}
					}
				}
				fmt.Fprintf(d.stderr, "claims are decided at remote %s (git config %s)\n", res.Arbiter, teamsync.ArbiterKey)
				if out.Changed {
					fmt.Fprintf(d.stderr, "remote %s now carries the team's records: `git handoff sync` exchanges them\n", res.Remote)
				} else {
					fmt.Fprintf(d.stderr, "remote %s was already set up: nothing changed\n", res.Remote)
				}
			}
			if hookErr != nil {
				return fmt.Errorf("installing hooks: %w", hookErr)
			}
			return nil
		},
	}
}

type initJSON struct {
	Remote  string       `json:"remote"`
	Arbiter string       `json:"arbiter"`
	Changed bool         `json:"changed"`
	Fetch   refspecsJSON `json:"fetchRefspecs"`
	Hooks   *hooksJSON   `json:"hooks"` // null with --no-hooks
}

type refspecsJSON struct {
	Added   []string `json:"added"`
	Present []string `json:"present"`
}

type hooksJSON struct {
	Dir     string     `json:"dir"`
	Changed bool       `json:"changed"`
	Hooks   []hookJSON `json:"hooks"`
}

type hookJSON struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
}
