package baton

import (
	"container/heap"
	"context"
	"sort"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/refstore"
)

// Event is one thing that happened to a baton, as the versions of its
// record tell it.
type Event struct {
	At      time.Time `json:"at"`
	Kind    string    `json:"kind"` // created, continued, claimed, cancelled, dismissed, conflict
	ID      string    `json:"id,omitempty"`
	Owner   string    `json:"owner,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	Shared  bool      `json:"shared"`
	Session string    `json:"session,omitempty"` // who wrote or claimed it
	Ref     string    `json:"ref"`
	// Dropped is, for a conflict, the blob id of this clone's version that
	// a teammate's concurrent one replaced; the ref's reflog keeps it
	// (git cat-file -p <id>).
	Dropped string `json:"dropped,omitempty"`
	// Reason is why, for an event that has one (a lease broken).
	Reason string `json:"reason,omitempty"`
}

// EventSource is what Events reads: the records and the archive
// (archive.Store), and the clone's own notes of the conflicts it lost
// (refstore.ConflictNotes).
type EventSource interface {
	archive.Store
	Local() refstore.Local
}

// Events lists the newest events first, at most limit of them.
//
// Every version of a baton record names the version it replaced ("prev"),
// so the history of each baton ref is walked through git cat-file as far
// as this clone has the objects: a baton's creation, claim, cancellation
// or dismissal are read from the newest version of it on that chain, with
// the times the record itself carries. That holds on every ref backend
// and git version; git prints no reflog of a ref that names a blob. The
// one thing no version tells is a conflict — this clone's version
// replaced by a teammate's that won the join, which is not on the
// winner's chain — so those come from the notes the store keeps of such
// writes (refstore.ConflictNotes).
//
// Batons retired into the archive (package archive) are tips too, so a
// retired baton's events stay in the log.
//
// Refs are visited newest first, by the latest time their next version
// carries, so a limited log reads the recent end of the recent refs only.
func Events(ctx context.Context, st EventSource, limit int) ([]Event, error) {
	var out []Event
	notes, err := refstore.ConflictNotes(st.Local())
	if err != nil {
		return nil, err
	}
	dropped := map[string]bool{}
	for i := len(notes) - 1; i >= 0; i-- {
		n := notes[i]
		ev := Event{At: n.At, Kind: "conflict", Ref: n.Ref, Dropped: n.Dropped}
		if b, ok := readAt(ctx, st, n.Kept); ok {
			fill(&ev, b)
		}
		out = append(out, ev)
		// A dropped baton of its own id is on no chain: what it was is
		// told here (a version of the kept baton is told by its chain).
		if b, ok := readAt(ctx, st, n.Dropped); ok && b.ID != ev.ID && !dropped[b.ID] {
			dropped[b.ID] = true
			out = append(out, eventsOf(n.Ref, b)...)
		}
	}

	tips, err := st.RefIDs(ctx, refstore.HandoffsPrefix)
	if err != nil {
		return nil, err
	}
	q := &versions{}
	for _, t := range tips {
		if v, ok := versionAt(ctx, st, t.Ref, t.OID); ok {
			q.items = append(q.items, v)
		}
	}
	// Batons retired into the archive are told as the live ones are,
	// under the ref they had (the archive keeps them by id: the next
	// baton reuses the ref); one whose version a live chain reaches is
	// told once, by whichever comes first.
	old, err := archive.List(ctx, st, archive.HandoffsDir)
	if err != nil {
		return nil, err
	}
	for _, f := range old {
		v, ok := versionAt(ctx, st, "", f.OID)
		if !ok {
			continue
		}
		if v.ref, err = refstore.HandoffRef(v.b.Shared, v.b.Owner, v.b.Branch); err != nil {
			v.ref = archive.Ref(f.Month) + ":" + f.Path
		}
		q.items = append(q.items, v)
	}
	heap.Init(q)
	told := map[string]bool{} // baton ids whose newest version was read
	for q.Len() > 0 {
		v := heap.Pop(q).(version)
		if limit > 0 && len(out) >= limit && !newest(out, limit, v.latest) {
			break // every version left is older than the limit-th event
		}
		if !told[v.b.ID] {
			told[v.b.ID] = true
			out = append(out, eventsOf(v.ref, v.b)...)
		}
		if next, ok := versionAt(ctx, st, v.ref, v.prev); ok {
			heap.Push(q, next)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// eventsOf are the events the newest version of a baton tells.
func eventsOf(ref string, b Baton) []Event {
	ev := func(kind string, at time.Time) Event {
		e := Event{At: at, Kind: kind, Ref: ref}
		fill(&e, b)
		return e
	}
	// Newest first, as Events lists them: the sort that follows is stable,
	// so events of one instant keep this order.
	var out []Event
	if b.Deleted != nil {
		out = append(out, ev(b.Deleted.Reason, b.Deleted.At))
	}
	if b.Claimed {
		e := ev("claimed", b.CreatedAt)
		if b.ClaimedAt != nil {
			e.At = *b.ClaimedAt
		}
		e.Session = b.ClaimedBySession
		out = append(out, e)
	}
	if b.Auto != nil && b.Auto.Continued != "" {
		// A continuation's automatic handoff: the session went on in
		// another agent (`git handoff continue`).
		return append(out, ev("continued", b.CreatedAt))
	}
	return append(out, ev("created", b.CreatedAt))
}

// newest reports whether at is later than the limit-th newest event in out.
func newest(out []Event, limit int, at time.Time) bool {
	older := 0
	for _, e := range out {
		if !e.At.Before(at) {
			older++
		}
	}
	return older < limit
}

func fill(ev *Event, b Baton) {
	ev.ID, ev.Owner, ev.Branch, ev.Shared, ev.Session = b.ID, b.Owner, b.Branch, b.Shared, b.SessionID
}

// version is one version of a baton ref on its chain.
type version struct {
	ref    string
	b      Baton
	prev   string    // the version it replaced
	latest time.Time // the latest time it carries: no older version has a later one
}

func versionAt(ctx context.Context, st refstore.Records, ref, oid string) (version, bool) {
	e, ok := readEntry(ctx, st, oid)
	if !ok {
		return version{}, false
	}
	b, err := DecodeVersion(e)
	if err != nil {
		return version{}, false
	}
	v := version{ref: ref, b: b, prev: refstore.RevOf(e.Data).Prev, latest: b.CreatedAt}
	if b.ClaimedAt != nil && b.ClaimedAt.After(v.latest) {
		v.latest = *b.ClaimedAt
	}
	if b.Deleted != nil && b.Deleted.At.After(v.latest) {
		v.latest = b.Deleted.At
	}
	return v, true
}

// versions is a max-heap of versions by their latest time.
type versions struct{ items []version }

func (q *versions) Len() int           { return len(q.items) }
func (q *versions) Less(i, j int) bool { return q.items[i].latest.After(q.items[j].latest) }
func (q *versions) Swap(i, j int)      { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *versions) Push(x any)         { q.items = append(q.items, x.(version)) }
func (q *versions) Pop() any {
	v := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return v
}

func readEntry(ctx context.Context, st refstore.Records, oid string) (refstore.Entry, bool) {
	if oid == "" {
		return refstore.Entry{}, false
	}
	e, err := st.ReadObject(ctx, oid)
	if err != nil || e.Data == nil {
		return refstore.Entry{}, false
	}
	return e, true
}

func readAt(ctx context.Context, st refstore.Records, oid string) (Baton, bool) {
	e, ok := readEntry(ctx, st, oid)
	if !ok {
		return Baton{}, false
	}
	b, err := DecodeVersion(e)
	return b, err == nil
}
