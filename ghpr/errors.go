package ghpr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// Sentinels for pull requests that exist but cannot be used, or do not exist.
var (
	// ErrNoPR: no pull request has the branch as its head.
	ErrNoPR = errors.New("no pull request for the branch")
	// ErrNotOpen: the pull request is closed or merged, so it cannot be claimed.
	ErrNotOpen = errors.New("pull request is not open")
)

// AuthError is GitHub refusing a call for want of a token or a permission:
// 401, 403 (not a rate limit) or 404, or a write attempted with no token at
// all. The CLI maps it to exit code 4. GitHub answers 404, not 403, for a
// private repository the token cannot see, so NotFound is part of it too.
type AuthError struct {
	Op      string // what we were doing: "reading pull request #12"
	Status  int    // 401, 403, 404; 0 when no request was made
	NoToken bool   // the call was made, or refused, without any token
	// Missing is what GitHub says the token lacks, from
	// X-Accepted-GitHub-Permissions (fine-grained tokens and apps, e.g.
	// "pull_requests=write") or X-Accepted-OAuth-Scopes (classic tokens,
	// e.g. "repo"); empty when GitHub did not say.
	Missing string
	Message string // GitHub's own message, e.g. "Bad credentials"
}

func (e *AuthError) Error() string {
	var why string
	switch {
	case e.NoToken && e.Status != 404:
		why = ErrNoToken.Error()
	case e.Status == 401:
		why = "GitHub rejected the token (401 " + orDefault(e.Message, "Bad credentials") + "): it is wrong, expired or revoked"
	case e.Status == 403 && e.Missing != "":
		why = "the token lacks permission (403): it needs " + e.Missing
	case e.Status == 403:
		why = "the token lacks permission (403 " + orDefault(e.Message, "Forbidden") + ")"
	case e.Status == 404 && e.NoToken:
		why = "not found (404); private repositories look missing without a token: " + ErrNoToken.Error()
	case e.Status == 404:
		why = "not found (404), or the token cannot see this private repository"
	default:
		why = fmt.Sprintf("refused (%d %s)", e.Status, e.Message)
	}
	return e.Op + ": " + why
}

// NotFound reports a 404.
func (e *AuthError) NotFound() bool { return e.Status == http.StatusNotFound }

// RateLimitError is GitHub's primary or secondary rate limit, when waiting it
// out was too long to do silently (or the request was a write, which is never
// sent twice).
type RateLimitError struct {
	Op        string
	Secondary bool      // the secondary (abuse) limit rather than the hourly quota
	RetryAt   time.Time // when GitHub says to try again; zero if it did not say
}

func (e *RateLimitError) Error() string {
	kind := "rate limit"
	if e.Secondary {
		kind = "secondary rate limit"
	}
	if e.RetryAt.IsZero() {
		return fmt.Sprintf("%s: GitHub %s reached; retry in a few minutes", e.Op, kind)
	}
	wait := time.Until(e.RetryAt).Round(time.Second)
	if wait < 0 {
		wait = 0
	}
	return fmt.Sprintf("%s: GitHub %s reached; retry after %s (in %s)", e.Op, kind, e.RetryAt.Format("15:04:05 MST"), wait)
}

// GraphQLError is an HTTP 200 answer whose "errors" array is not empty.
type GraphQLError struct {
	Op     string
	Errors []GraphQLErrorItem
}

// GraphQLErrorItem is one entry of a GraphQL "errors" array.
type GraphQLErrorItem struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    []any  `json:"path"`
}

func (e *GraphQLError) Error() string {
	msgs := make([]string, 0, len(e.Errors))
	for _, it := range e.Errors {
		m := it.Message
		if it.Type != "" {
			m = it.Type + ": " + m
		}
		msgs = append(msgs, m)
	}
	return e.Op + ": GitHub GraphQL: " + strings.Join(msgs, "; ")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// wrap turns go-github's errors into ours, with op as context. Errors that
// are neither auth nor rate limits keep their chain under op.
func (c *Client) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", op, err)
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return &RateLimitError{Op: op, RetryAt: rl.Rate.Reset.Time}
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		e := &RateLimitError{Op: op, Secondary: true}
		if ab.RetryAfter != nil {
			e.RetryAt = c.now().Add(*ab.RetryAfter)
		}
		return e
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return c.statusError(op, er.Response, er.Message, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// statusError classifies a non-2xx response; other is returned (wrapped)
// when the status is not one we give a type to.
func (c *Client) statusError(op string, resp *http.Response, msg string, other error) error {
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		if resp.StatusCode == http.StatusForbidden {
			if at, ok := rateLimitRetryAt(resp, c.now()); ok {
				return &RateLimitError{Op: op, Secondary: resp.Header.Get("X-RateLimit-Remaining") != "0", RetryAt: at}
			}
		}
		missing := resp.Header.Get("X-Accepted-GitHub-Permissions")
		if missing == "" {
			if s := resp.Header.Get("X-Accepted-OAuth-Scopes"); s != "" {
				missing = "OAuth scope " + s
			}
		}
		return &AuthError{Op: op, Status: resp.StatusCode, NoToken: c.token == "", Missing: missing, Message: msg}
	case http.StatusTooManyRequests:
		at, _ := rateLimitRetryAt(resp, c.now())
		return &RateLimitError{Op: op, Secondary: resp.Header.Get("X-RateLimit-Remaining") != "0", RetryAt: at}
	}
	if other == nil {
		other = fmt.Errorf("GitHub answered %s", resp.Status)
	}
	return fmt.Errorf("%s: %w", op, other)
}

// rateLimitRetryAt reads when a limited response says to come back:
// Retry-After (seconds) first, then X-RateLimit-Reset (epoch seconds) when
// the quota is spent. ok is false when the response is not a rate limit.
func rateLimitRetryAt(resp *http.Response, now time.Time) (time.Time, bool) {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return now.Add(time.Duration(n) * time.Second), true
		}
		if t, err := http.ParseTime(s); err == nil {
			return t, true
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return time.Unix(n, 0), true
		}
		return time.Time{}, true
	}
	return time.Time{}, resp.StatusCode == http.StatusTooManyRequests
}

// ErrorHint returns a line of advice for err, or "" when there is none, for
// the CLI's hint line.
func ErrorHint(err error) string {
	var ae *AuthError
	if errors.As(err, &ae) {
		switch {
		case ae.NoToken:
			return "set GH_TOKEN (or GH_ENTERPRISE_TOKEN for GitHub Enterprise Server) or run gh auth login"
		case ae.Status == 401:
			return "refresh the token: gh auth refresh, or a new GH_TOKEN"
		case ae.Status == 403 && ae.Missing != "":
			return "grant the token " + ae.Missing + " on this repository"
		case ae.Status == 403 || ae.Status == 404:
			return "the token needs pull requests and issues write, checks and commit statuses read on this repository"
		}
	}
	var re *RateLimitError
	if errors.As(err, &re) {
		return "wait and run the command again"
	}
	return ""
}
