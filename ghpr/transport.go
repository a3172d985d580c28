package ghpr

import (
	"context"
	"io"
	"net/http"
	"time"
)

// limitTransport waits out a short rate limit once and sends the request
// again. Only requests that cannot change anything are sent twice: GET and
// HEAD, and GraphQL queries (POSTs marked with readOnly). A write that hit
// a limit is returned as it came, so the caller sees a RateLimitError and
// decides; GitHub may or may not have acted on it. go-github itself never
// sleeps or retries.
type limitTransport struct {
	base    http.RoundTripper
	sleep   func(context.Context, time.Duration) error
	maxWait time.Duration
	now     func() time.Time
}

type readOnlyKey struct{}

// readOnly marks a POST that only reads (a GraphQL query), so it may be
// retried after a rate limit like a GET.
func readOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, true)
}

func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || !isRateLimited(resp) || !retrySafe(req) {
		return resp, err
	}
	now := t.now()
	at, ok := rateLimitRetryAt(resp, now)
	if !ok || at.IsZero() {
		return resp, nil
	}
	wait := at.Sub(now)
	if wait > t.maxWait {
		return resp, nil
	}
	if wait < 0 {
		wait = 0
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil
	}
	// The answer to the first try is dropped; only the retry's counts.
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := t.sleep(req.Context(), wait); err != nil {
		return nil, err
	}
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return t.base.RoundTrip(again)
}

func isRateLimited(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusForbidden:
		return resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0"
	}
	return false
}

func retrySafe(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		return true
	}
	ro, _ := req.Context().Value(readOnlyKey{}).(bool)
	return ro
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
