package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

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
	out := schemaFor[Out]()
	loosen(out)
	singleTypes(out)
	t := &mcp.Tool{Name: name, Description: description, InputSchema: in, OutputSchema: out}
	if readOnly {
		t.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	handler := func(ctx context.Context, req *mcp.CallToolRequest, args In) (*mcp.CallToolResult, json.RawMessage, error) {
		text, res, err := h(ctx, req, args)
		out, merr := withoutNulls(res)
		if merr != nil {
			return nil, nil, merr
		}
		var st *standing
		if errors.As(err, &st) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: st.Error() + "\n\n" + text}}}, out, nil
		}
		if err != nil {
			return nil, out, err
		}
		// Content set here keeps the SDK from filling it with the
		// structured result as escaped JSON: the model reads this.
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
	}
	return toolDef{tool: t, add: func(s *mcp.Server) { mcp.AddTool(s, t, handler) }}
}

// portableFor infers T's schema and makes it portable: the inference
// gives a Go slice or pointer the type ["null", X], which some clients
// refuse or read as "any"; the tools never send null (absent instead), so
// each field keeps its one type.
func portableFor[T any]() *jsonschema.Schema {
	s := schemaFor[T]()
	singleTypes(s)
	return s
}

// rawAny is the schema of a json.RawMessage field (a conflict's field
// values): any JSON value. Inferred, it would be an array of bytes, and a
// string or object there failed the SDK's check of the tool's output
// (found by the soak: an MCP sync with a conflict answered an error).
var rawAny = map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {AnyOf: []*jsonschema.Schema{
	{Type: "string"}, {Type: "number"}, {Type: "boolean"},
	{Type: "object", AdditionalProperties: &jsonschema.Schema{}}, {Type: "array"},
}}}

func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: rawAny})
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err))
	}
	return s
}

// withoutNulls is v's JSON with every null member of its objects left
// out: the shapes are the CLI's, which prints null where a tool sends
// nothing (loosen makes such a field optional).
func withoutNulls(v any) (json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return dropNulls(raw)
}

func dropNulls(raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	open, ok := tok.(json.Delim)
	if !ok {
		return raw, nil
	}
	b := []byte{byte(open)}
	for n := 0; dec.More(); {
		var key []byte
		if open == '{' {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			if key, err = json.Marshal(k); err != nil {
				return nil, err
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if key != nil && string(v) == "null" {
			continue
		}
		if v, err = dropNulls(v); err != nil {
			return nil, err
		}
		if n++; n > 1 {
			b = append(b, ',')
		}
		if key != nil {
			b = append(append(b, key...), ':')
		}
		b = append(b, v...)
	}
	return append(b, byte(open)+2), nil // } or ]
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
// A pointer the CLI prints as null is optional: the tool leaves it out
// (withoutNulls); lists are never null. It runs before singleTypes, which
// drops the "null".
func loosen(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for name, p := range s.Properties {
		if slices.Contains(p.Types, "null") && !slices.Contains(p.Types, "array") {
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
		}
		loosen(p)
	}
	loosen(s.Items)
}
