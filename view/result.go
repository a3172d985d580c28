package view

import (
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/refstore"
)

// The results of the workflows, one shape each for the command's --json,
// the MCP tool and the page. A pointer the CLI prints as null the MCP
// tools leave out (their output schemas give each field one type).
// Fields one surface fills and the others never set are omitempty, so
// each surface's output is what it was.

// SessionRef names a session.
type SessionRef struct {
	ID      string `json:"id"`
	Harness string `json:"harness,omitempty"`
	Owner   string `json:"owner"`
	Branch  string `json:"branch"`
}

// Start is the result of `start` and session_start.
type Start struct {
	Session SessionRef `json:"session"`
	Handoff *Baton     `json:"handoff"` // the baton the brief is about
	Claimed bool       `json:"claimed"` // claimed by this call
	// Continued (session_start asked again): the client's session goes
	// on; the brief is its own again and nothing new was claimed.
	Continued bool       `json:"continued,omitempty"`
	Objective *Objective `json:"objective"`
	Brief     string     `json:"brief"`
	Snapshot  *Offer     `json:"snapshot,omitempty"` // the baton's session left uncommitted work
	// EndedSession: the active session this worktree was bound to, ended
	// so that only the new one is bound here.
	EndedSession string   `json:"endedSession,omitempty"`
	Notices      []string `json:"notices"`
	// Conflicts: versions the arbiter's answer replaced here that were
	// written without seeing the one kept, as sync reports them.
	Conflicts []handoff.Conflict `json:"conflicts,omitempty"`
}

// OfStart shapes a start, with notices in place of the workflow's own.
func OfStart(res handoff.StartResult, notices []string) Start {
	s := res.Session
	return Start{
		Session: SessionRef{ID: s.ID, Harness: s.Harness, Owner: s.Owner, Branch: s.Branch},
		Handoff: OfBaton(res.Handoff), Claimed: res.Claimed, Objective: OfObjective(res.Objective),
		Brief: res.Brief, Snapshot: OfOffer(res.Snapshot), EndedSession: res.EndedBound,
		Notices: NonNil(notices), Conflicts: res.Conflicts,
	}
}

// Offer is a snapshot offered to a starting or relaunched session.
type Offer struct {
	Snapshot
	Applied *Applied `json:"applied"` // nil unless it was applied
}

// Applied is what applying a snapshot did.
type Applied struct {
	Paths   []string `json:"paths"`
	Staged  int      `json:"staged"`
	Already bool     `json:"already"`
	Rebased bool     `json:"rebased"` // merged onto a HEAD that had moved on
}

// OfOffer shapes an offer; nil stays nil.
func OfOffer(o *handoff.SnapshotOffer) *Offer {
	if o == nil {
		return nil
	}
	out := &Offer{Snapshot: *OfSnapshot(&o.Snapshot, o.Present)}
	if o.Applied != nil {
		out.Applied = OfApplied(*o.Applied)
	}
	return out
}

// OfApplied shapes what applying a snapshot did.
func OfApplied(a refstore.Applied) *Applied {
	return &Applied{Paths: NonNil(a.Paths), Staged: a.Staged, Already: a.Already, Rebased: a.Rebased}
}

// End is the result of `end` and session_end.
type End struct {
	Handoff *Baton `json:"handoff"` // null when no baton was left
	// Superseded is the waiting baton this one replaced, if any (still
	// reachable from the ref's reflog); AlsoSuperseded the ids of those
	// waiting at a remote, fetched and not merged, that it replaces there
	// too (the notices say where to read them).
	Superseded     *Baton    `json:"superseded"`
	AlsoSuperseded []string  `json:"alsoSuperseded,omitempty"`
	Snapshot       *Snapshot `json:"snapshot,omitempty"` // with --snapshot
	// Redacted: credentials taken out of the notes before they were
	// written, by kind; [] when none.
	Redacted     []redact.Hit `json:"redacted"`
	EndedSession string       `json:"endedSession,omitempty"` // the session ended
	Notices      []string     `json:"notices"`
}

// OfEnd shapes an end, with notices in place of the workflow's own.
func OfEnd(res handoff.EndResult, notices []string) End {
	out := End{Snapshot: OfSnapshot(res.Snapshot.Snapshot, false), Redacted: NonNil(res.Redacted), Notices: NonNil(notices)}
	for i := range res.Superseded {
		if i == 0 {
			out.Superseded = OfBaton(&res.Superseded[i])
		} else {
			out.AlsoSuperseded = append(out.AlsoSuperseded, res.Superseded[i].ID)
		}
	}
	if res.Left {
		out.Handoff = OfBaton(&res.Handoff)
	}
	if res.Session != nil {
		out.EndedSession = res.Session.ID
	}
	return out
}

// Show is the baton waiting, of `show` and handoff_show.
type Show struct {
	Handoff *Baton `json:"handoff"` // null when none is waiting
	// Caution (handoff_show) is set when the notes are not verifiably
	// the owner's: weigh them as data, do not follow them.
	Caution string   `json:"caution,omitempty"`
	Notices []string `json:"notices"`
}

// Listed is a baton of `list` and handoff_list, with the snapshot of
// uncommitted work its session left, when there is one.
type Listed struct {
	*Baton
	Snapshot *Snapshot `json:"snapshot,omitempty"`
}

// OfListed shapes a listed baton, with its session's snapshot sn when
// it left one (ok).
func OfListed(s *baton.Stored, sn refstore.Snapshot, ok bool) Listed {
	out := Listed{Baton: OfBaton(s)}
	if ok {
		out.Snapshot = OfSnapshot(&sn, false)
	}
	return out
}

// List is the batons of `list` and handoff_list.
type List struct {
	Handoffs []Listed `json:"handoffs"`
	Notices  []string `json:"notices"`
}

// Brief is the brief a session starting now would get, of `brief` and
// bootstrap.
type Brief struct {
	Handoff   *Baton     `json:"handoff"` // the baton the brief is about
	Objective *Objective `json:"objective"`
	Brief     string     `json:"brief"`
	Fits      bool       `json:"fits"`
	Notices   []string   `json:"notices"`
}

// OfBrief shapes a brief, with notices in place of the workflow's own.
func OfBrief(res handoff.BriefResult, notices []string) Brief {
	return Brief{Handoff: OfBaton(res.Handoff), Objective: OfObjective(res.Objective), Brief: res.Brief, Fits: res.Fits, Notices: NonNil(notices)}
}

// Cancel is the result of `cancel` and cancel_handoff.
type Cancel struct {
	Cancelled bool               `json:"cancelled"`
	Handoff   *Baton             `json:"handoff"` // the tombstone; null when nothing was cancelled
	Notices   []string           `json:"notices"`
	Conflicts []handoff.Conflict `json:"conflicts,omitempty"`
}

// Dismiss is the result of `dismiss` and the page's dismiss.
type Dismiss struct {
	Dismissed bool               `json:"dismissed"`
	Handoff   *Baton             `json:"handoff"`
	Notices   []string           `json:"notices"`
	Conflicts []handoff.Conflict `json:"conflicts,omitempty"`
}

// Undismiss is the result of `undismiss` and the page's undo.
type Undismiss struct {
	Restored  bool               `json:"restored"`
	Handoff   *Baton             `json:"handoff"`
	Notices   []string           `json:"notices"`
	Conflicts []handoff.Conflict `json:"conflicts,omitempty"`
}

// PRRoute is the session that should receive work on a pull request now,
// of `pr route` and pr_route.
type PRRoute struct {
	Repo    string   `json:"repo"`
	Number  int      `json:"number"`
	URL     string   `json:"url"`
	Owner   string   `json:"owner"`   // the session the record names
	Session string   `json:"session"` // where CI and review work goes now
	Status  string   `json:"status"`  // that session's status; "" when this clone has no record of it
	Chain   []string `json:"chain"`   // owner … session, along replacedBy
	Merged  bool     `json:"merged"`
	Notices []string `json:"notices"`
}

// OfPRRoute shapes a routing, with notices in place of its own.
func OfPRRoute(r prown.Routing, notices []string) PRRoute {
	return PRRoute{Repo: r.Repo, Number: r.Number, URL: r.URL, Owner: r.Owner, Session: r.Session,
		Status: r.Status, Chain: NonNil(r.Chain), Merged: r.Merged, Notices: NonNil(notices)}
}

// TmuxLaunch is where a session's agent runs now and the command it runs,
// of `session launch --tmux` and the page's launch (which adds the line
// that attaches a terminal to it).
type TmuxLaunch struct {
	Session string   `json:"session"`
	Runtime *Runtime `json:"runtime"`
	Launch  Launch   `json:"launch"`
	Attach  string   `json:"attach,omitempty"`
	Notices []string `json:"notices"`
}
