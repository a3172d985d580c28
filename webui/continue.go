package webui

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/harness"
	"github.com/git-handoff/git-handoff/view"
)

// "Continue in…": `git handoff continue --in AGENT --session ID`, first
// with --preview (GET: the brief the new agent would get, nothing
// written), then for real (POST). As the command without a mode: a
// session whose agent runs under tmux continues in its pane; any other is
// recorded as continued, and the answer is the one command that starts
// the new agent, since the page has no terminal to start it in.

// continueRequest is the body of POST /api/sessions/{id}/continue; the
// preview takes in and model as ?in= and ?model=. From is the agent the
// preview showed the session running: the page sends it, so that a
// session continued by someone else since (a failure hook, another page)
// is refused (*handoff.AlreadyContinuedError) rather than continued a
// second time from an agent the person never saw.
type continueRequest struct {
	In    string `json:"in"`
	Model string `json:"model"`
	From  string `json:"from"`
}

func (s *Server) previewContinue(c *call) error {
	q := c.r.URL.Query()
	return s.runContinue(c, continueRequest{In: q.Get("in"), Model: q.Get("model")}, true)
}

func (s *Server) continueSession(c *call) error {
	var req continueRequest
	if err := decodeBody(c.r, &req); err != nil {
		return err
	}
	return s.runContinue(c, req, false)
}

func (s *Server) runContinue(c *call, req continueRequest, preview bool) error {
	id := c.r.PathValue("id")
	to, err := continueAgent(req.In)
	if err != nil {
		return err
	}
	ctx := c.r.Context()
	res, err := handoff.Continue(ctx, c.st, handoff.ContinueOptions{
		ID: id, To: to, Model: req.Model, From: req.From, By: s.opts.By, Preview: preview,
		Tmux:     !preview && handoff.LiveUnderTmux(ctx, c.st, id),
		Launcher: s.opts.Launcher, Exited: s.opts.Exited,
	}, s.opts.Clock)
	if err != nil {
		return &failed{err: fmt.Errorf("continuing session %q in %s: %w", id, to, err), notices: res.Notices}
	}
	out := view.OfContinue(res, preview, c.notices...)
	if res.Started {
		out.Attach = attachLine(id)
	}
	writeJSON(c.w, http.StatusOK, out)
	return nil
}

// continueAgent refuses an unknown agent before anything is read, as the
// command's --in does, and names it as the catalogue does.
func continueAgent(name string) (string, error) {
	if name == "" {
		return "", badRequest("name the coding agent to continue in: \"in\", one of %s", strings.Join(harness.Names(), ", "))
	}
	h, err := harness.Lookup(name)
	if err != nil {
		return "", err
	}
	return h.Name, nil
}
