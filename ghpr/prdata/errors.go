package prdata

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinels for pull requests that exist but cannot be used, or do not exist.
var (
	// ErrNoPR: no pull request has the branch as its head.
	ErrNoPR = errors.New("no pull request for the branch")
	// ErrNotOpen: the pull request is closed or merged, so it cannot be claimed.
	ErrNotOpen = errors.New("pull request is not open")
	// ErrNoToken: no source had a token for the host.
	ErrNoToken = errors.New("no token found: set GH_TOKEN or run gh auth login")
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
func (e *AuthError) NotFound() bool { return e.Status == 404 }

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
