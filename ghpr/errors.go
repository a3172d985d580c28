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
