package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-handoff/git-handoff/handoff"
)

// The baton waiting is also a resource, for clients that attach context
// without a tool call, and the brief a prompt, for clients that offer
// prompts to their user. Both only read: reading a baton never claims it.

const (
	// batonURI is the baton waiting for me on this worktree's branch.
	batonURI = "handoff://baton"
	// batonTemplate is the baton waiting for an owner on a branch; a
	// branch keeps its slashes ({+branch}), an owner (an email) is
	// percent-encoded as the template's expansion writes it.
	batonTemplate = "handoff://baton/{owner}/{+branch}"
	markdown      = "text/markdown"
)

func (t *tools) addReadables(s *mcp.Server) {
	s.AddResource(&mcp.Resource{
		URI: batonURI, Name: "baton", Title: "The baton waiting on this branch", MIMEType: markdown,
		Description: "The baton (next steps, failed approaches, open questions) waiting for me on this worktree's branch, as Markdown. Reading it claims nothing.",
	}, t.readBaton)
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: batonTemplate, Name: "baton-of", Title: "The baton waiting for an owner on a branch", MIMEType: markdown,
		Description: "The baton waiting for an owner (as git handoff names them, usually an email) on a branch, as Markdown. Reading it claims nothing.",
	}, t.readBaton)
	s.AddPrompt(&mcp.Prompt{
		Name: "brief", Title: "git-handoff brief",
		Description: "The brief a session starting now in this worktree would get: the baton waiting, the objective, recent commits. Claims nothing; call session_start to begin.",
	}, t.briefPrompt)
}

func (t *tools) readBaton(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	opts, err := batonOf(uri)
	if err != nil {
		return nil, err
	}
	st, opened, closeStore, err := t.open(ctx, true)
	if err != nil {
		return nil, err
	}
	defer closeStore()
	text, res, err := t.waiting(ctx, st, opts)
	if err != nil {
		return nil, withNotices(err, notices(opened, res.Notices))
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: uri, MIMEType: markdown, Text: withNotes(text, notices(opened, res.Notices)),
	}}}, nil
}

// batonOf reads the owner and branch a baton URI names (none: this
// worktree's).
func batonOf(uri string) (handoff.ShowOptions, error) {
	if uri == batonURI {
		return handoff.ShowOptions{}, nil
	}
	rest, ok := strings.CutPrefix(uri, batonURI+"/")
	owner, branch, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || owner == "" || branch == "" {
		return handoff.ShowOptions{}, mcp.ResourceNotFoundError(uri)
	}
	o, err1 := url.PathUnescape(owner)
	b, err2 := url.PathUnescape(branch)
	if err1 != nil || err2 != nil {
		return handoff.ShowOptions{}, fmt.Errorf("reading %s: owner and branch are percent-encoded wrongly", uri)
	}
	return handoff.ShowOptions{Owner: o, Branch: b}, nil
}

func (t *tools) briefPrompt(ctx context.Context, _ *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	st, opened, closeStore, err := t.open(ctx, true)
	if err != nil {
		return nil, err
	}
	defer closeStore()
	res, err := t.brief(ctx, st, handoff.BriefOptions{})
	if err != nil {
		return nil, err
	}
	return &mcp.GetPromptResult{
		Description: "git-handoff brief",
		Messages: []*mcp.PromptMessage{{
			Role: "user", Content: &mcp.TextContent{Text: withNotes(res.Brief, notices(opened, res.Notices))},
		}},
	}, nil
}
