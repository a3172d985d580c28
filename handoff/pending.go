package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"strings"

	"sync"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/internal/simdefect"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// A claim is decided at the arbiter (a push) before this clone records it
// (a local ref write). A process killed in between, or a local write that
// fails, would leave a claim the remote calls won that nobody here has
// received. So a claim is noted in the git dir before it is pushed, at
// <common dir>/handoff/pending/<baton>~<session>, and the next claim or
// start in this clone settles the notes it finds: a claim won at the
// arbiter is recorded and delivered, one lost or never pushed is dropped.
// A note goes away once the claim is recorded in a local ref transaction.
//
// A note of another session is only settled when the process that wrote it
// is gone (it would still record it itself otherwise), only for a session
// whose record keeps a copy of what it receives (settle), and only by the
// process that renames it to <baton>~<session>~<taker> first: of two
// starts after a crash exactly one delivers the baton.

const pendingSchema = "pending-claim/v1"

type pendingClaim struct {
	Schema  string `json:"schema"`
	Baton   string `json:"baton"`   // the baton's id
	Ref     string `json:"ref"`     // its ref
	Old     string `json:"old"`     // the unclaimed blob the claim started from
	Claimed string `json:"claimed"` // the claimed blob pushed to the arbiter
	Session string `json:"session"` // who claimed it
	Host    string `json:"host"`
	PID     int    `json:"pid"`
	// Held is the group of refs keeping the claim's objects from git gc
	// while it is decided (hold.go); it goes with the note.
	Held string `json:"held,omitempty"`

	path  string // where the note is
	taker string // the session delivering it in place of Session, from the name
}

// marshal is the note's JSON.
func (p *pendingClaim) marshal() []byte {
	data, err := json.Marshal(p)
	if err != nil {
		panic(err) // strings and an int always encode
	}
	return data
}

// pendingDir holds the pending claims of this clone, one note each.
const pendingDir = "pending"

// '~' never appears in an encoded component, so it separates the parts.
func pendingName(batonID, session string) (string, error) {
	b, err := refstore.EncodeComponent(batonID)
	if err != nil {
		return "", err
	}
	s, err := refstore.EncodeComponent(session)
	if err != nil {
		return "", err
	}
	return b + "~" + s, nil
}

// notePending records p before its claim is pushed. The note is written
// whole and renamed into place, so a reader never sees half of one.
func notePending(ctx context.Context, st refstore.Writer, p *pendingClaim) error {
	name, err := pendingName(p.Baton, p.Session)
	if err != nil {
		return err
	}
	p.Schema, p.Host, p.PID = pendingSchema, hostname(), os.Getpid()
	data := p.marshal()
	p.path = pendingDir + "/" + name
	if err := st.Local().Write(ctx, p.path, data); err != nil {
		return fmt.Errorf("noting the claim of baton %s: %w", p.Baton, err)
	}
	return nil
}

// dropPending removes the note, and the hold on its objects unless a
// transaction released it already: its claim is recorded, lost or void.
func dropPending(ctx context.Context, st refstore.Writer, p *pendingClaim) {
	if p.path != "" {
		st.Local().Remove(p.path)
	}
	if p.Held != "" {
		releaseGroup(ctx, st, p.Held)
		p.Held = ""
	}
}

// pendingClaims lists the notes in this clone. A note that cannot be read
// is left alone: it is evidence, and a later version may read it.
func pendingClaims(st refstore.Writer) []*pendingClaim {
	l := st.Local()
	// Half a note from a process killed while writing it is never
	// listed: its claim was never pushed (the push waits for the note).
	names, err := l.List(pendingDir)
	if err != nil {
		return nil
	}
	var out []*pendingClaim
	for _, name := range names {
		parts := strings.Split(name, "~")
		if len(parts) < 2 || len(parts) > 3 {
			continue
		}
		data, err := l.Read(pendingDir + "/" + name)
		if err != nil {
			continue
		}
		var p pendingClaim
		if json.Unmarshal(data, &p) != nil || p.Schema != pendingSchema || p.Baton == "" || p.Session == "" {
			continue
		}
		p.path = pendingDir + "/" + name
		if len(parts) == 3 {
			if p.taker, err = refstore.DecodeComponent(parts[2]); err != nil {
				continue
			}
		}
		out = append(out, &p)
	}
	return out
}

// UnsettledClaims maps the ref of each baton with a claim noted here and
// not yet settled to the waiting version that claim started from. The
// claim may have won at the remote, and the baton been retired there
// since: a sync pushing that version to a ref the remote no longer holds
// would bring the baton back to life (found by the simulation, seed
// 1796570701: a start died after its claim landed, the claimed baton was
// retired, a sync of the crashed clone pushed it back waiting, a teammate
// cancelled it, and the next start here delivered it cancelled).
func UnsettledClaims(st refstore.Writer) map[string]string {
	var out map[string]string
	for _, p := range pendingClaims(st) {
		if p.Ref == "" || p.Old == "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[p.Ref] = p.Old
	}
	return out
}

// UnsettledClaimError refuses to write a baton's tombstone where the
// remote holds no version of it while a claim of it made in this clone is
// unsettled: that claim's push, which created the ref there (leased on
// "absent"), may land yet, and once the tombstone retired the ref is
// absent again, so the claim would land on it and deliver a baton reported
// deleted (found by the simulation, seed 1796562072535163498: a start's
// claim push had no answer, a cancel here then won and a teammate's sync
// retired the tombstone, the claim landed, and the next start delivered
// the cancelled baton). Where the remote holds a version, a claim leased
// on it cannot land once the tombstone has. A start, or a claim, settles
// the claim.
type UnsettledClaimError struct{ ID, Session string }

// Unwrap makes it a conflict (exit 5): the claim in progress rules the
// deletion out for now.
func (e *UnsettledClaimError) Unwrap() error { return refstore.ErrConflict }

func (e *UnsettledClaimError) Error() string {
	return fmt.Sprintf("baton %s has a claim made here by session %s that is not settled yet (its start died, or its push got no answer, and it may still land): run `git handoff start` (or `claim`) to settle it first", e.ID, e.Session)
}

// UnsettledClaim is an *UnsettledClaimError when a claim of baton id made
// in this clone is unsettled.
func UnsettledClaim(st refstore.Writer, id string) error {
	for _, p := range pendingClaims(st) {
		if p.Baton == id {
			return &UnsettledClaimError{ID: id, Session: p.Session}
		}
	}
	return nil
}

// alive reports whether the process that last handled p may still be
// running. A note from another host cannot be checked and counts as alive.
func (p *pendingClaim) alive() bool {
	// Ours is gone too: claims in this process run one at a time
	// (lockClaims).
	return !Gone(p.Host, p.PID)
}

// take makes me the one delivering p, by renaming it: of two processes
// taking one note, exactly one rename succeeds.
func (p *pendingClaim) take(ctx context.Context, st refstore.Writer, me string) bool {
	name, err := pendingName(p.Baton, p.Session)
	if err != nil {
		return false
	}
	t, err := refstore.EncodeComponent(me)
	if err != nil {
		return false
	}
	p.PID, p.Host = os.Getpid(), hostname()
	data := p.marshal()
	to := pendingDir + "/" + name + "~" + t
	if to == p.path {
		return true
	}
	if err := st.Local().Rename(p.path, to); err != nil {
		return false
	}
	p.path, p.taker = to, me
	// Our pid in the note, so no third process takes it from us while we
	// deliver; losing this write only risks that.
	_ = st.Local().Write(ctx, to, data)
	return true
}

// wonClaim is a claim the arbiter calls won and this clone has not recorded
// yet.
type wonClaim struct {
	note  *pendingClaim
	baton baton.Stored // the claimed version the arbiter holds
	// decided says the arbiter was seen holding this claim (settle, or
	// Held after a lost local swap): a won claim, whatever happens here.
	decided bool
	// hold is the hold this process put on the claim's objects, released
	// by the transaction that records it; zero for a note's claim, whose
	// hold (note.Held) is read from the refs.
	hold held
}

// crashed names the session that won the claim when it is not the one
// receiving it now ("" when it is).
func (w *wonClaim) crashed(me string) string {
	if w.note.Session == me {
		return ""
	}
	return w.note.Session
}

// settle goes through the notes of claims this clone made for batons who
// may receive, and returns the first one won at the arbiter that no local
// session has received, ready for me to record. Notes of claims already
// recorded, lost, or never pushed are dropped. An arbiter that cannot be
// asked leaves the note in place and returns the error.
//
// holds says whether me has a record that keeps a copy of what it
// receives (a start's, written with its claim; a claim's session that
// has one). Only then does me take over another session's claim: the
// claimed version names the session that won it, so for me nothing but
// that copy says it was delivered, and a claim whose answer was lost
// (its process died after recording the takeover) could neither be run
// again nor settled by the next start: the baton delivered to nobody
// (found by the simulation, seed 614 of the widened run: a start died
// after its claim landed, a claim for a session with no record took it
// over and died before answering, and a newer baton replaced it). Such
// a note is left for a session that can hold it.
func settle(ctx context.Context, st refstore.Clone, arb Arbiter, who Who, me string, holds bool) (*wonClaim, error) {
	if simdefect.On(simdefect.CrashedClaimNotRecovered) { // planted defect (package sim), off without the simdefects tag
		return nil, nil
	}
	notes := pendingClaims(st)
	if len(notes) == 0 {
		return nil, nil
	}
	sweepHolds(ctx, st, notes)
	private, err := refstore.HandoffRef(false, who.Owner, who.Branch)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		if n.Ref != private && !strings.HasPrefix(n.Ref, refstore.SharedPrefix) {
			continue
		}
		mine := n.Session == me || n.taker == me
		if !mine && (!holds || n.alive()) {
			continue // its process is still deciding it, or me could not hold it
		}
		if received(ctx, st, n) {
			dropPending(ctx, st, n)
			continue
		}
		held, err := arb.Held(ctx, st, n.Ref)
		if err != nil {
			return nil, fmt.Errorf("settling the claim of baton %s that session %s made here: %w", n.Baton, n.Session, err)
		}
		b, ok := readClaim(ctx, st, n.Ref, held)
		won := ok && b.ID == n.Baton && b.Claimed && b.ClaimedBySession == n.Session
		once := false
		if !won {
			// An arbiter that cannot say leaves the note for the next
			// start: dropping it would lose a claim that landed (found by
			// the simulation: its archive's fetch failed).
			if once, err = heldOnce(ctx, st, arb, held, n); err != nil {
				return nil, fmt.Errorf("settling the claim of baton %s that session %s made here: %w", n.Baton, n.Session, err)
			}
		}
		if once {
			// The arbiter held our claim, and a later version since (a
			// newer baton written after it), or retired it: the claim
			// landed and was won before it was replaced, and its notes
			// are still ours to deliver. A version vector that merely
			// covers the claim's proves nothing: its counters are per
			// clone and key, so a later version can cover a claim the
			// arbiter refused; the exact blob must be named (Back).
			if c, cok := readClaim(ctx, st, n.Ref, n.Claimed); cok {
				b, won = c, true
			}
		}
		if !won && held != n.Old && held != "" && decidedThere(ctx, st, n, held) {
			// Lost, cancelled or replaced: nothing of ours to deliver,
			// and a push still in flight cannot land (its lease names
			// n.Old, or "absent" where the remote holds something now).
			dropPending(ctx, st, n)
			continue
		}
		if !mine && !n.take(ctx, st, me) {
			continue // another process took it first
		}
		if !won {
			// The arbiter still holds the baton unclaimed, or holds
			// nothing there: a claim of a baton it never had creates the
			// ref, leased on "absent", which holds still (found by the
			// simulation, seed 1796576616: the note dropped, the claim
			// landed late, and nobody received the baton). The push may
			// still be on its way (a killed git-handoff leaves its git
			// push running), so the note cannot be dropped: finish the
			// claim instead. Whichever of the two pushes lands, the
			// claim is the one noted.
			if b, won, err = finish(ctx, st, arb, n); err != nil {
				return nil, err
			}
			if !won {
				dropPending(ctx, st, n)
				continue
			}
		}
		return &wonClaim{note: n, baton: b, decided: true}, nil
	}
	return nil, nil
}

// decidedThere reports whether held, what the arbiter holds at n's ref
// (or, with the ref empty, the last version it retired there), says what
// became of n's baton: a version of it, or one written over it. Another
// baton's, written without it, says nothing: the floor of a baton retired
// at the ref before this one was written, or a baton the remote holds
// there now, which a retirement can empty again, and a claim pushed
// leased on "absent" would then land (found by the simulation, seed 20024
// with four clones: a claim's push got no answer, the next start here
// dropped its note against the floor of the baton before it, the push
// landed, and the baton was delivered to nobody). Such a note is finished
// instead, and the arbiter's own checks decide it.
func decidedThere(ctx context.Context, st refstore.Records, n *pendingClaim, held string) bool {
	if b, ok := readClaim(ctx, st, n.Ref, held); ok && b.ID == n.Baton {
		return true
	}
	return refstore.WrittenOver(ctx, st, held, n.Old)
}

// An Archiver is an Arbiter that keeps what it decided and retired (the
// monthly archive of a remote): HeldOnce reports whether it held the blob
// oid at ref at some time: it holds it or a version written after it, or
// its archive does.
type Archiver interface {
	HeldOnce(ctx context.Context, st refstore.Clone, ref, oid string) (bool, error)
}

// heldOnce reports whether the arbiter held exactly the claim n pushed at
// some time: it holds held now, written after the claim (refstore.
// WrittenOver, from the blobs here), or says so itself (Archiver): the
// claim was won, then replaced or retired before this clone recorded it.
func heldOnce(ctx context.Context, st refstore.Clone, arb Arbiter, held string, n *pendingClaim) (bool, error) {
	if refstore.WrittenOver(ctx, st, held, n.Claimed) {
		return true, nil
	}
	a, ok := arb.(Archiver)
	if !ok {
		return false, nil
	}
	return a.HeldOnce(ctx, st, n.Ref, n.Claimed)
}

// finish pushes the noted claim to the arbiter again and reports whether
// the arbiter now holds it.
func finish(ctx context.Context, st refstore.Clone, arb Arbiter, n *pendingClaim) (baton.Stored, bool, error) {
	err := arb.Arbitrate(ctx, st, refstore.Update{Ref: n.Ref, New: n.Claimed, Old: n.Old})
	if err != nil && !errors.Is(err, refstore.ErrConflict) {
		return baton.Stored{}, false, fmt.Errorf("finishing the claim of baton %s that session %s made here: %w", n.Baton, n.Session, err)
	}
	if err == nil {
		b, ok := readClaim(ctx, st, n.Ref, n.Claimed)
		return b, ok, nil
	}
	held, herr := arb.Held(ctx, st, n.Ref)
	if herr != nil {
		return baton.Stored{}, false, herr
	}
	b, ok := readClaim(ctx, st, n.Ref, held)
	return b, ok && b.ID == n.Baton && b.Claimed && b.ClaimedBySession == n.Session, nil
}

// received reports whether the session that claimed n, or the one
// delivering it, has the baton in its record, or the hold n names is gone
// (the recording transaction took it): then it was delivered. The hold
// says it for a session with no record, whose claim only the baton's ref
// recorded, which a sync then retires (found by the simulation, seed
// 1796556681226807627: a note whose removal failed, the baton retired,
// and the next start took the claim over and delivered it again).
func received(ctx context.Context, st refstore.Records, n *pendingClaim) bool {
	if n.Held != "" && released(ctx, st, n.Held) {
		return true
	}
	for _, id := range []string{n.Session, n.taker} {
		if id == "" {
			continue
		}
		// Find, not Read: a session that received it, ended and retired
		// since is in the archive (found by the simulation: a note whose
		// removal failed was settled after the retirement, and the baton
		// delivered a second time).
		s, err := session.Find(ctx, st, id)
		if err != nil || len(s.ClaimedHandoff) == 0 {
			continue
		}
		var b struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(s.ClaimedHandoff, &b) == nil && b.ID == n.Baton {
			return true
		}
	}
	return false
}

// readClaim reads the blob oid as the baton at ref, trusting it only at its
// own place.
func readClaim(ctx context.Context, st refstore.Records, ref, oid string) (baton.Stored, bool) {
	if oid == "" {
		return baton.Stored{}, false
	}
	e, err := st.ReadObject(ctx, oid)
	if err != nil {
		return baton.Stored{}, false
	}
	e.Ref = ref
	var b baton.Baton
	if refstore.Decode(e, baton.Schema, &b) != nil {
		return baton.Stored{}, false
	}
	if baton.AtItsPlace(ref, b.Owner, b.Branch, b.Shared) != nil {
		return baton.Stored{}, false
	}
	return baton.Stored{Baton: b, Ref: ref, OID: oid}, true
}

// localUpdate is the swap that brings the local baton ref to the won
// version; ok is false when the ref holds this session's claim already, or
// has moved on to another baton (left alone: the won one is delivered all
// the same). The same baton claimed by someone else or cancelled here is a
// conflict: with no remote to arbitrate, that is a lost claim.
func localUpdate(ctx context.Context, st refstore.Records, w *wonClaim) (refstore.Update, bool, error) {
	ref := w.baton.Ref
	cur, err := refstore.ResolveID(ctx, st, ref)
	if err != nil && !errors.Is(err, refstore.ErrNotFound) {
		return refstore.Update{}, false, err
	}
	if cur == w.baton.OID {
		return refstore.Update{}, false, nil
	}
	if cur != "" && cur != w.note.Old {
		if s, ok := readClaim(ctx, st, ref, cur); ok {
			switch {
			case s.ID != w.note.Baton:
				return refstore.Update{}, false, nil
			case s.Claimed && s.ClaimedBySession == w.note.Session:
				return refstore.Update{}, false, nil
			case !s.Live() && !w.decided:
				return refstore.Update{}, false, &refstore.ConflictError{Ref: ref, Expected: w.note.Old, Actual: cur}
			case s.Deleted != nil && !s.Claimed:
				// Cancelled here while the arbiter gave it to us: the
				// claim is final and the join keeps it over the
				// tombstone, so record it now.
			case !s.Live():
				// Claimed here by someone else (an --offline claim): the
				// arbiter's answer is ours and the notes are delivered;
				// the next sync settles the record.
				return refstore.Update{}, false, nil
			}
		}
	}
	return refstore.Update{Ref: ref, New: w.baton.OID, Old: cur}, true, nil
}

// claimsInProcess serialises the claims of one repository within this
// process (key: its common git dir). Across processes the arbiter and the
// notes' pids decide; within one long-lived process (the MCP server, the
// web page's API) two goroutines share a pid, so a note of our own pid
// could be another goroutine's claim in flight. One claim at a time per
// repository makes a note of our pid always a finished call's, and so
// safe to settle.
var claimsInProcess sync.Map

func lockClaims(st refstore.Writer) (unlock func()) {
	mu, _ := claimsInProcess.LoadOrStore(st.Local().Path(""), &sync.Mutex{})
	m := mu.(*sync.Mutex)
	m.Lock()
	return m.Unlock
}

// batonLock is the lock of the baton one decision (a claim, a start,
// a cancel or dismissal, an undismissal, a replacement's carried claim)
// holds until it is answered: a decision on a baton pushed from this
// clone is never in flight beside another one's on the same baton from
// another process here. The remote's lease is not enough: a remote on
// git's files backend can take two pushes leased on the same version when
// a pack-refs or gc runs there beside them (receive-pack checks a lease
// against the packed-refs it read when it advertised its refs, trusted
// while the file's size, inode and second look the same; measured with
// bench/leaserace.sh: none without the packing, none on reftable). The
// soak found it twice: one baton delivered to two claims racing in one
// clone, each told the remote took its push. Waiting here, the second
// decision starts its push after the first one landed and was recorded:
// it reads the first one's outcome, or the remote's refs it is told of
// are current. Decisions from two clones still rest on the lease.
type batonLock struct {
	name    string // the lock file held, "" for none
	release func()
}

// batonStripes is how many lock files the batons share
// (claims/<n>.lock): two batons on one stripe only wait for each other.
const batonStripes = 64

// lock takes the lock of baton id, unless this decision holds it already
// (flock: a second lock of the same file here would wait for itself). A
// decision holds one baton's lock at a time: it lets go of another's
// first, so that two processes each holding one never wait for the
// other's. What it decided on that one has landed or failed by then.
func (l *batonLock) lock(ctx context.Context, st refstore.Writer, id string) error {
	name := batonLockName(id)
	if l.name == name {
		return nil
	}
	l.unlock()
	release, err := st.Local().Lock(ctx, name)
	if err != nil {
		return fmt.Errorf("waiting for another decision on baton %s in this clone: %w", id, err)
	}
	l.name, l.release = name, release
	return nil
}

// decideAlone takes what a decision on baton id alone (a cancel or
// dismissal, an undismissal) holds until it is answered: this process's
// lock of the repository's claims (lockClaims), then the baton's lock.
// unlock lets both go.
func decideAlone(ctx context.Context, st refstore.Writer, id string) (unlock func(), err error) {
	unlockClaims := lockClaims(st)
	var l batonLock
	if err := l.lock(ctx, st, id); err != nil {
		unlockClaims()
		return nil, err
	}
	return func() { l.unlock(); unlockClaims() }, nil
}

// batonLockName is the lock file of baton id, among the clone's notes.
func batonLockName(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return fmt.Sprintf("claims/%02x.lock", h.Sum32()%batonStripes)
}

// unlock lets the baton go, once the decision is answered.
func (l *batonLock) unlock() {
	if l.release != nil {
		l.release()
	}
	l.name, l.release = "", nil
}
