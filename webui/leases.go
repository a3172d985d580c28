package webui

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/view"
)

// The Leases panel: `lease list`, `lease release` and `lease break`, at
// the board the command would decide them at (teamsync.LeaseBoard: the
// arbiter remote, else this clone).
//
// Who may release what: the page releases a lease in the name of the
// session holding it, which is what `lease release --session ID` writes,
// with no trace of who asked. So it releases only the leases of the
// person it acts for (the git identity of the served repository): their
// own sessions' work. Another person's lease is taken away by Break,
// which asks why and records who broke it, in `git handoff log`, where
// that person will look.

// leaseJSON is one lease, in the shape of `lease list --json`, with what
// the page may do with it.
type leaseJSON struct {
	view.Lease
	// Yours: held by a session of the person the page acts for, so the
	// page offers Release; any other held lease it offers to Break.
	Yours bool `json:"yours"`
}

func toLeaseJSON(v lease.View, person string, now time.Time) leaseJSON {
	return leaseJSON{Lease: view.OfLease(v, now), Yours: v.Held() && person != "" && v.Owner == person}
}

// leasesJSON is the leases listing: where they are decided, and who the
// page acts for.
type leasesJSON struct {
	listJSON[leaseJSON]
	Where  string `json:"where"`
	Person string `json:"person"`
}

// leaseBoard is where this request's leases are decided, as the command's
// (without --offline).
func leaseBoard(ctx context.Context, st *refstore.Store) (lease.Board, error) {
	b, err := teamsync.LeaseBoard(ctx, st, false)
	if err != nil {
		return nil, fmt.Errorf("finding where leases are decided: %w", err)
	}
	return b, nil
}

// person is who the page acts for: the owner the served repository's git
// identity names, as every command resolves it.
func person(ctx context.Context, st *refstore.Store) (string, error) {
	who, err := handoff.Resolve(ctx, st, "", "")
	if err != nil {
		return "", fmt.Errorf("finding who the page acts for: %w", err)
	}
	return who.Owner, nil
}

func (s *Server) listLeases(c *call) error {
	all, err := boolParam(c.r, "all")
	if err != nil {
		return err
	}
	ctx := c.r.Context()
	root := fingerprint(c.st.CommonDir())
	b, err := leaseBoard(ctx, c.st)
	if err != nil {
		return err
	}
	me, err := person(ctx, c.st)
	if err != nil {
		return err
	}
	vs, err := handoff.LeaseList(ctx, c.st, b, handoff.LeaseOptions{All: all != nil && *all}, s.opts.Clock)
	if err != nil {
		return &failed{err: fmt.Errorf("listing the leases: %w", err), notices: vs.Notices}
	}
	now := s.opts.Clock()
	out := leasesJSON{listJSON: listJSON[leaseJSON]{Items: []leaseJSON{}, ProjectID: c.repo.Name, LastSeenRoot: root,
		Now: now, Notices: view.NonNil(append(c.notices, vs.Notices...))}, Where: vs.Where, Person: me}
	for _, v := range vs.Leases {
		out.Items = append(out.Items, toLeaseJSON(v, me, now))
	}
	out.Total = len(out.Items)
	writeJSON(c.w, http.StatusOK, out)
	return nil
}

// leaseRequest is the body of POST /api/leases/release and /break: the
// key, the session the page showed holding it, and (break) why.
type leaseRequest struct {
	Key     string `json:"key"`
	Session string `json:"session"`
	Reason  string `json:"reason"`
}

// leaseResultJSON is what a release or a break did, in the shape of their
// --json.
type leaseResultJSON struct {
	Leases  []leaseOutcomeJSON `json:"leases"`
	Where   string             `json:"where"`
	Offline bool               `json:"offline"`
	Session string             `json:"session"`
	Notices []string           `json:"notices"`
}

type leaseOutcomeJSON struct {
	Key    string    `json:"key"`
	Action string    `json:"action"`
	From   string    `json:"from,omitempty"`
	Lease  leaseJSON `json:"lease"`
}

func (s *Server) leaseResult(c *call, res handoff.LeaseResult, me string) {
	now := s.opts.Clock()
	out := leaseResultJSON{Leases: []leaseOutcomeJSON{}, Where: res.Where, Offline: res.Offline, Session: res.Session,
		Notices: view.NonNil(append(c.notices, res.Notices...))}
	for _, o := range res.Leases {
		v := lease.View{Stored: o.Lease, Key: o.Key}
		out.Leases = append(out.Leases, leaseOutcomeJSON{Key: o.Key.String(), Action: o.Action, From: o.From, Lease: toLeaseJSON(v, me, now)})
	}
	writeJSON(c.w, http.StatusOK, out)
}

// readLeaseRequest reads the body and the key's lease as it is now.
func (s *Server) readLeaseRequest(c *call) (leaseRequest, lease.Board, lease.View, string, error) {
	var req leaseRequest
	if err := decodeBody(c.r, &req); err != nil {
		return req, nil, lease.View{}, "", err
	}
	if strings.TrimSpace(req.Key) == "" {
		return req, nil, lease.View{}, "", badRequest("name the lease: {\"key\": \"issue:42\"}")
	}
	ctx := c.r.Context()
	b, err := leaseBoard(ctx, c.st)
	if err != nil {
		return req, nil, lease.View{}, "", err
	}
	me, err := person(ctx, c.st)
	if err != nil {
		return req, nil, lease.View{}, "", err
	}
	v, vs, err := handoff.LeaseShow(ctx, c.st, b, handoff.LeaseOptions{Keys: []string{req.Key}}, s.opts.Clock)
	switch {
	case err != nil:
		return req, nil, v, me, &failed{err: err, notices: vs.Notices}
	case !v.Held():
		return req, nil, v, me, &requestError{status: http.StatusConflict, msg: fmt.Sprintf("%s is not held: it was %s", v.Record.Key, v.State)}
	case req.Session != "" && v.Session != req.Session:
		// What the person saw is not what is: they decide again.
		return req, nil, v, me, &requestError{status: http.StatusConflict, msg: fmt.Sprintf("%s is held by session %s now, not %s", v.Record.Key, v.Session, req.Session)}
	}
	return req, b, v, me, nil
}

func (s *Server) releaseLease(c *call) error {
	req, b, v, me, err := s.readLeaseRequest(c)
	if err != nil {
		return err
	}
	if v.Owner != me {
		return &requestError{status: http.StatusForbidden, msg: fmt.Sprintf("%s is held by session %s of %s, not one of yours (%s): break it, with a reason, to free it",
			v.Record.Key, v.Session, v.Owner, me)}
	}
	res, err := handoff.LeaseRelease(c.r.Context(), c.st, b, handoff.LeaseOptions{
		Keys: []string{req.Key}, Session: v.Session, Reason: "released from the status page",
	}, s.opts.Clock)
	if err != nil {
		return &failed{err: fmt.Errorf("releasing %s: %w", v.Record.Key, err), notices: res.Notices}
	}
	s.leaseResult(c, res, me)
	return nil
}

func (s *Server) breakLease(c *call) error {
	req, b, v, me, err := s.readLeaseRequest(c)
	if err != nil {
		return err
	}
	if strings.TrimSpace(req.Reason) == "" {
		return badRequest("say why the lease is broken: {\"reason\": ...}; it is kept in `git handoff log`")
	}
	res, err := handoff.LeaseBreak(c.r.Context(), c.st, b, handoff.LeaseOptions{Keys: []string{req.Key}, Reason: req.Reason}, s.opts.Clock)
	if err != nil {
		return &failed{err: fmt.Errorf("breaking %s: %w", v.Record.Key, err), notices: res.Notices}
	}
	s.leaseResult(c, res, me)
	return nil
}
