package ghprtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
)

// Server is a fake GitHub for one repository. It answers the REST operations
// and the GraphQL fields ghpr uses, checks every request against GitHub's
// published descriptions, and records what it saw. A request that no
// operation matches, or that fails validation, is answered with an error and
// kept as a failure; NewServer turns failures into test errors at cleanup.
type Server struct {
	// URL is the REST root with its trailing slash, for GITHUB_API_URL or
	// ghpr.Options.APIURL: http://127.0.0.1:PORT/prefix/ (or /api/v3/).
	URL string
	// GraphQLURL is the GraphQL endpoint: URL + "graphql", or /api/graphql
	// for an Enterprise-style server.
	GraphQLURL string
	// AdminURL is the root of the admin endpoints (outside the API prefix):
	// GET state, POST seed, POST fault. See Main.
	AdminURL string

	hs          *httptest.Server
	spec        *spec
	prefix      string // "/prefix/" or "/api/v3/"
	graphqlPath string

	mu       sync.Mutex
	st       State
	requests []Request
	failures []string
	hook     func(Request) // see SetHook
}

// Request is one request as the fake saw it. The token is never recorded,
// only whether one matched.
type Request struct {
	Method        string `json:"method"`
	Path          string `json:"path"` // as sent, prefix included
	Query         string `json:"query,omitempty"`
	Op            string `json:"op,omitempty"` // operationId, "graphql", or "" when unmatched
	Body          string `json:"body,omitempty"`
	Status        int    `json:"status"`
	Authenticated bool   `json:"authenticated"`
}

type config struct {
	enterprise bool
	prefix     string
	state      State
}

// Option configures a Server.
type Option func(*config)

// Enterprise mounts the fake the way GitHub Enterprise Server is laid out:
// REST under /api/v3/ and GraphQL at /api/graphql.
func Enterprise() Option { return func(c *config) { c.enterprise = true } }

// Prefix mounts REST under p (default "/prefix/") with GraphQL at p+"graphql",
// the way a GITHUB_API_URL with a path is used.
func Prefix(p string) Option { return func(c *config) { c.prefix = p } }

// WithState seeds the fake.
func WithState(st State) Option { return func(c *config) { c.state = st } }

// NewServer starts a fake for a test. At cleanup it closes and reports each
// recorded failure with t.Error.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		s.Verify(t)
	})
	return s
}

// Start starts a fake outside a test (see Main); the caller closes it and
// reads Failures.
func Start(opts ...Option) (*Server, error) {
	c := config{prefix: "/prefix/"}
	for _, o := range opts {
		o(&c)
	}
	sp, err := loadSpec()
	if err != nil {
		return nil, err
	}
	s := &Server{spec: sp, prefix: c.prefix}
	if !strings.HasPrefix(s.prefix, "/") || !strings.HasSuffix(s.prefix, "/") || s.prefix == "/" {
		return nil, fmt.Errorf("prefix %q must start and end with / and not be the root", s.prefix)
	}
	s.graphqlPath = s.prefix + "graphql"
	if c.enterprise {
		s.prefix, s.graphqlPath = "/api/v3/", "/api/graphql"
	}
	s.st = c.state
	s.st.normalize()
	// The URLs are set before the server serves: handlers read them, and a
	// write after Start would race with the first request.
	s.hs = httptest.NewUnstartedServer(s)
	base := "http://" + s.hs.Listener.Addr().String()
	s.URL = base + s.prefix
	s.GraphQLURL = base + s.graphqlPath
	s.AdminURL = base + adminPrefix
	s.hs.Start()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.hs.Close() }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.hs.Client() }

// Verify reports every recorded failure with t.Error.
func (s *Server) Verify(t testing.TB) {
	t.Helper()
	for _, f := range s.Failures() {
		t.Error("fake github: " + f)
	}
}

// Failures returns the requests the fake rejected as not GitHub's.
func (s *Server) Failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.failures...)
}

// TakeFailures returns the failures and forgets them, for tests that send a
// wrong request on purpose.
func (s *Server) TakeFailures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.failures
	s.failures = nil
	return f
}

// Requests returns every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// State returns a deep copy of the current state.
func (s *Server) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out State
	b, _ := json.Marshal(s.st)
	_ = json.Unmarshal(b, &out)
	return out
}

// Update changes the state under the server's lock; defaults are applied
// afterwards, so added records may leave ids and the like zero.
func (s *Server) Update(f func(*State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.st)
	s.st.normalize()
}

// AddPR adds a pull request.
func (s *Server) AddPR(p PR) { s.Update(func(st *State) { st.PRs = append(st.PRs, p) }) }

// AddCheckRuns adds check runs.
func (s *Server) AddCheckRuns(c ...CheckRun) {
	s.Update(func(st *State) { st.CheckRuns = append(st.CheckRuns, c...) })
}

// AddStatuses adds commit statuses.
func (s *Server) AddStatuses(c ...Status) {
	s.Update(func(st *State) { st.Statuses = append(st.Statuses, c...) })
}

// AddReviews adds reviews.
func (s *Server) AddReviews(r ...Review) {
	s.Update(func(st *State) { st.Reviews = append(st.Reviews, r...) })
}

// AddReviewComments adds REST review comments.
func (s *Server) AddReviewComments(c ...ReviewComment) {
	s.Update(func(st *State) { st.ReviewComments = append(st.ReviewComments, c...) })
}

// AddThreads adds GraphQL review threads.
func (s *Server) AddThreads(th ...Thread) {
	s.Update(func(st *State) { st.Threads = append(st.Threads, th...) })
}

// AddComments adds conversation comments.
func (s *Server) AddComments(c ...Comment) {
	s.Update(func(st *State) { st.Comments = append(st.Comments, c...) })
}

// AddFault queues a fault (see Fault).
func (s *Server) AddFault(f Fault) { s.Update(func(st *State) { st.Faults = append(st.Faults, f) }) }

// Comments returns the conversation comments on issue or PR n.
func (s *Server) Comments(n int) []Comment { return commentsOn(s.State().Comments, n) }

// DeletedComments returns the conversation comments deleted from issue or
// PR n, in the order they were deleted.
func (s *Server) DeletedComments(n int) []Comment { return commentsOn(s.State().DeletedComments, n) }

func commentsOn(cs []Comment, n int) []Comment {
	var out []Comment
	for _, c := range cs {
		if c.Issue == n {
			out = append(out, c)
		}
	}
	return out
}

// PR returns pull request n as the fake holds it.
func (s *Server) PR(n int) (PR, bool) {
	st := s.State()
	if p := st.pr(n); p != nil {
		return *p, true
	}
	return PR{}, false
}

func (s *Server) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	// Validation errors quote whole documents; the start says what is wrong.
	if len(msg) > 2000 {
		msg = msg[:2000] + " …"
	}
	s.failures = append(s.failures, msg)
}

// reply is what a handler answers.
type reply struct {
	status int
	body   any
	header http.Header
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, adminPrefix) {
		s.serveAdmin(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))

	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body)}
	rep, hook := func() (reply, func(Request)) {
		s.mu.Lock()
		defer s.mu.Unlock()
		rep := s.serve(r, body, &rec)
		rec.Status = rep.status
		s.requests = append(s.requests, rec)
		return rep, s.hook
	}()
	if hook != nil {
		hook(rec)
	}
	writeJSON(w, rep)
}

// SetHook makes f see every API request, as recorded, after the fake served
// it and before the answer is written, outside the server's lock. A test
// can sleep or block in f to hold an answer back and so make a race real
// (two clients that both list before either posts); nil removes the hook.
func (s *Server) SetHook(f func(Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = f
}

// serve runs with s.mu held.
func (s *Server) serve(r *http.Request, body []byte, rec *Request) reply {
	if r.URL.Path == s.graphqlPath {
		rec.Op = "graphql"
		if r.Method != http.MethodPost {
			s.fail("%s %s: GraphQL takes POST", r.Method, r.URL.Path)
			return errorReply(http.StatusNotFound, "Not Found")
		}
		auth, rep, ok := s.authenticate(r, rec, false)
		if !ok {
			return rep
		}
		if rep, ok := s.fault("graphql", r.Method); ok {
			return rep
		}
		return s.serveGraphQL(body, auth)
	}

	if !strings.HasPrefix(r.URL.Path, s.prefix) {
		s.fail("%s %s: outside the API prefix %s (an absolute path where a relative one was meant?)", r.Method, r.URL.Path, s.prefix)
		return errorReply(http.StatusNotFound, "Not Found")
	}
	// Route on a copy whose path is relative to the prefix.
	rr := r.Clone(context.Background())
	rr.URL.Path = "/" + strings.TrimPrefix(r.URL.Path, s.prefix)
	rr.URL.RawPath = ""
	if r.URL.RawPath != "" {
		rr.URL.RawPath = "/" + strings.TrimPrefix(r.URL.RawPath, s.prefix)
	}
	rr.Body = io.NopCloser(bytes.NewReader(body))
	route, params, err := s.spec.router.FindRoute(rr)
	if err != nil {
		s.fail("%s %s: no GitHub operation matches: %v", r.Method, r.URL.Path, err)
		return errorReply(http.StatusNotFound, "Not Found")
	}
	rec.Op = route.Operation.OperationID
	in := &openapi3filter.RequestValidationInput{
		Request:    rr,
		PathParams: params,
		Route:      route,
		Options: &openapi3filter.Options{
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			MultiError:         true,
		},
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		s.fail("%s %s (%s): request does not match GitHub's description: %v", r.Method, r.URL.Path, rec.Op, err)
		return errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\n"+err.Error())
	}
	auth, rep, ok := s.authenticate(r, rec, r.Method == http.MethodGet)
	if !ok {
		return rep
	}
	if rep, ok := s.fault(rec.Op, r.Method); ok {
		return rep
	}
	if params["owner"] != "" && (!strings.EqualFold(params["owner"], s.st.Owner) || !strings.EqualFold(params["repo"], s.st.Repo)) {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	h, ok := handlers[rec.Op]
	if !ok {
		s.fail("%s %s: the fake has no handler for %s", r.Method, r.URL.Path, rec.Op)
		return errorReply(http.StatusNotImplemented, "fake github does not serve "+rec.Op)
	}
	rep = h(s, &call{r: r, params: params, query: r.URL.Query(), body: body, login: auth})
	s.checkResponse(in, rep)
	return rep
}

// authenticate checks the Authorization header. It returns the login the
// request acts as ("" for anonymous) or the reply that refuses it. A wrong
// token is always refused; no token is refused except for reads of a public
// repository. A private repository answers anonymous reads 404, as GitHub
// does, so that its existence does not leak.
func (s *Server) authenticate(r *http.Request, rec *Request, read bool) (string, reply, bool) {
	h := r.Header.Get("Authorization")
	if h != "" {
		scheme, tok, _ := strings.Cut(h, " ")
		if (strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "token")) && tok != "" && tok == s.st.Token {
			rec.Authenticated = true
			return s.st.Login, reply{}, true
		}
		return "", errorReply(http.StatusUnauthorized, "Bad credentials"), false
	}
	switch {
	case read && s.st.Public && rec.Op != "users/get-authenticated":
		return "", reply{}, true
	case read && rec.Op != "users/get-authenticated":
		return "", errorReply(http.StatusNotFound, "Not Found"), false
	default:
		return "", errorReply(http.StatusUnauthorized, "Requires authentication"), false
	}
}

// fault answers from the first matching queued fault and uses it up.
func (s *Server) fault(op, method string) (reply, bool) {
	for i := range s.st.Faults {
		f := &s.st.Faults[i]
		if (f.Op != "" && f.Op != op) || (f.Method != "" && !strings.EqualFold(f.Method, method)) {
			continue
		}
		rep := reply{status: f.Status, header: http.Header{}}
		for k, v := range f.Headers {
			rep.header.Set(k, v)
		}
		if len(f.Body) > 0 {
			rep.body = f.Body
		} else {
			rep.body = defaultFaultBody(f.Status, rep.header)
		}
		switch {
		case f.Times < 0:
		case f.Times <= 1:
			s.st.Faults = append(s.st.Faults[:i], s.st.Faults[i+1:]...)
		default:
			f.Times--
		}
		return rep, true
	}
	return reply{}, false
}

// defaultFaultBody writes the message GitHub sends with each kind of refusal;
// go-github tells a secondary limit from other 403s by its documentation_url.
func defaultFaultBody(status int, h http.Header) any {
	msg := map[int]string{
		401: "Bad credentials",
		403: "Resource not accessible by personal access token",
		404: "Not Found",
		422: "Validation Failed",
		429: "API rate limit exceeded",
	}[status]
	doc := "https://docs.github.com/rest"
	switch {
	case status == 403 && h.Get("X-RateLimit-Remaining") == "0":
		msg = "API rate limit exceeded for user."
		doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
	case status == 403 && h.Get("Retry-After") != "":
		msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
		doc = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return map[string]any{"message": msg, "documentation_url": doc, "status": fmt.Sprint(status)}
}

func errorReply(status int, msg string) reply {
	return reply{status: status, body: map[string]any{
		"message": msg, "documentation_url": "https://docs.github.com/rest", "status": fmt.Sprint(status),
	}}
}

// checkResponse validates a success answer against the description too, so
// the fake cannot drift from what GitHub sends without a test noticing.
func (s *Server) checkResponse(in *openapi3filter.RequestValidationInput, rep reply) {
	if rep.status >= 300 {
		return
	}
	b, err := json.Marshal(rep.body)
	if err != nil {
		s.fail("encoding reply to %s: %v", in.Route.Operation.OperationID, err)
		return
	}
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	for k, v := range rep.header {
		h[k] = v
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 rep.status,
		Header:                 h,
		Options:                &openapi3filter.Options{MultiError: true},
	}
	out.SetBodyBytes(b)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		s.fail("the fake's own answer to %s does not match GitHub's description: %v", in.Route.Operation.OperationID, err)
	}
}

func writeJSON(w http.ResponseWriter, rep reply) {
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if rep.body == nil || status == http.StatusNoContent {
		return
	}
	if raw, ok := rep.body.(json.RawMessage); ok {
		_, _ = w.Write(raw)
		return
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(rep.body)
}

// pageOf cuts one page out of n items the way GitHub does (per_page default
// 30, at most 100; page from 1) and sets a Link header with next and last.
func (s *Server) pageOf(c *call, n int, rep *reply) (lo, hi int) {
	per := atoiDefault(c.query.Get("per_page"), 30)
	if per > 100 {
		per = 100
	}
	if per < 1 {
		per = 30
	}
	page := atoiDefault(c.query.Get("page"), 1)
	if page < 1 {
		page = 1
	}
	lo = min((page-1)*per, n)
	hi = min(lo+per, n)
	last := (n + per - 1) / per
	if rep.header == nil {
		rep.header = http.Header{}
	}
	link := func(p int, rel string) string {
		q := url.Values{}
		for k, v := range c.query {
			q[k] = v
		}
		q.Set("page", fmt.Sprint(p))
		q.Set("per_page", fmt.Sprint(per))
		u := url.URL{Scheme: "http", Host: c.r.Host, Path: c.r.URL.Path, RawQuery: q.Encode()}
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		rep.header.Set("Link", strings.Join(links, ", "))
	}
	return lo, hi
}
