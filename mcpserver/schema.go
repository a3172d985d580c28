package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tool registers one typed tool with schemas every client reads the same
// way (portable), adjusted by fix.
func tool[In, Out any](name, description string, readOnly bool, h mcp.ToolHandlerFor[In, Out], fix func(*jsonschema.Schema)) func(*mcp.Server) {
	return func(s *mcp.Server) {
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
		mcp.AddTool(s, t, h)
	}
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
