package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/harness"
)

type continueIn struct {
	In      string `json:"in" jsonschema:"codex, gemini, ..."`
	Session string `json:"session,omitempty"`
	Model   string `json:"model,omitempty"`
	Preview bool   `json:"preview,omitempty"`
}

// continueOut is what session_continue did, or would do. Command is the
// one that starts the new agent; "" when it runs already (under tmux), or
// for a preview.
type continueOut struct {
	Session string   `json:"session"`
	To      string   `json:"to"`
	Brief   string   `json:"brief"`
	Command string   `json:"command,omitempty"`
	Notices []string `json:"notices"`
}

// continueSession is session_continue: `git handoff continue` for an agent
// handing itself (or another session) over. A session whose agent runs
// under tmux is continued in its pane by a process of its own (Deps.Detach)
// once a preview has shown it can be: stopping the agent ends the agent's
// children, this server among them. Otherwise the continuation is recorded
// and the command that starts the new agent returned.
func (t *tools) continueSession(ctx context.Context, _ *mcp.CallToolRequest, in continueIn) (string, continueOut, error) {
	h, err := harness.Lookup(in.In)
	if err != nil {
		return "", continueOut{}, fmt.Errorf("continuing a session: %w", err)
	}
	st, opened, closeStore, err := t.open(ctx, in.Preview)
	if err != nil {
		return "", continueOut{}, err
	}
	defer closeStore()
	id, err := handoff.SessionID(st, in.Session)
	if err == nil && id == "" {
		err = fmt.Errorf("name the session: this worktree is bound to none")
	}
	if err != nil {
		return "", continueOut{}, fmt.Errorf("continuing a session: %w", err)
	}
	doing := fmt.Sprintf("continuing session %q in %s", id, h.Name)
	opts := handoff.ContinueOptions{ID: id, To: h.Name, Model: in.Model, By: "the MCP tool session_continue", Preview: in.Preview}
	inPlace := !in.Preview && t.d.Detach != nil && handoff.LiveUnderTmux(ctx, st, id)
	if inPlace {
		opts.Preview = true // checked here, done by the detached process
	}
	res, err := handoff.Continue(ctx, st, opts, t.clock)
	if err != nil {
		return "", continueOut{}, withNotices(fmt.Errorf("%s: %w", doing, err), notices(opened, res.Notices))
	}
	out := continueOut{Session: id, To: h.Name, Brief: res.Brief, Command: res.Command, Notices: notices(opened, res.Notices)}
	var text string
	switch {
	case in.Preview:
		text = fmt.Sprintf("Preview: session %s would continue in %s (%s); nothing was changed. Its first prompt:\n\n%s", id, h.Name, res.Why, res.Brief)
	case inPlace:
		args := []string{"continue", "--in", h.Name, "--session", id, "--from", res.From, "--tmux"}
		if in.Model != "" {
			args = append(args, "--model", in.Model)
		}
		if err := t.d.Detach(args...); err != nil {
			return "", continueOut{}, withNotices(fmt.Errorf("%s: starting the process that continues it: %w", doing, err), out.Notices)
		}
		text = fmt.Sprintf("Session %s is being continued in %s in its tmux pane: this agent is stopped in a moment.", id, h.Name)
	case res.Command == "":
		text = fmt.Sprintf("Session %s continues in %s under tmux.", id, h.Name)
	default:
		text = fmt.Sprintf("Session %s continues in %s (%s). Start it with `%s`.", id, h.Name, res.Why, res.Command)
	}
	return withNotes(text, out.Notices), out, nil
}
