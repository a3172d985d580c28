package webui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/view"
)

// maxBody bounds a request body: the largest is a switch or a replacement
// of a few short fields.
const maxBody = 64 << 10

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.page)
	m.Handle("GET /assets/", http.StripPrefix("/assets/", assetHandler()))
	m.HandleFunc("GET /api/projects", s.projects)
	m.HandleFunc("GET /api/agents", s.agents)
	m.HandleFunc("GET /api/handoffs", s.withRepo(false, s.listHandoffs))
	m.HandleFunc("DELETE /api/handoffs/{id}", s.withRepo(true, s.dismiss))
	m.HandleFunc("POST /api/handoffs/{id}/restore", s.withRepo(true, s.undismiss))
	m.HandleFunc("GET /api/sessions", s.withRepo(false, s.listSessions))
	m.HandleFunc("GET /api/sessions/{id}", s.withRepo(false, s.showSession))
	m.HandleFunc("GET /api/sessions/{id}/lineage", s.withRepo(false, s.sessionLineage))
	m.HandleFunc("POST /api/sessions/{id}/switch", s.withRepo(true, s.switchSession))
	m.HandleFunc("POST /api/sessions/{id}/replace", s.withRepo(true, s.replaceSession))
	m.HandleFunc("POST /api/sessions/{id}/launch", s.withRepo(true, s.launchSession))
	m.HandleFunc("POST /api/sessions/{id}/restore", s.withRepo(true, s.restoreSession))
	m.HandleFunc("GET /api/sessions/{id}/attach", s.withRepo(false, s.attachSession))
	m.HandleFunc("GET /api/sessions/{id}/pane", s.withRepo(false, s.sessionPane))
	m.HandleFunc("GET /api/sessions/{id}/continue", s.withRepo(false, s.previewContinue))
	m.HandleFunc("POST /api/sessions/{id}/continue", s.withRepo(true, s.continueSession))
	m.HandleFunc("GET /api/prs", s.withRepo(false, s.listPRs))
	m.HandleFunc("GET /api/leases", s.withRepo(false, s.listLeases))
	m.HandleFunc("POST /api/leases/release", s.withRepo(true, s.releaseLease))
	m.HandleFunc("POST /api/leases/break", s.withRepo(true, s.breakLease))
	m.HandleFunc("GET /api/events", s.events)
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no such endpoint: %s %s", r.Method, r.URL.Path), nil)
	})
	s.mux = m
}

// call is one request on one project's store.
type call struct {
	w       http.ResponseWriter
	r       *http.Request
	repo    Repo
	st      *refstore.Store
	notices []string // what opening the store said
}

// withRepo resolves ?project=, opens its store for the request and turns
// the handler's error into the JSON error answer.
func (s *Server) withRepo(write bool, fn func(*call) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		repo, err := s.project(r)
		if err != nil {
			writeError(w, statusOf(err), err, nil)
			return
		}
		st, notices, err := s.open(r.Context(), repo, write)
		if err != nil {
			writeError(w, statusOf(err), err, notices)
			return
		}
		defer st.Close()
		c := &call{w: w, r: r, repo: repo, st: st, notices: notices}
		if err := fn(c); err != nil {
			var fe *failed
			if errors.As(err, &fe) {
				writeError(w, statusOf(fe.err), fe.err, append(c.notices, fe.notices...))
				return
			}
			writeError(w, statusOf(err), err, c.notices)
		}
	}
}

// failed is a workflow's error with the notices it had gathered.
type failed struct {
	err     error
	notices []string
}

func (f *failed) Error() string { return f.err.Error() }

// requestError is a request refused before any workflow ran.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, a ...any) error {
	return &requestError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, a...)}
}

// statusOf maps an error to a status code as the command maps it to an
// exit code: usage 400, conflict 409, not found 404.
func statusOf(err error) int {
	var re *requestError
	var ce *baton.ClaimedError
	var (
		notLive *handoff.NotLiveError
		noPlan  *handoff.NoLaunchError
		noProg  *handoff.ProgramNotFoundError
		noTree  *handoff.WorktreeGoneError
	)
	switch {
	case errors.As(err, &re):
		return re.status
	case errors.As(err, &notLive), errors.As(err, &noPlan), errors.As(err, &noProg), errors.As(err, &noTree):
		// The session's state does not allow it now, as a conflict does.
		return http.StatusConflict
	case errors.Is(err, harness.ErrUnknown), errors.Is(err, refstore.ErrBadName), errors.Is(err, lease.ErrBadKey):
		return http.StatusBadRequest
	case errors.As(err, &ce), errors.Is(err, refstore.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, refstore.ErrNotFound):
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

// errorJSON is every error answer: the command's message, and what was
// noticed on the way.
type errorJSON struct {
	Error   string   `json:"error"`
	Status  int      `json:"status"`
	Notices []string `json:"notices"`
}

func writeError(w http.ResponseWriter, status int, err error, notices []string) {
	writeJSON(w, status, errorJSON{Error: err.Error(), Status: status, Notices: view.NonNil(notices)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// decodeBody reads a JSON request body into v; an empty body leaves v as
// it is.
func decodeBody(r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return badRequest("reading the request: %v", err)
	}
	if len(body) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("reading the request: %v", err)
	}
	return nil
}

func (s *Server) projects(w http.ResponseWriter, r *http.Request) {
	out := projectsJSON{Projects: []projectJSON{}}
	for _, id := range s.order {
		out.Projects = append(out.Projects, projectJSON{ID: id, Dir: s.repos[id].Dir})
	}
	writeJSON(w, http.StatusOK, out)
}

// agents lists the catalogue with whether each agent's program is on
// this machine; the page offers only those that are (and "shell", which
// stands for a person and needs none).
func (s *Server) agents(w http.ResponseWriter, r *http.Request) {
	out := agentsJSON{Agents: []agentJSON{}}
	for _, h := range harness.All() {
		a := agentJSON{Name: h.Name, Program: h.Binary, Installed: h.Binary == ""}
		if h.Binary != "" {
			if _, err := s.opts.LookPath(h.Binary); err == nil {
				a.Installed = true
			}
		}
		out.Agents = append(out.Agents, a)
	}
	writeJSON(w, http.StatusOK, out)
}

// boolParam reads an optional true/false filter.
func boolParam(r *http.Request, name string) (*bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, badRequest("?%s= is true or false, not %q", name, v)
	}
	return &b, nil
}

func (s *Server) listHandoffs(c *call) error {
	q := c.r.URL.Query()
	shared, err := boolParam(c.r, "shared")
	if err != nil {
		return err
	}
	claimed, err := boolParam(c.r, "claimed")
	if err != nil {
		return err
	}
	// ?recentClaimed=N keeps only the N latest claims: a board shows who
	// took what lately, not every claim a long history holds.
	recent := -1
	if v := q.Get("recentClaimed"); v != "" {
		if recent, err = strconv.Atoi(v); err != nil || recent < 0 {
			return badRequest("?recentClaimed= is a count, not %q", v)
		}
	}
	root := fingerprint(c.st.CommonDir())
	res, err := handoff.List(c.r.Context(), c.st, handoff.ListOptions{All: true})
	if err != nil {
		return err
	}
	keep := latestClaims(res.Handoffs, recent)
	signing, err := handoff.Signing(c.r.Context(), c.st)
	if err != nil {
		return err
	}
	out := listJSON[*view.Baton]{Items: []*view.Baton{}, ProjectID: c.repo.Name, LastSeenRoot: root,
		Now: s.opts.Clock(), Notices: view.NonNil(append(c.notices, res.Notices...)),
		Signing: &signingJSON{Signs: signing.Signs, RequireSigned: signing.RequireSigned}}
	for i := range res.Handoffs {
		h := &res.Handoffs[i]
		switch {
		case q.Has("owner") && h.Owner != q.Get("owner"),
			q.Has("branch") && h.Branch != q.Get("branch"),
			shared != nil && h.Shared != *shared,
			claimed != nil && h.Claimed != *claimed,
			h.Claimed && keep != nil && !keep[h.ID]:
			continue
		}
		out.Items = append(out.Items, view.OfBaton(h))
	}
	out.Total = len(out.Items)
	writeJSON(c.w, http.StatusOK, out)
	return nil
}

// latestClaims names the n claimed batons claimed last (nil: n < 0, all).
func latestClaims(list []baton.Stored, n int) map[string]bool {
	if n < 0 {
		return nil
	}
	var claimed []*baton.Stored
	for i := range list {
		if list[i].Claimed {
			claimed = append(claimed, &list[i])
		}
	}
	slices.SortStableFunc(claimed, func(a, b *baton.Stored) int {
		return claimedAt(b).Compare(claimedAt(a))
	})
	keep := map[string]bool{}
	for _, b := range claimed[:min(n, len(claimed))] {
		keep[b.ID] = true
	}
	return keep
}

func claimedAt(b *baton.Stored) time.Time {
	if b.ClaimedAt == nil {
		return time.Time{}
	}
	return *b.ClaimedAt
}

func (s *Server) dismiss(c *call) error {
	id := c.r.PathValue("id")
	res, err := handoff.Dismiss(c.r.Context(), c.st, handoff.DismissOptions{ID: id, Arbiter: s.opts.Arbiter}, s.opts.Clock)
	if err != nil {
		return &failed{err: err, notices: res.Notices}
	}
	writeJSON(c.w, http.StatusOK, view.Dismiss{Dismissed: true, Handoff: view.OfBaton(&res.Dismissed),
		Notices: view.NonNil(append(c.notices, res.Notices...))})
	return nil
}

func (s *Server) listSessions(c *call) error {
	all, err := boolParam(c.r, "all")
	if err != nil {
		return err
	}
	root := fingerprint(c.st.CommonDir())
	opts := handoff.SessionListOptions{All: all != nil && *all}
	if opts.All {
		// Final sessions retire at once: all reaches back the retention
		// age into the archive, as `session ls --all` does.
		retention, err := teamsync.Retention(c.r.Context(), c.st)
		if err != nil {
			return err
		}
		opts.Recent = teamsync.ListedSince(s.opts.Clock(), retention)
	}
	res, err := handoff.SessionList(c.r.Context(), c.st, opts)
	if err != nil {
		return err
	}
	var pairs [][2]string
	for _, l := range res.Sessions {
		if l.Status == session.StatusActive {
			pairs = append(pairs, [2]string{l.Owner, l.Branch})
		}
	}
	objectives, more := handoff.Objectives(c.r.Context(), c.st, pairs)
	out := listJSON[sessionRowJSON]{Items: []sessionRowJSON{}, ProjectID: c.repo.Name, LastSeenRoot: root,
		Now: s.opts.Clock(), Notices: view.NonNil(append(append(c.notices, res.Notices...), more...))}
	for _, l := range res.Sessions {
		j := sessionRowJSON{Session: view.OfSession(l.Record, false)}
		j.Lineage = l.Lineage
		j.Session.WithRuntime(l.Runtime)
		j.OtherHost = !handoff.Here(c.st, &l.Record).Host
		j.EndReason = l.EndReason
		if l.Status == session.StatusActive {
			j.Objective = view.OfObjective(objectives[handoff.ObjectiveKey(l.Owner, l.Branch)])
		}
		if l.Runtime != nil && l.Runtime.State == tmuxrt.StateLive {
			j.AttachLine = attachLine(l.ID)
		}
		out.Items = append(out.Items, j)
	}
	out.Total = len(out.Items)
	writeJSON(c.w, http.StatusOK, out)
	return nil
}

func (s *Server) showSession(c *call) error {
	id := c.r.PathValue("id")
	res, err := handoff.SessionFind(c.r.Context(), c.st, id)
	if err != nil {
		return fmt.Errorf("showing session: %w", err)
	}
	out := view.OfSession(res.Session.Record, true)
	out.Lineage = res.Lineage
	out.MarkArchived(res.Session.Archived, res.Session.Ref)
	writeJSON(c.w, http.StatusOK, sessionShowJSON{Session: out, Notices: view.NonNil(c.notices)})
	return nil
}

func (s *Server) sessionLineage(c *call) error {
	id := c.r.PathValue("id")
	res, err := handoff.SessionLineage(c.r.Context(), c.st, id, "json")
	if err != nil {
		return &failed{err: fmt.Errorf("drawing the lineage: %w", err), notices: res.Notices}
	}
	var chain lineage.ChainView
	if err := json.Unmarshal([]byte(res.Drawing), &chain); err != nil {
		return fmt.Errorf("drawing the lineage: %w", err)
	}
	writeJSON(c.w, http.StatusOK, lineageJSON{Lineage: chain, Notices: view.NonNil(append(c.notices, res.Notices...))})
	return nil
}

// switchRequest is the body of POST /api/sessions/{id}/switch.
type switchRequest struct {
	Harness string `json:"harness"`
	Model   string `json:"model"`
	Prompt  string `json:"prompt"`
}

func (s *Server) switchSession(c *call) error {
	id := c.r.PathValue("id")
	var req switchRequest
	if err := decodeBody(c.r, &req); err != nil {
		return err
	}
	name, err := canonicalHarness(req.Harness)
	if err != nil {
		return err
	}
	ctx := c.r.Context()
	res, err := handoff.SessionSwitch(ctx, c.st, handoff.SessionRelaunchOptions{
		ID: id, Harness: name, Model: req.Model, Prompt: req.Prompt, By: s.opts.By, LiveOnly: true,
		Launcher: s.opts.Launcher, Exited: s.opts.Exited,
	}, s.opts.Clock)
	if err != nil {
		return &failed{err: fmt.Errorf("switching session %q to %s: %w", id, name, err), notices: res.Notices}
	}
	notices := append(c.notices, res.Notices...)
	notices = append(notices, refreshCommitHook(ctx, res.Bound)...)
	writeJSON(c.w, http.StatusOK, toRelaunchJSON(res, notices))
	return nil
}

// canonicalHarness refuses an unknown agent before anything is read, as
// the command's --harness does.
func canonicalHarness(name string) (string, error) {
	if name == "" {
		return "", badRequest("name the coding agent: {\"harness\": ...}, one of %s", strings.Join(harness.Names(), ", "))
	}
	h, err := harness.Lookup(name)
	if err != nil {
		return "", err
	}
	return h.Name, nil
}

// replaceRequest is the body of POST /api/sessions/{id}/replace; every
// field is optional, with the command's defaults.
type replaceRequest struct {
	Reason  string `json:"reason"`
	Harness string `json:"harness"`
	Model   string `json:"model"`
	NewID   string `json:"newId"`
	Context string `json:"carryContext"`
}

func (s *Server) replaceSession(c *call) error {
	id := c.r.PathValue("id")
	req := replaceRequest{Reason: "manual", Context: session.ContextSummary}
	if err := decodeBody(c.r, &req); err != nil {
		return err
	}
	if req.Reason == "" {
		req.Reason = "manual"
	}
	switch req.Context {
	case "":
		req.Context = session.ContextSummary
	case session.ContextSummary, session.ContextNone:
	default:
		return badRequest("carryContext is summary or none, not %q", req.Context)
	}
	var name string
	if req.Harness != "" {
		var err error
		if name, err = canonicalHarness(req.Harness); err != nil {
			return err
		}
	}
	var connect handoff.Connect
	if s.opts.Connect != nil {
		connect = s.opts.Connect(c.st.Dir())
	} else {
		connect = func(context.Context) (handoff.PRHost, error) {
			return nil, errors.New("the status page was started without a GitHub connection")
		}
	}
	ctx := c.r.Context()
	res, err := handoff.SessionReplace(ctx, c.st, handoff.SessionReplaceOptions{
		ReplaceOptions: session.ReplaceOptions{OldID: id, NewID: req.NewID, Reason: req.Reason,
			Harness: name, Model: req.Model, Context: req.Context},
		Connect: connect, Arbiter: s.opts.Arbiter,
	}, s.opts.Clock)
	if err != nil {
		return &failed{err: fmt.Errorf("replacing session %q: %w", id, err), notices: res.Notices}
	}
	notices := append(c.notices, res.Notices...)
	notices = append(notices, refreshCommitHook(ctx, res.Bound)...)
	out := view.OfReplace(res, notices)
	writeJSON(c.w, http.StatusOK, out)
	return nil
}

func (s *Server) listPRs(c *call) error {
	root := fingerprint(c.st.CommonDir())
	res, err := handoff.PRList(c.r.Context(), c.st)
	if err != nil {
		return err
	}
	out := listJSON[view.PRRecord]{Items: []view.PRRecord{}, ProjectID: c.repo.Name, LastSeenRoot: root,
		Now: s.opts.Clock(), Notices: view.NonNil(append(c.notices, res.Notices...))}
	for _, p := range res.PRs {
		out.Items = append(out.Items, view.OfPRRecord(p))
	}
	out.Total = len(out.Items)
	writeJSON(c.w, http.StatusOK, out)
	return nil
}
