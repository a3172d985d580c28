// Package mcpserver serves the handoff workflows as MCP tools: the same
// functions `git handoff start`, `end`, `show`, `list`, `cancel`, `brief`,
// `session replace`, `pr route` and `lease take|release|list` call, with inputs taken as agents send
// them and results given twice: Markdown for the model to read, and the
// CLI's --json shape (package view's) as structuredContent, with what the
// CLI prints as null left out. The waiting baton is also a
// resource and the brief a prompt. Nothing is decided here.
package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

// Deps is what the server needs from the program running it. The command
// wires the CLI's own pieces in, so a tool call opens the store, keeps the
// clock, asks the arbiter and refreshes the commit hook exactly as the
// matching command does.
type Deps struct {
	// Open opens the repository of the server's worktree for one tool
	// call, as one CLI command would: readOnly skips the merge of fetched
	// records (a write). It returns what opening found to say and a
	// function that closes the store.
	Open func(ctx context.Context, readOnly bool) (st refstore.Clone, notices []string, closeStore func(), err error)
	// Now is the clock (the CLI's honours GIT_HANDOFF_NOW).
	Now func() time.Time
	// Arbiter decides claims (the CLI's default: the remote that knows the
	// baton).
	Arbiter handoff.Arbiter
	// Refresh arms or disarms the commit hook of the worktree at dir after
	// a tool bound or unbound it; "" does nothing. nil skips it.
	Refresh func(ctx context.Context, dir string)
	// PRHost reaches GitHub for a pull request's facts and comment; nil
	// leaves them out.
	PRHost handoff.Connect
	// PRTarget reads a pull request argument (NUMBER, #NUMBER or URL)
	// against the checkout's GitHub repository, as `git handoff pr route`
	// does, returning the repository's full name and the number.
	PRTarget func(ctx context.Context, arg string) (repo string, number int, err error)
	// Detach runs `git-handoff ARGS...` in a process of its own that
	// outlives this server (session_continue under tmux stops the agent,
	// and with it this server); nil continues without tmux.
	Detach func(args ...string) error
	// LeaseBoard is where leases are decided (the CLI's: the arbiter
	// remote, else this clone); nil decides in this clone.
	LeaseBoard func(ctx context.Context, st refstore.Clone) (lease.Board, error)
	// Log receives the server's own messages (stderr: stdout is the
	// protocol's).
	Log io.Writer
}

// Instructions tell an agent, in the initialize answer, how to use the
// server.
const Instructions = "Call session_start first (it claims the baton left for you and returns the brief to work from; calling it again continues the same session).\n" +
	"Before you stop, call session_end with the next steps, so the next session gets a baton."

// New makes the server with every tool.
func New(d Deps, version string) *mcp.Server {
	if d.Log == nil {
		d.Log = io.Discard
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "git-handoff", Version: version}, &mcp.ServerOptions{
		Instructions: Instructions,
		// Only what goes wrong in the protocol: tool results carry the rest.
		Logger: slog.New(slog.NewTextHandler(d.Log, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	t := &tools{d: d}
	inputs := map[string]*jsonschema.Schema{}
	for _, def := range t.all() {
		def.add(s)
		inputs[def.tool.Name] = def.tool.InputSchema.(*jsonschema.Schema)
	}
	s.AddReceivingMiddleware(lenient(inputs))
	t.addReadables(s)
	return s
}

// Run serves on stdin and stdout until the client hangs up.
func Run(ctx context.Context, d Deps, version string) error {
	err := New(d, version).Run(ctx, &mcp.StdioTransport{})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("serving MCP: %w", err)
	}
	return nil
}

// Config is the snippet an agent's MCP configuration needs to start the
// server in a worktree (the "mcpServers" entry most agents read).
func Config() map[string]any {
	return map[string]any{
		"mcpServers": map[string]any{
			"git-handoff": map[string]any{"command": "git", "args": []string{"handoff", "mcp"}},
		},
	}
}
