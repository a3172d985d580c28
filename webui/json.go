package webui

import (
	"time"

	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/view"
)

// The API's own shapes; the records' and the results the CLI shows too
// are package view's. Field names are the command's --json names, so one
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

// listJSON is every listing's answer: the items, how many, which project,
// the state of its refs when read (what the change stream announces), and
// the server's clock.
type listJSON[T any] struct {
	Items        []T       `json:"items"`
	Total        int       `json:"total"`
	ProjectID    string    `json:"projectId"`
	LastSeenRoot string    `json:"lastSeenRoot"`
	Now          time.Time `json:"now"`
	Notices      []string  `json:"notices"`
	// Signing: the batons listing says whether the repository signs.
	Signing *signingJSON `json:"signing,omitempty"`
}

// sessionRowJSON is a session as the listing shows it: the record, what
// tmux says of its agent (in runtime.state), the objective of its owner on
// its branch, and whether it runs in a worktree and on a host other than
// the served repository's.
type sessionRowJSON struct {
	view.Session
	Objective  *view.Objective `json:"objective"`
	OtherHost  bool            `json:"otherHost"`
	EndReason  string          `json:"endReason,omitempty"` // why it ended without `end`: its agent exited, say
	AttachLine string          `json:"attach,omitempty"`    // live under tmux: the line that attaches to it
}

// signingJSON says whether the repository signs its records: the page
// shows verification only where it does.
type signingJSON struct {
	Signs         bool `json:"signs"`
	RequireSigned bool `json:"requireSigned"`
}

type sessionShowJSON struct {
	Session view.Session `json:"session"`
	Notices []string     `json:"notices"`
}

type lineageJSON struct {
	Lineage lineage.ChainView `json:"lineage"`
	Notices []string          `json:"notices"`
}

// relaunchJSON is the answer to a switch: the session, the agent it had,
// and the command that starts the new one (the page shows it; nothing is
// run).
type relaunchJSON struct {
	Session view.Session `json:"session"`
	From    string       `json:"from"`
	Launch  *view.Launch `json:"launch"`
	Bound   string       `json:"bound"`
	// EndedSession: the active session the worktree was bound to, ended
	// so that this one is bound there.
	EndedSession string `json:"endedSession,omitempty"`
	// Recreated: a restore re-created the session's worktree there.
	Recreated string `json:"recreated,omitempty"`
	// Attach: the agent runs under tmux; this line attaches a terminal.
	Attach  string   `json:"attach,omitempty"`
	Changed bool     `json:"changed"`
	Notices []string `json:"notices"`
}

func toRelaunchJSON(res session.RelaunchResult, notices []string) relaunchJSON {
	out := relaunchJSON{Session: view.OfSession(res.Session.Record, false), From: res.From, Bound: res.Bound,
		EndedSession: res.EndedBound, Changed: !res.NoOp, Notices: view.NonNil(notices)}
	if !res.NoOp {
		l := view.OfLaunch(res.Plan)
		out.Launch = &l
	}
	return out
}
