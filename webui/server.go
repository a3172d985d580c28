// Package webui is `git handoff serve`: a status page and a JSON API over
// the same workflow functions the command line calls (package handoff).
// It translates requests into workflow options and results into JSON, and
// holds no rules of its own about records.
//
// Who may do what: every request must name a host this server answers to
// (loopback names unless a token guards it, so a rebound DNS name cannot
// read the page); with a token every request carries it; and every request
// that changes records must come from the page's own origin (Origin) and
// carry the token embedded in the page, so that another site open in the
// same browser can neither dismiss a baton nor switch an agent.
package webui

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

// Repo is one repository served, under its project id.
type Repo struct {
	Name string // the project id in URLs: ?project=NAME
	Dir  string // a directory inside the repository
}

// Options configure a Server. Repos is required; the rest have defaults.
type Options struct {
	Repos []Repo
	// Token, when set, is required on every request (a bearer header, or
	// ?token= where a browser cannot send one: the first page load and the
	// change stream), and is the token the page sends. Without it the
	// server only answers loopback host names and makes a token of its own
	// for the page.
	Token string
	// Clock is the workflows' clock (the command pins it with
	// GIT_HANDOFF_NOW). Default time.Now.
	Clock handoff.Clock
	// LookPath says whether an agent's program is installed, for the
	// Agent dropdown. Default exec.LookPath.
	LookPath func(string) (string, error)
	// Connect reaches GitHub for a replacement of a session that owns a
	// pull request (its facts go into the handoff package). nil: no
	// GitHub, which the workflow reports as a notice.
	Connect func(dir string) handoff.Connect
	// By names who holds a switch guard taken through the page.
	By string
	// Launcher and Exited are the commands a switch through the page
	// gives tmux, as the CLI's switch does (handoff.SessionRelaunchOptions):
	// what starts a long agent command, and what tells git-handoff that
	// the agent exited, so that its session ends with it.
	Launcher, Exited []string
	// Arbiter decides a dismissal where the baton's claims are decided
	// (the CLI's default: the remote that knows the baton); nil: locally.
	Arbiter handoff.Arbiter
	// Poll is how often the change stream looks at the ref files.
	// Default one second.
	Poll time.Duration
	// PaneEvery is how long a capture of a session's tmux pane is served
	// before tmux is asked again, whoever asks. Default five seconds.
	PaneEvery time.Duration
}

// Server serves the page, the API and the change stream.
type Server struct {
	opts      Options
	repos     map[string]Repo
	order     []string
	pageToken string
	mux       *http.ServeMux
	panes     panes
}

// New checks opts and builds the server.
func New(opts Options) (*Server, error) {
	if len(opts.Repos) == 0 {
		return nil, errors.New("serving: no repository to serve")
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.PaneEvery <= 0 {
		opts.PaneEvery = 5 * time.Second
	}
	if opts.By == "" {
		host, _ := os.Hostname()
		opts.By = fmt.Sprintf("the status page on %s (pid %d)", host, os.Getpid())
	}
	s := &Server{opts: opts, repos: map[string]Repo{}, panes: panes{last: map[string]paneEntry{}}}
	for _, r := range opts.Repos {
		if r.Name == "" || r.Name == "all" || strings.ContainsAny(r.Name, "/?#&") {
			return nil, fmt.Errorf("serving: %q cannot be a project id", r.Name)
		}
		if _, dup := s.repos[r.Name]; dup {
			return nil, fmt.Errorf("serving: project id %q given twice", r.Name)
		}
		s.repos[r.Name] = r
		s.order = append(s.order, r.Name)
	}
	s.pageToken = opts.Token
	if s.pageToken == "" {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("serving: making the page token: %w", err)
		}
		s.pageToken = hex.EncodeToString(b)
	}
	s.routes()
	return s, nil
}

// PageToken is the token the page sends with its requests.
func (s *Server) PageToken() string { return s.pageToken }

// ServeHTTP checks who is asking, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("Cache-Control", "no-store")
	if s.opts.Token == "" && !loopbackHost(r.Host) {
		writeError(w, http.StatusForbidden, fmt.Errorf("refused: this server answers only to loopback host names, not %q", r.Host), nil)
		return
	}
	if s.opts.Token != "" && !s.sentToken(r, true) {
		h.Set("WWW-Authenticate", `Bearer realm="git-handoff"`)
		writeError(w, http.StatusUnauthorized, errors.New("refused: this server needs its token (Authorization: Bearer TOKEN)"), nil)
		return
	}
	if mutating(r.Method) {
		if err := s.sameOrigin(r); err != nil {
			writeError(w, http.StatusForbidden, err, nil)
			return
		}
	} else if o := r.Header.Get("Origin"); o != "" && o != ownOrigin(r) {
		// A read that another site's script makes (a browser names the
		// origin on those; navigations carry none): the browser would
		// not show it the answer anyway, but the page holds the token.
		writeError(w, http.StatusForbidden, fmt.Errorf("refused: a read from another origin (%q)", o), nil)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func mutating(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// sentToken reports whether r carries the page token: as a bearer header,
// or, where allowQuery and the request only reads, as ?token=.
func (s *Server) sentToken(r *http.Request, allowQuery bool) bool {
	got := ""
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
		got = strings.TrimSpace(strings.TrimPrefix(a, "Bearer "))
	} else if allowQuery && !mutating(r.Method) {
		got = r.URL.Query().Get("token")
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.pageToken)) == 1
}

// sameOrigin refuses a change that does not come from this server's own
// page: the browser's Origin must name this very host, and the request
// must carry the token only that page was given.
func (s *Server) sameOrigin(r *http.Request) error {
	origin, own := r.Header.Get("Origin"), ownOrigin(r)
	if origin == "" || origin != own {
		return fmt.Errorf("refused: a change must come from this server's own page (origin %q, expected %q)", origin, own)
	}
	if !s.sentToken(r, false) {
		return errors.New("refused: a change must carry the page's token")
	}
	return nil
}

// ownOrigin is the origin of the page this request reached.
func ownOrigin(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

// loopbackHost reports whether a Host header names this machine's
// loopback interface: localhost, 127.0.0.0/8 or ::1.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// project names the repository a request is about (?project=ID).
func (s *Server) project(r *http.Request) (Repo, error) {
	id := r.URL.Query().Get("project")
	switch id {
	case "":
		return Repo{}, &requestError{status: http.StatusBadRequest, msg: "name a project: ?project=ID (one of " + strings.Join(s.order, ", ") + ")"}
	case "all":
		return Repo{}, &requestError{status: http.StatusBadRequest, msg: "one project at a time: ?project=all is not served (one of " + strings.Join(s.order, ", ") + ")"}
	}
	repo, ok := s.repos[id]
	if !ok {
		return Repo{}, &requestError{status: http.StatusNotFound, msg: fmt.Sprintf("unknown project %q: served are %s", id, strings.Join(s.order, ", "))}
	}
	return repo, nil
}

// open opens the project's repository for one request, as the command
// opens it: a Store is for one goroutine, so each request has its own. A
// request that writes first merges what a plain `git fetch` brought (the
// lazy merge every writing command runs); one that only reads never
// writes, and says what is not merged yet instead.
func (s *Server) open(ctx context.Context, repo Repo, write bool) (*refstore.Store, []string, error) {
	st, err := refstore.Open(ctx, repo.Dir, refstore.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("opening %s: %w", repo.Name, err)
	}
	st.GuardBindings(hooks.BindGuard(st.Dir(), st.Layout())) // bound only with the commit hook armed
	notices := append([]string(nil), st.Recovered()...)
	return st, append(notices, teamsync.MergeFetched(ctx, st, write)...), nil
}

// refreshCommitHook arms or disarms the commit hook of the worktree whose
// binding a change moved, as the command does after it (hooks.Refresh).
func refreshCommitHook(ctx context.Context, dir string) []string {
	if dir == "" {
		return nil
	}
	_, err := hooks.Refresh(ctx, dir)
	if errors.Is(err, hooks.ErrNotArmed) {
		// Its commits would not name the session: undo the binding.
		if st, oerr := refstore.Open(ctx, dir, refstore.Options{}); oerr == nil {
			if uerr := st.Unbind(ctx); uerr == nil {
				err = fmt.Errorf("%w; the worktree was unbound, so its commits will not name the session", err)
			}
			st.Close()
		}
	}
	if err != nil {
		return []string{fmt.Sprintf("updating the %s hook: %v", hooks.PrepareCommitMsg, err)}
	}
	return nil
}
