package handoff

import (
	"context"
	"errors"

	"github.com/git-handoff/git-handoff/refstore"
)

// Arbiter decides a claim somewhere other clones can see before it is made
// locally: when a baton is known to a remote, the remote is the arbiter, so
// two clones claiming the same baton cannot both win.
type Arbiter interface {
	// Arbitrate makes the claim (up moves a baton ref from its unclaimed to
	// its claimed blob) at the arbiter. It returns an error wrapping
	// refstore.ErrConflict when the arbiter holds something else, and nil
	// when the baton is not known there (a purely local claim).
	Arbitrate(ctx context.Context, st refstore.Clone, up refstore.Update) error
	// Held returns the blob id the arbiter holds at ref now ("" for none),
	// asking it afresh: it settles a claim this clone pushed but never
	// recorded (see pending.go).
	Held(ctx context.Context, st refstore.Clone, ref string) (string, error)
}

// ErrNoArbiter is returned by an Arbiter that refuses a claim before
// pushing anything: this clone cannot reach the team's arbiter, and
// deciding anywhere else could let two clones win.
var ErrNoArbiter = errors.New("no arbiter for claims")

// ErrNotPushed marks an Arbiter's refusal made before it pushed anything
// (what the remote holds there cannot be known yet: its ref marked lost, a
// heal there half done). The message is the refusal's own.
var ErrNotPushed = errors.New("refused before any push")

// nothingLanded reports whether err, an Arbiter's answer, says that
// nothing of the decision can land at the remote: refused before any push
// (ErrNoArbiter, ErrNotPushed), or the whole push refused. What was noted
// for the push then goes: kept, the note of a claim its session was told
// it did not get would have the next claim here push it, and deliver it.
func nothingLanded(err error) bool {
	return errors.Is(err, ErrNoArbiter) || errors.Is(err, ErrNotPushed) || refstore.Refused(err)
}

// Local arbitrates nothing: the local ref transaction decides, as with
// --offline or a repository without a remote.
type Local struct{}

// Arbitrate always lets the local transaction decide.
func (Local) Arbitrate(context.Context, refstore.Clone, refstore.Update) error { return nil }

// Held is what this clone holds: with no arbiter to ask, it is the decision.
func (Local) Held(ctx context.Context, st refstore.Clone, ref string) (string, error) {
	oid, err := refstore.ResolveID(ctx, st, ref)
	if errors.Is(err, refstore.ErrNotFound) {
		return "", nil
	}
	return oid, err
}

// A Refresher is an Arbiter that can bring the batons a start may claim
// from where claims are decided, before the start looks for one: a
// teammate's baton then reaches the next start without a sync. It returns
// notices for the brief (a remote that did not answer, a waiting baton
// claimed or superseded elsewhere) and the conflicts its merge settled; it
// never fails a start.
type Refresher interface {
	Refresh(ctx context.Context, st refstore.Clone, owner, branch string) ([]string, []Conflict)
}

// A Pinner is an Arbiter that can choose, before a claim, where claims of
// ref are decided: the Arbiter to push to, or local when no remote knows
// the baton and the local transaction alone decides.
type Pinner interface {
	Pin(ctx context.Context, st refstore.Clone, ref string) (a Arbiter, local bool)
}

// pinned is where a claim of ref is decided, asked once before it is made.
// A local claim needs no pending note (pending.go): nothing is decided
// before the transaction that records it, so a process killed before then
// leaves nothing that needs settling. An Arbiter that is no Pinner decides
// wherever its Arbitrate says, so its claims are always noted.
func pinned(ctx context.Context, st refstore.Clone, arb Arbiter, ref string) (Arbiter, bool) {
	switch a := arb.(type) {
	case Local:
		return a, true
	case Pinner:
		return a.Pin(ctx, st, ref)
	}
	return arb, false
}
