package teamsync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	mrand "math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// DefaultAttempts bounds how often sync fetches and merges again after
// losing a lease to a teammate's push.
const DefaultAttempts = 5

// Options are what `git handoff sync` was asked.
type Options struct {
	Remote string // a configured remote's name
	DryRun bool   // fetch and decide, change nothing local or remote
	// Retention is how long a dismissed baton stays live to be undone
	// (retire.go): 0 is DefaultRetention, Never keeps it. Every other
	// final record retires at the first sync that judges it.
	Retention time.Duration
	// Retire judges every record for retirement even when nothing
	// differs between the two sides, which reads every record: what a
	// sync does now and then (RetireDue), for the dismissals whose undo
	// window passed. A sync where anything differs judges them anyway.
	Retire   bool
	Now      time.Time
	Attempts int
	// Progress receives one line per phase when the work is large; nil
	// for none.
	Progress io.Writer
}

// Change is one ref moved by sync, locally or on the remote. Old and New
// are blob ids, "" for absent.
type Change struct {
	Ref string `json:"ref"`
	Old string `json:"old"`
	New string `json:"new"`
	// Reason is "merged", "retired" (a record retention moved to the
	// archive, or dropped) or "archived" (an archive month's tree).
	Reason string `json:"reason"`
	What   string `json:"what"` // the record kept, in words
}

// Conflict is a key where two versions could not be ordered and a tie-break
// chose (one definition, in handoff: the arbiter's decisions report the
// same).
type Conflict = handoff.Conflict

// Result is what a sync did (or, with DryRun, would do).
type Result struct {
	Remote    string     `json:"remote"`
	DryRun    bool       `json:"dryRun"`
	Records   int        `json:"records"` // keys compared
	Local     []Change   `json:"local"`
	Pushed    []Change   `json:"pushed"`
	Conflicts []Conflict `json:"conflicts"`
	// Withheld are records the remote dropped since the last sync (a
	// tombstone collected there) that are unchanged here: kept, not
	// pushed back.
	Withheld []Change `json:"withheld"`
	Warnings []string `json:"warnings"`
	Attempts int      `json:"attempts"`
	// Retired counts the records retention took out of the live refs in
	// this sync (each listed in Local or Pushed with reason "retired").
	Retired int `json:"retired"`
	// Snapshots are the snapshot refs moved, here or at the remote
	// (snapshots.go); Old and New are commit ids.
	Snapshots []Change `json:"snapshots"`
	// Unbound are the worktrees that were bound to a session this sync
	// brought the end (or retirement) of, now unbound (unbind.go).
	Unbound []string `json:"unbound,omitempty"`
}

// ErrUnknownRemote is returned for a remote that is not configured.
var ErrUnknownRemote = errors.New("no such remote")

// TrackingPrefix is where records fetched from remote are kept.
func TrackingPrefix(remote string) (string, error) {
	enc, err := refstore.EncodeComponent(remote)
	if err != nil {
		return "", err
	}
	return refstore.RemotesPrefix + enc + "/", nil
}

// Refspecs are the fetch refspecs of our kinds from remote, one per kind:
// never refs/ao/* as a whole (refs/ao/preserved/ is another tool's).
func Refspecs(remote string) ([]string, error) {
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(refstore.Kinds), len(refstore.Kinds)+2)
	for i, k := range refstore.Kinds {
		rel := strings.TrimPrefix(k, refstore.Root)
		out[i] = "+" + k + "*:" + tp + rel + "*"
	}
	// Then the archive's months (trees, archive_join.go) and snapshots
	// (commits, snapshots.go): not records.
	return append(out, archiveRefspec(tp), snapshotRefspec(tp)), nil
}

// archiveCopies is where a remote's archive months are copied here, under
// its tracking prefix tp.
func archiveCopies(tp string) string {
	return tp + archiveRel
}

// archiveRefspec fetches a remote's archive months to archiveCopies(tp).
func archiveRefspec(tp string) string {
	return "+" + refstore.ArchivePrefix + "*:" + archiveCopies(tp) + "*"
}

// trackingRef is where ref of the remote (or the local ref of the same
// name) is copied here, under its tracking prefix tp: localRef's inverse.
func trackingRef(tp, ref string) string {
	return tp + strings.TrimPrefix(ref, refstore.Root)
}

// localRef maps a tracking ref back to the local ref its record belongs at,
// refusing anything that is not one of our kinds.
func localRef(tp, tracking string) (string, bool) {
	rest, ok := strings.CutPrefix(tracking, tp)
	if !ok {
		return "", false
	}
	ref := refstore.Root + rest
	return ref, kindOf(ref) != nil
}

// checkRemote returns remote's configuration, refusing a remote that is
// not configured.
func checkRemote(ctx context.Context, st refstore.Config, remote string) (refstore.RemoteConfig, error) {
	rcs, err := st.RemoteConfigs(ctx)
	if err != nil {
		return refstore.RemoteConfig{}, err
	}
	for _, rc := range rcs {
		if rc.Name == remote {
			return rc, nil
		}
	}
	return refstore.RemoteConfig{}, fmt.Errorf("remote %q: %w (see `git remote -v`)", remote, ErrUnknownRemote)
}

// DefaultRemote is the remote sync uses when none is named: the first one
// init set up, else "origin".
func DefaultRemote(ctx context.Context, st refstore.Config) (string, error) {
	names, err := initialized(ctx, st)
	if err != nil {
		return "", err
	}
	if len(names) > 0 {
		return names[0], nil
	}
	return "origin", nil
}

// Sync fetches remote's records, joins every key with the local one,
// applies the result locally by compare-and-swap and pushes every ref the
// remote lacks with a lease on what was fetched. A lost lease means someone
// pushed meanwhile: fetch, join and push again, a bounded number of times.
func Sync(ctx context.Context, st refstore.Clone, opts Options) (Result, error) {
	res := Result{Remote: opts.Remote, DryRun: opts.DryRun}
	// A deletion noted here and not known to be recorded (the arbiter
	// took it and the local swap failed, or its command died once it was
	// pushed) is settled first: its waiting copy, joined with a remote that
	// dropped the tombstone since (a teammate's tie, then a retirement),
	// would go back there as news for anyone to claim
	// (handoff/unrecorded.go). Before prepare, which asks the remote what
	// it holds: a settling that pushes would make that answer stale, and
	// its own questions to the remote would race prepare's (the
	// simulation replays a seed only when they come in one order).
	var pre *syncRun
	if !opts.DryRun {
		err := handoff.RecordDecided(ctx, st, Arbiter{Fallback: opts.Remote})
		// A note's ref the remote marks lost, or that this clone's own
		// heal has not finished, is settled by no arbiter until the
		// object is pushed back, which is what a sync does, once it gets
		// that far: where this clone can (often the one that wrote the
		// baton and noted its deletion), it heals first, and the notes
		// are settled again (found by the simulation, seeds 1570 and
		// 1691: an end's baton lost at the remote by a gc racing a push,
		// and every sync of the only clone holding it failed here).
		if err != nil {
			if pre = (&syncRun{st: st, opts: opts}); pre.healForNotes(ctx) {
				err = handoff.RecordDecided(ctx, st, Arbiter{Fallback: opts.Remote})
			}
		}
		if err != nil {
			return res, err
		}
	}
	s, err := prepare(ctx, st, opts)
	if err != nil {
		return res, err
	}
	if pre != nil {
		// What it pushed back keeps its heal notes through this sync's
		// own heals (heal).
		s.fetchNotes, s.pushedBack = append(s.fetchNotes, pre.fetchNotes...), pre.pushedBack
	}
	var lastErr error
	// A retirement, due now and then, looks first for damage a git gc
	// --prune=now did to the archive (mendArchive): found otherwise only
	// when a sync reads the month, while every git gc of the clone fails.
	mended := false
	if opts.Retire && !opts.DryRun {
		mended = true
		s.fetchNotes = append(s.fetchNotes, s.mendArchive(ctx)...)
	}
	for attempt := 1; attempt <= s.attempts; attempt++ {
		res.Attempts = attempt
		res.Local, res.Pushed, res.Conflicts, res.Withheld, res.Warnings, res.Retired = nil, nil, nil, nil, nil, 0
		ids, err := s.fetch(ctx)
		if err != nil {
			return res, err
		}
		s.leaveUnhealed(ids)
		j, err := s.join(ctx, ids)
		if errors.Is(err, refstore.ErrMissingObject) && !mended {
			// A month of the archive here, or a copy of the remote's,
			// damaged by a git gc --prune=now: put right, then this
			// attempt again (found by the soak: every sync of that clone
			// failed, and every git gc of it).
			mended = true
			if notes := s.mendArchive(ctx); len(notes) > 0 {
				s.fetchNotes = append(s.fetchNotes, notes...)
				attempt--
				continue
			}
		}
		if err != nil {
			return res, err
		}
		w := s.changes(j, &res)
		s.holdUnhealedMonths(w)
		s.snapshots(ctx, j, ids, &res)
		if opts.DryRun {
			return res, nil
		}
		settleTies(ctx, st, opts.Remote)
		held := s.holdPush != "" && len(w.remote) > 0
		pushed := false
		if err = s.applyLocal(ctx, w, &res); err == nil && held {
			res.Pushed = nil
			res.Warnings = append(res.Warnings, s.holdPush)
			// Joined and retired here, and nothing pushed: what the
			// remote held when fetched is what it still holds, as after
			// a push that failed (found by the widened simulation, seed
			// 325: a replaced session retired here by a sync whose
			// listing failed, and the next sync took the remote's older
			// copy for a teammate's news and read replacedBy="").
			s.noteFetched(j)
		} else if err == nil {
			err, pushed = s.push(ctx, w, j, &res), true
		}
		if again, ok := err.(retry); ok {
			lastErr = again.err
			backoff(attempt)
			continue
		}
		if lost := lostAtPush(ctx, st, opts.Remote, err); len(lost) > 0 && attempt < s.attempts {
			// The remote took no push: a ref there names an object it
			// lost, which no fetch of ours needed (lost.go).
			s.noteUnhealed(ctx, lost)
			s.fetchNotes = append(s.fetchNotes, s.heal(ctx, lost)...)
			lastErr = err
			continue
		}
		if err != nil {
			if pushed {
				s.noteFetched(j) // joined here, whatever became of the push
			}
			return res, err
		}
		sortResult(&res)
		if !held { // the notes say what the remote holds now: not what a held push left out
			s.note(ctx, j, &res)
		}
		s.packLoose(ctx, &res)
		return res, nil
	}
	return res, &ContentionError{Attempts: s.attempts, Err: lastErr}
}

// syncRun is what one sync settles before its first attempt, and what its
// attempts carry from one to the next.
type syncRun struct {
	st       refstore.Clone
	opts     Options
	url      string // the remote's, for the note of what it holds (seen.go)
	specs    []string
	tp       string
	attempts int
	migrated string            // what migrate changed, said with every attempt's warnings
	seen     map[string]string // what the remote held at the last sync (seen.go)
	doubt    map[string]string // what pushes with no answer may have left there (doubt.go)
	// retire: this attempt judges every record for retirement (join).
	retire bool
	// undo: a dismissal before it can no longer be undone, and retires.
	undo time.Time
	// unhealed are the refs the remote lost the object of, marked lost
	// there, that this clone cannot heal (lost.go): nothing is pushed to
	// them, which would replace what a teammate still holds.
	unhealed map[string]string
	// pushedBack are the refs this sync's heals pushed back: their heal
	// notes stay for a later sync to see them there (lost.go).
	pushedBack map[string]bool
	// healingMore is set while a heal heals what its own push met
	// (lost.go).
	healingMore bool
	// holdPush, when set, says why this attempt pushes nothing.
	holdPush string
	// fetchNotes are the stale locks and dangling refs removed so that
	// git fetch could run.
	fetchNotes []string
	// asked is the remote's listing prepare started, for the first
	// attempt: the remote's answer is most of a sync with nothing new,
	// and nothing prepare does here changes what the remote holds.
	asked <-chan remoteListing
}

// packLooseAt is how many loose refs under refs/ao/ a sync leaves before
// it has git pack them: each costs every plain git fetch of the clone a
// file read (refstore.PackLoose), and 100 cost it about a millisecond.
const packLooseAt = 100

// packLoose has git pack the refs when the sync left many of ours loose
// (a fetch of many records, a retirement): what fails here is said and
// left for the next sync, or git gc.
func (s *syncRun) packLoose(ctx context.Context, res *Result) {
	p, ok := s.st.(refstore.RefPacker)
	if !ok {
		return
	}
	// Another pack-refs or gc holding packed-refs.lock is packing them.
	if _, err := p.PackLoose(ctx, refstore.Root, packLooseAt); err != nil && !strings.Contains(err.Error(), "packed-refs.lock") {
		res.Warnings = append(res.Warnings, "packing refs (git pack-refs): "+err.Error())
	}
}

// holdUnhealedMonths holds this attempt's push back when it would write a
// month of the archive that the remote marks lost and this clone cannot
// heal: the remote lost the month's tree (its gc raced a push) and a sync
// deleted the ref there, and pushing this clone's own month, leased on
// "absent", would replace the lost one, whose entries only the clone that
// holds it has (found by the simulation, seed 30217: a claim retired into
// the lost month vanished from the remote's archive when another clone's
// month took its place, and the claim's note was then dropped as lost).
// Records marked so are left out of the join (leaveUnhealed); a month
// cannot be, since what retires in this sync goes into it.
func (s *syncRun) holdUnhealedMonths(w writes) {
	if s.holdPush != "" {
		return
	}
	for _, u := range w.remote {
		if oid, ok := s.unhealed[u.Ref]; ok && strings.HasPrefix(u.Ref, refstore.ArchivePrefix) {
			s.holdPush = fmt.Sprintf("nothing pushed: %s lost the object %s its %s named (its gc raced a push), and a clone that holds it is to push it back first; the next sync pushes", s.opts.Remote, oid, u.Ref)
			return
		}
	}
}

// retry is a step that lost a compare-and-swap or a lease to someone
// writing meanwhile: the attempt starts over from a fetch.
type retry struct{ err error }

func (r retry) Error() string { return r.err.Error() }

// prepare checks the remote and settles what every attempt uses.
func prepare(ctx context.Context, st refstore.Clone, opts Options) (*syncRun, error) {
	rc, err := checkRemote(ctx, st, opts.Remote)
	if err != nil {
		return nil, err
	}
	specs, err := Refspecs(opts.Remote)
	if err != nil {
		return nil, err
	}
	tp, _ := TrackingPrefix(opts.Remote)
	s := &syncRun{st: st, opts: opts, url: rc.URL, specs: specs, tp: tp, attempts: opts.Attempts,
		undo: undoCutoff(opts.Now, opts.Retention)}
	if s.attempts <= 0 {
		s.attempts = DefaultAttempts
	}
	s.asked = s.askRemote(ctx)
	if !opts.DryRun {
		if s.migrated, err = migrate(ctx, st, opts.Remote); err != nil {
			return nil, err
		}
		notes, err := beforeRetiring(ctx, st)
		if err != nil {
			return nil, err
		}
		s.fetchNotes = append(s.fetchNotes, notes...)
	}
	s.seen = readSeen(st, opts.Remote, rc.URL)
	s.doubt = readDoubt(st, opts.Remote, rc.URL)
	return s, nil
}

// beforeRetiring is what a sync, and a retirement with no remote
// (RetireHere), settle before anything retires: the months an earlier
// release left sealed, the final batons ends replaced archived (a
// retirement takes the ref's reflog, which kept them until now), and an
// earlier release's issued marks folded. It returns what to say.
func beforeRetiring(ctx context.Context, st refstore.Clone) ([]string, error) {
	notes, err := sealArchive(ctx, st)
	if err != nil {
		return nil, err
	}
	notes = append(notes, handoff.ArchiveRetiring(ctx, st)...)
	if err := refstore.FoldIssued(ctx, st.Local()); err != nil {
		notes = append(notes, err.Error()+" (the next sync or retirement tries again)")
	}
	return notes, nil
}

// remoteListing is what git ls-remote answered, or how it failed.
type remoteListing struct {
	ids map[string]string
	err error
}

// askRemote starts listing what the remote holds of our kinds, with the
// marks of objects it lost (lost.go), and returns where the answer comes.
// It runs git ls-remote on its own (RemoteIDs touches nothing else of st).
func (s *syncRun) askRemote(ctx context.Context) <-chan remoteListing {
	c := make(chan remoteListing, 1)
	go func() {
		ids, err := s.st.RemoteIDs(ctx, s.opts.Remote, append(slices.Clone(s.specs), lostSpec)...)
		c <- remoteListing{ids, err}
	}()
	return c
}

// fetch lists the refs here and, when the remote holds anything else,
// fetches it into the tracking refs.
func (s *syncRun) fetch(ctx context.Context) (refIDs, error) {
	// The refs here are listed and the remote asked (git ls-remote, on a
	// second core meanwhile) before anything is fetched: a fetch costs
	// time in the number of refs here, and with nothing new none is
	// needed. The first attempt's question was asked by prepare.
	remoteIDs := s.asked
	s.asked = nil
	if remoteIDs == nil {
		remoteIDs = s.askRemote(ctx)
	}
	ids, err := listIDs(ctx, s.st, s.tp)
	want := <-remoteIDs
	if err != nil {
		return ids, err
	}
	// Nothing is pushed while a teammate's heal is half done there, nor
	// when the remote's marks could not be listed: a ref absent there may
	// be one a heal deleted, which a push of this clone's copy would write
	// over the version it holds (allclear.go; found by the simulation,
	// seed 6045).
	s.holdPush = ""
	if want.err != nil {
		s.holdPush = fmt.Sprintf("nothing pushed: listing %s's refs failed (%v); the next sync pushes", s.opts.Remote, want.err)
	} else {
		v := observeClear(ctx, s.st.Local(), s.opts.Remote, want.ids)
		if v.there && !s.opts.DryRun {
			s.heldNoMore(ctx, want.ids)
		}
		s.fetchNotes = append(s.fetchNotes, s.settleClear(ctx, v)...)
		if v.underway && !tookClear(s.st.Local(), s.opts.Remote) {
			s.holdPush = fmt.Sprintf("nothing pushed: a teammate's sync is healing a ref of %s that names an object it lost, and has not finished; the next sync pushes", s.opts.Remote)
		}
	}
	marks := marked(want.ids)
	if want.err == nil && !s.opts.DryRun {
		dropGoneMarks(s.st.Local(), marks)
	}
	if len(marks) > 0 && !s.opts.DryRun {
		s.fetchNotes = append(s.fetchNotes, healMarked(ctx, s.st, s.opts.Remote, marks)...)
		s.unhealed = unhealed(ctx, s.st, marks)
	}
	// A heal a kill or a lost answer cut short is finished whatever this
	// fetch meets (lost.go).
	resumed := s.resumeHeals(ctx, want.err)
	if want.err == nil && !resumed && maps.Equal(want.ids, ids.copies) {
		return ids, nil
	}
	// One more try when it fails: a gc repacking this clone, a killed
	// fetch's lock, a ref naming a pruned object (fetchPatiently); an
	// unreachable remote fails the same way twice.
	f, err := fetchPatiently(ctx, s.st, s.opts.Remote, s.specs, 2)
	s.fetchNotes = append(s.fetchNotes, f.notes...)
	if err != nil {
		return ids, fmt.Errorf("fetching from %s: %w", s.opts.Remote, err)
	}
	if !s.opts.DryRun {
		s.noteUnhealed(ctx, f.lost)
		if healed := s.heal(ctx, f.lost); len(healed) > 0 {
			s.fetchNotes = append(s.fetchNotes, healed...)
			if _, err := fetchPatiently(ctx, s.st, s.opts.Remote, s.specs, 2); err != nil {
				return ids, fmt.Errorf("fetching from %s after healing it: %w", s.opts.Remote, err)
			}
		}
	}
	return listIDs(ctx, s.st, s.tp)
}

// joined is one attempt's join: a decision per key, and the archive's
// months.
type joined struct {
	planned
	arch []archiveMonth
	// archConflicts are the records two clones made final concurrently,
	// where the archive's join kept the remote's (laterArchived).
	archConflicts []Conflict
}

// join decides every key that differs (every key, when retirement judges
// them: whenever anything differs, or the remote moved since the last
// sync), retires what is final, joins the archive's months and withholds
// what the remote dropped.
func (s *syncRun) join(ctx context.Context, ids refIDs) (joined, error) {
	s.retire = s.opts.Retire || ids.differ() || movedSince(ids.remote, s.seen)
	p, err := plan(ctx, s.st, s.tp, s.retire, s.opts.Progress, ids)
	if err != nil {
		return joined{}, err
	}
	if err := settleArchived(ctx, s.st, ids, p.decisions, s.seen, s.doubt); err != nil {
		return joined{}, err
	}
	archiveDropped(p.decisions, s.opts.Now)
	if s.retire {
		retireRecords(p.decisions, s.undo)
	}
	arch, archConflicts, err := joinArchive(ctx, s.st, ids, p.decisions)
	if err != nil {
		return joined{}, err
	}
	withhold(p.decisions, s.seen)
	p.warns = append(p.warns, holdUnsettled(p.decisions, handoff.UnsettledClaims(s.st))...)
	return joined{planned: p, arch: arch, archConflicts: archConflicts}, nil
}

// writes are the ref updates one attempt makes.
type writes struct {
	local, remote []refstore.Update
	// track are the tracking refs' values the pushed refs were leased
	// on, moved as the push moves them.
	track []refstore.Update
	// archive are the archive's months to update here, before any
	// record.
	archive      []refstore.Update
	conflictMsgs map[string]string // local ref → reflog message of a conflict it settles
	keepOld      bool
	// unbind are the local sessions the join ends or retires: a worktree
	// still bound to one is unbound before they change (unbind.go).
	unbind []unbinding
}

// mendArchive puts right the months of the archive, here and the
// remote's copies, whose trees reach objects this clone lacks
// (archive.Mend), and says what it did.
func (s *syncRun) mendArchive(ctx context.Context) []string {
	notes, err := archive.Mend(ctx, s.st, refstore.ArchivePrefix, archiveCopies(s.tp))
	if err != nil {
		notes = append(notes, err.Error())
	}
	return notes
}

// changes turns the join into the updates to make, here and at the
// remote, and says each in res.
func (s *syncRun) changes(j joined, res *Result) writes {
	res.Warnings = append(j.warns, s.fetchNotes...)
	if s.migrated != "" {
		res.Warnings = append(res.Warnings, s.migrated)
	}
	res.Records = len(j.decisions) + len(j.settled)
	w := writes{conflictMsgs: map[string]string{}}
	for i := range j.decisions {
		s.change(&j.decisions[i], &w, res)
	}
	res.Conflicts = append(res.Conflicts, j.archConflicts...)
	// The archive's months go first in the push, so that a push split in
	// several (a retention of tens of thousands) lands them before the
	// records they now hold are deleted.
	var archRemote []refstore.Update
	for _, a := range j.arch {
		what := "archive of " + a.month
		if a.added > 0 {
			what += fmt.Sprintf(" (%d record(s) retired now)", a.added)
		}
		if a.tree != a.local {
			w.archive = append(w.archive, refstore.Update{Ref: a.ref, Old: a.local, New: a.tree})
			res.Local = append(res.Local, Change{Ref: a.ref, Old: a.local, New: a.tree, Reason: "archived", What: what})
		}
		if a.tree != a.remote {
			archRemote = append(archRemote, refstore.Update{Ref: a.ref, Old: a.remote, New: a.tree})
			res.Pushed = append(res.Pushed, Change{Ref: a.ref, Old: a.remote, New: a.tree, Reason: "archived", What: what})
			w.track = append(w.track, refstore.Update{Ref: trackingRef(s.tp, a.ref), Old: a.remote, New: a.tree})
		}
	}
	w.remote = append(archRemote, w.remote...)
	return w
}

// change adds the updates of one key's decision to w, and says them in res.
func (s *syncRun) change(d *decision, w *writes, res *Result) {
	reason := "merged"
	if d.collected {
		reason = "retired"
		res.Retired++
	}
	what := ""
	switch {
	case d.winner != nil:
		what = kindOf(d.ref).describe(d.winner)
	case d.retired != nil:
		what = d.retired.what
	}
	if d.retired != nil && d.retired.stale {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s retired %s: it was claimed, cancelled, dismissed or replaced there; the copy that waited here is retired too", s.opts.Remote, what))
	}
	if d.withheld {
		res.Withheld = append(res.Withheld, Change{Ref: d.ref, Old: d.local.oid, New: d.local.oid, Reason: "withheld", What: what})
	}
	if d.localChange() {
		if n := undoneDeletion(d); n != "" {
			res.Warnings = append(res.Warnings, n)
		}
		w.local = append(w.local, refstore.Update{Ref: d.ref, New: oidOf(d.winner), Old: oidOf(d.local)})
		if u, ok := endedHere(d); ok {
			w.unbind = append(w.unbind, u)
		}
		switch {
		case d.conflict && d.local != nil:
			w.conflictMsgs[d.ref] = conflictMsg(d, s.opts.Remote)
		case d.retired != nil && d.retired.stale:
			// A baton that waited here leaves because the archive says it
			// is behind: claimed, cancelled or dismissed there, or dropped
			// by a join. The warning above is this run's; the note is
			// `git handoff log`'s, kept with the deletion itself, since the
			// join that dropped it may have died after archiving it
			// (found by the simulation, seed 6008).
			w.conflictMsgs[d.ref] = fmt.Sprintf("%s from %s: dropped %s, retired there", refstore.ConflictReflog, s.opts.Remote, oidOf(d.local))
		}
		res.Local = append(res.Local, Change{Ref: d.ref, Old: oidOf(d.local), New: oidOf(d.winner), Reason: reason, What: what})
	}
	if d.remoteChange() {
		w.remote = append(w.remote, refstore.Update{Ref: d.ref, New: oidOf(d.winner), Old: oidOf(d.remote)})
		res.Pushed = append(res.Pushed, Change{Ref: d.ref, Old: oidOf(d.remote), New: oidOf(d.winner), Reason: reason, What: what})
		tr := trackingRef(s.tp, d.ref)
		w.track = append(w.track, refstore.Update{Ref: tr, New: oidOf(d.winner), Old: oidOf(d.remote)})
	}
	if d.conflict {
		c := conflictOf(d)
		res.Conflicts = append(res.Conflicts, c)
		if c.KeptFrom == "local" {
			w.keepOld = true
		}
	}
}

// snapshots carries the snapshot refs both ways (snapshots.go); with
// retention, those of retired sessions retire with them.
func (s *syncRun) snapshots(ctx context.Context, j joined, ids refIDs, res *Result) {
	var retiredSnap func(string) bool
	if s.retire {
		retiredSnap = snapshotRetired(j.decisions, ids)
	}
	var warns []string
	res.Snapshots, warns = syncSnapshots(ctx, s.st, s.opts.Remote, s.tp, ids.snapLocal, ids.snapRemote, s.opts.DryRun, retiredSnap)
	res.Warnings = append(res.Warnings, warns...)
}

// applyLocal writes the archive's months, then the records, here; res
// gets the worktrees unbound from sessions that ended elsewhere.
func (s *syncRun) applyLocal(ctx context.Context, w writes, res *Result) error {
	if len(w.archive) > 0 {
		// The archive first: a record leaves its live ref only once the
		// month that keeps it is here.
		if err := s.st.ApplyEach(ctx, "handoff: archive joined with "+s.opts.Remote, w.archive...); err != nil {
			if errors.Is(err, refstore.ErrConflict) {
				return retry{err}
			}
			return fmt.Errorf("updating the archive: %w", err)
		}
	}
	if len(w.local) == 0 {
		return nil
	}
	unbound, warns := unbindEnded(ctx, s.st, "handoff: sync from "+s.opts.Remote+": session ended", w.unbind)
	res.Unbound, res.Warnings = append(res.Unbound, unbound...), append(res.Warnings, warns...)
	progress(s.opts.Progress, len(w.local), "sync: updating %d local records", len(w.local))
	// Each key was joined on its own and swaps on its own: a key a local
	// command wrote meanwhile is decided again next attempt.
	if err := applyLocal(ctx, s.st, "handoff: sync from "+s.opts.Remote, w.local, w.conflictMsgs); err != nil {
		if errors.Is(err, refstore.ErrConflict) {
			return retry{err}
		}
		return fmt.Errorf("updating local records: %w", err)
	}
	return nil
}

// push sends w.remote with leases on what was fetched; a lost lease, or a
// push that raced another at the remote, is a retry.
func (s *syncRun) push(ctx context.Context, w writes, j joined, res *Result) error {
	if len(w.remote) == 0 {
		return nil
	}
	remote := s.opts.Remote
	progress(s.opts.Progress, len(w.remote), "sync: pushing %d records to %s", len(w.remote), remote)
	popts := refstore.PushOptions{Atomic: true, KeepOld: w.keepOld, NoVerify: true, Track: s.specs}
	// In doubt from before it is sent: a process killed after the push
	// landed and before its notes leaves the remote holding what no note
	// here names (seed 1796600301). Not a bulk push's thousands, which
	// are noted only once one fails without an answer.
	early := len(w.remote) <= doubtEarlyMax
	if early {
		noteDoubt(s.st, remote, s.url, w.remote)
	}
	var err error
	if len(j.warns) == 0 && len(res.Withheld) == 0 && len(s.unhealed) == 0 && len(w.remote) > bulkPushMin {
		// Local refs now hold every winner (retired keys are gone), and the
		// tracking refs (which Track maps) hold what was fetched: a push by
		// pattern, pruning, with leases on the tracking refs moves exactly
		// w.remote, in linear time. (Not when a local ref must stay
		// unpushed, or a remote one undeleted: unreadable or withheld.)
		err = s.st.PushMatching(ctx, remote, slices.Concat(refstore.Kinds, []string{refstore.ArchivePrefix}), popts)
	} else {
		err = s.st.Push(ctx, remote, w.remote, popts)
	}
	refused := refstore.Refused(err) // an atomic push: nothing of it landed
	switch {
	case refused && early:
		forgetDoubt(s.st, remote, s.url, w.remote) // nothing of it landed
	case err != nil && !refused && !early:
		noteDoubt(s.st, remote, s.url, w.remote) // no answer: it may land yet
	}
	// Landed, its entries stay until the seen note names what it left
	// (note): a death before then must still find them.
	if err == nil {
		return nil
	}
	lost, ferr := leaseLost(ctx, s.st, remote, s.specs, w.track)
	if ferr != nil {
		// Said as the arbiter says it: what the push met, then why it
		// could not be told apart from a lost lease.
		return fmt.Errorf("pushing to %s: %w; then fetching to see why: %w", remote, err, ferr)
	}
	if !(lost || racedAtRemote(err)) {
		return fmt.Errorf("pushing to %s: %w", remote, err)
	}
	return retry{err}
}

// note packs the refs a large sync wrote and keeps the clone's notes of
// this sync: the retention done, the keys merged (lazy.go) and what the
// remote holds (seen.go). A note not written is a warning, never a failed
// sync.
func (s *syncRun) note(ctx context.Context, j joined, res *Result) {
	remote := s.opts.Remote
	if s.retire {
		if err := noteRetired(s.st, remote, s.opts.Now); err != nil {
			res.Warnings = append(res.Warnings, "note of this retention not written: "+err.Error())
		}
	}
	if err := noteSynced(s.st, remote, j.decisions, j.settled); err != nil {
		res.Warnings = append(res.Warnings, "lazy-merge note not written: "+err.Error())
	}
	// Nothing decided, and the remote holds what the note says: the note
	// stands (seenAfter would build it again, key by key).
	now := s.seen
	if len(j.decisions) > 0 || len(j.unread) > 0 || s.seen == nil || !maps.Equal(j.settled, s.seen) {
		now = seenAfter(s.seen, j.decisions, j.settled, j.unread)
		if s.seen == nil || !maps.Equal(now, s.seen) {
			if err := writeSeen(s.st, remote, s.url, now); err != nil {
				res.Warnings = append(res.Warnings, "note of what "+remote+" holds not written: "+err.Error())
				return // the doubt note keeps guarding what the seen note does not name
			}
		}
	}
	settleDoubt(s.st, remote, s.url, now, j.decisions, j.settled)
}

// noteFetched keeps, for a sync whose push failed after it joined the
// remote's records here, what the remote held when fetched (seenFetched).
// A note not written leaves the last one, as a failed sync always did.
func (s *syncRun) noteFetched(j joined) {
	if now := seenFetched(s.seen, j.decisions, j.settled, j.unread); s.seen == nil || !maps.Equal(now, s.seen) {
		_ = writeSeen(s.st, s.opts.Remote, s.url, now)
	}
}

// ContentionError is a sync that lost every attempt to someone writing the
// same records at the same time, here or at the remote. It is a conflict
// (errors.Is refstore.ErrConflict, exit 5): nothing is lost, and running
// sync again decides from what the others wrote.
type ContentionError struct {
	Attempts int
	Err      error // what the last attempt lost
}

func (e *ContentionError) Error() string {
	return fmt.Sprintf("gave up after %d attempts, the records kept changing meanwhile: %v", e.Attempts, e.Err)
}

func (e *ContentionError) Unwrap() []error { return []error{refstore.ErrConflict, e.Err} }

// applyLocal swaps each of ups on its own, those that settle a conflict
// with a message of their own, so the reflog (and `git handoff log`) tells
// them apart.
func applyLocal(ctx context.Context, st refstore.Records, msg string, ups []refstore.Update, conflictMsgs map[string]string) error {
	plain := ups
	if len(conflictMsgs) > 0 {
		plain = make([]refstore.Update, 0, len(ups))
		var first error
		for _, u := range ups {
			m, ok := conflictMsgs[u.Ref]
			if !ok {
				plain = append(plain, u)
				continue
			}
			if err := st.ApplyEach(ctx, m, u); err != nil && first == nil {
				first = err
			}
		}
		if len(plain) > 0 {
			if err := st.ApplyEach(ctx, msg, plain...); err != nil {
				return err
			}
		}
		return first
	}
	return st.ApplyEach(ctx, msg, plain...)
}

func sortResult(res *Result) {
	sort.Slice(res.Conflicts, func(i, j int) bool { return res.Conflicts[i].Ref < res.Conflicts[j].Ref })
}

// undoneDeletion says when the join replaces a cancel or dismissal made
// here (offline, or before the remote knew the baton) with another clone's
// claim of the same baton: the deletion was reported done, and the baton
// was delivered all the same.
func undoneDeletion(d *decision) string {
	if d.local == nil || d.kept() == nil || kindOf(d.ref).prefix != refstore.HandoffsPrefix {
		return ""
	}
	l, w := recOf[baton.Baton](d.local), recOf[baton.Baton](d.kept())
	if l.ID != w.ID || l.Deleted == nil || l.Claimed || !w.Claimed {
		return ""
	}
	return fmt.Sprintf("baton %s, %s here, was claimed by session %s on another clone first: the claim stands and the baton was delivered", l.ID, l.Deleted.Reason, w.ClaimedBySession)
}

// dropDangling deletes the refs of ours under refs/ao/ (records, tracking
// copies, holds, the archive; never refs/ao/preserved/, another tool's)
// that name objects this clone does not have, and says so: such a ref
// cannot be read or carried, and git fetch refuses to run while a ref names
// a missing object. A `git gc --prune=now` racing a writer, or a `git
// pack-refs` that hid a ref from gc for a moment, leaves them. The id
// stays in the notice (and the ref's reflog), in case the object turns up.
// It asks git for every such ref's object, so it runs only once a fetch
// failed.
func dropDangling(ctx context.Context, st refstore.Records) []string {
	all, err := st.RefIDs(ctx, refstore.Root)
	if err != nil {
		return nil
	}
	var ids []refstore.RefID
	for _, id := range all {
		if id.OID != "" && !strings.HasPrefix(id.Ref, refstore.Root+"preserved/") {
			ids = append(ids, id)
		}
	}
	var missing []refstore.RefID
	st.ReadEach(ctx, ids, func(e refstore.Entry) error {
		if e.Type == refstore.TypeMissing {
			missing = append(missing, refstore.RefID{Ref: e.Ref, OID: e.OID})
		}
		return nil
	})
	var out []string
	for _, id := range missing {
		if strings.HasPrefix(id.Ref, refstore.ArchivePrefix) {
			// A month of this clone's: Mend puts it back from its
			// earlier versions, which deleting it would take too.
			if as, ok := st.(archive.Store); ok {
				if notes, err := archive.Mend(ctx, as, refstore.ArchivePrefix); err == nil {
					out = append(out, notes...)
					continue
				}
			}
		}
		if err := st.Apply(ctx, "handoff: removed a ref naming a missing object", refstore.Update{Ref: id.Ref, Old: id.OID}); err != nil {
			continue
		}
		out = append(out, fmt.Sprintf("removed %s: it named object %s, which this clone does not have (a git gc pruned it while a record was written), so git fetch could not run", id.Ref, id.OID))
	}
	return out
}

// missingObject reports a git error that names a ref or object this
// repository lacks: what dropDangling heals.
func missingObject(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "bad object") || strings.Contains(m, "missing object") || strings.Contains(m, "did not send all necessary objects")
}

// conflictOf describes a key whose two versions a tie-break decided, and
// tells the losing side what it lost.
func conflictOf(d *decision) Conflict {
	k := kindOf(d.ref)
	local, remote := d.local, d.remote
	if local == nil {
		local = d.archived // the version this clone retired
	}
	if remote == nil {
		remote = d.archived // the version the remote retired
	}
	win, lose, from := local, remote, "local"
	if local == nil || oidOf(d.kept()) != local.oid {
		win, lose, from = remote, local, "remote"
	}
	other := "remote"
	if from == "remote" {
		other = "local"
	}
	return Conflict{
		Ref:      d.ref,
		Kept:     win.oid,
		Dropped:  lose.oid,
		KeptFrom: from,
		Summary:  fmt.Sprintf("%s: kept the %s %s over the %s %s", d.ref, from, k.describe(win), other, k.describe(lose)),
		Why:      whyKept(k, win, lose),
		Fields:   ConflictFields(lose.data, win.data),
		Diff:     Diff(lose.data, win.data),
	}
}

// leaseLost classifies a failed push by fetching again, as patiently as
// sync's own fetch (another fetch here may hold the tracking refs' locks
// for a moment): a lease was lost when some pushed ref no longer holds
// what the push expected. ferr is a fetch that failed too (the remote is
// unreachable).
func leaseLost(ctx context.Context, st refstore.Clone, remote string, specs []string, trackUps []refstore.Update) (lost bool, ferr error) {
	if _, err := fetchPatiently(ctx, st, remote, specs, 2); err != nil {
		return false, err
	}
	for _, u := range trackUps {
		cur, err := refstore.ResolveID(ctx, st, u.Ref)
		if err != nil && !errors.Is(err, refstore.ErrNotFound) {
			return false, err
		}
		if cur != u.Old {
			return true, nil
		}
	}
	return false, nil
}

// racedAtRemote reports a push refused only because others were pushing
// the same refs at that moment: a lease git found stale, an atomic push
// that failed with it, or the server failing to lock a ref another push
// held. Anything else the server refused (a hidden ref, a hook saying no)
// is its answer, not a race, and is reported as it is.
func racedAtRemote(err error) bool {
	var pe *refstore.PushError
	if !errors.As(err, &pe) || len(pe.Rejected) == 0 {
		return false
	}
	for _, ref := range pe.Rejected {
		if pe.NameConflict(ref) {
			return false
		}
		switch r := pe.Reasons[ref]; {
		case strings.Contains(r, "stale info"), strings.Contains(r, "atomic push failed"), strings.Contains(r, "fetch first"):
		case strings.Contains(r, "atomic transaction failed"), strings.Contains(r, "failed to update ref"), strings.Contains(r, "failed to lock"):
		default:
			return false
		}
	}
	return true
}

// backoff waits a little, more each attempt and never the same for two
// clones, so syncs that keep colliding stop colliding.
func backoff(attempt int) {
	n := 5 + mrand.IntN(20*attempt)
	Sleep(time.Duration(n) * time.Millisecond)
}

// Sleep is how backoff waits: time.Sleep, except in the deterministic
// simulation (package sim), whose clocks are fake and which must not wait.
var Sleep = time.Sleep

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// bulkPushMin is how many changed refs make a push by pattern worth it:
// one refspec per ref makes git push quadratic in the number of refs.
const bulkPushMin = 64

// progressMin is how much work makes a phase worth reporting.
const progressMin = 500

func progress(w io.Writer, n int, format string, a ...any) {
	if w != nil && n >= progressMin {
		fmt.Fprintf(w, format+"\n", a...)
	}
}
