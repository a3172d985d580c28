package teamsync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// Arbiter makes the remote decide claims of batons it knows: the claimed
// record is pushed with a lease on what was last fetched, so of two clones
// claiming one baton exactly one push lands. It implements handoff.Arbiter.
type Arbiter struct {
	// Remote pins the remote; "" finds it: the first remote whose tracking
	// refs hold the baton's ref, else the first remote init set up.
	Remote string
	// Attempts bounds how often a lease lost to an unrelated change of the
	// same ref is retried (default 3).
	Attempts int
}

// UnreachableError is a claim that could not be decided because the remote
// that arbitrates it could not be reached. Nothing was claimed.
type UnreachableError struct {
	Remote string
	Err    error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("the remote %q decides this claim but could not be reached (%v); nothing was claimed: retry when it is reachable, or claim locally with --offline and let the next sync settle it", e.Remote, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// RemoteNewerError says the remote holds another baton at the ref than the
// one being claimed, or holds it cancelled: the claim was not made, and the
// local ref now has the remote's version.
type RemoteNewerError struct {
	Remote string
	Baton  baton.Baton // what the remote holds
}

func (e *RemoteNewerError) Error() string {
	b := e.Baton
	if b.Deleted != nil {
		return fmt.Sprintf("baton %s was %s on %s", b.ID, b.Deleted.Reason, e.Remote)
	}
	return fmt.Sprintf("%s holds a newer baton %s here", e.Remote, b.ID)
}

func (e *RemoteNewerError) Unwrap() error { return refstore.ErrConflict }

// Arbitrate pushes up.New (the claimed blob) to the remote that knows the
// baton, with a lease on the remote's version as last fetched. It returns
// nil when the remote took it, or when no remote knows the baton (a local
// claim); *baton.ClaimedError naming the winner when another clone claimed
// it first; *RemoteNewerError when the remote holds a newer or cancelled
// baton; *UnreachableError when the remote cannot be reached.
func (a Arbiter) Arbitrate(ctx context.Context, st *refstore.Store, up refstore.Update) error {
	remote, err := a.remoteFor(ctx, st, up.Ref)
	if err != nil || remote == "" {
		return err
	}
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return err
	}
	tracking := tp + strings.TrimPrefix(up.Ref, refstore.Root)
	k := kindOf(up.Ref)
	if k == nil || k.prefix != refstore.HandoffsPrefix {
		return fmt.Errorf("arbitrating %s: not a baton ref", up.Ref)
	}
	mine, err := st.ReadObject(ctx, up.New)
	if err != nil {
		return err
	}
	mine.Ref = up.Ref
	claim, err := read(k, up.Ref, mine)
	if err != nil {
		return err
	}
	specs, err := fetchSpecs(remote)
	if err != nil {
		return err
	}
	attempts := a.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	for attempt := 0; ; attempt++ {
		var theirs *version
		e, err := st.Get(ctx, tracking)
		switch {
		case err == nil:
			if theirs, err = read(k, up.Ref, e); err != nil {
				return fmt.Errorf("reading %s: %w", tracking, err)
			}
		case !errors.Is(err, refstore.ErrNotFound):
			return err
		}
		if theirs != nil {
			if theirs.oid == up.New {
				return nil
			}
			if lost := lostTo(ctx, st, remote, up, claim, theirs); lost != nil {
				return lost
			}
		}
		perr := st.Push(ctx, remote, []refstore.Update{{Ref: up.Ref, New: up.New, Old: oidOf(theirs)}}, refstore.PushOptions{NoVerify: true})
		if perr == nil {
			if cur, _ := st.ResolveID(ctx, tracking); cur == up.New {
				return nil // git moved the tracking ref itself (init's refspecs)
			}
			// The remote took it: that is the decision. A tracking ref we
			// cannot move (a stale lock, a fetch that moved it) is only a
			// stale copy, which the next fetch mends.
			_ = st.Apply(ctx, "handoff: claim pushed to "+remote, refstore.Update{Ref: tracking, New: up.New, Old: oidOf(theirs)})
			return nil
		}
		// Lost the lease, or never reached the remote? Fetch and see.
		if _, err := fetchPatiently(ctx, st, remote, specs, 3); err != nil {
			return &UnreachableError{Remote: remote, Err: perr}
		}
		now, err := st.ResolveID(ctx, tracking)
		if err != nil && !errors.Is(err, refstore.ErrNotFound) {
			return err
		}
		if now == oidOf(theirs) {
			if racedAtRemote(perr) && attempt+1 < attempts {
				backoff(attempt + 1) // the server could not lock the ref another push held
				continue
			}
			return fmt.Errorf("pushing the claim to %s: %w", remote, perr) // not a lease: refused
		}
		if attempt+1 >= attempts {
			return fmt.Errorf("claiming at %s: %w", remote, &refstore.ConflictError{Ref: up.Ref, Expected: oidOf(theirs), Actual: now})
		}
	}
}

// lostTo decides whether the remote's version of the baton ref beats the
// claim: claimed by someone else, cancelled, or replaced by a newer baton.
// When it does, the local ref takes the remote's version (by swap, from the
// unclaimed blob the claim started from) so that the caller re-deciding
// sees what the remote decided.
func lostTo(ctx context.Context, st *refstore.Store, remote string, up refstore.Update, claim, theirs *version) error {
	c, t := claim.rec.(baton.Baton), theirs.rec.(baton.Baton)
	if extends(claim, theirs, storeLookup(ctx, st)) {
		return nil // ours extends theirs: a waiting baton, or an older one
	}
	// Theirs wins: bring the local ref to it if it beats what is there.
	if old, err := st.Get(ctx, up.Ref); err == nil && old.OID == up.Old {
		if lv, err := read(kindOf(up.Ref), up.Ref, old); err == nil && CompareBaton(t, lv.rec.(baton.Baton)) > 0 {
			_ = st.Apply(ctx, "handoff: claim decided at "+remote, refstore.Update{Ref: up.Ref, New: theirs.oid, Old: up.Old})
		}
	}
	if t.ID == c.ID && t.Claimed {
		return &baton.ClaimedError{Baton: t}
	}
	return &RemoteNewerError{Remote: remote, Baton: t}
}

// Pin chooses once the remote that decides claims of ref (handoff.Pinner):
// none when the clone has no remote or no remote knows the baton, and the
// claim is local. A choice that fails is left to Arbitrate to report.
func (a Arbiter) Pin(ctx context.Context, st *refstore.Store, ref string) (handoff.Arbiter, bool) {
	remote, err := a.remoteFor(ctx, st, ref)
	switch {
	case err != nil:
		return a, false
	case remote == "":
		return a, true
	}
	a.Remote = remote
	return a, false
}

// remoteFor names the remote that arbitrates claims of ref: the pinned
// one; else the one at the URL the remotes' arbiter records name, else the
// one git config handoff.arbiter names; "" when the clone has no remote.
// A clone set up before handoff.arbiter existed falls back to the one
// remote that carries records, and refuses to choose between several: two
// clones choosing differently would both win.
func (a Arbiter) remoteFor(ctx context.Context, st *refstore.Store, ref string) (string, error) {
	if a.Remote != "" {
		return a.Remote, nil
	}
	rcs, err := st.RemoteConfigs(ctx)
	if err != nil || len(rcs) == 0 {
		return "", err
	}
	name, _, err := chooseArbiter(ctx, st, rcs, "")
	if err != nil || name != "" {
		return name, err
	}
	inited, err := initialized(ctx, st)
	if err != nil {
		return "", err
	}
	cands := inited
	for _, rc := range rcs {
		tr, err := refstore.RemoteRef(rc.Name, ref)
		if err != nil || contains(cands, rc.Name) {
			continue
		}
		if _, err := st.Get(ctx, tr); err == nil {
			cands = append(cands, rc.Name)
		}
	}
	switch len(cands) {
	case 0:
		return "", nil
	case 1:
		return cands[0], nil
	}
	return "", fmt.Errorf("%w: remotes %s all carry the team's records and git config %s names none of them: run `git handoff init --remote <the remote your team shares>`", ErrNoArbiter, strings.Join(cands, ", "), ArbiterKey)
}

// Held fetches the baton records of the remote that arbitrates claims of
// ref and returns the blob id it holds there ("" for none); without a
// remote, what this clone holds.
func (a Arbiter) Held(ctx context.Context, st *refstore.Store, ref string) (string, error) {
	remote, err := a.remoteFor(ctx, st, ref)
	if err != nil {
		return "", err
	}
	if remote == "" {
		return handoff.Local{}.Held(ctx, st, ref)
	}
	tracking, err := refstore.RemoteRef(remote, ref)
	if err != nil {
		return "", err
	}
	specs, err := fetchSpecs(remote)
	if err != nil {
		return "", err
	}
	if _, err := fetchPatiently(ctx, st, remote, specs, 3); err != nil {
		return "", &UnreachableError{Remote: remote, Err: err}
	}
	oid, err := st.ResolveID(ctx, tracking)
	if errors.Is(err, refstore.ErrNotFound) {
		return "", nil
	}
	return oid, err
}

// fetchSpecs are what a claim fetches from its arbiter: the batons and the
// arbiter record.
func fetchSpecs(remote string) ([]string, error) {
	specs, err := Refspecs(remote)
	if err != nil {
		return nil, err
	}
	as, err := arbiterRefspec(remote)
	if err != nil {
		return nil, err
	}
	return []string{specs[0], as}, nil
}

// fetchPatiently fetches from remote, up to tries times. A fetch fails for
// a moment while another fetch in this clone holds the tracking refs'
// locks or a gc repacks (git cannot write its objects), and for good when
// a killed fetch left a lock on a tracking ref: between tries it waits a
// little and removes such stale locks, and it returns how many it removed.
// A claim decided at the remote must not be taken for one that could not
// be asked, nor a sync fail on a dead fetch's leftovers.
func fetchPatiently(ctx context.Context, st *refstore.Store, remote string, specs []string, tries int) (dropped int, err error) {
	for try := 1; ; try++ {
		err = st.Fetch(ctx, remote, true, specs...)
		if err == nil || try >= tries || ctx.Err() != nil {
			return dropped, err
		}
		backoff(try)
		if tp, terr := TrackingPrefix(remote); terr == nil {
			dropped += dropStaleTrackingLocks(st, tp)
		}
	}
}
