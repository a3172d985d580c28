package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/git-handoff/git-handoff/refstore"
)

// A cancel or dismissal is decided at the arbiter (a push) before this
// clone records it (a local ref swap). When that swap fails, the deletion
// stands for the team (NotRecordedError), and nothing in the clone's own
// records says so: the local ref still holds the waiting baton. The
// tracking ref the arbiter moved holds the tombstone only until the next
// fetch, and the remote may have dropped it by then: a teammate's
// concurrent baton replaced it by the join's tie-break (archived only in
// that teammate's clone until its next sync) and was retired, so the next
// start here found the remote holding nothing of the baton, and claimed
// and delivered the waiting copy it had said was cancelled (found by the
// simulation, seed 11). So the deletion is noted in the git dir, at
// <common dir>/handoff/unrecorded/<baton>, with the tombstone itself, and
// the next command here that could deliver the baton or push it (a start,
// a claim, a sync, any writing command of the CLI) records it first
// (RecordDecided).
//
// Only a decision known to be taken is noted: a claim has its own notes
// (pending.go), which a start settles by asking the arbiter, and a
// deletion whose answer never came is told as failed, as before.

const unrecordedSchema = "unrecorded-deletion/v1"

// unrecordedDir holds the notes of deletions decided and not recorded.
const unrecordedDir = "unrecorded"

type unrecordedDeletion struct {
	Schema string `json:"schema"`
	Baton  string `json:"baton"`
	Ref    string `json:"ref"`
	Old    string `json:"old"`  // the waiting version the arbiter's tombstone replaced
	New    string `json:"new"`  // the tombstone the arbiter took
	Done   string `json:"done"` // "cancelled" or "dismissed"
	// Record is the tombstone's blob, written again when applied: once
	// the tracking ref moves on, nothing else here may reach it, and a
	// git gc prunes it.
	Record []byte `json:"record"`
}

// noteUnrecorded notes the deletion up, which the arbiter took and this
// clone could not record.
func noteUnrecorded(ctx context.Context, st refstore.Writer, id, done string, up refstore.Update) error {
	e, err := st.ReadObject(ctx, up.New)
	if err != nil {
		return err
	}
	if e.Data == nil {
		return fmt.Errorf("the tombstone %s is too large to note", up.New)
	}
	name, err := refstore.EncodeComponent(id)
	if err != nil {
		return err
	}
	data, err := json.Marshal(unrecordedDeletion{Schema: unrecordedSchema, Baton: id, Ref: up.Ref, Old: up.Old, New: up.New, Done: done, Record: e.Data})
	if err != nil {
		return err
	}
	return st.Local().Write(ctx, unrecordedDir+"/"+name, data)
}

// RecordDecided records here each deletion the arbiter took that this
// clone has not recorded (noteUnrecorded): the local ref still holding the
// waiting version the tombstone replaced moves to the tombstone, as the
// deletion's own swap would have. A note whose ref moved on since (the
// tombstone recorded, or a later version written or merged over it) goes
// with nothing written. It returns an error when a deletion could not be
// recorded: its waiting copy is here still, which the caller must neither
// deliver nor push. A note that cannot be read is left alone, as a
// claim's is: it is evidence, and a later version may read it.
func RecordDecided(ctx context.Context, st refstore.Writer) error {
	l := st.Local()
	names, err := l.List(unrecordedDir)
	if err != nil || len(names) == 0 {
		return nil
	}
	var errs []error
	for _, name := range names {
		path := unrecordedDir + "/" + name
		data, err := l.Read(path)
		if err != nil {
			continue
		}
		var n unrecordedDeletion
		if json.Unmarshal(data, &n) != nil || n.Schema != unrecordedSchema || n.Ref == "" || n.Old == "" || n.New == "" {
			continue
		}
		err = n.record(ctx, st)
		if errors.Is(err, errNotThisNote) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("recording here that baton %s was %s where claims are decided: %w", n.Baton, n.Done, err))
			continue
		}
		_ = l.Remove(path) // left, it is read again and goes then
	}
	return errors.Join(errs...)
}

// errNotThisNote is a note whose tombstone is not the blob it names (a
// note damaged, or of another object format): it cannot be recorded, and
// refusing every start for it would stop them all for good.
var errNotThisNote = errors.New("the noted tombstone is not the blob the note names")

// record moves n's ref from the waiting version to the tombstone, unless
// it holds something else now.
func (n *unrecordedDeletion) record(ctx context.Context, st refstore.Writer) error {
	cur, err := refstore.ResolveID(ctx, st, n.Ref)
	if err != nil && !errors.Is(err, refstore.ErrNotFound) {
		return err
	}
	if cur != n.Old {
		return nil
	}
	oid, err := st.WriteBlob(ctx, n.Record)
	if err != nil {
		return err
	}
	if oid != n.New {
		return errNotThisNote
	}
	err = st.Apply(ctx, "handoff: "+n.Done+" "+n.Baton+" (decided at the arbiter, recorded now)", refstore.Update{Ref: n.Ref, New: n.New, Old: n.Old})
	if errors.Is(err, refstore.ErrConflict) {
		if now, rerr := refstore.ResolveID(ctx, st, n.Ref); rerr == nil && now != n.Old {
			return nil // moved meanwhile: as above
		}
	}
	return err
}
