package sim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

// A pull request's lease goes with its ownership (the widened run's
// OpPRClaim passes each clone's lease board, as `pr claim` does): the
// lease pr:N held with handoff.PRLeaseNote, at the arbiter, and not yet
// expired, is held by the session that owns the pull request. Owns by
// what? Between syncs the clones disagree; what every clone will keep is
// the join of every copy (teamsync.JoinPR is a total order, the same on
// every clone), so that is the owner checked against, after every step
// and after the final rounds.
//
// What may legitimately differ for a while: a claim or release not seen
// to finish with its lease (an error, a death half-way, a notice that
// the lease was not taken: wideLedger.prUnsettled, until a later claim of
// the pull request finishes with it), and a holder whose line a
// replacement carried on (the pull request goes to the successor; its
// leases follow by the successor's own hand-over).

// leaseNoticed reports whether a claim's notices say its lease was not
// taken (or not taken over).
func leaseNoticed(notices []string) bool {
	for _, n := range notices {
		if strings.Contains(n, "the lease pr:") {
			return true
		}
	}
	return false
}

func leaseAction(o *lease.Outcome) string {
	if o == nil {
		return "none"
	}
	return o.Action + ":" + o.Lease.Session
}

// joinedOwner is the owner of pull request n that every clone will keep:
// the join of the remote's copy and every clone's ("" none).
func (w *world) joinedOwner(ctx context.Context, n int) (string, bool) {
	repo := w.gh.Repo().FullName()
	stores := []refstore.Records{w.origin}
	for _, c := range w.clones {
		stores = append(stores, c)
	}
	var win prown.Record
	found := false
	for _, st := range stores {
		rec, err := prown.Read(ctx, st, repo, n)
		if err != nil {
			continue
		}
		if !found || teamsync.ComparePR(rec.Record, win) > 0 {
			win, found = rec.Record, true
		}
	}
	return win.OwnerSession, found
}

// cloneOfSession is the clone whose sessions id names (s-c1-40, r-c2-7),
// -1 when it names none.
func cloneOfSession(id string) int {
	f := strings.SplitN(id, "-", 3)
	if len(f) < 2 || !strings.HasPrefix(f[1], "c") {
		return -1
	}
	i, err := strconv.Atoi(f[1][1:])
	if err != nil {
		return -1
	}
	return i
}

// successorOf reports whether a replacement chain leads from old to nid.
func (w *world) successorOf(old, nid string) bool {
	for i := 0; i < 64 && old != ""; i++ {
		next, ok := w.wl.replaced[old]
		if !ok {
			return false
		}
		if next == nid {
			return true
		}
		old = next
	}
	return false
}

// checkPRLeases checks each pull request's lease at the arbiter against
// its joined owner (step -1: after the final rounds).
func (w *world) checkPRLeases(ctx context.Context, step int) {
	for _, n := range simPRs {
		if w.wl.prUnsettled[n] {
			continue
		}
		ref, err := lease.Key{Kind: lease.KindPR, Value: strconv.Itoa(n)}.Ref()
		if err != nil {
			continue
		}
		e, err := w.origin.Get(ctx, ref)
		if errors.Is(err, refstore.ErrNotFound) || errors.Is(err, refstore.ErrMissingObject) {
			continue // none; or its object lost by the remote's gc, a fault of its own
		}
		if err != nil {
			w.violate(step, "pr-lease-owner", fmt.Sprintf("#%d: reading the lease at the remote: %v", n, err))
			continue
		}
		l, err := lease.Decode(e)
		if err != nil || !l.Held() || l.Note != handoff.PRLeaseNote {
			continue
		}
		// Expired by the run's clock: the writer's clock now (the clone
		// of its session, whose clock the claim read) past its TTL.
		if i := cloneOfSession(l.Session); i >= 0 && i < len(w.skew) && !w.now.Add(w.skew[i]).Before(l.RenewedAt.Add(l.TTL())) {
			continue
		}
		owner, _ := w.joinedOwner(ctx, n)
		if owner == l.Session || owner != "" && w.successorOf(l.Session, owner) {
			continue
		}
		w.violate(step, "pr-lease-owner", fmt.Sprintf("#%d is owned by %q (joined over every copy) and its lease %s is held by %s (version %.8s, with the ownership)", n, owner, ref, l.Session, l.OID))
	}
}
