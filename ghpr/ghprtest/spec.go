package ghprtest

import (
	"context"
	"embed"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"
)

// The committed slices of GitHub's own API descriptions (see spec/PROVENANCE.md).
//
//go:embed spec/api.github.com.json spec/schema.graphql
var specFS embed.FS

// spec is loaded once per process: parsing is the slow part of starting a
// server, and validation only reads it.
type spec struct {
	doc      *openapi3.T
	router   routers.Router
	schema   *ast.Schema
	examples map[string]map[int]any // operationId → status → example
}

var (
	specOnce sync.Once
	specVal  *spec
	specErr  error
)

func loadSpec() (*spec, error) {
	specOnce.Do(func() { specVal, specErr = readSpec() })
	return specVal, specErr
}

func readSpec() (*spec, error) {
	raw, err := specFS.ReadFile("spec/api.github.com.json")
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("loading openapi slice: %w", err)
	}
	// One of GitHub's own examples fails its schema; the examples are only
	// response templates here, so they are not checked.
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("validating openapi slice: %w", err)
	}
	// The server strips its own prefix before routing, so the description
	// is routed at the root whatever prefix a test mounts it under.
	doc.Servers = openapi3.Servers{{URL: "/"}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routing openapi slice: %w", err)
	}
	gql, err := specFS.ReadFile("spec/schema.graphql")
	if err != nil {
		return nil, err
	}
	schema, err := validator.LoadSchema(validator.Prelude, &ast.Source{Name: "schema.graphql", Input: string(gql)})
	if err != nil {
		return nil, fmt.Errorf("loading graphql schema: %w", err)
	}
	return &spec{doc: doc, router: router, schema: schema, examples: collectExamples(doc)}, nil
}

// example returns a fresh copy of the JSON example GitHub documents for an
// operation's response with that status, or nil when there is none.
func (s *spec) example(opID string, status int) any {
	return deepCopy(s.examples[opID][status])
}

// collectExamples indexes each operation's JSON response examples, preferring
// the one named "default" so the choice does not depend on map order.
func collectExamples(doc *openapi3.T) map[string]map[int]any {
	out := map[string]map[int]any{}
	for _, path := range doc.Paths.InMatchingOrder() {
		for _, op := range doc.Paths.Value(path).Operations() {
			byStatus := map[int]any{}
			for code, resp := range op.Responses.Map() {
				status, err := strconv.Atoi(code)
				if err != nil || resp.Value == nil {
					continue
				}
				mt := resp.Value.Content.Get("application/json")
				if mt == nil {
					continue
				}
				names := make([]string, 0, len(mt.Examples))
				for name := range mt.Examples {
					names = append(names, name)
				}
				sort.Strings(names)
				if i := slices.Index(names, "default"); i > 0 {
					names[0], names[i] = names[i], names[0]
				}
				switch {
				case len(names) > 0 && mt.Examples[names[0]].Value != nil:
					byStatus[status] = mt.Examples[names[0]].Value.Value
				case mt.Example != nil:
					byStatus[status] = mt.Example
				}
			}
			out[op.OperationID] = byStatus
		}
	}
	return out
}
