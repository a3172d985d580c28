package main

import (
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/hooks"
)

// The --json shapes of the commands. Each is made for output and kept
// stable: fields are named here, not inherited from the records in git, so
// a new field on a record does not appear (or change its meaning) in
// anyone's scripts until it is added here on purpose. Every command whose
// text output has notices carries them in "notices" (an empty list, never
// null).

// handoffJSON is a baton as --json shows it.
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
	Reason string    `json:"reason"` // cancelled or dismissed
	At     time.Time `json:"at"`
}

func toJSON(s *baton.Stored) *handoffJSON {
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

// objectiveJSON is an objective as --json shows it.
type objectiveJSON struct {
	Owner     string    `json:"owner"`
	Branch    string    `json:"branch"`
	Text      string    `json:"text"`
	SessionID string    `json:"sessionId,omitempty"`
	SetAt     time.Time `json:"setAt"`
}

func toObjectiveJSON(o *baton.Objective) *objectiveJSON {
	if o == nil {
		return nil
	}
	return &objectiveJSON{Owner: o.Owner, Branch: o.Branch, Text: o.Text, SessionID: o.SessionID, SetAt: o.SetAt}
}

// endJSON is the result of `end --json`.
type endJSON struct {
	Handoff *handoffJSON `json:"handoff"`
	// Superseded is the waiting baton this one replaced, if any (still
	// reachable from the ref's reflog).
	Superseded *handoffJSON `json:"superseded"`
	Notices    []string     `json:"notices"`
}

// claimJSON is the result of `claim --json`.
type claimJSON struct {
	Handoff *handoffJSON `json:"handoff"`
	Claimed bool         `json:"claimed"`
	Notices []string     `json:"notices"`
}

// showJSON is the result of `show --json`.
type showJSON struct {
	Handoff *handoffJSON `json:"handoff"`
	Notices []string     `json:"notices"`
}

// cancelJSON is the result of `cancel --json`.
type cancelJSON struct {
	Cancelled bool         `json:"cancelled"`
	Handoff   *handoffJSON `json:"handoff"` // the tombstone; null when nothing was cancelled
	Notices   []string     `json:"notices"`
}

// dismissJSON is the result of `dismiss --json`.
type dismissJSON struct {
	Dismissed bool         `json:"dismissed"`
	Handoff   *handoffJSON `json:"handoff"`
	Notices   []string     `json:"notices"`
}

// objectiveResultJSON is the result of `objective --json`.
type objectiveResultJSON struct {
	Objective *objectiveJSON `json:"objective"` // null when there is none
	Changed   bool           `json:"changed"`
}

// eventJSON is one baton event of `log --json`.
type eventJSON struct {
	At      time.Time `json:"at"`
	Kind    string    `json:"kind"` // created, claimed, cancelled, dismissed, removed
	ID      string    `json:"id,omitempty"`
	Owner   string    `json:"owner,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	Shared  bool      `json:"shared"`
	Session string    `json:"session,omitempty"`
	Ref     string    `json:"ref"`
	Who     string    `json:"who,omitempty"`
}

// logJSON is the result of `log --json`.
type logJSON struct {
	Events []eventJSON `json:"events"`
}

func toLogJSON(events []baton.Event) logJSON {
	out := logJSON{Events: []eventJSON{}}
	for _, e := range events {
		out.Events = append(out.Events, eventJSON{At: e.At, Kind: e.Kind, ID: e.ID, Owner: e.Owner, Branch: e.Branch,
			Shared: e.Shared, Session: e.Session, Ref: e.Ref, Who: e.Who})
	}
	return out
}

// hookReportJSON is what `hooks install`, `hooks uninstall` and `init`
// (under "hooks") report: one shape for all three.
type hookReportJSON struct {
	Dir     string           `json:"dir"`
	Changed bool             `json:"changed"`
	Hooks   []hookResultJSON `json:"hooks"`
	Notices []string         `json:"notices"`
}

type hookResultJSON struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
}

func toHookReportJSON(rep hooks.Report) *hookReportJSON {
	out := &hookReportJSON{Dir: rep.Dir, Changed: rep.Changed(), Hooks: []hookResultJSON{}, Notices: nonNil(rep.Warnings)}
	for _, h := range rep.Hooks {
		out.Hooks = append(out.Hooks, hookResultJSON{Name: h.Name, Path: h.Path, Action: string(h.Action), Detail: h.Detail})
	}
	return out
}

// hooksCheckJSON is the result of `hooks check --json`.
type hooksCheckJSON struct {
	OK    bool             `json:"ok"`
	Hooks []hookStatusJSON `json:"hooks"`
}

type hookStatusJSON struct {
	Name              string `json:"name"`
	Path              string `json:"path"`
	State             string `json:"state"`
	Chained           string `json:"chained,omitempty"`
	ChainedExecutable bool   `json:"chainedExecutable,omitempty"`
	Note              string `json:"note,omitempty"`
}
