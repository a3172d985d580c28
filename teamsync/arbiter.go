package teamsync

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
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
	// RefreshTimeout bounds a start's fetch of the batons waiting
	// (Refresh); 0 = DefaultRefreshTimeout.
	RefreshTimeout time.Duration
	// Fallback is the remote asked when Remote is "" and nothing names
	// one (a clone never set up by init that has fetched no records):
	// a sync's own remote.
	Fallback string
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

// Arbitrate pushes up.New (the claimed blob, or the tombstone of a cancel
// or dismissal) to the remote that knows the baton, with a lease on the
// remote's version as last fetched, so that of a claim and a deletion of
// one baton exactly one lands. It returns nil when the remote took it, or
// when no remote knows the baton (the local swap decides);
// *baton.ClaimedError naming the winner when the baton was claimed first;
// *baton.DeletedError when it was cancelled or dismissed first;
// *handoff.SupersededError when the join keeps another baton the remote
// holds; *UnreachableError when the remote cannot be reached. Whenever the
// remote's version wins, the local ref takes it through the join sync
// uses, conflict report included.
func (a Arbiter) Arbitrate(ctx context.Context, st refstore.Clone, up refstore.Update) error {
	remote, err := a.remoteFor(ctx, st, up.Ref)
	if err != nil || remote == "" {
		return err
	}
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return err
	}
	tracking := trackingRef(tp, up.Ref)
	k, ours, err := readClaim(ctx, st, up)
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
	var noted *tie // the tie this decision's push may have settled (ties.go)
	pushed := false
	for attempt := 0; ; attempt++ {
		theirs, tied, done, err := weigh(ctx, st, remote, tracking, up, k, ours)
		if done && noted != nil {
			tieLanded(ctx, st, *noted) // an earlier push landed, its answer lost
		}
		if err == nil && !done {
			var t *tie
			if t, err = beforePush(ctx, st, remote, up, theirs, tied); t != nil {
				noted = t
			}
		}
		if err != nil && !pushed {
			// Refused before this call pushed anything, whatever refused
			// it (the weighing, a month of the archive lost there, a
			// mark): nothing of it can land.
			return notPushed{err}
		}
		if done || err != nil {
			return err
		}
		push, first := pushNow(up, theirs, ours)
		pushed = true // from here on it may land, whatever the answer
		perr := st.Push(ctx, remote, []refstore.Update{push}, refstore.PushOptions{NoVerify: true})
		if perr == nil && first {
			recordDecided(ctx, st, remote, tracking, push, nil)
			attempt-- // the deletion itself is still to push
			continue
		}
		if perr == nil {
			// The tie is noted from its note, which goes only once noted
			// (a failed local write here must not lose it).
			recordDecided(ctx, st, remote, tracking, up, theirs)
			if tied {
				tieLanded(ctx, st, *noted)
			}
			return nil
		}
		// Lost the lease, or never reached the remote? Fetch and see.
		f, err := fetchPatiently(ctx, st, remote, specs, 3)
		if err != nil {
			return &UnreachableError{Remote: remote, Err: fmt.Errorf("%v; then fetching to see why: %w", perr, err)}
		}
		if err := f.unknown(ctx, st, remote, up.Ref); err != nil {
			return err
		}
		now, err := refstore.ResolveID(ctx, st, tracking)
		if err != nil && !errors.Is(err, refstore.ErrNotFound) {
			return err
		}
		if now == oidOf(theirs) && noted != nil && refstore.Refused(perr) {
			// Refused: the remote holds what it did. A push that got no
			// answer may land yet, over the version it ties with: its
			// note stays for the next sync to settle (settleTies), or the
			// replaced baton goes with no conflict noted anywhere (found
			// by the widened simulation, seed 156: a cancel's push got no
			// answer and landed later).
			_ = st.Local().Remove(noted.name())
			noted = nil
		}
		if now == oidOf(theirs) {
			if racedAtRemote(perr) && attempt+1 < attempts {
				backoff(attempt + 1) // the server could not lock the ref another push held
				continue
			}
			return fmt.Errorf("pushing the decision to %s: %w", remote, perr) // not a lease: refused, or no answer
		}
		if attempt+1 >= attempts {
			return fmt.Errorf("claiming at %s: %w", remote, &refstore.ConflictError{Ref: up.Ref, Expected: oidOf(theirs), Actual: now})
		}
	}
}

// notPushed is a decision refused before this call pushed anything (the
// ref marked lost at the remote, a heal there half done): what its caller
// noted for the push goes (handoff.ErrNotPushed). Kept, the note of a
// claim told "nothing was claimed" was pushed for the first time by the
// clone's next start, which delivered the baton to itself with the first
// session named as claimer at the remote (found by the soak:
// false-lost-claims, seeds 1004 and 1018).
type notPushed struct{ error }

func (e notPushed) Unwrap() []error { return []error{e.error, handoff.ErrNotPushed} }

// A tombstone is never pushed to create its ref at the remote: the
// waiting baton it deletes is pushed first, then the tombstone with a
// lease on it (pushNow, in Arbitrate). A push leased on "absent"
// holds again once a retirement empties the ref, so a late copy of such a
// tombstone, whose answer was lost, could land after the baton was
// claimed here and retired, and show a delivered baton dismissed (found
// by the simulation, seed 1796573255: a dismissal of a baton only this
// clone held got no answer, a start here claimed it, a retirement emptied
// the ref, and the tombstone landed). A late copy of the waiting baton
// instead is a baton decided and retired coming back, which claims refuse
// (resurrected) and sync drops (dropStale). A claim still creates the ref
// in one push: the pending note of a claim with no answer keeps this
// clone from deleting the baton until a start settles it
// (handoff.UnsettledClaim), and no other clone can hold a baton the
// remote never had. pushNow is the update to push next toward up, over
// theirs, the remote's version as last fetched: first when it is the
// waiting baton a tombstone still has to follow.
func pushNow(up refstore.Update, theirs, ours *version) (_ refstore.Update, first bool) {
	push := refstore.Update{Ref: up.Ref, New: up.New, Old: oidOf(theirs)}
	if theirs == nil && up.Old != "" && recOf[baton.Baton](ours).Deleted != nil {
		push.New = up.Old
		return push, true
	}
	return push, false
}

// beforePush is what a decision's push needs first: a remote that has
// not marked the ref lost (lost.go); a tie is noted (ties.go), and
// returned. A marked ref was deleted there for the object its last write
// named, lost to the remote's gc, and nothing is decided there until a
// clone that holds that version pushes it back: absent, the ref is not
// "never held"; present, it holds what a push that got no answer wrote
// late on the emptied ref, a version older than the lost one, which may
// have claimed or dismissed the baton (found by the widened simulation,
// seed 306: a dismissal's tombstone lost and healed away, the waiting
// baton its first push carried landed after, and a start delivered it).
func beforePush(ctx context.Context, st refstore.Clone, remote string, up refstore.Update, theirs *version, tied bool) (*tie, error) {
	if err := markedLost(ctx, st, remote, up.Ref); err != nil {
		return nil, err
	}
	if !tied {
		return nil, nil
	}
	t := tie{Remote: remote, Ref: up.Ref, Kept: up.New, Dropped: theirs.oid, At: time.Now().UTC()}
	if err := noteTie(ctx, st.Local(), t); err != nil {
		return nil, fmt.Errorf("noting the baton this decision replaces at %s: %w", remote, err)
	}
	return &t, nil
}

// weigh reads the remote's version of up.Ref as last fetched (theirs) and
// decides whether up may be pushed over it: done when the remote holds
// up.New already, an error when the remote decided otherwise (retired,
// claimed, deleted or replaced there), tied when ours replaces a baton of
// the remote's written without seeing it (the join's tie-break).
func weigh(ctx context.Context, st refstore.Clone, remote, tracking string, up refstore.Update, k *kind, ours *version) (theirs *version, tied, done bool, err error) {
	e, err := st.Get(ctx, tracking)
	switch {
	case err == nil:
		if theirs, err = read(k, up.Ref, e); err != nil {
			return nil, false, false, fmt.Errorf("reading %s: %w", tracking, err)
		}
	case !errors.Is(err, refstore.ErrNotFound):
		return nil, false, false, err
	}
	if theirs == nil {
		if up.Old != "" {
			err = retiredAt(ctx, st, remote, up, recOf[baton.Baton](ours).ID)
		}
		if b := recOf[baton.Baton](ours); err == nil && b.Deleted != nil {
			err = handoff.UnsettledClaim(st, b.ID)
		}
		return nil, false, false, err
	}
	if theirs.oid == up.New {
		return theirs, false, true, nil
	}
	if theirs.oid != up.Old {
		tied, err = lostTo(ctx, st, remote, up, ours, theirs)
	} else if recLive(theirs) {
		err = resurrected(ctx, st, remote, up, theirs)
	}
	return theirs, tied, false, err
}

// resurrected is a *RetiredError when the waiting baton the remote holds
// at up.Ref, which up decides, is archived already: claimed, cancelled or
// dismissed there and retired, then written again by a late copy of the
// push that first created it (its lease, "absent", held again once the
// ref retired). Claimed, it would be delivered a second time (found by
// the simulation, seed 1796558850849151183). It reads the archive months
// as last fetched, here and the remote's (Refresh brings the remote's
// with the batons), at the baton's own path, through the long-lived
// cat-file and by the months' names: no process of its own, which a
// listing of the months would cost every claim. The months looked in are
// those a retirement of this baton can be filed under: from two months
// before it was written to three after now, room for clocks that far
// apart. A sync drops the stale baton there (dropStale).
func resurrected(ctx context.Context, st refstore.Clone, remote string, up refstore.Update, theirs *version) error {
	b := recOf[baton.Baton](theirs)
	p, err := archive.BatonPath(b.ID)
	if err != nil {
		return nil
	}
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return nil
	}
	copies := archiveCopies(tp)
	from := b.CreatedAt.UTC().AddDate(0, -2, 0)
	to := time.Now().UTC().AddDate(0, 3, 0)
	if oldest := to.AddDate(-3, 0, 0); from.Before(oldest) {
		from = oldest // a baton of no date (an older release's), or years old
	}
	for m := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC); !m.After(to); m = m.AddDate(0, 1, 0) {
		month := archive.Month(m)
		for _, ref := range []string{archive.Ref(month), copies + month} {
			_, err := st.ReadPath(ctx, ref, p)
			if err == nil {
				return &RetiredError{Remote: remote, Ref: up.Ref, ID: b.ID}
			}
			if !errors.Is(err, refstore.ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// recordDecided moves the tracking ref to what the remote took: that is
// the decision. A tracking ref that cannot move (a stale lock, a fetch
// that moved it) is only a stale copy, which the next fetch mends.
func recordDecided(ctx context.Context, st refstore.Clone, remote, tracking string, up refstore.Update, theirs *version) {
	if cur, _ := refstore.ResolveID(ctx, st, tracking); cur == up.New {
		return // git moved the tracking ref itself (the fetch refspecs of a clone set up by an earlier init)
	}
	_ = st.Apply(ctx, "handoff: decided at "+remote, refstore.Update{Ref: tracking, New: up.New, Old: oidOf(theirs)})
}

// RetiredError is a claim or deletion of a baton the remote decided and
// retired since this clone last saw it: claimed, cancelled or dismissed
// there, then moved to the remote's archive, so the remote holds no live
// version of its ref. Pushing this clone's version would bring it back to
// life and deliver it a second time.
type RetiredError struct {
	Remote, Ref, ID string
}

func (e *RetiredError) Error() string {
	return fmt.Sprintf("baton %s was decided at %s and retired there (claimed, cancelled or dismissed elsewhere): this clone's copy of %s is stale", e.ID, e.Remote, e.Ref)
}

func (e *RetiredError) Unwrap() error { return refstore.ErrConflict }

// UndecidedError is a claim or deletion of a baton that this clone pushed
// to the remote by a sync that got no answer, which the remote holds no
// version of now: it may have been decided there, and what became of it
// is only known after a sync. Nothing was changed.
type UndecidedError struct {
	Remote, Ref, ID string
}

func (e *UndecidedError) Error() string {
	return fmt.Sprintf("baton %s was pushed to %s by a sync that got no answer, and %s holds no version of it now: it may have been claimed, cancelled or dismissed there since; run `git handoff sync`, then try again", e.ID, e.Remote, e.Remote)
}

func (e *UndecidedError) Unwrap() error { return refstore.ErrConflict }

// retiredAt reports a *RetiredError when the remote no longer holds up.Ref
// and the version up replaces is one the remote decided and retired: the
// remote held exactly that version when this clone last synced (the seen
// note), or the remote's archive holds the baton. A version the remote
// never had (a baton left here since the last sync) is nil: pushing it
// creates it there.
func retiredAt(ctx context.Context, st refstore.Clone, remote string, up refstore.Update, id string) error {
	k := kindOf(up.Ref)
	retired := &RetiredError{Remote: remote, Ref: up.Ref, ID: id}
	seen, doubt := remoteNotes(ctx, st, remote)
	if seen[up.Ref] == up.Old {
		return retired
	}
	if doubt[up.Ref] == up.Old {
		// Pushed there by a sync that got no answer: the remote may
		// have held it, and decided it and lost the record since (a
		// heal deleted its claim for an object its gc lost, and a late
		// copy of that deletion took the claim put back), which its
		// refs and archive no longer show (found by the widened
		// simulation, seed 20071: a baton claimed and delivered
		// elsewhere, then dismissed here as one the remote never had).
		return &UndecidedError{Remote: remote, Ref: up.Ref, ID: id}
	}
	base := versionOf(ctx, st, k, up.Ref, up.Old)
	if base == nil {
		return nil
	}
	if gone, err := staleThere(ctx, st, remote, up.Ref, base); err != nil || gone {
		if gone {
			return retired
		}
		return err
	}
	return nil
}

// staleThere fetches remote's archive and reports whether v, a version
// of the baton ref, is behind it (archiveView.stale): decided and retired
// there.
func staleThere(ctx context.Context, st refstore.Clone, remote, ref string, v *version) (bool, error) {
	av, err := remoteArchive(ctx, st, remote)
	if err != nil {
		return false, err
	}
	return av.stale(ctx, ref, v)
}

// remoteArchive fetches remote's archive months and views them, newest
// first.
func remoteArchive(ctx context.Context, st refstore.Clone, remote string) (archiveView, error) {
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return archiveView{}, err
	}
	f, err := fetchPatiently(ctx, st, remote, []string{archiveRefspec(tp)}, 2)
	if err != nil {
		return archiveView{}, &UnreachableError{Remote: remote, Err: fmt.Errorf("reading its archive: %w", err)}
	}
	// A month the remote lost the tree of (its gc raced a push) was left
	// out of the fetch: read from here when this clone holds it, else the
	// archive cannot say, and a floor missing from it is no answer (found
	// by the simulation, seed 1796557578437617681: a crashed start's claim
	// taken for never won, its note dropped, the baton delivered to
	// nobody).
	f.track(ctx, st, remote)
	for _, ref := range slices.Sorted(maps.Keys(f.lost)) {
		if err := f.unknown(ctx, st, remote, ref); err != nil {
			return archiveView{}, err
		}
	}
	months, err := st.RefIDs(ctx, archiveCopies(tp))
	if err != nil {
		return archiveView{}, err
	}
	av := archiveView{st: st}
	for _, m := range slices.Backward(months) { // newest first
		av.trees = append(av.trees, m.OID)
	}
	// A month the remote lost and a sync deleted there, marked lost until
	// a clone that holds it pushes it back, is no longer fetched at all:
	// read it from here when this clone holds it, else the archive cannot
	// say (found by the simulation, seed 1796565202: the month naming a
	// claimed baton lost, the ref recreated by another baton, and the
	// claim's tie-break taken for a baton never decided there, which was
	// delivered twice).
	lost, err := lostThereNow(ctx, st, remote, func(ref string) bool { return strings.HasPrefix(ref, refstore.ArchivePrefix) })
	if err != nil {
		return archiveView{}, err
	}
	for _, mark := range slices.Sorted(maps.Keys(lost)) {
		m := lost[mark]
		if _, err := st.ReadObject(ctx, m.oid); err != nil {
			return archiveView{}, errMarkedLost(remote, m.ref, m.oid)
		}
		av.trees = append(av.trees, m.oid)
	}
	return av, nil
}

// readClaim reads the baton up would write, refusing a ref that holds no
// baton.
func readClaim(ctx context.Context, st refstore.Records, up refstore.Update) (*kind, *version, error) {
	k := kindOf(up.Ref)
	if k == nil || k.prefix != refstore.HandoffsPrefix {
		return nil, nil, fmt.Errorf("arbitrating %s: not a baton ref", up.Ref)
	}
	mine, err := st.ReadObject(ctx, up.New)
	if err != nil {
		return nil, nil, err
	}
	mine.Ref = up.Ref
	ours, err := read(k, up.Ref, mine)
	return k, ours, err
}

// lostTo decides whether the remote's version of the baton ref beats the
// version up would write there (a claim or a tombstone): the same baton
// claimed or deleted, or another baton the join keeps over the one up
// started from. When it does, the local ref takes the remote's version
// through that join (adopt), and the error says what happened.
func lostTo(ctx context.Context, st refstore.Clone, remote string, up refstore.Update, mine, theirs *version) (tied bool, _ error) {
	k := kindOf(up.Ref)
	look := storeLookup(ctx, st)
	m, t := recOf[baton.Baton](mine), recOf[baton.Baton](theirs)
	base := versionOf(ctx, st, k, up.Ref, up.Old)
	if m.ID == t.ID {
		if t.Live() {
			if refstore.WrittenOver(ctx, st, up.Old, theirs.oid) {
				return false, nil // the same waiting baton, ours written over what the remote holds: ours follows it
			}
			// A waiting version of the same baton that ours was not
			// written over (an undismiss, a reoffer, written since
			// elsewhere): ours would rank below it in every join (rev
			// first), and the next sync would put the waiting version
			// back over the decision (found by the widened simulation,
			// seed 20091: a dismissal decided from a stale copy replaced
			// the undismissed baton, a sync restored it, and a start
			// delivered the dismissed baton). The local ref takes the
			// remote's version, and the decision is made again from it.
			adopt(ctx, st, remote, up.Ref, theirs, look)
			return false, &refstore.ConflictError{Ref: up.Ref, Expected: up.Old, Actual: theirs.oid}
		}
	} else if base != nil {
		// Another baton: it goes only if the join of the version we
		// started from and theirs keeps ours, as sync would, and ours was
		// not decided and retired there (retirement takes a key's
		// history: theirs, written after, can look concurrent with ours).
		if d := decide(k, up.Ref, base, theirs, look); d.winner == base {
			gone, err := staleThere(ctx, st, remote, up.Ref, base)
			if err != nil {
				return false, err
			}
			if !gone {
				return d.conflict, nil
			}
		}
	} else if extends(mine, theirs, look) {
		return false, nil
	}
	conflict := adopt(ctx, st, remote, up.Ref, theirs, look)
	if m.ID == t.ID {
		return false, baton.NotLive(t, remote)
	}
	se := &handoff.SupersededError{Remote: remote, Ref: up.Ref, Mine: m, MineOID: up.Old, Kept: t, KeptOID: theirs.oid, Conflict: conflict}
	if base != nil {
		se.Mine = recOf[baton.Baton](base)
	}
	return false, se
}

// versionOf reads the blob oid as the record at ref; nil when it cannot.
func versionOf(ctx context.Context, st refstore.Records, k *kind, ref, oid string) *version {
	if oid == "" {
		return nil
	}
	e, err := st.ReadObject(ctx, oid)
	if err != nil {
		return nil
	}
	v, err := read(k, ref, e)
	if err != nil {
		return nil
	}
	return v
}

// adopt brings the local ref to the remote's version theirs when the join
// of what the ref holds now and theirs keeps theirs: the write sync would
// make, with its reflog message, so `git handoff log` shows a conflict,
// and the archive month that keeps a baton it drops in the same write. It
// returns the conflict when the two were written without seeing each
// other.
func adopt(ctx context.Context, st refstore.Records, remote, ref string, theirs *version, look lookup) *Conflict {
	k := kindOf(ref)
	for range 3 {
		var cur *version
		e, err := st.Get(ctx, ref)
		switch {
		case err == nil:
			if cur, err = read(k, ref, e); err != nil {
				cur = nil // unreadable here: the remote's version replaces it
			}
			if cur == nil {
				cur = &version{oid: e.OID}
			}
		case !errors.Is(err, refstore.ErrNotFound):
			return nil
		}
		if oidOf(cur) == theirs.oid {
			return nil
		}
		var d decision
		if cur != nil && cur.rec != nil {
			d = decide(k, ref, cur, theirs, look)
			if d.winner != theirs {
				return nil // what is here now beats it: the next sync pushes it
			}
		} else {
			d = decision{ref: ref, local: cur, remote: theirs, winner: theirs}
		}
		msg := "handoff: decided at " + remote
		if d.conflict {
			msg = conflictMsg(&d, remote)
		}
		// A baton this drops goes to the archive in the same write
		// (applyDropped).
		notArchived, err := applyDropped(ctx, st, msg, refstore.Update{Ref: ref, New: theirs.oid, Old: oidOf(cur)}, &d)
		if errors.Is(err, refstore.ErrConflict) {
			continue // moved meanwhile: join again with what it holds now
		}
		if err != nil || !d.conflict {
			return nil
		}
		c := conflictOf(&d)
		if notArchived != nil {
			c.Summary += " (the dropped baton was not archived here: " + notArchived.Error() + "; it stays in the reflog until its ref retires)"
		}
		return &c
	}
	return nil
}

// Pin chooses once the remote that decides claims of ref (handoff.Pinner):
// none when the clone has no remote or no remote knows the baton, and the
// claim is local. A choice that fails is left to Arbitrate to report.
func (a Arbiter) Pin(ctx context.Context, st refstore.Clone, ref string) (handoff.Arbiter, bool) {
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
func (a Arbiter) remoteFor(ctx context.Context, st refstore.Clone, ref string) (string, error) {
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
		if _, err := st.Get(ctx, tr); err == nil || knewRef(st, rc, ref) {
			cands = append(cands, rc.Name)
		}
	}
	switch len(cands) {
	case 0:
		return a.Fallback, nil
	case 1:
		return cands[0], nil
	}
	return "", fmt.Errorf("%w: remotes %s all carry the team's records and git config %s names none of them: run `git handoff init --remote <the remote your team shares>`", ErrNoArbiter, strings.Join(cands, ", "), ArbiterKey)
}

// knewRef reports whether rc held ref when this clone last looked, though
// its copy is gone now: the remote's last sync noted it there (seen.go),
// or a heal of this clone's deleted it there or marked it lost
// (lost.go). Its copy goes
// when the remote's ref goes, which a heal does for a while; deciding
// here alone then would decide again what the remote decided (found by
// the simulation, seed 6045: a baton claimed at the remote, the claim's
// object lost, the ref healed away, then claimed again here).
func knewRef(st refstore.Clone, rc refstore.RemoteConfig, ref string) bool {
	if readSeen(st, rc.Name, rc.URL)[ref] != "" {
		return true
	}
	notes, _ := withHealNotes(st.Local(), nil)
	return notes[ref] != "" || markedHere(st.Local(), ref)
}

// Held fetches the baton records of the remote that arbitrates claims of
// ref and returns the blob id it holds there; without a remote, what this
// clone holds. When the remote holds no version of ref, what it retired
// there last (the ref's floor in its archive) is what it decided: a claim
// it took and then retired is still the claimer's to deliver (found by the
// simulation: a claim won at the arbiter, its local record failed, and a
// retirement before the next start stranded it). "" when it holds
// neither.
func (a Arbiter) Held(ctx context.Context, st refstore.Clone, ref string) (string, error) {
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
	f, err := fetchPatiently(ctx, st, remote, specs, 3)
	if err != nil {
		return "", &UnreachableError{Remote: remote, Err: err}
	}
	if err := f.unknown(ctx, st, remote, ref); err != nil {
		return "", err
	}
	// A ref marked lost there holds what cannot be known (beforePush):
	// absent, it is not "nothing held" (CI's all-faults seed 6056: a
	// cancel in flight, settled as if the remote held nothing of a baton
	// whose claim it had lost, was recorded over that claim).
	if err := markedLost(ctx, st, remote, ref); err != nil {
		return "", err
	}
	oid, err := refstore.ResolveID(ctx, st, tracking)
	if errors.Is(err, refstore.ErrNotFound) {
		return floorThere(ctx, st, remote, ref)
	}
	return oid, err
}

// HeldOnce reports whether the remote that arbitrates claims of ref held
// the blob oid there at some time, reading its archive when what it holds
// now does not tell (heldOnce): a claim it decided, then replaced or
// retired before this clone recorded it (handoff.Archiver).
func (a Arbiter) HeldOnce(ctx context.Context, st refstore.Clone, ref, oid string) (bool, error) {
	remote, err := a.remoteFor(ctx, st, ref)
	if err != nil || remote == "" {
		return false, err
	}
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return false, err
	}
	return heldOnce(ctx, st, remote, tp, ref, oid)
}

var _ handoff.Archiver = Arbiter{}

// floorThere fetches remote's archive and returns the latest floor of the
// baton ref there (archive.KeyPath): of the versions retired at it, the
// one with the highest rev (then blob id); "" for none.
func floorThere(ctx context.Context, st refstore.Clone, remote, ref string) (string, error) {
	av, err := remoteArchive(ctx, st, remote)
	if err != nil {
		return "", err
	}
	best, bestRev := "", uint64(0)
	_, err = av.anyFloor(ctx, ref, func(e refstore.Entry) bool {
		if r := refstore.RevOf(e.Data).Rev; best == "" || r > bestRev || r == bestRev && e.OID > best {
			best, bestRev = e.OID, r
		}
		return false
	})
	return best, err
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
// a killed fetch left a lock on a tracking ref, or a ref of ours names an
// object a gc pruned: between tries it waits a little and removes such
// stale locks and dangling refs. It returns what it removed, in words, for
// the caller to pass on, and the remote's refs it left out because they
// name objects the remote lost (lost.go). A claim decided at the remote must not be taken
// for one that could not be asked, nor a sync fail on a dead fetch's
// leftovers.
func fetchPatiently(ctx context.Context, st refstore.Clone, remote string, specs []string, tries int) (f fetchResult, err error) {
	dropped, probed := 0, false
	specs = slices.Clone(specs)
	for try := 1; ; try++ {
		err = st.Fetch(ctx, remote, true, specs...)
		if err == nil {
			markFetched(st)
		}
		// A ref naming an object the remote lost fails every fetch:
		// fetch the rest without it (lost.go). Not a try: each such ref
		// is left out once.
		if oid := lostThere(err); oid != "" && len(f.lost) < maxLost && f.leaveOut(ctx, st, remote, oid, &specs) {
			try--
			continue
		}
		// One naming an object above one the remote lost fails it the
		// same way, without naming either: found by fetching the refs
		// that may reach one alone, once.
		if corruptThere(err) && !probed {
			probed = true
			if f.leaveOutDamaged(ctx, st, remote, &specs) {
				try--
				continue
			}
		}
		if err == nil {
			f.track(ctx, st, remote)
		}
		if err == nil || try >= tries || ctx.Err() != nil {
			if dropped > 0 {
				f.notes = append(f.notes, fmt.Sprintf("removed %d stale lock(s) a killed git fetch left on the copies of %s's records (they hold nothing the next fetch does not bring again)", dropped, remote))
			}
			return f, err
		}
		backoff(try)
		if tp, terr := TrackingPrefix(remote); terr == nil {
			dropped += st.DropStaleLocks(tp)
		}
		if missingObject(err) {
			// git fetch walks every ref and fails on one that names a
			// missing object: with those gone it can fetch.
			f.notes = append(f.notes, dropDangling(ctx, st)...)
		}
	}
}

// maxLost bounds the refs one fetch leaves out for naming lost objects.
const maxLost = 64
