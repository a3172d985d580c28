package ghprtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// call is one validated REST request.
type call struct {
	r      *http.Request
	params map[string]string
	query  url.Values
	body   []byte
	login  string // "" when anonymous
}

func (c *call) intParam(name string) int {
	n, _ := strconv.Atoi(c.params[name])
	return n
}

type handler func(s *Server, c *call) reply

// handlers answer each operation the fake serves, keyed by operationId. Each
// starts from GitHub's own example response and overwrites what the state
// decides, so fields nobody seeded still look like GitHub's.
var handlers = map[string]handler{
	"pulls/get":                         getPR,
	"pulls/list":                        listPRs,
	"pulls/list-reviews":                listReviews,
	"pulls/list-review-comments":        listReviewComments,
	"checks/list-for-ref":               listCheckRuns,
	"repos/get-combined-status-for-ref": combinedStatus,
	"issues/list-comments":              listComments,
	"issues/create-comment":             createComment,
	"issues/update-comment":             updateComment,
	"issues/delete-comment":             deleteComment,
	"issues/add-assignees":              addAssignees,
	"issues/add-labels":                 addLabels,
	"users/get-authenticated":           getUser,
}

func getPR(s *Server, c *call) reply {
	p := s.st.pr(c.intParam("pull_number"))
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	obj := s.template("pulls/get", 200)
	s.fillPR(obj, p, true)
	if p.MergeablePending > 0 && p.State == "open" {
		p.MergeablePending--
		obj["mergeable"] = nil
		obj["mergeable_state"] = "unknown"
	}
	return reply{status: 200, body: obj}
}

func listPRs(s *Server, c *call) reply {
	state := c.query.Get("state")
	if state == "" {
		state = "open"
	}
	headOwner, headBranch, hasHead := strings.Cut(c.query.Get("head"), ":")
	var match []*PR
	for i := range s.st.PRs {
		p := &s.st.PRs[i]
		if state != "all" && p.State != state {
			continue
		}
		// GitHub ignores a head without "owner:", so the fake does too.
		if hasHead && (!strings.EqualFold(p.HeadOwner, headOwner) || p.Head != headBranch) {
			continue
		}
		if b := c.query.Get("base"); b != "" && p.Base != b {
			continue
		}
		match = append(match, p)
	}
	// Newest first, GitHub's default sort.
	slices.SortStableFunc(match, func(a, b *PR) int { return b.Number - a.Number })
	rep := reply{status: 200}
	lo, hi := s.pageOf(c, len(match), &rep)
	items := []any{}
	for _, p := range match[lo:hi] {
		obj := s.itemTemplate("pulls/list", 200)
		s.fillPR(obj, p, false)
		items = append(items, obj)
	}
	rep.body = items
	return rep
}

func (s *Server) fillPR(obj map[string]any, p *PR, full bool) {
	htmlURL := s.htmlURL("pull", p.Number)
	apiURL := s.apiURL("repos/%s/%s/pulls/%d", s.st.Owner, s.st.Repo, p.Number)
	set(obj, "id", int64(p.Number)*1000+7)
	set(obj, "node_id", fmt.Sprintf("PR_fake%d", p.Number))
	set(obj, "number", p.Number)
	set(obj, "title", p.Title)
	set(obj, "state", p.State)
	set(obj, "draft", p.Draft)
	set(obj, "locked", false)
	set(obj, "html_url", htmlURL)
	set(obj, "url", apiURL)
	set(obj, "issue_url", s.apiURL("repos/%s/%s/issues/%d", s.st.Owner, s.st.Repo, p.Number))
	set(obj, "user.login", p.Author)
	set(obj, "head.ref", p.Head)
	set(obj, "head.sha", p.HeadSHA)
	set(obj, "head.label", p.HeadOwner+":"+p.Head)
	set(obj, "head.user.login", p.HeadOwner)
	set(obj, "head.repo.name", s.st.Repo)
	set(obj, "head.repo.full_name", p.HeadOwner+"/"+s.st.Repo)
	set(obj, "head.repo.owner.login", p.HeadOwner)
	set(obj, "base.ref", p.Base)
	set(obj, "base.label", s.st.Owner+":"+p.Base)
	set(obj, "base.user.login", s.st.Owner)
	set(obj, "base.repo.name", s.st.Repo)
	set(obj, "base.repo.full_name", s.st.Owner+"/"+s.st.Repo)
	set(obj, "base.repo.owner.login", s.st.Owner)
	set(obj, "assignees", s.users(obj, p.Assignees))
	if len(p.Assignees) > 0 {
		set(obj, "assignee", s.users(obj, p.Assignees[:1])[0])
	} else {
		set(obj, "assignee", nil)
	}
	set(obj, "labels", s.labels(p.Labels))
	// Teams are not modelled, and GitHub's own example team lacks a field
	// its schema requires.
	set(obj, "requested_teams", []any{})
	closedAt := any(nil)
	mergedAt := any(nil)
	if p.State == "closed" {
		closedAt = "2026-01-02T03:04:05Z"
	}
	if p.Merged {
		mergedAt = "2026-01-02T03:04:05Z"
	}
	set(obj, "closed_at", closedAt)
	set(obj, "merged_at", mergedAt)
	if !full {
		return
	}
	set(obj, "merged", p.Merged)
	mergeable := any(true)
	if p.Mergeable != nil {
		mergeable = *p.Mergeable
	}
	state := p.MergeableState
	if state == "" {
		state = "clean"
	}
	if p.State != "open" {
		mergeable, state = nil, "unknown"
	}
	set(obj, "mergeable", mergeable)
	set(obj, "mergeable_state", state)
}

func listReviews(s *Server, c *call) reply {
	n := c.intParam("pull_number")
	if s.st.pr(n) == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var match []Review
	for _, rv := range s.st.Reviews {
		if rv.PR == n {
			match = append(match, rv)
		}
	}
	rep := reply{status: 200}
	lo, hi := s.pageOf(c, len(match), &rep)
	items := []any{}
	for _, rv := range match[lo:hi] {
		obj := s.itemTemplate("pulls/list-reviews", 200)
		set(obj, "id", rv.ID)
		set(obj, "node_id", fmt.Sprintf("PRR_fake%d", rv.ID))
		set(obj, "user.login", rv.User)
		set(obj, "body", rv.Body)
		set(obj, "state", rv.State)
		set(obj, "html_url", s.htmlURL("pull", n)+fmt.Sprintf("#pullrequestreview-%d", rv.ID))
		set(obj, "pull_request_url", s.apiURL("repos/%s/%s/pulls/%d", s.st.Owner, s.st.Repo, n))
		set(obj, "submitted_at", rv.SubmittedAt.UTC().Format(time.RFC3339))
		items = append(items, obj)
	}
	rep.body = items
	return rep
}

func listReviewComments(s *Server, c *call) reply {
	n := c.intParam("pull_number")
	if s.st.pr(n) == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var match []ReviewComment
	for _, rc := range s.st.ReviewComments {
		if rc.PR == n {
			match = append(match, rc)
		}
	}
	rep := reply{status: 200}
	lo, hi := s.pageOf(c, len(match), &rep)
	items := []any{}
	for _, rc := range match[lo:hi] {
		obj := s.itemTemplate("pulls/list-review-comments", 200)
		set(obj, "id", rc.ID)
		set(obj, "node_id", fmt.Sprintf("PRRC_fake%d", rc.ID))
		set(obj, "user.login", rc.User)
		set(obj, "path", rc.Path)
		set(obj, "body", rc.Body)
		set(obj, "line", nullIfZero(rc.Line))
		set(obj, "original_line", nullIfZero(rc.Line))
		set(obj, "html_url", s.htmlURL("pull", n)+fmt.Sprintf("#discussion_r%d", rc.ID))
		set(obj, "pull_request_url", s.apiURL("repos/%s/%s/pulls/%d", s.st.Owner, s.st.Repo, n))
		if rc.InReplyTo != 0 {
			set(obj, "in_reply_to_id", rc.InReplyTo)
		} else {
			delete(obj, "in_reply_to_id")
		}
		items = append(items, obj)
	}
	rep.body = items
	return rep
}

// refSHA resolves a ref the way the commits endpoints do for the refs the
// fake knows: a SHA stands for itself, a PR head branch for its head SHA.
func (s *Server) refSHA(ref string) string {
	for _, p := range s.st.PRs {
		if p.Head == ref && p.HeadOwner == s.st.Owner {
			return p.HeadSHA
		}
	}
	return ref
}

func listCheckRuns(s *Server, c *call) reply {
	sha := s.refSHA(c.params["ref"])
	var match []CheckRun
	for _, cr := range s.st.CheckRuns {
		if cr.SHA != sha {
			continue
		}
		if name := c.query.Get("check_name"); name != "" && cr.Name != name {
			continue
		}
		if st := c.query.Get("status"); st != "" && cr.Status != st {
			continue
		}
		match = append(match, cr)
	}
	rep := reply{status: 200}
	lo, hi := s.pageOf(c, len(match), &rep)
	runs := []any{}
	tmpl := s.template("checks/list-for-ref", 200)
	for _, cr := range match[lo:hi] {
		obj := firstItem(tmpl["check_runs"])
		set(obj, "id", cr.ID)
		set(obj, "node_id", fmt.Sprintf("CR_fake%d", cr.ID))
		set(obj, "name", cr.Name)
		set(obj, "head_sha", cr.SHA)
		set(obj, "status", cr.Status)
		html := fmt.Sprintf("https://github.com/%s/%s/runs/%d", s.st.Owner, s.st.Repo, cr.ID)
		set(obj, "html_url", html)
		set(obj, "details_url", html)
		set(obj, "url", s.apiURL("repos/%s/%s/check-runs/%d", s.st.Owner, s.st.Repo, cr.ID))
		if cr.Status == "completed" {
			set(obj, "conclusion", cr.Conclusion)
			set(obj, "completed_at", "2026-01-02T03:04:05Z")
		} else {
			set(obj, "conclusion", nil)
			set(obj, "completed_at", nil)
		}
		runs = append(runs, obj)
	}
	rep.body = map[string]any{"total_count": len(match), "check_runs": runs}
	return rep
}

func combinedStatus(s *Server, c *call) reply {
	sha := s.refSHA(c.params["ref"])
	all := latestStatuses(s.st.Statuses, sha)
	obj := s.template("repos/get-combined-status-for-ref", 200)
	rep := reply{status: 200}
	lo, hi := s.pageOf(c, len(all), &rep)
	statuses := []any{}
	for i, st := range all[lo:hi] {
		item := firstItem(obj["statuses"])
		set(item, "id", int64(5000+lo+i))
		set(item, "node_id", fmt.Sprintf("SC_fake%d", lo+i))
		set(item, "context", st.Context)
		set(item, "state", st.State)
		set(item, "description", st.Description)
		set(item, "target_url", nullIfEmpty(st.TargetURL))
		statuses = append(statuses, item)
	}
	// GitHub's combined state: failure if any failed, pending if any is
	// pending or there are none, else success.
	state := "success"
	if len(all) == 0 {
		state = "pending"
	}
	for _, st := range all {
		switch st.State {
		case "error", "failure":
			state = "failure"
		case "pending":
			if state != "failure" {
				state = "pending"
			}
		}
	}
	set(obj, "state", state)
	set(obj, "sha", sha)
	set(obj, "total_count", len(all))
	set(obj, "statuses", statuses)
	rep.body = obj
	return rep
}

func listComments(s *Server, c *call) reply {
	n := c.intParam("issue_number")
	if s.st.pr(n) == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var match []Comment
	for _, cm := range s.st.Comments {
		if cm.Issue == n {
			match = append(match, cm)
		}
	}
	rep := reply{status: 200}
	lo, hi := s.pageOf(c, len(match), &rep)
	items := []any{}
	for _, cm := range match[lo:hi] {
		items = append(items, s.commentJSON(cm))
	}
	rep.body = items
	return rep
}

func (s *Server) commentJSON(cm Comment) map[string]any {
	obj := s.template("issues/update-comment", 200)
	set(obj, "id", cm.ID)
	set(obj, "node_id", fmt.Sprintf("IC_fake%d", cm.ID))
	set(obj, "body", cm.Body)
	set(obj, "user.login", cm.User)
	set(obj, "html_url", s.htmlURL("pull", cm.Issue)+fmt.Sprintf("#issuecomment-%d", cm.ID))
	set(obj, "url", s.apiURL("repos/%s/%s/issues/comments/%d", s.st.Owner, s.st.Repo, cm.ID))
	set(obj, "issue_url", s.apiURL("repos/%s/%s/issues/%d", s.st.Owner, s.st.Repo, cm.Issue))
	set(obj, "created_at", cm.CreatedAt.UTC().Format(time.RFC3339))
	set(obj, "updated_at", cm.UpdatedAt.UTC().Format(time.RFC3339))
	return obj
}

// bodyField decodes the JSON request body (already validated) into v.
func bodyField(c *call, v any) error { return json.Unmarshal(c.body, v) }

func createComment(s *Server, c *call) reply {
	n := c.intParam("issue_number")
	if s.st.pr(n) == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var in struct{ Body string }
	if err := bodyField(c, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON")
	}
	now := time.Now().UTC().Truncate(time.Second)
	cm := Comment{ID: s.st.nextID(), Issue: n, User: c.login, Body: in.Body, CreatedAt: now, UpdatedAt: now}
	s.st.Comments = append(s.st.Comments, cm)
	obj := s.commentJSON(cm)
	return reply{status: 201, body: obj, header: http.Header{"Location": {obj["url"].(string)}}}
}

func updateComment(s *Server, c *call) reply {
	id, _ := strconv.ParseInt(c.params["comment_id"], 10, 64)
	for i := range s.st.Comments {
		cm := &s.st.Comments[i]
		if cm.ID != id {
			continue
		}
		var in struct{ Body string }
		if err := bodyField(c, &in); err != nil {
			return errorReply(http.StatusBadRequest, "Problems parsing JSON")
		}
		cm.Body = in.Body
		cm.UpdatedAt = time.Now().UTC().Truncate(time.Second)
		return reply{status: 200, body: s.commentJSON(*cm)}
	}
	return errorReply(http.StatusNotFound, "Not Found")
}

// deleteComment removes a conversation comment and keeps it in
// DeletedComments, so tests can see what went. Like updateComment it does
// not check who wrote the comment: on GitHub that is a question of the
// token's access, which the fake models with faults (a 403 for a token that
// lacks issues=write, say). An unknown or already deleted id is 404.
func deleteComment(s *Server, c *call) reply {
	id, _ := strconv.ParseInt(c.params["comment_id"], 10, 64)
	for i, cm := range s.st.Comments {
		if cm.ID != id {
			continue
		}
		s.st.Comments = append(s.st.Comments[:i], s.st.Comments[i+1:]...)
		cm.UpdatedAt = time.Now().UTC().Truncate(time.Second)
		s.st.DeletedComments = append(s.st.DeletedComments, cm)
		return reply{status: http.StatusNoContent}
	}
	return errorReply(http.StatusNotFound, "Not Found")
}

func addAssignees(s *Server, c *call) reply {
	p := s.st.pr(c.intParam("issue_number"))
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var in struct{ Assignees []string }
	if err := bodyField(c, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON")
	}
	for _, a := range in.Assignees {
		if !slices.Contains(p.Assignees, a) {
			p.Assignees = append(p.Assignees, a)
		}
	}
	obj := s.template("issues/add-assignees", 201)
	set(obj, "number", p.Number)
	set(obj, "title", p.Title)
	set(obj, "state", p.State)
	set(obj, "html_url", s.htmlURL("pull", p.Number))
	set(obj, "assignees", s.users(obj, p.Assignees))
	if len(p.Assignees) > 0 {
		set(obj, "assignee", s.users(obj, p.Assignees[:1])[0])
	}
	set(obj, "labels", s.labels(p.Labels))
	return reply{status: 201, body: obj}
}

func addLabels(s *Server, c *call) reply {
	p := s.st.pr(c.intParam("issue_number"))
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var in struct {
		Labels []string `json:"labels"`
	}
	if err := bodyField(c, &in); err != nil {
		// The description allows label objects and bare arrays as well;
		// ghpr sends the recommended {"labels": [names]}, so the fake does
		// not serve the others.
		return errorReply(http.StatusUnprocessableEntity, "fake github only serves {\"labels\": [names]}")
	}
	for _, l := range in.Labels {
		if !slices.Contains(p.Labels, l) {
			p.Labels = append(p.Labels, l)
		}
	}
	return reply{status: 200, body: s.labels(p.Labels)}
}

func getUser(s *Server, c *call) reply {
	obj := s.template("users/get-authenticated", 200)
	set(obj, "login", c.login)
	set(obj, "type", "User")
	// The schema picks private-user or public-user by this field, which
	// GitHub's own example lacks.
	set(obj, "user_view_type", "private")
	return reply{status: 200, body: obj}
}

// users builds user objects from the template's own user.
func (s *Server) users(tmpl map[string]any, logins []string) []any {
	base, _ := tmpl["user"].(map[string]any)
	out := []any{}
	for i, l := range logins {
		u := map[string]any{}
		if base != nil {
			u = deepCopy(base).(map[string]any)
		}
		u["login"] = l
		u["id"] = 7000 + i
		u["node_id"] = "U_fake" + l
		u["html_url"] = "https://github.com/" + l
		out = append(out, u)
	}
	return out
}

func (s *Server) labels(names []string) []any {
	base := s.itemTemplate("issues/add-labels", 200)
	out := []any{}
	for i, n := range names {
		l := deepCopy(base).(map[string]any)
		l["id"] = 9000 + i
		l["node_id"] = "LA_fake" + n
		l["name"] = n
		l["url"] = s.apiURL("repos/%s/%s/labels/%s", s.st.Owner, s.st.Repo, url.PathEscape(n))
		l["default"] = false
		out = append(out, l)
	}
	return out
}

func (s *Server) htmlURL(kind string, n int) string {
	return fmt.Sprintf("https://github.com/%s/%s/%s/%d", s.st.Owner, s.st.Repo, kind, n)
}

func (s *Server) apiURL(format string, args ...any) string {
	return s.URL + fmt.Sprintf(format, args...)
}

// template is a fresh copy of GitHub's example for an operation's response.
func (s *Server) template(op string, status int) map[string]any {
	m, _ := s.spec.example(op, status).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// itemTemplate is the first element of a list operation's example.
func (s *Server) itemTemplate(op string, status int) map[string]any {
	return firstItem(s.spec.example(op, status))
}

func firstItem(v any) map[string]any {
	if l, ok := v.([]any); ok && len(l) > 0 {
		if m, ok := deepCopy(l[0]).(map[string]any); ok {
			return m
		}
	}
	return map[string]any{}
}

// set writes v at a dotted path, creating objects on the way.
func set(obj map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := obj[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[k] = next
		}
		obj = next
	}
	obj[keys[len(keys)-1]] = v
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, c := range t {
			m[k] = deepCopy(c)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, c := range t {
			l[i] = deepCopy(c)
		}
		return l
	default:
		return v
	}
}

func nullIfZero(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func atoiDefault(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}
