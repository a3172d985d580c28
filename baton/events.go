package baton

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// Event is one thing that happened to a baton in this clone, read back from
// the reflogs of the baton refs.
type Event struct {
	At      time.Time `json:"at"`
	Kind    string    `json:"kind"` // created, claimed, cancelled, dismissed, removed, conflict
	ID      string    `json:"id,omitempty"`
	Owner   string    `json:"owner,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	Shared  bool      `json:"shared"`
	Session string    `json:"session,omitempty"` // who wrote or claimed it
	Ref     string    `json:"ref"`
	Who     string    `json:"who,omitempty"` // the git identity that made the change
	// Dropped is, for a conflict, the blob id of this clone's version that
	// a teammate's concurrent one replaced; it stays in the reflog
	// (git cat-file -p <id>).
	Dropped string `json:"dropped,omitempty"`
}

// Events lists the newest events first, at most limit of them. The kind is
// decided from the records on each side of the change, not from the reflog
// message, so it stays right whatever wrote the entry — except a conflict:
// sync and the lazy merge write the version that won a tie-break over this
// clone's own with a message starting refstore.ConflictReflog, and only
// the message tells that from a version that followed.
func Events(ctx context.Context, st *refstore.Store, limit int) ([]Event, error) {
	logs, err := st.Reflogs(refstore.HandoffsPrefix)
	if err != nil {
		return nil, err
	}
	// Reflog lines are oldest first; reversed, a stable sort keeps the
	// later of two changes in the same second first.
	for i, j := 0, len(logs)-1; i < j; i, j = i+1, j-1 {
		logs[i], logs[j] = logs[j], logs[i]
	}
	sort.SliceStable(logs, func(i, j int) bool { return logs[i].When.After(logs[j].When) })
	var out []Event
	for _, l := range logs {
		if len(out) == limit {
			break
		}
		ev := Event{At: l.When, Ref: l.Ref, Who: l.Who}
		newB, newOK := readAt(ctx, st, l.New)
		oldB, oldOK := readAt(ctx, st, l.Old)
		switch {
		case strings.HasPrefix(l.Message, refstore.ConflictReflog) && newOK:
			ev.Kind = "conflict"
			fill(&ev, newB)
			ev.Dropped = l.Old
		case l.New == "":
			ev.Kind = "removed"
			if oldOK {
				fill(&ev, oldB)
			}
		case !newOK:
			continue // not a record we can read: nothing to say about it
		case newB.Deleted != nil:
			ev.Kind = newB.Deleted.Reason
			fill(&ev, newB)
		case newB.Claimed && (!oldOK || oldB.ID != newB.ID || !oldB.Claimed):
			ev.Kind = "claimed"
			fill(&ev, newB)
			ev.Session = newB.ClaimedBySession
		case !oldOK || oldB.ID != newB.ID:
			ev.Kind = "created"
			fill(&ev, newB)
		default:
			continue
		}
		out = append(out, ev)
	}
	return out, nil
}

func fill(ev *Event, b Baton) {
	ev.ID, ev.Owner, ev.Branch, ev.Shared, ev.Session = b.ID, b.Owner, b.Branch, b.Shared, b.SessionID
}

func readAt(ctx context.Context, st *refstore.Store, oid string) (Baton, bool) {
	if oid == "" {
		return Baton{}, false
	}
	e, err := st.ReadObject(ctx, oid)
	if err != nil {
		return Baton{}, false
	}
	var b Baton
	if refstore.Decode(e, Schema, &b) != nil {
		return Baton{}, false
	}
	return b, true
}
