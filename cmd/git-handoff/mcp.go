package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/mcpserver"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

// mcpCommand serves the workflows as MCP tools on stdin and stdout. Each
// tool call gets fresh deps, so it opens (and merges) the store exactly as
// one run of the matching command would; the server itself only wires.
func mcpCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve the handoff workflows as MCP tools over stdio",
		UsageText: "git handoff mcp",
		Description: "An MCP server for agents that prefer tools to commands: session_start, session_end, handoff_show,\n" +
			"handoff_list, cancel_handoff, bootstrap, session_replace and pr_route, each answering in Markdown with\n" +
			"the --json shape as its structured result; the waiting baton as the resource handoff://baton and the\n" +
			"brief as the prompt brief. Logs go to stderr.",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "mcp takes no arguments, got %q", c.Args().First())
			}
			// This deps only connects to GitHub (it needs the checkout's
			// directory): reading, it never merges.
			d.readOnly = true
			ctx, stop := untilInterrupted(c.Context)
			defer stop()
			return mcpserver.Run(ctx, mcpserver.Deps{
				Open: func(ctx context.Context, readOnly bool) (refstore.Clone, []string, func(), error) {
					call := newDeps(d.stdin, io.Discard, d.stderr)
					call.readOnly, call.json = readOnly, true
					st, err := call.Store(ctx)
					if err != nil {
						return nil, nil, nil, err
					}
					return st, call.openNotices, call.close, nil
				},
				Now:     d.Now,
				Arbiter: arbiterFor(false),
				Refresh: d.refreshCommitHook,
				PRHost:  d.prHost,
				PRTarget: func(ctx context.Context, arg string) (string, int, error) {
					repo, err := localRepo(ctx, d)
					if err != nil {
						return "", 0, err
					}
					t, err := parseTarget(nil, repo, arg)
					return t.name(), t.Number, err
				},
				Detach: mcpDetach(d),
				LeaseBoard: func(ctx context.Context, st refstore.Clone) (lease.Board, error) {
					return teamsync.LeaseBoard(ctx, st, false)
				},
				Log: d.stderr,
			}, buildVersion())
		},
	}
}
