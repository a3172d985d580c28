package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// replyFunc is a tool's handler: what it did for the model to read (text,
// Markdown) and the typed result for structuredContent (out).
type replyFunc[In, Out any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (text string, out Out, err error)

// standing is an error that came after the tool's work was done (git
// holds the result): the client gets the result flagged as an error, with
// the error's text before the reply's.
type standing struct{ err error }

func (s *standing) Error() string { return s.err.Error() }
func (s *standing) Unwrap() error { return s.err }

// toolDef is one tool, ready to add to a server.
type toolDef struct {
	tool *mcp.Tool
	add  func(*mcp.Server)
}

// tool makes one typed tool with schemas every client reads the same way
// (portable), the input's adjusted by fix.
func tool[In, Out any](name, description string, readOnly bool, h replyFunc[In, Out], fix func(*jsonschema.Schema)) toolDef {
	in := portableFor[In]()
	if fix != nil {
		fix(in)
	}
	out := portableFor[Out]()
	loosen(out)
	t := &mcp.Tool{Name: name, Description: description, InputSchema: in, OutputSchema: out}
	if readOnly {
		t.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	handler := func(ctx context.Context, req *mcp.CallToolRequest, args In) (*mcp.CallToolResult, Out, error) {
		text, res, err := h(ctx, req, args)
		var st *standing
		if errors.As(err, &st) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: st.Error() + "\n\n" + text}}}, res, nil
		}
		if err != nil {
			return nil, res, err
		}
		// Content set here keeps the SDK from filling it with the
		// structured result as escaped JSON: the model reads this.
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, res, nil
	}
	return toolDef{tool: t, add: func(s *mcp.Server) { mcp.AddTool(s, t, handler) }}
}

// portableFor infers T's schema and makes it portable: the inference
// gives a Go slice or pointer the type ["null", X], which some clients
// refuse or read as "any"; the tools never send null (absent instead), so
// each field keeps its one type.
func portableFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	singleTypes(s)
	return s
}

func singleTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		var kept []string
		for _, t := range s.Types {
			if t != "null" {
				kept = append(kept, t)
			}
		}
		if len(kept) == 1 {
			s.Type, s.Types = kept[0], nil
		} else {
			s.Types = kept
		}
	}
	for _, p := range s.Properties {
		singleTypes(p)
	}
	singleTypes(s.Items)
}

// requireNext makes session_end's next steps required and non-empty, as
// `git handoff end` refuses a baton without one.
func requireNext(s *jsonschema.Schema) {
	one := 1
	s.Properties["next"].MinItems = &one
}

// requireSession makes the session a non-empty string.
func requireSession(s *jsonschema.Schema) {
	one := 1
	s.Properties["session"].MinLength = &one
}

// numberOrString lets the pull request be given as agents write it: 7,
// "7", "#7" or its URL. Each branch has its one type, which every client
// reads (a type list is not portable).
func numberOrString(s *jsonschema.Schema) {
	p := s.Properties["pr"]
	p.Type, p.Types = "", nil
	p.AnyOf = []*jsonschema.Schema{{Type: "integer", Minimum: ptr(1.0)}, {Type: "string", MinLength: ptr(1)}}
}

func ptr[T any](v T) *T { return &v }

// loosen drops "additionalProperties": false from an output schema: it
// tells a client nothing it can act on, and every client pays for its
// bytes. (Inputs keep it, so a misspelt argument is refused, not ignored.)
func loosen(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		loosen(p)
	}
	loosen(s.Items)
}
