package baton

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// The newest waiting shared baton is found from one listing of every
// shared baton (refs/ao/handoffs/shared/), read through git: one
// for-each-ref and one cat-file, whatever the ref backend. Nothing is kept
// between starts: every start decides from what the refs hold now.

// newestShared is the newest waiting shared baton that ok accepts, with
// the warnings of shared refs that do not hold a readable baton. The one
// returned is re-read from its ref just before, as the claim's
// compare-and-swap will read it: one claimed or replaced since it was
// listed is skipped, or takes its new place when its new version waits too.
func newestShared(ctx context.Context, st refstore.Records, ok func(*Stored) bool, warns []Warning) (*Stored, []Warning, error) {
	var cands []waiting
	err := st.EachStreamed(ctx, refstore.SharedPrefix, func(e refstore.Entry) error {
		w, live, err := scan(e)
		if err != nil {
			warns = append(warns, Warning{Ref: e.Ref, Err: err})
		} else if live {
			cands = append(cands, w)
		}
		return nil
	})
	if err != nil {
		return nil, warns, err
	}
	slices.SortFunc(cands, func(a, b waiting) int { return b.order(&a) })
	moves := 0
	for i := 0; i < len(cands); i++ {
		c := cands[i]
		s, err := Read(ctx, st, c.ref)
		switch {
		case errors.Is(err, refstore.ErrNotFound):
		case err != nil && isBadRecord(err):
			warns = append(warns, Warning{Ref: c.ref, Err: err})
		case err != nil:
			return nil, warns, err
		case !s.Live():
		case s.OID != c.oid:
			// A newer version that waits too: it takes its own place in
			// the order. Bounded, so a ref rewritten without end cannot
			// keep us here.
			if moves++; moves <= 16 {
				w := waiting{ref: s.Ref, oid: s.OID, id: s.ID, at: s.CreatedAt}
				rest := cands[i+1:]
				at := i + 1 + sort.Search(len(rest), func(k int) bool { return w.order(&rest[k]) > 0 })
				cands = slices.Insert(cands, at, w)
			}
		case ok(&s):
			return &s, warns, nil
		}
	}
	return nil, warns, nil
}

// waiting is what the listing keeps of a shared baton that waits: its
// place in Newer's order and where to read it whole. At 100,000 shared
// batons the listing reads every one, and only the one offered is read
// whole again: keeping and sorting whole records was most of a start's
// time there.
type waiting struct {
	ref, oid, id string
	at           time.Time
}

// order is Newer for two listed batons, 1 when w is newer than o, and
// then the refs' order (the order they were listed in), so that no two
// differ.
func (w *waiting) order(o *waiting) int {
	if c := w.at.Compare(o.at); c != 0 {
		return c
	}
	if c := strings.Compare(w.id, o.id); c != 0 {
		return c
	}
	return strings.Compare(o.ref, w.ref)
}

// scanned is the part of a shared record the listing reads: whether it
// waits, where it belongs, and its place in the order. The rest of the
// record is skipped unread, as JSON, so a record broken only there is
// reported when it is the one offered (Read), not while listed.
type scanned struct {
	Schema    string          `json:"schema"`
	ID        string          `json:"id"`
	Owner     string          `json:"owner"`
	Branch    string          `json:"branch"`
	Shared    bool            `json:"shared"`
	CreatedAt time.Time       `json:"createdAt"`
	Claimed   bool            `json:"claimed"`
	Deleted   json.RawMessage `json:"deleted"`
}

func (s scanned) RecordSchema() string { return s.Schema }

// scan reads e as Decode does, as far as scanned goes: the same checks of
// size, type, schema and place, the same errors.
func scan(e refstore.Entry) (waiting, bool, error) {
	var s scanned
	if err := refstore.Decode(e, Schema, &s); err != nil {
		return waiting{}, false, err
	}
	if err := AtItsPlace(e.Ref, s.Owner, s.Branch, s.Shared); err != nil {
		return waiting{}, false, err
	}
	live := !s.Claimed && (len(s.Deleted) == 0 || string(s.Deleted) == "null")
	return waiting{ref: e.Ref, oid: e.OID, id: s.ID, at: s.CreatedAt}, live, nil
}
