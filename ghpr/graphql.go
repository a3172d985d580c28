package ghpr

import (
	"context"
	"encoding/json"
	"fmt"
)

// graphQL sends one query through the go-github client (so it shares auth,
// the rate-limit transport and error handling) to the GraphQL endpoint,
// which is not under the REST root on Enterprise Server. An "errors" array
// on an HTTP 200 is an error: GitHub reports most GraphQL failures that way,
// with data partly or wholly null.
func (c *Client) graphQL(ctx context.Context, op, query string, vars map[string]any, out any) error {
	body := map[string]any{"query": query, "variables": vars}
	req, err := c.gh.NewRequest("POST", c.graphqlURL, body)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var resp struct {
		Data   json.RawMessage    `json:"data"`
		Errors []GraphQLErrorItem `json:"errors"`
	}
	if _, err := c.gh.Do(readOnly(ctx), req, &resp); err != nil {
		return c.wrap(op, err)
	}
	if len(resp.Errors) > 0 {
		// GraphQL reports its own limits inside the answer, not as a 403.
		for _, e := range resp.Errors {
			if e.Type == "RATE_LIMITED" {
				return &RateLimitError{Op: op}
			}
		}
		return &GraphQLError{Op: op, Errors: resp.Errors}
	}
	if len(resp.Data) == 0 || string(resp.Data) == "null" {
		return fmt.Errorf("%s: GitHub GraphQL answered without data", op)
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		return fmt.Errorf("%s: decoding GraphQL data: %w", op, err)
	}
	return nil
}

// threadsQuery asks for one page of review threads and the review decision.
// The first comment of a thread is the one that opened it.
const threadsQuery = `query ReviewThreads($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewDecision
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          originalLine
          comments(first: 1) {
            nodes { author { login } body url }
          }
        }
      }
    }
  }
}`

type threadsPage struct {
	Repository *struct {
		PullRequest *struct {
			ReviewDecision *string `json:"reviewDecision"`
			ReviewThreads  struct {
				PageInfo struct {
					HasNextPage bool   `json:"hasNextPage"`
					EndCursor   string `json:"endCursor"`
				} `json:"pageInfo"`
				Nodes []struct {
					ID           string `json:"id"`
					IsResolved   bool   `json:"isResolved"`
					IsOutdated   bool   `json:"isOutdated"`
					Path         string `json:"path"`
					Line         *int   `json:"line"`
					OriginalLine *int   `json:"originalLine"`
					Comments     struct {
						Nodes []struct {
							Author *struct {
								Login string `json:"login"`
							} `json:"author"`
							Body string `json:"body"`
							URL  string `json:"url"`
						} `json:"nodes"`
					} `json:"comments"`
				} `json:"nodes"`
			} `json:"reviewThreads"`
		} `json:"pullRequest"`
	} `json:"repository"`
}

// ReviewThreads returns every review thread of pull request n with its
// resolution, and the pull request's reviewDecision (APPROVED,
// CHANGES_REQUESTED, REVIEW_REQUIRED, or "" when no review is required).
// GraphQL needs a token even for public repositories.
func (c *Client) ReviewThreads(ctx context.Context, n int) (threads []Thread, decision string, err error) {
	op := fmt.Sprintf("reading review threads of #%d", n)
	if err := checkNumber(n); err != nil {
		return nil, "", fmt.Errorf("%s: %w", op, err)
	}
	vars := map[string]any{"owner": c.repo.Owner, "name": c.repo.Name, "number": n}
	threads = []Thread{}
	// A bound on pages, so a server that always says "more" cannot keep us.
	for page := 0; page < 50; page++ {
		var out threadsPage
		if err := c.graphQL(ctx, op, threadsQuery, vars, &out); err != nil {
			return nil, "", err
		}
		if out.Repository == nil || out.Repository.PullRequest == nil {
			return nil, "", fmt.Errorf("%s: GitHub GraphQL returned no pull request", op)
		}
		pr := out.Repository.PullRequest
		if pr.ReviewDecision != nil {
			decision = *pr.ReviewDecision
		}
		for _, nd := range pr.ReviewThreads.Nodes {
			resolved := nd.IsResolved
			th := Thread{ID: nd.ID, Path: nd.Path, Outdated: nd.IsOutdated, Resolved: &resolved}
			switch {
			case nd.Line != nil:
				th.Line = *nd.Line
			case nd.OriginalLine != nil:
				th.Line = *nd.OriginalLine
			}
			if cs := nd.Comments.Nodes; len(cs) > 0 {
				if cs[0].Author != nil {
					th.Author = cs[0].Author.Login
				}
				th.Excerpt = excerpt(cs[0].Body, excerptLen)
				th.URL = cs[0].URL
			}
			threads = append(threads, th)
		}
		if !pr.ReviewThreads.PageInfo.HasNextPage {
			return threads, decision, nil
		}
		vars["after"] = pr.ReviewThreads.PageInfo.EndCursor
	}
	return nil, "", fmt.Errorf("%s: more than 5000 threads; giving up", op)
}
