package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/view"
)

// The page's actions beyond dismiss, switch and replace: each calls the
// workflow the command of the same name calls (handoff.Undismiss for the
// page's undo, SessionLaunch for `session launch --tmux`, SessionRestore
// for `session restore`, SessionAttach for `session attach`) and answers
// what it did.

func (s *Server) undismiss(c *call) error {
	id := c.r.PathValue("id")
	res, err := handoff.Undismiss(c.r.Context(), c.st, handoff.UndismissOptions{ID: id, Arbiter: s.opts.Arbiter}, s.opts.Clock)
	if err != nil {
		return &failed{err: err, notices: res.Notices}
	}
	writeJSON(c.w, http.StatusOK, view.Undismiss{Restored: true, Handoff: view.OfBaton(&res.Restored),
		Notices: view.NonNil(append(c.notices, res.Notices...))})
	return nil
}

func (s *Server) launchSession(c *call) error {
	id := c.r.PathValue("id")
	if err := decodeBody(c.r, &struct{}{}); err != nil {
		return err
	}
	res, err := handoff.SessionLaunch(c.r.Context(), c.st, handoff.SessionLaunchOptions{
		ID: id, Tmux: true, Launcher: s.opts.Launcher, Exited: s.opts.Exited,
	}, s.opts.Clock)
	if err != nil {
		return &failed{err: fmt.Errorf("launching session %q: %w", id, err), notices: res.Notices}
	}
	rt := res.Runtime
	notices := append(c.notices, res.Notices...)
	notices = append(notices, snapshotOffer(c.r.Context(), c.st, id)...)
	if res.Plan.Note != "" {
		notices = append(notices, res.Plan.Note)
	}
	writeJSON(c.w, http.StatusOK, view.TmuxLaunch{
		Session: id, Runtime: &view.Runtime{Runtime: *rt, State: tmuxrt.StateLive},
		Launch: view.OfLaunch(res.Plan), Attach: attachLine(id), Notices: view.NonNil(notices),
	})
	return nil
}

// restoreRequest is the body of POST /api/sessions/{id}/restore.
type restoreRequest struct {
	Prompt string `json:"prompt"`
}

func (s *Server) restoreSession(c *call) error {
	id := c.r.PathValue("id")
	var req restoreRequest
	if err := decodeBody(c.r, &req); err != nil {
		return err
	}
	ctx := c.r.Context()
	res, err := handoff.SessionRestore(ctx, c.st, handoff.SessionRelaunchOptions{
		ID: id, Prompt: req.Prompt, By: s.opts.By, Launcher: s.opts.Launcher, Exited: s.opts.Exited,
	}, s.opts.Clock)
	if err != nil {
		return &failed{err: fmt.Errorf("restoring session %q: %w", id, err), notices: res.Notices}
	}
	notices := append(c.notices, res.Notices...)
	notices = append(notices, refreshCommitHook(ctx, res.Bound)...)
	notices = append(notices, snapshotOffer(ctx, c.st, id)...)
	out := toRelaunchJSON(res, notices)
	out.Recreated = res.Recreated
	if res.Session.Runtime != nil {
		out.Attach = attachLine(id)
	}
	writeJSON(c.w, http.StatusOK, out)
	return nil
}

// snapshotOffer says, as `session restore` and `session launch` do after
// they relaunched, what uncommitted work the session (or the one it
// replaced) left in a snapshot, and how to bring it back. The page offers
// it and applies nothing: applying changes a worktree someone may be in.
func snapshotOffer(ctx context.Context, st refstore.Clone, id string) []string {
	_, notes, err := handoff.SessionSnapshot(ctx, st, handoff.SnapshotApplyOptions{Session: id})
	if err != nil {
		return []string{"the session's snapshot of uncommitted work could not be looked for: " + err.Error()}
	}
	return notes
}

// attachJSON is the command that attaches a terminal to a session's agent:
// the git-handoff line to copy, and the tmux command it runs.
type attachJSON struct {
	Session string   `json:"session"`
	Command string   `json:"command"`
	Tmux    []string `json:"tmux"`
}

func (s *Server) attachSession(c *call) error {
	id := c.r.PathValue("id")
	res, err := handoff.SessionAttach(c.r.Context(), c.st, id)
	if err != nil {
		return fmt.Errorf("attaching to session %q: %w", id, err)
	}
	writeJSON(c.w, http.StatusOK, attachJSON{Session: id, Command: attachLine(id), Tmux: res.Argv})
	return nil
}

// attachLine is the command a person pastes into a terminal to attach to
// session id's agent.
func attachLine(id string) string { return "git handoff session attach " + shellQuote(id) }

// shellQuote quotes s for a POSIX shell unless it needs none.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// paneJSON is the end of what a session's agent shows in its tmux pane.
type paneJSON struct {
	Session string    `json:"session"`
	State   string    `json:"state"` // live or exited
	Lines   []string  `json:"lines"`
	At      time.Time `json:"at"` // when tmux was asked (wall clock)
}

// maxPaneLines bounds what one pane request reads.
const maxPaneLines = 40

// panes keeps each session's last capture for Options.PaneEvery, and lets
// one capture run at a time: however many pages are open, and however
// often they ask, tmux is asked at most once per session per PaneEvery.
type panes struct {
	mu   sync.Mutex // held across a capture: one at a time
	last map[string]paneEntry
}

type paneEntry struct {
	at    time.Time
	lines int
	out   paneJSON
	err   error
}

func (s *Server) sessionPane(c *call) error {
	id := c.r.PathValue("id")
	n := 10
	if v := c.r.URL.Query().Get("lines"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > maxPaneLines {
			return badRequest("?lines= is a number from 1 to %d, not %q", maxPaneLines, v)
		}
	}
	key := c.repo.Name + "\x00" + id
	s.panes.mu.Lock()
	defer s.panes.mu.Unlock()
	e, ok := s.panes.last[key]
	if !ok || e.lines < n || time.Since(e.at) >= s.opts.PaneEvery {
		e = paneEntry{at: time.Now(), lines: n}
		res, err := handoff.SessionPane(c.r.Context(), c.st, id, n)
		e.err = err
		if err == nil {
			e.out = paneJSON{Session: id, State: res.State.State, Lines: view.NonNil(res.Lines), At: e.at.UTC()}
		}
		s.panes.last[key] = e
		s.panes.prune(s.opts.PaneEvery)
	}
	if e.err != nil {
		if errors.Is(e.err, handoff.ErrNoPane) {
			return &requestError{status: http.StatusNotFound, msg: e.err.Error()}
		}
		return e.err
	}
	out := e.out
	if len(out.Lines) > n {
		out.Lines = out.Lines[len(out.Lines)-n:]
	}
	writeJSON(c.w, http.StatusOK, out)
	return nil
}

// prune drops captures too old to be served again, so sessions long gone
// are not kept.
func (p *panes) prune(every time.Duration) {
	for k, e := range p.last {
		if time.Since(e.at) >= every {
			delete(p.last, k)
		}
	}
}
