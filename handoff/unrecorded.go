package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/git-handoff/git-handoff/refstore"
)

// A cancel or dismissal is decided at the arbiter (a push) before this
// clone records it (a local ref swap). Until the swap, nothing in the
// clone's own records says so: the local ref still holds the waiting
// baton. The tracking ref holds the tombstone only until the next fetch,
// and the remote may have dropped it by then: a teammate's concurrent
// baton replaced it by the join's tie-break (archived only in that
// teammate's clone until its next sync) and was retired, so the next
// start here found the remote holding nothing of the baton, and claimed
// and delivered the waiting copy the user had cancelled (found by the
// simulation, seed 11, where the swap failed; and again with the process
// killed right after its push returned, before it wrote anything more).
//
// So the deletion is noted in the git dir before it is pushed, at
// <common dir>/handoff/unrecorded/<baton>~<tombstone>, with the tombstone
// itself. The note goes once the local ref holds the tombstone, or once
// the arbiter's answer says the tombstone cannot land (refused before any
// push, or decided otherwise: claimed, deleted or replaced there); it is
// rewritten as taken when the arbiter took the tombstone and the local
// swap failed. The next command here that could deliver the baton or push
// it (a start, a claim, a sync, any writing command of the CLI) settles
// every note first (RecordDecided), once the process deciding it has let
// go of the baton's lock: the local ref still holding the waiting version
// the tombstone replaced moves to the tombstone when the arbiter took it,
// as the deletion's own swap would have.
//
// A note still in flight (its process died anywhere between the note and
// its answer, or the push got no answer) asks the arbiter what it holds:
// the tombstone, or a version written over it, and the deletion landed;
// the waiting version, and the tombstone is pushed again, leased on it,
// so that a claim made elsewhere meanwhile wins; a version of the baton
// or one written over the waiting version, and it was decided otherwise;
// nothing of the baton, and its archive is asked whether it retired the
// tombstone (recorded) or another version of the baton (decided
// otherwise); when it has neither, the deletion is recorded: the
// tombstone may have landed and been replaced and retired there since
// (the story above), or the baton never reached the remote, and only this
// clone holds it. Recorded without asking, a tombstone could stand here over a
// baton the arbiter gave a teammate (found by the simulation, seed 2 with
// continuation, when a deletion whose push got no answer was noted so).

// deletionSchema is a note written before the deletion's push: what the
// arbiter did with it is not known here.
const deletionSchema = "deletion-in-flight/v1"

// unrecordedSchema is a note of a deletion the arbiter took, whose local
// swap failed (an earlier release wrote only these).
const unrecordedSchema = "unrecorded-deletion/v1"

// unrecordedDir holds the notes of deletions not known to be recorded.
const unrecordedDir = "unrecorded"

type unrecordedDeletion struct {
	Schema string `json:"schema"`
	Baton  string `json:"baton"`
	Ref    string `json:"ref"`
	Old    string `json:"old"`  // the waiting version the tombstone replaces
	New    string `json:"new"`  // the tombstone
	Done   string `json:"done"` // "cancelled" or "dismissed"
	// Held is the group of refs keeping the tombstone's blob from git gc
	// while it is pushed (hold.go): a process killed leaves it, and the
	// note's recording releases it.
	Held string `json:"held,omitempty"`
	// Record is the tombstone's blob, written again when applied: once
	// the hold is gone, nothing else here may reach it, and a git gc
	// prunes it.
	Record []byte `json:"record"`

	path string // where the note is
}

// noteDeletion notes the deletion up, about to be pushed to the arbiter
// with its blob held by pass.
func noteDeletion(ctx context.Context, st refstore.Writer, id, done string, up refstore.Update, pass held) (*unrecordedDeletion, error) {
	e, err := st.ReadObject(ctx, up.New)
	if err != nil {
		return nil, err
	}
	if e.Data == nil {
		return nil, fmt.Errorf("the tombstone %s is too large to note", up.New)
	}
	name, err := refstore.EncodeComponent(id)
	if err != nil {
		return nil, err
	}
	n := &unrecordedDeletion{Schema: deletionSchema, Baton: id, Ref: up.Ref, Old: up.Old, New: up.New, Done: done, Held: pass.group, Record: e.Data}
	data, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	// '~' never appears in an encoded component; the tombstone's id
	// tells two deletions of one baton apart (a pid would not: a dead
	// process's may be reused, and the simulation's processes share one).
	n.path = unrecordedDir + "/" + name + "~" + up.New
	if err := st.Local().Write(ctx, n.path, data); err != nil {
		return nil, fmt.Errorf("noting the deletion of baton %s: %w", id, err)
	}
	return n, nil
}

// drop removes the note: the deletion is recorded here, or cannot land. A
// removal that fails leaves it for RecordDecided, which finds the ref
// moved on from the waiting version, or records a deletion the user asked
// for, as a sync would take it to the arbiter.
func (n *unrecordedDeletion) drop(st refstore.Writer) {
	if n != nil {
		_ = st.Local().Remove(n.path)
	}
}

// taken rewrites the note as a deletion the arbiter took. A rewrite that
// fails leaves it in flight, which the arbiter settles.
func (n *unrecordedDeletion) taken(ctx context.Context, st refstore.Writer) {
	t := *n
	t.Schema, t.Held = unrecordedSchema, "" // the hold goes as the caller returns
	if data, err := json.Marshal(&t); err == nil {
		_ = st.Local().Write(ctx, n.path, data)
	}
}

// readDeletion reads the note at path; false when there is none there now,
// or it cannot be read (it is evidence, left alone: a later version may
// read it).
func readDeletion(l refstore.Local, path string) (*unrecordedDeletion, bool) {
	data, err := l.Read(path)
	if err != nil {
		return nil, false
	}
	var n unrecordedDeletion
	if json.Unmarshal(data, &n) != nil || (n.Schema != deletionSchema && n.Schema != unrecordedSchema) || n.Baton == "" || n.Ref == "" || n.Old == "" || n.New == "" {
		return nil, false
	}
	n.path = path
	return &n, true
}

// RecordDecided settles each deletion noted here and not known to be
// recorded (noteDeletion), asking arb where it is in flight: the local ref
// still holding the waiting version the tombstone replaced moves to the
// tombstone when the arbiter took it, as the deletion's own swap would
// have. It waits for a deletion still being decided by another process
// here (the baton's lock), then reads its note again. A note whose ref
// moved on since (the tombstone recorded, or a later version written or
// merged over it) goes with nothing written. It returns an error when a
// deletion could not be settled: its waiting copy is here still, which the
// caller must neither deliver nor push. It must not be called with a
// baton's lock, or this process's claims lock, held.
func RecordDecided(ctx context.Context, st refstore.Clone, arb Arbiter) error {
	l := st.Local()
	names, err := l.List(unrecordedDir)
	if err != nil || len(names) == 0 {
		return nil
	}
	var errs []error
	for _, name := range names {
		n, ok := readDeletion(l, unrecordedDir+"/"+name)
		if !ok {
			continue
		}
		if err := n.settle(ctx, st, arbiter(arb)); err != nil {
			errs = append(errs, fmt.Errorf("recording here that baton %s was %s: %w", n.Baton, n.Done, err))
		}
	}
	return errors.Join(errs...)
}

// settle records n once no other process here is deciding its baton, and
// the arbiter took it, and removes it then.
func (n *unrecordedDeletion) settle(ctx context.Context, st refstore.Clone, arb Arbiter) error {
	unlock, err := decideAlone(ctx, st, n.Baton)
	if err != nil {
		return err
	}
	defer unlock()
	// The process that wrote it may have finished meanwhile: recorded
	// and removed it, rewritten it as taken, or left it.
	n, ok := readDeletion(st.Local(), n.path)
	if !ok {
		return nil
	}
	cur, err := refstore.ResolveID(ctx, st, n.Ref)
	if err != nil && !errors.Is(err, refstore.ErrNotFound) {
		return err
	}
	record := cur == n.Old
	if record && n.Schema == deletionSchema {
		// The tombstone's blob first, for a push of it: a git gc may
		// have pruned it since its hold went.
		oid, err := st.WriteBlob(ctx, n.Record)
		if err != nil {
			return err
		}
		if oid != n.New {
			return nil // errNotThisNote
		}
		if record, err = n.landed(ctx, st, arb); err != nil {
			return err
		}
	}
	if record {
		err = n.record(ctx, st)
		if errors.Is(err, errNotThisNote) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	if n.Held != "" {
		releaseHeld(ctx, st, n.Held, n.New)
	}
	_ = st.Local().Remove(n.path) // left, it is read again and goes then
	return nil
}

// landed asks the arbiter whether n's tombstone, in flight, is to be
// recorded here: it took it, or takes it now, or holds nothing of the
// baton. False when the baton was decided otherwise there. An arbiter that
// cannot say is an error: the note stays.
func (n *unrecordedDeletion) landed(ctx context.Context, st refstore.Clone, arb Arbiter) (bool, error) {
	held, err := arb.Held(ctx, st, n.Ref)
	if err != nil {
		return false, err
	}
	switch {
	case refstore.WrittenOver(ctx, st, held, n.New):
		return true, nil
	case held == n.Old:
		// Not landed, and nothing decided since: push it now, leased on
		// the waiting version, as the command would have.
		err := arb.Arbitrate(ctx, st, refstore.Update{Ref: n.Ref, New: n.New, Old: n.Old})
		if err == nil {
			return true, nil
		}
		if errors.Is(err, refstore.ErrConflict) || nothingLanded(err) {
			return false, nil // claimed or replaced first: the remote's version is here now
		}
		return false, err
	}
	if b, ok := readClaim(ctx, st, n.Ref, held); ok && b.ID == n.Baton {
		return false, nil // claimed, or deleted, by another
	}
	if refstore.WrittenOver(ctx, st, held, n.Old) {
		return false, nil // replaced, seeing it, by another baton
	}
	// The arbiter holds nothing of the baton now, and the latest version
	// it retired at the ref is another's: its archive says whether it
	// retired this baton, as deleted here (landed) or decided otherwise
	// (found by the simulation, default seed 4: the baton claimed by a
	// teammate and retired, another baton retired at the ref after it).
	a, ok := arb.(Archiver)
	if !ok {
		return true, nil
	}
	if once, err := a.HeldOnce(ctx, st, n.Ref, n.New); err != nil || once {
		return once, err
	}
	once, err := a.HeldOnce(ctx, st, n.Ref, n.Old)
	return !once, err
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
	why := "decided at the arbiter, recorded now"
	if n.Schema == deletionSchema {
		why = "noted before its push, recorded now"
	}
	err = st.Apply(ctx, "handoff: "+n.Done+" "+n.Baton+" ("+why+")", refstore.Update{Ref: n.Ref, New: n.New, Old: n.Old})
	if errors.Is(err, refstore.ErrConflict) {
		if now, rerr := refstore.ResolveID(ctx, st, n.Ref); rerr == nil && now != n.Old {
			return nil // moved meanwhile: as above
		}
	}
	return err
}
