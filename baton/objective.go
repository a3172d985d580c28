package baton

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// ObjectiveSchema is the version tag of an objective record.
const ObjectiveSchema = "objective/v1"

// Objective is what the current session on owner+branch is trying to do,
// at refs/ao/objectives/<owner>/<branch>. Clearing leaves a record with
// empty Text, for the same reason batons leave tombstones.
type Objective struct {
	Schema    string    `json:"schema"`
	Owner     string    `json:"owner"`
	Branch    string    `json:"branch"`
	Text      string    `json:"text"`
	SessionID string    `json:"sessionId,omitempty"`
	SetAt     time.Time `json:"setAt"`
	refstore.Cause
}

// NewObjective builds an objective record ("" text clears).
func NewObjective(owner, branch, text, session string, now time.Time) Objective {
	return Objective{Schema: ObjectiveSchema, Owner: owner, Branch: branch, Text: strings.TrimSpace(text), SessionID: session, SetAt: now.UTC()}
}

// DecodeObjective reads one entry as an objective record (a cleared one
// too), refusing a record that belongs at another ref than e.Ref. Sync
// decodes with it too.
func DecodeObjective(e refstore.Entry) (Objective, error) {
	var o Objective
	if err := refstore.Decode(e, ObjectiveSchema, &o); err != nil {
		return Objective{}, err
	}
	if want, err := refstore.ObjectiveRef(o.Owner, o.Branch); err != nil || want != e.Ref {
		return Objective{}, fmt.Errorf("%w: %s holds the objective of owner %q on branch %q, which belongs elsewhere", refstore.ErrInvalidRecord, e.Ref, o.Owner, o.Branch)
	}
	return o, nil
}

// ReadObjective returns the objective of owner on branch, or nil.
func ReadObjective(ctx context.Context, st refstore.Records, owner, branch string) (*Objective, string, error) {
	ref, err := refstore.ObjectiveRef(owner, branch)
	if err != nil {
		return nil, "", err
	}
	e, err := st.Get(ctx, ref)
	if errors.Is(err, refstore.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	o, err := DecodeObjective(e)
	if err != nil {
		return nil, e.OID, err
	}
	if o.Text == "" {
		return nil, e.OID, nil
	}
	return &o, e.OID, nil
}

// ObjectiveUpdate returns the swap that sets (text != "") or clears
// (text == "") the objective, and false when nothing would change.
func ObjectiveUpdate(ctx context.Context, st refstore.Writer, owner, branch, text, session string, now time.Time) (refstore.Update, bool, error) {
	ref, err := refstore.ObjectiveRef(owner, branch)
	if err != nil {
		return refstore.Update{}, false, err
	}
	text = strings.TrimSpace(text)
	cur, oid, err := ReadObjective(ctx, st, owner, branch)
	if err != nil && !isBadRecord(err) {
		return refstore.Update{}, false, err
	}
	if err == nil && (cur == nil && text == "" || cur != nil && cur.Text == text) {
		return refstore.Update{}, false, nil
	}
	o := NewObjective(owner, branch, text, session, now)
	nid, _, err := refstore.WriteVersion(ctx, st, ref, oid, &o.Cause, &o)
	if err != nil {
		return refstore.Update{}, false, err
	}
	return refstore.Update{Ref: ref, New: nid, Old: oid}, true, nil
}

// SetObjective sets or clears the objective, re-deciding on a lost swap.
// It reports whether anything changed.
func SetObjective(ctx context.Context, st refstore.Writer, owner, branch, text, session string, now time.Time) (bool, error) {
	for attempt := 0; ; attempt++ {
		up, changed, err := ObjectiveUpdate(ctx, st, owner, branch, text, session, now)
		if err != nil || !changed {
			return false, err
		}
		msg := "handoff: objective set"
		if strings.TrimSpace(text) == "" {
			msg = "handoff: objective cleared"
		}
		err = st.Apply(ctx, msg, up)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, refstore.ErrConflict) || attempt == 3 {
			return false, err
		}
	}
}

// RecordSchema is the schema the record carried (refstore.Versioned).
func (o Objective) RecordSchema() string { return o.Schema }
