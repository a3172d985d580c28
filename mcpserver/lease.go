package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/view"
)

// The lease tools: `git handoff lease take`, `release` and `list`, for an
// agent claiming work before it starts on it. The session is the one
// asked for, else the one this client started, else the worktree's.

func (t *tools) leaseTools() []toolDef {
	return []toolDef{
		tool("lease_take", "Claim work before starting it, so no other session takes it: keys issue:42 (#42), pr:17, path:GLOB, key:NAME; all or none. One another session holds: an error naming it (take other work, or ask). Your turns renew them.", false, t.leaseTake, requireKeys),
		tool("lease_release", "Release your leases on keys once done with that work.", false, t.leaseRelease, requireKeys),
		tool("lease_list", "The leases held here: who holds what, when each frees (mine: yours).", true, t.leaseList, nil),
	}
}

// requireKeys makes the keys a non-empty list, as the commands refuse
// none.
func requireKeys(s *jsonschema.Schema) {
	one := 1
	s.Properties["keys"].MinItems = &one
}

type leaseTakeIn struct {
	Keys    []string `json:"keys"`
	TTL     string   `json:"ttl,omitempty" jsonschema:"default 30m"`
	Note    string   `json:"note,omitempty"`
	Session string   `json:"session,omitempty"`
	Offline bool     `json:"offline,omitempty"`
}

type leaseReleaseIn struct {
	Keys    []string `json:"keys"`
	Session string   `json:"session,omitempty"`
	Offline bool     `json:"offline,omitempty"`
}

type leaseListIn struct {
	All     bool   `json:"all,omitempty"`
	Session string `json:"session,omitempty"`
	Offline bool   `json:"offline,omitempty"`
}

// leaseSession is the session a lease tool acts for: the one asked for,
// else the one this client started with session_start; "" leaves it to
// the workflow (GIT_HANDOFF_SESSION, else the worktree's).
func (t *tools) leaseSession(ss *mcp.ServerSession, asked string) string {
	if asked != "" || ss == nil {
		return asked
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.started[ss]
}

// board is where leases are decided for this call (Deps.LeaseBoard; this
// clone without one).
func (t *tools) board(ctx context.Context, st refstore.Clone, offline bool) (lease.Board, error) {
	if t.d.LeaseBoard == nil || offline {
		return lease.LocalBoard{St: st}, nil
	}
	b, err := t.d.LeaseBoard(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("finding where leases are decided: %w (or pass offline: true to decide in this clone)", err)
	}
	return b, nil
}

func (t *tools) leaseTake(ctx context.Context, req *mcp.CallToolRequest, in leaseTakeIn) (string, view.LeaseResult, error) {
	opts := handoff.LeaseOptions{Keys: in.Keys, Note: in.Note, Session: t.leaseSession(req.Session, in.Session)}
	if in.TTL != "" {
		d, err := time.ParseDuration(strings.TrimSpace(in.TTL))
		if err == nil {
			err = lease.CheckTTL(d)
		}
		if err != nil {
			return "", view.LeaseResult{}, fmt.Errorf("ttl %q: %v", in.TTL, err)
		}
		opts.TTL = d
	}
	return t.runLease(ctx, "taking", in.Offline, handoff.LeaseTake, opts)
}

func (t *tools) leaseRelease(ctx context.Context, req *mcp.CallToolRequest, in leaseReleaseIn) (string, view.LeaseResult, error) {
	opts := handoff.LeaseOptions{Keys: in.Keys, Session: t.leaseSession(req.Session, in.Session)}
	return t.runLease(ctx, "releasing", in.Offline, handoff.LeaseRelease, opts)
}

type leaseWorkflow func(context.Context, refstore.Clone, lease.Board, handoff.LeaseOptions, handoff.Clock) (handoff.LeaseResult, error)

// runLease runs a writing lease workflow. Another session holding a key
// is the tool's error (the model reads who holds it), not the protocol's.
func (t *tools) runLease(ctx context.Context, doing string, offline bool, wf leaseWorkflow, opts handoff.LeaseOptions) (string, view.LeaseResult, error) {
	st, opened, closeStore, err := t.open(ctx, false)
	if err != nil {
		return "", view.LeaseResult{}, err
	}
	defer closeStore()
	b, err := t.board(ctx, st, offline)
	if err != nil {
		return "", view.LeaseResult{}, err
	}
	res, err := wf(ctx, st, b, opts, t.clock)
	if err != nil {
		var held *lease.HeldError
		if errors.As(err, &held) {
			err = fmt.Errorf("%w: take other work, or ask its holder", err)
		}
		return "", view.LeaseResult{}, withNotices(fmt.Errorf("%s %s: %w", doing, strings.Join(opts.Keys, " "), err), notices(opened, res.Notices))
	}
	now := t.clock()
	out := view.OfLeaseResult(res, notices(opened, res.Notices), now)
	var lines []string
	for _, o := range res.Leases {
		lines = append(lines, outcomeLine(o, res.Where))
	}
	if len(lines) == 0 {
		lines = append(lines, "Nothing to do.")
	}
	return withNotes(strings.Join(lines, "\n"), out.Notices), out, nil
}

func outcomeLine(o lease.Outcome, where string) string {
	l := o.Lease
	switch o.Action {
	case lease.Taken:
		return fmt.Sprintf("%s is yours (session %s) for %s unless renewed; your turns renew it (decided at %s).", o.Key, l.Session, l.TTL(), where)
	case lease.TookOver:
		return fmt.Sprintf("%s is yours (session %s): the lease of %s expired (decided at %s).", o.Key, l.Session, o.From, where)
	case lease.Mine:
		return fmt.Sprintf("%s was yours already (session %s).", o.Key, l.Session)
	case lease.Released:
		return fmt.Sprintf("%s released: others can take it now.", o.Key)
	case lease.NotHeld:
		return fmt.Sprintf("%s was not held.", o.Key)
	}
	return fmt.Sprintf("%s: %s.", o.Key, o.Action)
}

func (t *tools) leaseList(ctx context.Context, req *mcp.CallToolRequest, in leaseListIn) (string, view.LeaseList, error) {
	st, opened, closeStore, err := t.open(ctx, true)
	if err != nil {
		return "", view.LeaseList{}, err
	}
	defer closeStore()
	b, err := t.board(ctx, st, in.Offline)
	if err != nil {
		return "", view.LeaseList{}, err
	}
	vs, err := handoff.LeaseList(ctx, st, b, handoff.LeaseOptions{Session: t.leaseSession(req.Session, in.Session), All: in.All}, t.clock)
	if err != nil {
		return "", view.LeaseList{}, withNotices(fmt.Errorf("listing leases: %w", err), notices(opened, vs.Notices))
	}
	now := t.clock()
	out := view.OfLeaseList(vs, notices(opened, vs.Notices), now)
	if len(vs.Leases) == 0 {
		return withNotes(fmt.Sprintf("No leases are held (at %s).", vs.Where), out.Notices), out, nil
	}
	var text strings.Builder
	fmt.Fprintf(&text, "Leases at %s:\n", vs.Where)
	for _, v := range vs.Leases {
		fmt.Fprintf(&text, "- %s\n", listLine(v, now))
	}
	return withNotes(text.String(), out.Notices), out, nil
}

// listLine is one lease for the model: key, holder, state, when it frees.
func listLine(v lease.View, now time.Time) string {
	who := "session " + v.Session
	if v.Mine {
		who = "you (session " + v.Session + ")"
	}
	if v.Agent != "" && !v.Mine {
		who = v.Agent + " " + who
	}
	if v.Owner != "" && !v.Mine {
		who += " of " + v.Owner
	}
	line := fmt.Sprintf("`%s` — ", v.Record.Key)
	switch {
	case !v.Held():
		line += fmt.Sprintf("%s, last held by %s", v.State, who)
	case v.Expired:
		line += fmt.Sprintf("held by %s, expired here: free to take", who)
	case v.FreesAt.IsZero():
		line += "held by " + who
	default:
		line += fmt.Sprintf("held by %s, frees in %s unless renewed", who, v.FreesAt.Sub(now).Round(time.Second))
	}
	if v.Note != "" {
		line += " (" + v.Note + ")"
	}
	return line
}
