package prdata

import (
	"strings"
	"time"
)

// Facts is everything `pr status` shows about a pull request, as of
// FetchedAt (when fetching began).
type Facts struct {
	FetchedAt time.Time `json:"fetchedAt"`
	PR        PR        `json:"pr"`
	Checks    Checks    `json:"checks"`
	// ReviewDecision is GitHub's own summary: APPROVED, CHANGES_REQUESTED,
	// REVIEW_REQUIRED, or "" when no review is required or it is unknown
	// (REST has no such field; see ThreadsKnown).
	ReviewDecision     string   `json:"reviewDecision"`
	ChangesRequestedBy []string `json:"changesRequestedBy"` // reviewers whose latest verdict is CHANGES_REQUESTED
	ApprovedBy         []string `json:"approvedBy"`
	// Threads are the unresolved review threads when ThreadsKnown; when
	// GraphQL could not be used they are every thread, from REST review
	// comments, each with Resolved nil.
	Threads      []Thread `json:"threads"`
	ThreadsKnown bool     `json:"threadsResolutionKnown"`
	// Warnings say what could not be learned and why, one line each.
	Warnings []string `json:"warnings,omitempty"`
}

// Checks are the check runs and commit statuses on the head commit,
// bucketed the way GitHub's CLI buckets them.
type Checks struct {
	Failing  []Check `json:"failing"`
	Pending  []Check `json:"pending"`
	Passing  []Check `json:"passing"`
	Skipping []Check `json:"skipping"`
	// Stale counts checks reported for a commit that is not the head,
	// which should not happen but would make them misleading.
	Stale int `json:"stale"`
}

// Total is the number of checks in all buckets.
func (c Checks) Total() int {
	return len(c.Failing) + len(c.Pending) + len(c.Passing) + len(c.Skipping)
}

// Check is one check run or commit status.
type Check struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`   // "check_run" or "status"
	State  string `json:"state"`  // GitHub's conclusion, status or state, lower case
	Bucket string `json:"bucket"` // fail, pending, pass, skipping
	URL    string `json:"url"`
	SHA    string `json:"sha"`
	// NotHead is true when the check ran on another commit than the pull
	// request's head.
	NotHead bool `json:"notHead"`
}

// Check buckets.
const (
	BucketFail     = "fail"
	BucketPending  = "pending"
	BucketPass     = "pass"
	BucketSkipping = "skipping"
)

// Thread is a review thread: a line comment and its replies.
type Thread struct {
	ID       string `json:"id"`
	Path     string `json:"path"`
	Line     int    `json:"line"` // 0 when the thread is on the whole file
	Author   string `json:"author"`
	Excerpt  string `json:"excerpt"` // the opening comment, first line, shortened
	URL      string `json:"url"`
	Outdated bool   `json:"outdated"`
	Resolved *bool  `json:"resolved"` // nil: unknown (REST fallback)
}

// BucketCheckRun sorts a check run: not completed is pending; then by
// conclusion: success passes; neutral and skipped are skipping; failure,
// cancelled, timed_out, action_required fail. startup_failure fails too
// (GitHub's CLI leaves it pending, where it would wait forever); anything
// unknown is pending.
func BucketCheckRun(status, conclusion string) string {
	if strings.ToLower(status) != "completed" {
		return BucketPending
	}
	switch strings.ToLower(conclusion) {
	case "success":
		return BucketPass
	case "neutral", "skipped":
		return BucketSkipping
	case "failure", "cancelled", "timed_out", "action_required", "startup_failure":
		return BucketFail
	}
	return BucketPending
}

// BucketStatus sorts a commit status state: error and failure fail, success
// passes, pending (and anything else) is pending.
func BucketStatus(state string) string {
	switch strings.ToLower(state) {
	case "success":
		return BucketPass
	case "error", "failure":
		return BucketFail
	}
	return BucketPending
}

// Add puts c in its bucket, counting it as stale when it is not on the head.
func (cs *Checks) Add(c Check) {
	switch c.Bucket {
	case BucketFail:
		cs.Failing = append(cs.Failing, c)
	case BucketPass:
		cs.Passing = append(cs.Passing, c)
	case BucketSkipping:
		cs.Skipping = append(cs.Skipping, c)
	default:
		cs.Pending = append(cs.Pending, c)
	}
	if c.NotHead {
		cs.Stale++
	}
}
