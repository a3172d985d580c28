// Command gen cuts the parts of GitHub's published API descriptions that
// ghprtest serves out of the full npm packages, so tests need neither npm nor
// the network and the repository carries a few hundred KB instead of 15 MB.
//
//	npm install --prefix /tmp/octo @octokit/openapi @octokit/graphql-schema
//	go run ./ghpr/ghprtest/internal/gen -npm /tmp/octo/node_modules -out ghpr/ghprtest/spec
//
// The OpenAPI slice keeps the selected operations verbatim, plus every
// component they reference (schemas, parameters, responses, headers and
// examples), transitively. The GraphQL schema is kept whole, minus the two
// duplicated EnterpriseOwnerInfo fields that make it unloadable and minus
// descriptions, which are most of its size.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// operations are the REST calls ghpr makes. Add one here, rerun, and the fake
// learns to validate it (it still needs a handler to answer it).
var operations = []string{
	"pulls/get",
	"pulls/list",
	"pulls/list-reviews",
	"pulls/list-review-comments",
	"checks/list-for-ref",
	"repos/get-combined-status-for-ref",
	"issues/list-comments",
	"issues/create-comment",
	"issues/update-comment",
	"issues/delete-comment",
	"issues/add-assignees",
	"issues/add-labels",
	"users/get-authenticated",
}

func main() {
	npm := flag.String("npm", "/tmp/octo/node_modules", "node_modules holding @octokit/openapi and @octokit/graphql-schema")
	out := flag.String("out", "ghpr/ghprtest/spec", "output directory")
	flag.Parse()
	if err := run(*npm, *out); err != nil {
		log.Fatal(err)
	}
}

func run(npm, out string) error {
	openapiDir := filepath.Join(npm, "@octokit", "openapi")
	gqlDir := filepath.Join(npm, "@octokit", "graphql-schema")
	oaVersion, err := pkgVersion(openapiDir)
	if err != nil {
		return err
	}
	gqlVersion, err := pkgVersion(gqlDir)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(filepath.Join(openapiDir, "generated", "api.github.com.json"))
	if err != nil {
		return err
	}
	slice, err := sliceOpenAPI(raw, operations)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "api.github.com.json"), slice, 0o644); err != nil {
		return err
	}
	schema, err := os.ReadFile(filepath.Join(gqlDir, "schema.graphql"))
	if err != nil {
		return err
	}
	trimmed, err := cleanSchema(schema)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "schema.graphql"), trimmed, 0o644); err != nil {
		return err
	}
	// MIT asks that the licence travel with every copy.
	for src, dst := range map[string]string{
		filepath.Join(openapiDir, "LICENSE"): "LICENSE.octokit-openapi",
		filepath.Join(gqlDir, "LICENSE.md"):  "LICENSE.octokit-graphql-schema",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, dst), b, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(out, "PROVENANCE.md"), []byte(provenance(oaVersion, gqlVersion)), 0o644)
}

func pkgVersion(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var p struct{ Name, Version, License string }
	if err := json.Unmarshal(b, &p); err != nil {
		return "", err
	}
	if p.License != "MIT" {
		return "", fmt.Errorf("%s: licence is %q, not MIT: check before committing", p.Name, p.License)
	}
	return p.Version, nil
}

// sliceOpenAPI keeps the named operations and the closure of the components
// they reference.
func sliceOpenAPI(raw []byte, ops []string) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, o := range ops {
		want[o] = true
	}
	paths := map[string]any{}
	for p, item := range doc["paths"].(map[string]any) {
		kept := map[string]any{}
		for k, v := range item.(map[string]any) {
			op, ok := v.(map[string]any)
			if !ok || op["operationId"] == nil {
				continue
			}
			id := op["operationId"].(string)
			if want[id] {
				kept[k] = v
				delete(want, id)
			}
		}
		if len(kept) == 0 {
			continue
		}
		// Path-level parameters apply to every operation under the path.
		if params, ok := item.(map[string]any)["parameters"]; ok {
			kept["parameters"] = params
		}
		paths[p] = kept
	}
	if len(want) > 0 {
		return nil, fmt.Errorf("operations not in the description: %v", keys(want))
	}

	comps := doc["components"].(map[string]any)
	keptComps := map[string]map[string]any{}
	var queue []any
	queue = append(queue, paths)
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, ref := range refsIn(v) {
			kind, name, ok := splitRef(ref)
			if !ok {
				return nil, fmt.Errorf("unsupported $ref %q", ref)
			}
			if keptComps[kind] == nil {
				keptComps[kind] = map[string]any{}
			}
			if _, seen := keptComps[kind][name]; seen {
				continue
			}
			c, ok := comps[kind].(map[string]any)[name]
			if !ok {
				return nil, fmt.Errorf("dangling $ref %q", ref)
			}
			keptComps[kind][name] = c
			queue = append(queue, c)
		}
	}
	info := doc["info"].(map[string]any)
	out := map[string]any{
		"openapi":    doc["openapi"],
		"info":       info,
		"servers":    doc["servers"],
		"paths":      paths,
		"components": keptComps,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func refsIn(v any) []string {
	var refs []string
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, c := range t {
				if s, ok := c.(string); ok && k == "$ref" {
					refs = append(refs, s)
					continue
				}
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	sort.Strings(refs)
	return refs
}

func splitRef(ref string) (kind, name string, ok bool) {
	rest, ok := strings.CutPrefix(ref, "#/components/")
	if !ok {
		return "", "", false
	}
	kind, name, ok = strings.Cut(rest, "/")
	return kind, name, ok && !strings.Contains(name, "/")
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// cleanSchema drops repeated field definitions (the published schema declares
// two EnterpriseOwnerInfo fields twice, which no validator accepts) and all
// descriptions, then proves the result loads.
func cleanSchema(src []byte) ([]byte, error) {
	doc, err := parser.ParseSchema(&ast.Source{Name: "schema.graphql", Input: string(src)})
	if err != nil {
		return nil, err
	}
	for _, def := range append(doc.Definitions, doc.Extensions...) {
		seen := map[string]bool{}
		var fields ast.FieldList
		for _, f := range def.Fields {
			if seen[f.Name] {
				log.Printf("dropping duplicate field %s.%s", def.Name, f.Name)
				continue
			}
			seen[f.Name] = true
			fields = append(fields, f)
		}
		def.Fields = fields
	}
	var buf bytes.Buffer
	formatter.NewFormatter(&buf, formatter.WithoutDescription(), formatter.WithIndent("  ")).FormatSchemaDocument(doc)
	if _, err := validator.LoadSchema(append([]*ast.Source{validator.Prelude}, &ast.Source{Name: "schema.graphql", Input: buf.String()})...); err != nil {
		return nil, fmt.Errorf("cleaned schema does not load: %w", err)
	}
	return buf.Bytes(), nil
}

func provenance(oaVersion, gqlVersion string) string {
	return fmt.Sprintf(`# Where these files come from

Generated by ghpr/ghprtest/internal/gen; do not edit by hand.

- api.github.com.json: a slice of generated/api.github.com.json from the npm
  package @octokit/openapi %s (MIT licence, copyright Octokit
  contributors; see LICENSE.octokit-openapi): only the operations ghpr calls, with the components
  they reference and their examples, unchanged.
- schema.graphql: schema.graphql from the npm package @octokit/graphql-schema
  %s (MIT licence, copyright GitHub; see LICENSE.octokit-graphql-schema),
  reformatted without descriptions and with the duplicated
  EnterpriseOwnerInfo fields dropped.

Both are GitHub's own published descriptions of its API, used here only to
check that requests made in tests are ones GitHub would accept.

To regenerate: install both packages with npm into a scratch directory
outside the repository, then run
'go run ./ghpr/ghprtest/internal/gen -npm <scratch>/node_modules -out ghpr/ghprtest/spec'.
`, oaVersion, gqlVersion)
}
