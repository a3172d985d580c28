package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Models send what reads naturally, not always what the schema says: "true"
// for a boolean, "4000" for a number, one step as a string where a list is
// wanted, null for "not given". The SDK validates arguments against the
// input schema before a handler sees them, so these are mended first, by
// the tool's own schema, and only where the meaning is unambiguous;
// anything else reaches validation as sent and is refused there with its
// reason.

// lenient is a receiving middleware that mends the arguments of a
// tools/call by the input schema of the tool called.
func lenient(inputs map[string]*jsonschema.Schema) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && r.Params != nil {
				if s := inputs[r.Params.Name]; s != nil {
					r.Params.Arguments = mendArguments(s, r.Params.Arguments)
				}
			}
			return next(ctx, method, req)
		}
	}
}

// mendArguments returns raw with each top-level argument turned into the
// type its property declares where that is unambiguous; raw that is not a
// JSON object is returned as it came, for validation to refuse.
func mendArguments(s *jsonschema.Schema, raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return raw
	}
	var args map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil || args == nil || dec.More() {
		return raw
	}
	changed := false
	for name, v := range args {
		p := s.Properties[name]
		if p == nil {
			continue // refused by validation as unknown
		}
		if v == nil {
			delete(args, name) // null: not given
			changed = true
			continue
		}
		if m, ok := mend(p, v); ok {
			args[name] = m
			changed = true
		}
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(args)
	if err != nil {
		return raw
	}
	return out
}

// mend turns v into p's type, reporting whether it did.
func mend(p *jsonschema.Schema, v any) (any, bool) {
	switch p.Type {
	case "boolean":
		if s, ok := v.(string); ok {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true", "yes", "1":
				return true, true
			case "false", "no", "0":
				return false, true
			}
		}
	case "integer":
		switch v := v.(type) {
		case string:
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n, true
			}
		case json.Number: // 4000.0 or 4e3: a whole number written as a float
			if _, err := v.Int64(); err != nil {
				if f, err := v.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
					return int64(f), true
				}
			}
		}
	case "string":
		switch v := v.(type) {
		case json.Number:
			return v.String(), true
		case bool:
			return strconv.FormatBool(v), true
		}
	case "array":
		// One item sent bare is one item: prose is never split on commas
		// or lines, which it may well contain.
		if p.Items != nil && p.Items.Type == "string" {
			if s, ok := v.(string); ok {
				return []any{s}, true
			}
		}
	}
	return nil, false
}
