package ghprtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"
)

// The GraphQL side is checked against GitHub's schema and then answered by a
// tiny executor over plain maps: an object is a map from field name to a
// value or to a resolver taking the field's arguments. Only the fields ghpr
// asks for are modelled; a valid query for anything else is answered with an
// error and recorded, so a new query cannot pass unnoticed.

type gqlObject map[string]any

type gqlResolver func(args map[string]any) (any, error)

// gqlError is one entry of GitHub's "errors" array.
type gqlError struct {
	Type    string   `json:"type,omitempty"`
	Path    []string `json:"path,omitempty"`
	Message string   `json:"message"`
}

func (e *gqlError) Error() string { return e.Message }

func (s *Server) serveGraphQL(body []byte, login string) reply {
	var req struct {
		Query         string         `json:"query"`
		Variables     map[string]any `json:"variables"`
		OperationName string         `json:"operationName"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Query == "" {
		s.fail("graphql: body is not {\"query\": ...}: %s", body)
		return errorReply(http.StatusBadRequest, "Problems parsing JSON")
	}
	doc, errs := gqlparser.LoadQuery(s.spec.schema, req.Query)
	if len(errs) > 0 {
		s.fail("graphql: query does not match GitHub's schema: %v", errs)
		return gqlErrors(&gqlError{Message: errs.Error()})
	}
	op := doc.Operations.ForName(req.OperationName)
	if op == nil {
		s.fail("graphql: no operation named %q", req.OperationName)
		return gqlErrors(&gqlError{Message: "unknown operation " + req.OperationName})
	}
	vars, err := validator.VariableValues(s.spec.schema, op, req.Variables)
	if err != nil {
		s.fail("graphql: variables do not match the query: %v", err)
		return gqlErrors(&gqlError{Message: err.Error()})
	}
	if op.Operation != ast.Query {
		s.fail("graphql: the fake serves queries only, not %s", op.Operation)
		return gqlErrors(&gqlError{Message: "fake github serves queries only"})
	}
	ex := &executor{vars: vars}
	data := ex.project(op.SelectionSet, s.gqlRoot(login), nil)
	for _, e := range ex.unmodelled {
		s.fail("graphql: the fake does not model %s", e)
	}
	out := map[string]any{"data": data}
	if len(ex.errs) > 0 {
		out["errors"] = ex.errs
	}
	return reply{status: 200, body: out}
}

func gqlErrors(errs ...*gqlError) reply {
	return reply{status: 200, body: map[string]any{"errors": errs}}
}

type executor struct {
	vars       map[string]any
	errs       []*gqlError
	unmodelled []string
}

// project answers a selection set on obj.
func (ex *executor) project(sel ast.SelectionSet, v any, path []string) any {
	switch t := v.(type) {
	case nil:
		return nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = ex.project(sel, e, append(path, strconv.Itoa(i)))
		}
		return out
	case gqlObject:
		out := map[string]any{}
		for _, f := range collectFields(sel, t) {
			key := f.Alias
			if key == "" {
				key = f.Name
			}
			fpath := append(append([]string(nil), path...), key)
			val, ok := t[f.Name]
			if !ok {
				ex.unmodelled = append(ex.unmodelled, t["__typename"].(string)+"."+f.Name)
				out[key] = nil
				continue
			}
			if r, ok := val.(gqlResolver); ok {
				var err error
				val, err = r(f.ArgumentMap(ex.vars))
				if err != nil {
					ge, ok := err.(*gqlError)
					if !ok {
						ge = &gqlError{Message: err.Error()}
					}
					ge.Path = fpath
					ex.errs = append(ex.errs, ge)
					out[key] = nil
					continue
				}
			}
			if len(f.SelectionSet) > 0 {
				val = ex.project(f.SelectionSet, val, fpath)
			}
			out[key] = val
		}
		return out
	default:
		return v
	}
}

// collectFields flattens fragments that apply to obj's type.
func collectFields(sel ast.SelectionSet, obj gqlObject) []*ast.Field {
	typ, _ := obj["__typename"].(string)
	var out []*ast.Field
	for _, s := range sel {
		switch t := s.(type) {
		case *ast.Field:
			out = append(out, t)
		case *ast.InlineFragment:
			if t.TypeCondition == "" || t.TypeCondition == typ {
				out = append(out, collectFields(t.SelectionSet, obj)...)
			}
		case *ast.FragmentSpread:
			if t.Definition != nil && (t.Definition.TypeCondition == typ) {
				out = append(out, collectFields(t.Definition.SelectionSet, obj)...)
			}
		}
	}
	return out
}

// gqlRoot builds the query root from the current state.
func (s *Server) gqlRoot(login string) gqlObject {
	return gqlObject{
		"__typename": "Query",
		"viewer":     gqlObject{"__typename": "User", "login": login},
		"repository": gqlResolver(func(args map[string]any) (any, error) {
			owner, _ := args["owner"].(string)
			name, _ := args["name"].(string)
			if !strings.EqualFold(owner, s.st.Owner) || !strings.EqualFold(name, s.st.Repo) {
				return nil, &gqlError{Type: "NOT_FOUND", Message: fmt.Sprintf("Could not resolve to a Repository with the name '%s/%s'.", owner, name)}
			}
			return s.gqlRepository(), nil
		}),
	}
}

func (s *Server) gqlRepository() gqlObject {
	return gqlObject{
		"__typename":    "Repository",
		"name":          s.st.Repo,
		"nameWithOwner": s.st.Owner + "/" + s.st.Repo,
		"pullRequest": gqlResolver(func(args map[string]any) (any, error) {
			n := toInt(args["number"])
			p := s.st.pr(n)
			if p == nil {
				return nil, &gqlError{Type: "NOT_FOUND", Message: fmt.Sprintf("Could not resolve to a PullRequest with the number of %d.", n)}
			}
			return s.gqlPullRequest(p), nil
		}),
	}
}

func (s *Server) gqlPullRequest(p *PR) gqlObject {
	state := strings.ToUpper(p.State)
	if p.Merged {
		state = "MERGED"
	}
	var threads []any
	for _, th := range s.st.Threads {
		if th.PR == p.Number {
			threads = append(threads, s.gqlThread(th))
		}
	}
	return gqlObject{
		"__typename":     "PullRequest",
		"number":         p.Number,
		"title":          p.Title,
		"url":            s.htmlURL("pull", p.Number),
		"state":          state,
		"isDraft":        p.Draft,
		"headRefName":    p.Head,
		"headRefOid":     p.HeadSHA,
		"baseRefName":    p.Base,
		"reviewDecision": nullIfEmpty(p.ReviewDecision),
		"reviewThreads":  connection("reviewThreads", "PullRequestReviewThreadConnection", threads),
	}
}

func (s *Server) gqlThread(th Thread) gqlObject {
	var comments []any
	for i, c := range th.Comments {
		url := c.URL
		if url == "" {
			url = s.htmlURL("pull", th.PR) + fmt.Sprintf("#discussion_r%s_%d", th.ID, i)
		}
		comments = append(comments, gqlObject{
			"__typename": "PullRequestReviewComment",
			"author":     gqlObject{"__typename": "User", "login": c.Author},
			"body":       c.Body,
			"bodyText":   c.Body,
			"url":        url,
			"path":       th.Path,
		})
	}
	return gqlObject{
		"__typename":   "PullRequestReviewThread",
		"id":           th.ID,
		"isResolved":   th.Resolved,
		"isOutdated":   th.Outdated,
		"isCollapsed":  th.Resolved,
		"path":         th.Path,
		"line":         nullIfZero(th.Line),
		"originalLine": nullIfZero(th.Line),
		"diffSide":     "RIGHT",
		"comments":     connection("comments", "PullRequestReviewCommentConnection", comments),
	}
}

// connection pages items the way GitHub's connections do: first (1..100) is
// required, after is an opaque cursor.
func connection(field, typename string, items []any) gqlResolver {
	return func(args map[string]any) (any, error) {
		first, ok := args["first"]
		if !ok || first == nil {
			if _, hasLast := args["last"]; hasLast {
				return nil, &gqlError{Message: "fake github does not serve `last` on " + field}
			}
			return nil, &gqlError{Type: "MISSING_PAGINATION_BOUNDARIES", Message: fmt.Sprintf("You must provide a `first` or `last` value to properly paginate the `%s` connection.", field)}
		}
		n := toInt(first)
		if n > 100 || n < 0 {
			return nil, &gqlError{Type: "EXCESSIVE_PAGINATION", Message: fmt.Sprintf("Requesting %d records on the `%s` connection exceeds the `first` limit of 100 records.", n, field)}
		}
		start := 0
		if after, _ := args["after"].(string); after != "" {
			i, err := strconv.Atoi(strings.TrimPrefix(after, "cursor:"))
			if err != nil || !strings.HasPrefix(after, "cursor:") {
				return nil, &gqlError{Message: fmt.Sprintf("`%s` does not appear to be a valid cursor.", after)}
			}
			start = i + 1
		}
		start = min(start, len(items))
		end := min(start+n, len(items))
		nodes := []any{}
		edges := []any{}
		for i := start; i < end; i++ {
			nodes = append(nodes, items[i])
			edges = append(edges, gqlObject{"__typename": strings.TrimSuffix(typename, "Connection") + "Edge", "cursor": cursorAt(i), "node": items[i]})
		}
		var startCursor, endCursor any
		if end > start {
			startCursor, endCursor = cursorAt(start), cursorAt(end-1)
		}
		return gqlObject{
			"__typename": typename,
			"totalCount": len(items),
			"nodes":      nodes,
			"edges":      edges,
			"pageInfo": gqlObject{
				"__typename":      "PageInfo",
				"hasNextPage":     end < len(items),
				"hasPreviousPage": start > 0,
				"startCursor":     startCursor,
				"endCursor":       endCursor,
			},
		}, nil
	}
}

func cursorAt(i int) string { return "cursor:" + strconv.Itoa(i) }

func toInt(v any) int {
	switch t := v.(type) {
	case int:
		return t
	case int64:
		return int(t)
	case float64:
		return int(t)
	case json.Number:
		n, _ := t.Int64()
		return int(n)
	}
	return 0
}
