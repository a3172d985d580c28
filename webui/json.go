package webui

import (
	"encoding/json"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// The API's shapes. Field names are the command's --json names, so one
// reader serves both; like those, they are named here rather than
// inherited from the records, so a new record field appears in the API
// only when added here on purpose. Listings carry the project, the ref
// state they were read at (lastSeenRoot, the change stream's value) and
// the server's clock (now), which ages are counted from.

type projectsJSON struct {
	Projects []projectJSON `json:"projects"`
}

type projectJSON struct {
	ID  string `json:"id"`
	Dir string `json:"dir"`
}

type agentsJSON struct {
	Agents []agentJSON `json:"agents"`
}

type agentJSON struct {
	Name      string `json:"name"`
	Program   string `json:"program"`   // "" for one nobody launches (a person)
	Installed bool   `json:"installed"` // its program is on this machine's PATH
}

type handoffJSON struct {
	ID               string        `json:"id"`
	Ref              string        `json:"ref"`
	Owner            string        `json:"owner"`
	Branch           string        `json:"branch"`
	Shared           bool          `json:"shared"`
	NextSteps        []string      `json:"nextSteps"`
	FailedApproaches []string      `json:"failedApproaches"`
	OpenQuestions    []string      `json:"openQuestions"`
	Harness          string        `json:"harness,omitempty"`
	SessionID        string        `json:"sessionId,omitempty"`
	CreatedAt        time.Time     `json:"createdAt"`
	Head             string        `json:"head,omitempty"`
	Claimed          bool          `json:"claimed"`
	ClaimedAt        *time.Time    `json:"claimedAt,omitempty"`
	ClaimedBySession string        `json:"claimedBySession,omitempty"`
	Deleted          *deletionJSON `json:"deleted,omitempty"`
}

type deletionJSON struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

func toHandoffJSON(s *baton.Stored) *handoffJSON {
	if s == nil {
		return nil
	}
	out := &handoffJSON{
		ID: s.ID, Ref: s.Ref, Owner: s.Owner, Branch: s.Branch, Shared: s.Shared,
		NextSteps: nonNil(s.NextSteps), FailedApproaches: nonNil(s.FailedApproaches), OpenQuestions: nonNil(s.OpenQuestions),
		Harness: s.Harness, SessionID: s.SessionID, CreatedAt: s.CreatedAt, Head: s.Head,
		Claimed: s.Claimed, ClaimedAt: s.ClaimedAt, ClaimedBySession: s.ClaimedBySession,
	}
	if d := s.Deleted; d != nil {
		out.Deleted = &deletionJSON{Reason: d.Reason, At: d.At}
	}
	return out
}

type handoffListJSON struct {
	Items        []*handoffJSON `json:"items"`
	Total        int            `json:"total"`
	ProjectID    string         `json:"projectId"`
	LastSeenRoot string         `json:"lastSeenRoot"`
	Now          time.Time      `json:"now"`
	Notices      []string       `json:"notices"`
}

type dismissJSON struct {
	Dismissed bool         `json:"dismissed"`
	Handoff   *handoffJSON `json:"handoff"`
	Notices   []string     `json:"notices"`
}

type sessionJSON struct {
	ID                 string         `json:"id"`
	Ref                string         `json:"ref"`
	Owner              string         `json:"owner"`
	Branch             string         `json:"branch"`
	Worktree           string         `json:"worktree"`
	Host               string         `json:"host"`
	Harness            string         `json:"harness"`
	Model              string         `json:"model"`
	Status             string         `json:"status"`
	ReadOnly           bool           `json:"readOnly"` // merged: nothing changes it any more
	Prompt             string         `json:"prompt"`
	Summary            string         `json:"summary"`
	CreatedAt          time.Time      `json:"createdAt"`
	UpdatedAt          time.Time      `json:"updatedAt"`
	EndedAt            *time.Time     `json:"endedAt"`
	Supersedes         string         `json:"supersedes"`
	ReplacedBy         string         `json:"replacedBy"`
	HandoffReason      string         `json:"handoffReason"`
	HandoffAt          *time.Time     `json:"handoffAt"`
	HandoffContextMode string         `json:"handoffContextMode"`
	HandoffPackage     string         `json:"handoffPackage,omitempty"`
	Switching          *switchingJSON `json:"switching"`
	ClaimedHandoff     *handoffJSON   `json:"claimedHandoff"`
	PR                 *prJSON        `json:"pr"`
	Lineage            string         `json:"lineage,omitempty"`
}

type switchingJSON struct {
	By    string    `json:"by"`
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	To    string    `json:"to"`
}

type prJSON struct {
	Repo   string `json:"repo"`
	Number int    `json:"number"`
	URL    string `json:"url"`
}

func toSessionJSON(s session.Record, withPackage bool) sessionJSON {
	ref, _ := refstore.SessionRef(s.ID)
	out := sessionJSON{
		ID: s.ID, Ref: ref, Owner: s.Owner, Branch: s.Branch, Worktree: s.Worktree, Host: s.Host,
		Harness: s.Harness, Model: s.Model, Status: s.Status, ReadOnly: s.Status == session.StatusMerged,
		Prompt: s.Prompt, Summary: s.Summary,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, EndedAt: s.EndedAt,
		Supersedes: s.Supersedes, ReplacedBy: s.ReplacedBy, HandoffReason: s.HandoffReason,
		HandoffAt: s.HandoffAt, HandoffContextMode: s.HandoffContextMode,
		ClaimedHandoff: claimedCopy(s.ClaimedHandoff),
	}
	if withPackage {
		out.HandoffPackage = s.HandoffPackage
	}
	if g := s.Switching; g != nil {
		out.Switching = &switchingJSON{By: g.By, Since: g.Since, Until: g.Until, To: g.To}
	}
	if p := s.PR; p != nil {
		out.PR = &prJSON{Repo: p.Repo, Number: p.Number, URL: p.URL}
	}
	return out
}

// claimedCopy shapes the copy of the claimed baton a session keeps; one
// that does not decode is left out (the baton's own ref is the record).
func claimedCopy(raw json.RawMessage) *handoffJSON {
	if len(raw) == 0 {
		return nil
	}
	var b baton.Baton
	if err := json.Unmarshal(raw, &b); err != nil || b.ID == "" {
		return nil
	}
	ref, _ := refstore.HandoffRef(b.Shared, b.Owner, b.Branch)
	return toHandoffJSON(&baton.Stored{Baton: b, Ref: ref})
}

type sessionListJSON struct {
	Items        []sessionJSON `json:"items"`
	Total        int           `json:"total"`
	ProjectID    string        `json:"projectId"`
	LastSeenRoot string        `json:"lastSeenRoot"`
	Now          time.Time     `json:"now"`
	Notices      []string      `json:"notices"`
}

type sessionShowJSON struct {
	Session sessionJSON `json:"session"`
	Notices []string    `json:"notices"`
}

type lineageJSON struct {
	Lineage lineage.ChainView `json:"lineage"`
	Notices []string          `json:"notices"`
}

type launchJSON struct {
	Session  string   `json:"session"`
	Harness  string   `json:"harness"`
	Mode     string   `json:"mode"`
	NativeID string   `json:"nativeId"`
	Dir      string   `json:"dir"`
	Argv     []string `json:"argv"`
	Env      []string `json:"env"`
	Note     string   `json:"note"`
}

// relaunchJSON is the answer to a switch: the session, the agent it had,
// and the command that starts the new one (the page shows it; nothing is
// run).
type relaunchJSON struct {
	Session sessionJSON `json:"session"`
	From    string      `json:"from"`
	Launch  *launchJSON `json:"launch"`
	Bound   string      `json:"bound"`
	Changed bool        `json:"changed"`
	Notices []string    `json:"notices"`
}

func toRelaunchJSON(res session.RelaunchResult, notices []string) relaunchJSON {
	out := relaunchJSON{Session: toSessionJSON(res.Session.Record, false), From: res.From, Bound: res.Bound,
		Changed: !res.NoOp, Notices: nonNil(notices)}
	if !res.NoOp {
		p := res.Plan
		out.Launch = &launchJSON{Session: p.Session, Harness: p.Harness, Mode: p.Mode, NativeID: p.NativeID,
			Dir: p.Dir, Argv: nonNil(p.Argv), Env: nonNil(p.Env), Note: p.Note}
	}
	return out
}

type replaceJSON struct {
	Old            sessionJSON  `json:"old"`
	New            sessionJSON  `json:"new"`
	Package        string       `json:"package"`
	CarriedHandoff *handoffJSON `json:"carriedHandoff"`
	Bound          string       `json:"bound"`
	Notices        []string     `json:"notices"`
}

type prRecordJSON struct {
	Repo         string           `json:"repo"`
	Number       int              `json:"number"`
	URL          string           `json:"url"`
	OwnerSession string           `json:"ownerSession"` // "" once released
	ClaimedAt    time.Time        `json:"claimedAt"`
	MergedAt     *time.Time       `json:"mergedAt"`
	History      []prTransferJSON `json:"history"`
}

type prTransferJSON struct {
	Session string    `json:"session"`
	From    string    `json:"from"`
	At      time.Time `json:"at"`
	Reason  string    `json:"reason"`
	Harness string    `json:"harness"`
}

func toPRRecordJSON(r prown.Record) prRecordJSON {
	out := prRecordJSON{Repo: r.Repo, Number: r.Number, URL: r.URL, OwnerSession: r.OwnerSession,
		ClaimedAt: r.ClaimedAt, MergedAt: r.MergedAt, History: []prTransferJSON{}}
	for _, t := range r.History {
		out.History = append(out.History, prTransferJSON{Session: t.Session, From: t.From, At: t.At, Reason: t.Reason, Harness: t.Harness})
	}
	return out
}

type prListJSON struct {
	Items        []prRecordJSON `json:"items"`
	Total        int            `json:"total"`
	ProjectID    string         `json:"projectId"`
	LastSeenRoot string         `json:"lastSeenRoot"`
	Now          time.Time      `json:"now"`
	Notices      []string       `json:"notices"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
