package teamsync

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/refstore"
)

// Retirement in a clone with no remote. Retirement is a decision of sync's
// join (retire.go), and a clone with no remote never syncs: it kept a ref
// for every session it ever ran, every claimed baton, every merged PR, so
// that its refs grew with its history as a team's did before retirement.
// RetireHere is the same judgement with this clone as the only side: the
// join of each key with itself, the records that are final moved to the
// archive's months and off their refs by compare-and-swap, in the order
// sync uses (the month first), so a cut-short run never leaves a record
// in neither place. A remote added later gets the months from the first
// sync, and a teammate's live copy of a record retired here is joined
// with the archived version as sync joins any retired elsewhere.
//
// It refuses in a clone that has a remote: there a record leaves its ref
// only with the remote's, or the next sync would take the remote's copy
// for news, or this clone's absence for a deletion.

// ErrHasRemote is RetireHere's refusal in a clone with a remote.
var ErrHasRemote = errors.New("this clone has a remote: its records retire when they sync")

// RetireHereEvery is how often a command of a clone with no remote
// retires what is final (RetireHereDue): the judgement reads every live
// record, which retirement keeps few.
const RetireHereEvery = time.Hour

// hereNote is when this clone last retired with no remote (RFC 3339).
const hereNote = "retirement-here"

// noCopies is the tracking prefix of a clone with no remote: no ref name
// starts with a NUL, so no ref is taken for a remote's copy.
const noCopies = "\x00"

// RetireHereDue reports whether st has no remote and last retired here
// more than RetireHereEvery before now (or never, or in its future).
func RetireHereDue(ctx context.Context, st refstore.Clone, now time.Time) bool {
	if names, err := st.Remotes(ctx); err != nil || len(names) > 0 {
		return false
	}
	return due(st.Local(), hereNote, now, RetireHereEvery)
}

// RetireHere retires the final records of a clone with no remote to its
// archive (opts.Remote is ignored; opts.DryRun says what would retire).
// Res counts them in Retired and lists each move in Local.
func RetireHere(ctx context.Context, st refstore.Clone, opts Options) (Result, error) {
	res := Result{DryRun: opts.DryRun}
	if names, err := st.Remotes(ctx); err != nil {
		return res, err
	} else if len(names) > 0 {
		return res, fmt.Errorf("%w (%s)", ErrHasRemote, strings.Join(names, ", "))
	}
	var notes []string
	if !opts.DryRun {
		var err error
		if notes, err = beforeRetiring(ctx, st); err != nil {
			return res, err
		}
	}
	attempts := opts.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	mended := false
	var lastErr error
	for attempt := 1; attempt <= attempts; attempt++ {
		res.Attempts = attempt
		res.Local, res.Snapshots, res.Warnings, res.Retired = nil, nil, nil, 0
		w, err := retiringHere(ctx, st, opts, &res)
		if errors.Is(err, refstore.ErrMissingObject) && !mended && !opts.DryRun {
			// A month a git gc --prune=now damaged: put right from its
			// history, then judged again (as sync does).
			mended = true
			more, merr := archive.Mend(ctx, st, refstore.ArchivePrefix)
			notes = append(notes, more...)
			if merr == nil {
				attempt--
				continue
			}
		}
		if err != nil {
			return res, err
		}
		res.Warnings = append(res.Warnings, notes...)
		if opts.DryRun {
			return res, nil
		}
		if err = applyHere(ctx, st, w, &res); err == nil {
			sortResult(&res)
			if err := noteTime(ctx, st.Local(), hereNote, opts.Now); err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("noting this retirement's time: %v (the next command retires again)", err))
			}
			return res, nil
		}
		if !errors.Is(err, refstore.ErrConflict) {
			return res, err
		}
		// A command wrote a record meanwhile: judged again.
		lastErr = err
		backoff(attempt)
	}
	return res, &ContentionError{Attempts: attempts, Err: lastErr}
}

// retiringHere judges every record of st, as its own other side, and
// returns the writes that retire what is final, said in res.
func retiringHere(ctx context.Context, st refstore.Clone, opts Options, res *Result) (writes, error) {
	ids, err := listIDs(ctx, st, noCopies)
	if err != nil {
		return writes{}, err
	}
	ids.remote, ids.archRemote = maps.Clone(ids.local), maps.Clone(ids.archLocal)
	p, err := plan(ctx, st, noCopies, true, opts.Progress, ids)
	if err != nil {
		return writes{}, err
	}
	retireRecords(p.decisions, undoCutoff(opts.Now, opts.Retention))
	arch, _, err := joinArchive(ctx, st, ids, p.decisions)
	if err != nil {
		return writes{}, err
	}
	s := &syncRun{st: st, opts: opts, tp: noCopies}
	w := s.changes(joined{planned: p, arch: arch}, res)
	// Nothing is pushed: the months and the records move here alone.
	res.Pushed = nil
	w.remote, w.track = nil, nil
	// A retired session's snapshot goes with it, as sync drops it.
	retiredSnap := snapshotRetired(p.decisions, ids)
	snaps := make([]string, 0, len(ids.snapLocal))
	for ref := range ids.snapLocal {
		snaps = append(snaps, ref)
	}
	sort.Strings(snaps)
	for _, ref := range snaps {
		k := strings.TrimPrefix(ref, refstore.SnapshotPrefix)
		if retiredSnap(k) {
			w.local = append(w.local, refstore.Update{Ref: ref, Old: ids.snapLocal[ref]})
			res.Snapshots = append(res.Snapshots, Change{Ref: ref, Old: ids.snapLocal[ref], Reason: "retired", What: "snapshot of session " + sessionOf(k) + ", retired with it"})
		}
	}
	return w, nil
}

// hereMsg is the reflog message of a retirement with no remote.
const hereMsg = "handoff: retired here (no remote)"

// applyHere moves the archive's months, then the records, as sync's
// applyLocal does.
func applyHere(ctx context.Context, st refstore.Clone, w writes, res *Result) error {
	if len(w.archive) > 0 {
		if err := st.ApplyEach(ctx, hereMsg, w.archive...); err != nil {
			if errors.Is(err, refstore.ErrConflict) {
				return err
			}
			return fmt.Errorf("updating the archive: %w", err)
		}
	}
	if len(w.local) == 0 {
		return nil
	}
	unbound, warns := unbindEnded(ctx, st, hereMsg+": session ended", w.unbind)
	res.Unbound, res.Warnings = append(res.Unbound, unbound...), append(res.Warnings, warns...)
	if err := applyLocal(ctx, st, hereMsg, w.local, nil); err != nil {
		if errors.Is(err, refstore.ErrConflict) {
			return err
		}
		return fmt.Errorf("retiring records: %w", err)
	}
	return nil
}
