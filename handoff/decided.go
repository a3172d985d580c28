package handoff

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// Conflict is a key where two versions, written without seeing each
// other, were joined by a tie-break: by sync, the merge after a fetch, or
// an arbiter deciding a claim or a deletion. The loser stays reachable from
// the reflog of the ref it was at (the local ref when the local version
// lost, the tracking ref otherwise), and `git handoff log` shows the
// write as a conflict event (refstore.ConflictReflog).
type Conflict struct {
	Ref      string `json:"ref"`
	Kept     string `json:"kept"`     // blob id
	Dropped  string `json:"dropped"`  // blob id
	KeptFrom string `json:"keptFrom"` // "local" or "remote"
	Summary  string `json:"summary"`
	// Why is the rule of the record's kind that kept Kept, in words.
	Why string `json:"why"`
	// Fields are the fields a user reads that differ between the two, in
	// the kept record's order; bookkeeping (schema, rev, prev, seen, the
	// signature) is left out. Diff has every line.
	Fields []ConflictField `json:"fields"`
	Diff   string          `json:"diff"` // "-" dropped, "+" kept
}

// ConflictField is one field that differs between a conflict's two
// versions: its JSON value in each, absent where that version lacks it.
type ConflictField struct {
	Field   string          `json:"field"`
	Kept    json.RawMessage `json:"kept,omitempty"`
	Dropped json.RawMessage `json:"dropped,omitempty"`
}

// SupersededError says the arbiter holds another baton at the ref than the
// one a claim or deletion acted on, and the join every clone makes keeps
// it: the command was not carried out, and the local ref now holds the
// kept baton. The replaced version is archived (by the join that dropped
// it, or by the end that superseded it). Conflict is
// set when the two were written without seeing each other.
type SupersededError struct {
	Remote   string
	Ref      string
	Mine     baton.Baton // the version the command started from
	MineOID  string
	Kept     baton.Baton // what the arbiter holds
	KeptOID  string
	Conflict *Conflict
}

func (e *SupersededError) Error() string {
	from := e.Remote
	if e.Kept.SessionID != "" {
		from = "session " + e.Kept.SessionID + " via " + e.Remote
	}
	state := "waiting"
	switch {
	case e.Kept.Claimed:
		state = "claimed by session " + e.Kept.ClaimedBySession
	case e.Kept.Deleted != nil:
		state = e.Kept.Deleted.Reason
	}
	return fmt.Sprintf("baton %s was superseded by baton %s (%s) from %s; the archive keeps %s (git cat-file -p %s)",
		e.Mine.ID, e.Kept.ID, state, from, e.Mine.ID, e.MineOID)
}

func (e *SupersededError) Unwrap() error { return refstore.ErrConflict }

// lostNotice says, truthfully, why the arbiter did not take a claim of
// baton id: another session claimed it, it was cancelled or dismissed, or
// another baton superseded it (with the conflict the join reported).
func lostNotice(err error, id string) (string, *Conflict) {
	var se *SupersededError
	var ce *baton.ClaimedError
	var de *baton.DeletedError
	switch {
	case errors.As(err, &se):
		return se.Error(), se.Conflict
	case errors.As(err, &ce):
		return "another session claimed the baton first: " + ce.Error(), nil
	case errors.As(err, &de):
		return de.Error() + ": not delivered", nil
	}
	return fmt.Sprintf("baton %s was not claimed: %v", id, err), nil
}
