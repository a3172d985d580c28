package ghprtest

import (
	"encoding/json"
	"sort"
	"strconv"
	"time"
)

// State is everything the fake knows. It is also the seed file format of the
// standalone fake and what its admin endpoint dumps, so every field has a
// stable JSON name. Zero values get sensible defaults (see normalize).
type State struct {
	Owner  string `json:"owner"`  // default "octo-org"
	Repo   string `json:"repo"`   // default "hello-world"
	Token  string `json:"token"`  // the only token accepted; empty accepts none
	Login  string `json:"login"`  // who the token belongs to; default "agent-bot"
	Public bool   `json:"public"` // anonymous reads allowed

	PRs            []PR            `json:"prs,omitempty"`
	CheckRuns      []CheckRun      `json:"checkRuns,omitempty"`
	Statuses       []Status        `json:"statuses,omitempty"`
	Reviews        []Review        `json:"reviews,omitempty"`
	ReviewComments []ReviewComment `json:"reviewComments,omitempty"`
	Threads        []Thread        `json:"threads,omitempty"`
	Comments       []Comment       `json:"comments,omitempty"`
	// DeletedComments are the comments removed through the API, in the
	// order they went; their ids are never handed out again.
	DeletedComments []Comment `json:"deletedComments,omitempty"`
	Faults          []Fault   `json:"faults,omitempty"`
}

// PR is a pull request. Its issue-side data (assignees, labels) lives here too:
// on GitHub a pull request is an issue with the same number.
type PR struct {
	Number         int    `json:"number"`
	Title          string `json:"title"`
	State          string `json:"state"` // "open" (default) or "closed"
	Draft          bool   `json:"draft,omitempty"`
	Merged         bool   `json:"merged,omitempty"` // implies state closed
	Mergeable      *bool  `json:"mergeable,omitempty"`
	MergeableState string `json:"mergeableState,omitempty"` // default "clean", or "unknown" while pending
	// MergeablePending is how many more GETs answer mergeable: null before
	// Mergeable is reported, the way GitHub does while it computes.
	MergeablePending int      `json:"mergeablePending,omitempty"`
	Head             string   `json:"head"`      // branch name
	HeadSHA          string   `json:"headSha"`   // 40 hex digits
	HeadOwner        string   `json:"headOwner"` // default: the repository owner
	Base             string   `json:"base"`      // default "main"
	Author           string   `json:"author"`    // default "octocat"
	ReviewDecision   string   `json:"reviewDecision,omitempty"`
	Assignees        []string `json:"assignees,omitempty"`
	Labels           []string `json:"labels,omitempty"`
}

// CheckRun is a check run on a commit.
type CheckRun struct {
	ID         int64  `json:"id"`
	SHA        string `json:"sha"`
	Name       string `json:"name"`
	Status     string `json:"status"`               // queued, in_progress, completed (default)
	Conclusion string `json:"conclusion,omitempty"` // when completed
}

// Status is a commit status; the newest one per context counts.
type Status struct {
	SHA         string `json:"sha"`
	Context     string `json:"context"`
	State       string `json:"state"` // error, failure, pending, success
	TargetURL   string `json:"targetUrl,omitempty"`
	Description string `json:"description,omitempty"`
}

// Review is a submitted pull request review.
type Review struct {
	PR          int       `json:"pr"`
	ID          int64     `json:"id"`
	User        string    `json:"user"`
	State       string    `json:"state"` // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED
	Body        string    `json:"body,omitempty"`
	SubmittedAt time.Time `json:"submittedAt"`
}

// ReviewComment is a REST pull request review comment (a line comment).
type ReviewComment struct {
	PR        int    `json:"pr"`
	ID        int64  `json:"id"`
	User      string `json:"user"`
	Path      string `json:"path"`
	Line      int    `json:"line,omitempty"`
	Body      string `json:"body"`
	InReplyTo int64  `json:"inReplyTo,omitempty"`
}

// Thread is a GraphQL review thread.
type Thread struct {
	PR       int             `json:"pr"`
	ID       string          `json:"id"`
	Resolved bool            `json:"resolved,omitempty"`
	Outdated bool            `json:"outdated,omitempty"`
	Path     string          `json:"path"`
	Line     int             `json:"line,omitempty"`
	Comments []ThreadComment `json:"comments"`
}

// ThreadComment is one comment of a review thread.
type ThreadComment struct {
	Author string `json:"author"`
	Body   string `json:"body"`
	URL    string `json:"url,omitempty"`
}

// Comment is a conversation (issue) comment.
type Comment struct {
	ID        int64     `json:"id"`
	Issue     int       `json:"issue"`
	User      string    `json:"user"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Fault makes matching requests fail instead of being served. A request
// matches when Op (an OpenAPI operationId such as "pulls/get", or "graphql";
// empty matches all) and Method (empty matches all) match. Times is how many
// requests it answers (0 means once; -1 means forever).
type Fault struct {
	Op      string            `json:"op,omitempty"`
	Method  string            `json:"method,omitempty"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    json.RawMessage   `json:"body,omitempty"` // default: a GitHub-style {"message": ...}
	Times   int               `json:"times,omitempty"`
}

func (st *State) normalize() {
	if st.Owner == "" {
		st.Owner = "octo-org"
	}
	if st.Repo == "" {
		st.Repo = "hello-world"
	}
	if st.Login == "" {
		st.Login = "agent-bot"
	}
	for i := range st.PRs {
		p := &st.PRs[i]
		if p.State == "" {
			p.State = "open"
		}
		if p.Merged {
			p.State = "closed"
		}
		if p.Base == "" {
			p.Base = "main"
		}
		if p.HeadOwner == "" {
			p.HeadOwner = st.Owner
		}
		if p.Author == "" {
			p.Author = "octocat"
		}
		if p.Title == "" {
			p.Title = "Change " + p.Head
		}
	}
	for i := range st.CheckRuns {
		if st.CheckRuns[i].Status == "" {
			st.CheckRuns[i].Status = "completed"
		}
	}
	for i := range st.CheckRuns {
		assignID(st, &st.CheckRuns[i].ID)
	}
	for i := range st.Reviews {
		assignID(st, &st.Reviews[i].ID)
	}
	for i := range st.ReviewComments {
		assignID(st, &st.ReviewComments[i].ID)
	}
	for i := range st.Comments {
		assignID(st, &st.Comments[i].ID)
	}
	for i := range st.Threads {
		if st.Threads[i].ID == "" {
			st.Threads[i].ID = "PRRT_" + strconv.Itoa(i+1)
		}
	}
}

func assignID(st *State, id *int64) {
	if *id == 0 {
		*id = st.nextID()
	}
}

func (st *State) pr(n int) *PR {
	for i := range st.PRs {
		if st.PRs[i].Number == n {
			return &st.PRs[i]
		}
	}
	return nil
}

// nextID returns an id above every id in use, so ids stay unique across
// seeds, additions and creations.
func (st *State) nextID() int64 {
	max := int64(1000)
	for _, c := range st.Comments {
		max = maxInt64(max, c.ID)
	}
	for _, c := range st.DeletedComments {
		max = maxInt64(max, c.ID)
	}
	for _, c := range st.CheckRuns {
		max = maxInt64(max, c.ID)
	}
	for _, c := range st.Reviews {
		max = maxInt64(max, c.ID)
	}
	for _, c := range st.ReviewComments {
		max = maxInt64(max, c.ID)
	}
	return max + 1
}

func maxInt64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// latestStatuses keeps the newest status per context, as GitHub's combined
// status does (later entries are newer).
func latestStatuses(all []Status, sha string) []Status {
	seen := map[string]int{}
	var out []Status
	for _, s := range all {
		if s.SHA != sha {
			continue
		}
		if i, ok := seen[s.Context]; ok {
			out[i] = s
			continue
		}
		seen[s.Context] = len(out)
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Context < out[j].Context })
	return out
}
