// Package view holds the shapes records are shown in, the same for every
// surface: the CLI's --json, the status page's API and the MCP tools. They
// are made for output (every list an empty list, never null; no storage
// fields such as blob ids or causal clocks), so a record's storage can
// change without changing what scripts and pages read.
package view

import (
	"encoding/json"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

// Baton is a baton as it is shown.
type Baton struct {
	ID               string     `json:"id"`
	Ref              string     `json:"ref"`
	Owner            string     `json:"owner"`
	Branch           string     `json:"branch"`
	Shared           bool       `json:"shared"`
	NextSteps        []string   `json:"nextSteps"`
	FailedApproaches []string   `json:"failedApproaches"`
	OpenQuestions    []string   `json:"openQuestions"`
	Harness          string     `json:"harness,omitempty"`
	SessionID        string     `json:"sessionId,omitempty"`
	CreatedAt        time.Time  `json:"createdAt"`
	Head             string     `json:"head,omitempty"`
	Claimed          bool       `json:"claimed"`
	ClaimedAt        *time.Time `json:"claimedAt,omitempty"`
	ClaimedBySession string     `json:"claimedBySession,omitempty"`
	Deleted          *Deletion  `json:"deleted,omitempty"`
	// Auto: git-handoff wrote this baton for a session that ended
	// without one (its fields are the record's, baton.Auto).
	Auto *baton.Auto `json:"auto,omitempty"`
	// Reoffered: the session that claimed it before never acted on it.
	Reoffered *baton.Reoffer `json:"reoffered,omitempty"`
	// Signature: who signed the notes and whether that signer may speak
	// for the owner; absent where it was not checked.
	Signature *Signature `json:"signature,omitempty"`
}

// Signature is a baton's verification as it is shown. State is
// "verified", "unverified" or "signed by someone else"; Trusted is true
// only when verified, and a surface shows the notes of an untrusted baton
// from someone else as data, not instructions.
type Signature struct {
	State   string `json:"state"`
	Trusted bool   `json:"trusted"`
	Format  string `json:"format,omitempty"`
	Signer  string `json:"signer,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Fenced: show the notes as data to weigh, not instructions to
	// follow (not verifiably the owner's, and maybe someone else's).
	Fenced bool `json:"fenced"`
}

// Deletion says why and when a baton went away.
type Deletion struct {
	Reason string    `json:"reason"` // cancelled or dismissed
	At     time.Time `json:"at"`
}

// OfBaton shapes a stored baton; nil stays nil.
func OfBaton(s *baton.Stored) *Baton {
	if s == nil {
		return nil
	}
	out := &Baton{
		ID: s.ID, Ref: s.Ref, Owner: s.Owner, Branch: s.Branch, Shared: s.Shared,
		NextSteps: NonNil(s.NextSteps), FailedApproaches: NonNil(s.FailedApproaches), OpenQuestions: NonNil(s.OpenQuestions),
		Harness: s.Harness, SessionID: s.SessionID, CreatedAt: s.CreatedAt, Head: s.Head,
		Claimed: s.Claimed, ClaimedAt: s.ClaimedAt, ClaimedBySession: s.ClaimedBySession,
		Auto: s.Auto, Reoffered: s.Reoffered,
	}
	if d := s.Deleted; d != nil {
		out.Deleted = &Deletion{Reason: d.Reason, At: d.At}
	}
	if v := s.Signature; v != nil {
		out.Signature = &Signature{State: string(v.State), Trusted: v.Trusted(), Format: v.Format, Signer: v.Signer, Reason: v.Reason, Fenced: s.Fenced}
	}
	return out
}

// Objective is an objective as it is shown.
type Objective struct {
	Owner     string    `json:"owner"`
	Branch    string    `json:"branch"`
	Text      string    `json:"text"`
	SessionID string    `json:"sessionId,omitempty"`
	SetAt     time.Time `json:"setAt"`
}

// OfObjective shapes an objective; nil stays nil.
func OfObjective(o *baton.Objective) *Objective {
	if o == nil {
		return nil
	}
	return &Objective{Owner: o.Owner, Branch: o.Branch, Text: o.Text, SessionID: o.SessionID, SetAt: o.SetAt}
}

// Session is a session record as it is shown.
type Session struct {
	ID                 string              `json:"id"`
	Ref                string              `json:"ref"`
	Owner              string              `json:"owner"`
	Branch             string              `json:"branch"`
	Worktree           string              `json:"worktree"`
	Host               string              `json:"host"`
	Harness            string              `json:"harness"`
	Model              string              `json:"model"`
	Status             string              `json:"status"`
	ReadOnly           bool                `json:"readOnly"` // merged: nothing changes it any more
	Prompt             string              `json:"prompt"`
	Summary            string              `json:"summary"`
	CreatedAt          time.Time           `json:"createdAt"`
	UpdatedAt          time.Time           `json:"updatedAt"`
	EndedAt            *time.Time          `json:"endedAt"`
	Supersedes         string              `json:"supersedes"`
	ReplacedBy         string              `json:"replacedBy"`
	HandoffReason      string              `json:"handoffReason"`
	HandoffAt          *time.Time          `json:"handoffAt"`
	HandoffContextMode string              `json:"handoffContextMode"`
	HandoffPackage     string              `json:"handoffPackage,omitempty"`
	Launched           map[string]Launched `json:"launched"`
	Switching          *Switching          `json:"switching"`
	ClaimedHandoff     *Baton              `json:"claimedHandoff"` // the session's copy of the baton it claimed
	PR                 *PRPointer          `json:"pr"`
	Runtime            *Runtime            `json:"runtime,omitempty"` // where git-handoff started its agent; absent: nowhere
	Lineage            string              `json:"lineage,omitempty"`
	// Archived is the month whose archive holds the session (Ref is then
	// the revision to read it by, refs/ao/archive/<month>:sessions/<id>);
	// absent for a live session.
	Archived string `json:"archived,omitempty"`
	// Continued is the session's last continuation in another agent;
	// absent when it had none.
	Continued *Continued `json:"continued,omitempty"`
}

// Continued is a continuation of a session in another agent (`git handoff
// continue`). Start, while its new agent waits to be started (it was
// decided outside tmux), is the one command that starts it.
type Continued struct {
	From  string    `json:"from"`
	To    string    `json:"to"`
	Why   string    `json:"why"`
	Auto  bool      `json:"auto"`
	By    string    `json:"by"`
	At    time.Time `json:"at"`
	Baton string    `json:"baton,omitempty"`
	Start string    `json:"start,omitempty"`
}

// MarkArchived marks out as read from the archive month, by revision rev
// (nothing when month is "": a live session).
func (out *Session) MarkArchived(month, rev string) {
	if month != "" {
		out.Archived, out.Ref = month, rev
	}
}

// Runtime is where a session's agent runs (the record's), and what the
// runtime says of it when it was asked (State "" when it was not).
type Runtime struct {
	session.Runtime
	State      string `json:"state,omitempty"` // live, exited, gone, unknown
	ExitStatus *int   `json:"exitStatus,omitempty"`
	Signal     int    `json:"signal,omitempty"`
	PID        int    `json:"pid,omitempty"`
	Pane       string `json:"pane,omitempty"`
	Why        string `json:"why,omitempty"`
}

// Launched is what one agent did for a session.
type Launched struct {
	NativeID string    `json:"nativeId"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
}

// Switching is an agent switch in flight.
type Switching struct {
	By    string    `json:"by"`
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	To    string    `json:"to"`
}

// PRPointer names the pull request a session owns.
type PRPointer struct {
	Repo   string `json:"repo"`
	Number int    `json:"number"`
	URL    string `json:"url"`
}

// OfSession shapes a session record; withPackage keeps the handoff
// package, which listings leave out.
func OfSession(s session.Record, withPackage bool) Session {
	ref, _ := refstore.SessionRef(s.ID)
	out := Session{
		ID: s.ID, Ref: ref, Owner: s.Owner, Branch: s.Branch, Worktree: s.Worktree, Host: s.Host,
		Harness: s.Harness, Model: s.Model, Status: s.Status, ReadOnly: s.Status == session.StatusMerged,
		Prompt: s.Prompt, Summary: s.Summary,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, EndedAt: s.EndedAt,
		Supersedes: s.Supersedes, ReplacedBy: s.ReplacedBy, HandoffReason: s.HandoffReason, HandoffAt: s.HandoffAt,
		HandoffContextMode: s.HandoffContextMode,
		Launched:           map[string]Launched{},
		ClaimedHandoff:     claimedCopy(s.ClaimedHandoff),
	}
	if withPackage {
		out.HandoffPackage = s.HandoffPackage
	}
	for h, l := range s.Launched {
		out.Launched[h] = Launched{NativeID: l.NativeID, First: l.First, Last: l.Last}
	}
	if g := s.Switching; g != nil {
		out.Switching = &Switching{By: g.By, Since: g.Since, Until: g.Until, To: g.To}
	}
	if p := s.PR; p != nil {
		out.PR = &PRPointer{Repo: p.Repo, Number: p.Number, URL: p.URL}
	}
	if r := s.Runtime; r != nil {
		out.Runtime = &Runtime{Runtime: *r}
	}
	if k := s.Continued; k != nil {
		out.Continued = &Continued{From: k.From, To: k.To, Why: k.Why, Auto: k.Auto, By: k.By, At: k.At, Baton: k.Baton}
		if s.Waiting() {
			out.Continued.Start = handoff.LaunchCommand(s.ID)
		}
	}
	return out
}

// WithRuntime adds what the runtime said of the session's agent; nil
// adds nothing.
func (out *Session) WithRuntime(rs *handoff.RuntimeState) {
	if rs == nil {
		return
	}
	if out.Runtime == nil {
		out.Runtime = &Runtime{Runtime: rs.Runtime}
	}
	r := out.Runtime
	r.State, r.Signal, r.PID, r.Pane, r.Why = rs.State, rs.Signal, rs.PID, rs.Pane, rs.Why
	if rs.State == tmuxrt.StateExited && rs.Signal == 0 {
		status := rs.ExitStatus
		r.ExitStatus = &status
	}
}

// claimedCopy shapes the copy of a claimed baton a session record keeps
// like any baton; a copy that does not decode is left out (it is only a
// copy: the baton's own ref is the record).
func claimedCopy(raw json.RawMessage) *Baton {
	if len(raw) == 0 {
		return nil
	}
	var b baton.Baton
	if err := json.Unmarshal(raw, &b); err != nil || b.ID == "" {
		return nil
	}
	ref, _ := refstore.HandoffRef(b.Shared, b.Owner, b.Branch)
	return OfBaton(&baton.Stored{Baton: b, Ref: ref})
}

// PRRecord is a pull request's ownership record as it is shown.
type PRRecord struct {
	Repo         string       `json:"repo"`
	Number       int          `json:"number"`
	URL          string       `json:"url"`
	Ref          string       `json:"ref"`
	OwnerSession string       `json:"ownerSession"` // "" once released
	ClaimedAt    time.Time    `json:"claimedAt"`
	MergedAt     *time.Time   `json:"mergedAt"`
	History      []PRTransfer `json:"history"`
}

// PRTransfer is one change of a pull request's owner.
type PRTransfer struct {
	Session string    `json:"session"`
	From    string    `json:"from"`
	At      time.Time `json:"at"`
	Reason  string    `json:"reason"`
	Harness string    `json:"harness"`
}

// OfPRRecord shapes a stored ownership record.
func OfPRRecord(s prown.Stored) PRRecord {
	out := PRRecord{
		Repo: s.Repo, Number: s.Number, URL: s.URL, Ref: s.Ref, OwnerSession: s.OwnerSession,
		ClaimedAt: s.ClaimedAt, MergedAt: s.MergedAt, History: []PRTransfer{},
	}
	for _, h := range s.History {
		out.History = append(out.History, PRTransfer{Session: h.Session, From: h.From, At: h.At, Reason: h.Reason, Harness: h.Harness})
	}
	return out
}

// NonNil makes a nil list an empty one, so JSON shows [] and not null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Launch is how a session's agent is started or resumed: the command, its
// directory and environment, not run.
type Launch struct {
	Session  string   `json:"session"`
	Harness  string   `json:"harness"`
	Mode     string   `json:"mode"`
	NativeID string   `json:"nativeId"`
	Dir      string   `json:"dir"`
	Argv     []string `json:"argv"`
	Env      []string `json:"env"`
	Note     string   `json:"note"`
}

// OfLaunch shapes a launch plan.
func OfLaunch(p session.LaunchPlan) Launch {
	return Launch{Session: p.Session, Harness: p.Harness, Mode: p.Mode, NativeID: p.NativeID,
		Dir: p.Dir, Argv: NonNil(p.Argv), Env: NonNil(p.Env), Note: p.Note}
}

// Snapshot is the uncommitted work a session left (a commit under
// refs/ao/snapshots/), as it is shown.
type Snapshot struct {
	Session  string    `json:"session"`
	Ref      string    `json:"ref"`
	Commit   string    `json:"commit"`
	Head     string    `json:"head"` // "" on an unborn branch
	Index    string    `json:"index"`
	Previous string    `json:"previous,omitempty"`
	At       time.Time `json:"at"`
	Present  bool      `json:"present"` // this worktree holds it
	Apply    string    `json:"apply"`   // the command that applies it here
}

// OfSnapshot shapes a snapshot; nil stays nil.
func OfSnapshot(s *refstore.Snapshot, present bool) *Snapshot {
	if s == nil {
		return nil
	}
	return &Snapshot{Session: s.Session, Ref: s.Ref, Commit: s.Commit, Head: s.Head, Index: s.Index,
		Previous: s.Previous, At: s.When, Present: present, Apply: handoff.ApplyCommand(s.Session)}
}

// PRGitHub says what was done on GitHub after a pull request moved.
type PRGitHub struct {
	Comment   string   `json:"comment"`   // created, updated (edited, or already up to date), skipped, failed
	CommentID int64    `json:"commentId"` // 0 when none was written or found
	Assigned  string   `json:"assigned"`  // the login assigned, else ""
	Labeled   string   `json:"labeled"`   // the label added, else ""
	Errors    []string `json:"errors"`
}

// OfPRGitHub shapes what was done on GitHub.
func OfPRGitHub(g handoff.PRGitHub) PRGitHub {
	out := PRGitHub{Comment: g.Comment, CommentID: g.CommentID, Assigned: g.Assigned, Labeled: g.Labeled, Errors: []string{}}
	for _, e := range g.Errors {
		out.Errors = append(out.Errors, e.Error())
	}
	return out
}

// Replace is the result of replacing a session: the old record, the new
// one with its handoff package, the baton carried over, the worktree
// bound to the new session, the pull request's comment (comment
// "skipped" when none moved) and the old session's uncommitted work.
type Replace struct {
	Old            Session   `json:"old"`
	New            Session   `json:"new"`
	Package        string    `json:"package"`
	CarriedHandoff *Baton    `json:"carriedHandoff"`
	Bound          string    `json:"bound"`
	GitHub         PRGitHub  `json:"github"`
	Snapshot       *Snapshot `json:"snapshot,omitempty"`
	Notices        []string  `json:"notices"`
	// TerminalCaptured: the excerpt came from the old agent's tmux pane;
	// Stopped: its agent was ended.
	TerminalCaptured bool `json:"terminalCaptured,omitempty"`
	Stopped          bool `json:"stopped,omitempty"`
}

// OfReplace shapes a replacement, with notices in place of the
// workflow's own (a surface adds what it has to say).
func OfReplace(res handoff.SessionReplaceResult, notices []string) Replace {
	return Replace{
		Old: OfSession(res.Old.Record, false), New: OfSession(res.New.Record, true),
		Package: res.Package, CarriedHandoff: OfBaton(res.Carried), Bound: res.Bound,
		GitHub: OfPRGitHub(res.GitHub), Snapshot: OfSnapshot(res.Snapshot.Snapshot, false), Notices: NonNil(notices),
		TerminalCaptured: res.Captured, Stopped: res.Stopped,
	}
}
