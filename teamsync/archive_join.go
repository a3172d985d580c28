package teamsync

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// The archive's months travel with sync like records: each month's tree
// here and in the remote's copy are joined by their union (two clones that
// retired into the same month keep both's records), with what this sync
// retires put in, and the result goes to both sides by compare-and-swap
// and a push with a lease, in the same atomic push as the retirements.

// archiveMonth is one month's join: the trees here and at the remote ("" =
// none) and the tree both are to hold.
type archiveMonth struct {
	month, ref          string
	local, remote, tree string
	added               int // records this sync retired into it
}

// joinArchive joins every month whose two sides differ or that takes a
// record retired by ds, and fills in each retirement's blob.
func joinArchive(ctx context.Context, st refstore.Clone, ids refIDs, ds []decision) ([]archiveMonth, []Conflict, error) {
	put := map[string][]archive.Entry{}
	for i := range ds {
		// First what tie-breaks dropped: a retirement of the same baton
		// in this sync comes after it, and the last entry of a path wins.
		for _, r := range ds[i].dropped {
			put[r.month] = append(put[r.month], archive.Entry{Path: r.path, OID: r.oid})
		}
	}
	for i := range ds {
		d := &ds[i]
		if d.retired == nil || d.retired.path == "" {
			continue
		}
		put[d.retired.month] = append(put[d.retired.month], archive.Entry{Path: d.retired.path, OID: d.retired.oid})
		if d.retired.floor != "" {
			put[d.retired.month] = append(put[d.retired.month], archive.Entry{Path: d.retired.floor, OID: d.retired.oid})
		}
	}
	months := map[string]bool{}
	for m := range put {
		months[m] = true
	}
	for m, t := range ids.archLocal {
		if ids.archRemote[m] != t {
			months[m] = true
		}
	}
	for m, t := range ids.archRemote {
		if ids.archLocal[m] != t {
			months[m] = true
		}
	}
	var (
		out       []archiveMonth
		conflicts []Conflict
	)
	for m := range months {
		a := archiveMonth{month: m, ref: archive.Ref(m), local: ids.archLocal[m], remote: ids.archRemote[m]}
		tree, err := archive.Union(ctx, st, a.local, a.remote, laterArchived(ctx, st, &conflicts))
		if err != nil {
			return nil, nil, fmt.Errorf("joining the archive of %s: %w", m, err)
		}
		if entries := archive.Dedupe(put[m]); len(entries) > 0 {
			if tree, err = archive.Build(ctx, st, tree, entries); err != nil {
				return nil, nil, fmt.Errorf("archiving into %s: %w", m, err)
			}
			a.added = len(entries)
		}
		a.tree = tree
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].month < out[j].month })
	return out, conflicts, nil
}

// laterArchived chooses between two archived versions of one record, the
// same way on every clone. The archive holds final versions, so two differ
// when one clone retired a version the other had already replaced, or
// when two clones made one record final concurrently (two offline claims
// of one baton, a session ended on one clone while another wrote to it):
// the record's kind joins them by its own rules, as sync joins live
// records (the later wins; concurrent ones, by the kind's order). A
// concurrent pair where this clone's version (a) loses is a conflict,
// reported through conflicts. Where the blobs cannot be read as their
// kind, the later by their causal clocks wins, else by their write counts,
// else by blob id; a blob that cannot be read loses.
func laterArchived(ctx context.Context, st refstore.Records, conflicts *[]Conflict) func(path, a, b string) string {
	look := storeLookup(ctx, st)
	return func(path, a, b string) string {
		ea, erra := st.ReadObject(ctx, a)
		eb, errb := st.ReadObject(ctx, b)
		switch {
		case erra != nil && errb == nil:
			return b
		case errb != nil && erra == nil:
			return a
		}
		if k, ref, ok := archivedKind(path, ea); ok {
			ea.Ref, eb.Ref = ref, ref
			va, err1 := read(k, ref, ea)
			vb, err2 := read(k, ref, eb)
			if err1 == nil && err2 == nil {
				d := decide(k, ref, va, vb, look)
				if d.conflict && d.winner == vb && conflicts != nil && !strings.HasPrefix(path, archive.KeysDir+"/") {
					*conflicts = append(*conflicts, conflictOf(&d))
				}
				return d.winner.oid
			}
		}
		ca, cb := refstore.RevOf(ea.Data), refstore.RevOf(eb.Data)
		if d, ok := cb.Descends(ca); ok && d {
			return b
		}
		if d, ok := ca.Descends(cb); ok && d {
			return a
		}
		switch {
		case ca.Rev > cb.Rev:
			return a
		case cb.Rev > ca.Rev:
			return b
		case a > b:
			return a
		}
		return b
	}
}

// archivedKind is the kind of the record archived at path, and the live
// ref it left, e being one of its versions (a baton's and a pull
// request's ref is named by the record: a baton's owner and branch are
// not in its path, and a pull request's ref is in lower case).
func archivedKind(path string, e refstore.Entry) (*kind, string, bool) {
	dir, rest, _ := strings.Cut(path, "/")
	var ref string
	switch dir {
	case archive.SessionsDir:
		id, err := refstore.DecodeComponent(rest)
		if err != nil {
			return nil, "", false
		}
		if ref, err = refstore.SessionRef(id); err != nil {
			return nil, "", false
		}
	case archive.HandoffsDir, archive.KeysDir:
		b, err := baton.DecodeVersion(e)
		if err != nil {
			return nil, "", false
		}
		if ref, err = refstore.HandoffRef(b.Shared, b.Owner, b.Branch); err != nil {
			return nil, "", false
		}
	case archive.LeasesDir:
		// A lease is archived by its key, which its path names.
		kindPart, valuePart, ok := strings.Cut(rest, "/")
		if !ok {
			return nil, "", false
		}
		kk, err1 := refstore.DecodeComponent(kindPart)
		v, err2 := refstore.DecodeComponent(valuePart)
		if err1 != nil || err2 != nil {
			return nil, "", false
		}
		var err error
		if ref, err = (lease.Key{Kind: kk, Value: v}).Ref(); err != nil {
			return nil, "", false
		}
	case archive.PRsDir:
		var r prown.Record
		if err := refstore.Decode(e, prown.Schema, &r); err != nil {
			return nil, "", false
		}
		var err error
		if ref, err = prown.Ref(r.Repo, r.Number); err != nil {
			return nil, "", false
		}
	default:
		return nil, "", false
	}
	k := kindOf(ref)
	return k, ref, k != nil
}

// settleArchived settles what retirement left behind. A baton the archive
// holds became final somewhere (claimed, cancelled or dismissed) and was
// retired; a baton ref's floors (archive.KeyPath) are the versions
// retired there. A copy of a baton that is archived, or that the floor of
// its ref descends from, is stale whatever its cause says: it loses to a
// version at its key that is not stale, and a live one goes. A record the
// remote dropped whose very version the archive holds was retired there,
// and is retired here too.
//
// Retirement takes a key's history with it, so a baton written at the key
// afterwards has not seen the stale copy: by causes alone the two look
// concurrent, and a tie-break could bring a retired baton back to life and
// deliver it twice (found by the simulation: a clone away during a claim
// and the retirement pushed its waiting copy over a newer baton).
//
// It runs before this sync retires anything: the archive it reads is both
// sides' months as they stand.
func settleArchived(ctx context.Context, st refstore.Clone, ids refIDs, ds []decision, seen, doubt map[string]string) error {
	var trees []string
	for _, months := range []map[string]string{ids.archLocal, ids.archRemote} {
		for _, m := range slices.Backward(slices.Sorted(maps.Keys(months))) { // newest first
			if t := months[m]; t != "" && !slices.Contains(trees, t) {
				trees = append(trees, t)
			}
		}
	}
	if len(trees) == 0 {
		return nil
	}
	av := &archiveView{st: st, trees: trees}
	here := &unpushedArchive{st: st, local: ids.archLocal, remote: ids.archRemote}
	for i := range ds {
		d := &ds[i]
		if d.winner == nil {
			continue
		}
		done, err := retiredThere(ctx, av, here, d, seen, doubt)
		if err != nil || done {
			if err != nil {
				return err
			}
			continue
		}
		switch kindOf(d.ref).prefix {
		case refstore.HandoffsPrefix:
			if err := dropStale(ctx, av, d); err != nil {
				return fmt.Errorf("reading the archive for %s: %w", d.ref, err)
			}
		case refstore.LeasePrefix:
			if err := dropStaleLease(ctx, av, d); err != nil {
				return fmt.Errorf("reading the archive for %s: %w", d.ref, err)
			}
		}
	}
	return nil
}

// retiredThere retires the side of d that only one side holds, when the
// archive says it was retired, and reports whether it did.
//
// A local version the remote dropped was retired there when the archive
// holds this version or one after it (else a clone away during the
// retirement keeps it live for ever, withheld: an ended session shown
// active, a lineage that reads differently on each clone); or, for a
// baton ref the remote held at this very version, a floor this version
// does not descend from: only a retirement empties a ref, and the ref
// moved on past this version (a join there dropped it, then what won was
// retired).
//
// A remote version this clone lacks, which the remote held at the last
// sync already (seen: the record left here since; a teammate's new
// record, or any in a clone's first sync, costs no look into the
// archive), was retired here, by a sync whose push then failed, when the
// archive holds a version after it: its
// deletion is pushed again, instead of the old copy coming back as news
// (found by the simulation, seed 1796553356653802526: a replaced session
// retired here, its push lost, came back active from the remote and read
// replacedBy="" for ever). So is a remote version a push from here may
// have left there with no answer (doubt: doubt.go). So, too, is any
// remote version of a record this clone's archive holds and the remote's
// copy of that month does not (here: retired here, and the retirement
// not known to have landed), whatever the notes say: a sync that retired
// it here may have died before its seen note (found by the widened
// simulation, seed 20169: a replaced session joined with a teammate's
// concurrent active copy, retired here by a sync that died before
// pushing; the next sync took the active copy for news and it read
// replacedBy="" on every clone), and a teammate may have written the
// record again since. Joined with the archived version, the remote's
// fares as it would have had the retirement landed first (retiredRemotely
// at the teammate's next sync). Batons are dropStale's.
func retiredThere(ctx context.Context, av *archiveView, here *unpushedArchive, d *decision, seen, doubt map[string]string) (bool, error) {
	k := kindOf(d.ref)
	switch {
	case d.remote == nil && d.winner == d.local:
		return retiredRemotely(ctx, av, k, d, seen)
	case d.local == nil && d.winner == d.remote && k.prefix != refstore.HandoffsPrefix:
		if !(seen != nil && seen[d.ref] == d.remote.oid || doubt[d.ref] == d.remote.oid) {
			if ok, err := here.holds(ctx, k.archivePath(d.remote)); err != nil || !ok {
				return false, err
			}
		}
		gone, err := av.behind(ctx, k, d.remote)
		if err == nil && !gone {
			gone, err = av.outjoined(ctx, k, d, d.remote)
		}
		if err != nil || !gone {
			return false, err
		}
		// The join kept what the archive holds, retired already.
		d.winner, d.final, d.collected, d.retired = nil, d.archived, true, &retirement{what: k.describe(d.remote)}
		return true, nil
	}
	return false, nil
}

// retiredRemotely is retiredThere for a local version the remote dropped.
func retiredRemotely(ctx context.Context, av *archiveView, k *kind, d *decision, seen map[string]string) (bool, error) {
	gone, err := av.behind(ctx, k, d.local)
	if err == nil && !gone && k.prefix == refstore.HandoffsPrefix && seen != nil && seen[d.ref] == d.local.oid {
		gone, err = av.movedOn(ctx, d.ref, d.local)
	}
	if err == nil && !gone {
		gone, err = av.outjoined(ctx, k, d, d.local)
	}
	if err != nil || !gone {
		return false, err
	}
	// A baton that waited here is news to its holder: said.
	waited := k.prefix == refstore.HandoffsPrefix && recLive(d.local)
	d.winner, d.collected, d.retired = nil, true, &retirement{what: k.describe(d.local), stale: waited}
	return true, nil
}

// dropStale settles a baton ref whose winner is stale (archiveView.stale):
// the other side's version wins when it is not stale itself, else a
// waiting winner goes, retired here as it was there, and said so.
func dropStale(ctx context.Context, av *archiveView, d *decision) error {
	stale, err := freshOver(ctx, av, d)
	if err != nil || !stale {
		return err
	}
	if b := recOf[baton.Baton](d.winner); b.Live() {
		what := kindOf(d.ref).describe(d.winner)
		d.winner, d.conflict, d.collected, d.retired = nil, false, true, &retirement{what: what, stale: true}
	}
	return nil
}

// freshOver makes the other side of d win when d's winner is stale
// (archiveView.stale) and the other side's version is not, and reports
// whether the winner is stale still: both sides are.
func freshOver(ctx context.Context, av *archiveView, d *decision) (bool, error) {
	stale, err := av.stale(ctx, d.ref, d.winner)
	if err != nil || !stale {
		return false, err
	}
	other := d.lost()
	if other == nil || other.oid == d.winner.oid {
		return true, nil
	}
	gone, err := av.stale(ctx, d.ref, other)
	if err != nil || gone {
		return gone, err
	}
	// This clone's waiting baton, archived as it is (a join here
	// dropped it for a concurrent one and died before saying so: the
	// archive goes first), leaves for the other side's: said as the
	// conflict it was, or nobody hears of it (found by the widened
	// simulation, seed 299).
	dropped, err := droppedHere(ctx, av, d)
	if err != nil {
		return false, err
	}
	d.winner, d.conflict = other, dropped
	return false, nil
}

// droppedHere reports whether d's winner is this clone's waiting baton
// and the archive holds that very version at the baton's path: what a
// join's tie-break archives (archiveDropped), not a claim or deletion of
// it made elsewhere.
func droppedHere(ctx context.Context, av *archiveView, d *decision) (bool, error) {
	if d.winner != d.local || !recLive(d.winner) {
		return false, nil
	}
	p, err := archive.BatonPath(recOf[baton.Baton](d.winner).ID)
	if err != nil {
		return false, nil
	}
	at, err := av.at(ctx, p)
	return at == d.winner.oid, err
}

// dropStaleLease settles a lease key whose winner is at or below the
// key's floor (the archive holds that version, or a version written after
// seeing it, at the key's path): a holding that ended and retired. The
// other side's version wins when it is not stale itself (a take after the
// retirement, which builds on the floor); else the winner goes, on both
// sides, never pushed back nor adopted. Without it a clone away during
// the retirement, still holding a copy of a broken or expired holding,
// could win the join against the key's new lineage by its rev and bring
// the dead holding back over the board's decision.
func dropStaleLease(ctx context.Context, av *archiveView, d *decision) error {
	k := kindOf(d.ref)
	stale, err := av.behind(ctx, k, d.winner)
	if err != nil || !stale {
		return err
	}
	if other := d.lost(); other != nil && other.oid != d.winner.oid {
		gone, err := av.behind(ctx, k, other)
		if err != nil {
			return err
		}
		if !gone {
			d.winner, d.conflict = other, false
			return nil
		}
	}
	d.final, d.winner, d.conflict, d.collected, d.retired = d.winner, nil, false, true, &retirement{what: k.describe(d.winner)}
	return nil
}

// archiveDropped archives each baton a tie-break dropped for another baton
// at its key, as of now. The join reports it, and the version kept has
// not seen it (they were concurrent), so a copy of the dropped baton a
// clone still holds would look concurrent with every later version too,
// and could win a later tie-break and be delivered again (found by the
// simulation without faults, seed 5049: a claimed baton dropped for a
// waiting one, then a clone away claimed its own waiting copy of it).
// Archived, it is stale everywhere (archiveView.stale).
//
// The dropped version also becomes a floor of its ref (archive.KeyPath):
// what it was written over, or after seeing, is history only it carried.
// A claim that landed and then had a baton written over it that lost a
// tie-break is found there (Arbiter.HeldOnce reads the floors); without
// it, its claimer's next start took it for refused, and nobody received
// the baton (found by the simulation, seed 41). The kept version, not
// written after the dropped one, is not behind it.
//
// So is each final baton (claimed, cancelled, dismissed) a baton written
// after seeing it replaces at its key (finalReplaced), in the month of
// its final time, as its retirement would have filed it.
func archiveDropped(ds []decision, now time.Time) {
	leave := func(d *decision, month string, es []archive.Entry) {
		for _, e := range es {
			d.dropped = append(d.dropped, retirement{path: e.Path, month: month, oid: e.OID})
		}
	}
	for i := range ds {
		leave(&ds[i], archive.Month(now), droppedBaton(&ds[i]))
		for _, f := range finalReplaced(&ds[i]) {
			leave(&ds[i], f.month, f.entries)
		}
	}
}

// replacedVersion is a final baton a join replaces, as archive entries in
// the month they go to.
type replacedVersion struct {
	month   string
	entries []archive.Entry
}

// finalReplaced is each side of d, a baton key's join, that holds a final
// baton (claimed, cancelled or dismissed) of another id than the version
// d keeps (d.winner, or d.final when that retires), which was written
// after seeing it: the final baton leaves the live refs with no
// retirement to archive it, and its ref's reflog, all that kept it, goes
// when the ref retires (found by the simulation's check that a delivered
// baton stays answerable: a claim made here alone, an end elsewhere over
// the fetched copy of it, claimed and retired there; this clone's sync
// took the claim for an older version and dropped it). In the month of
// its final time, as its retirement would have filed it. A side a
// tie-break dropped is droppedBaton's.
func finalReplaced(d *decision) []replacedVersion {
	kept := d.winner
	if kept == nil {
		kept = d.final
	}
	if kept == nil || kept.rec == nil || d.conflict || kindOf(d.ref).prefix != refstore.HandoffsPrefix {
		return nil
	}
	keptID := recOf[baton.Baton](kept).ID
	var out []replacedVersion
	for _, v := range []*version{d.local, d.remote} {
		if v == nil || v.rec == nil || v.oid == kept.oid {
			continue
		}
		b := recOf[baton.Baton](v)
		if b.Live() || b.ID == keptID {
			continue
		}
		if es := archive.BatonEntries(d.ref, b.ID, v.oid); len(es) > 0 {
			out = append(out, replacedVersion{month: archive.Month(b.FinalAt()), entries: es})
		}
	}
	return out
}

// droppedBaton is what keeps the other baton a tie-break at d's key
// dropped: its own path and its floor at the ref (archive.BatonEntries).
// None when d dropped no other baton (no conflict, or two versions of one
// baton).
func droppedBaton(d *decision) []archive.Entry {
	if !d.conflict || d.winner == nil || kindOf(d.ref).prefix != refstore.HandoffsPrefix {
		return nil
	}
	loser := d.lost()
	if loser == nil || loser.rec == nil {
		return nil
	}
	id := recOf[baton.Baton](loser).ID
	if id == recOf[baton.Baton](d.winner).ID {
		return nil
	}
	return archive.BatonEntries(d.ref, id, loser.oid)
}

// archiveDroppedHere is archiveDropped for a command that joins by itself,
// here only, when no local write drops the baton (a tie the arbiter
// settled over a teammate's baton, ties.go): the baton a tie-break dropped
// goes to this clone's archive at once, and the next sync carries it to
// the remote's. Archived under the month it was written in: a command has
// no clock of the team's, and its month is what every clone computes
// alike. A failure is only a warning: the conflict itself is decided.
func archiveDroppedHere(ctx context.Context, st refstore.Records, d *decision) error {
	as, ok := st.(archive.Store)
	if !ok {
		return nil
	}
	month, entries := droppedEntries(d)
	if len(entries) == 0 {
		return nil
	}
	return archive.Put(ctx, as, month, "handoff: archived "+kindOf(d.ref).describe(d.lost())+", dropped by a tie-break", entries)
}

// droppedEntries is the month and the entries that keep the baton d's
// tie-break dropped for another (droppedBaton), in the month it was
// written in, or else the final baton d replaces by a later one
// (finalReplaced); none when d leaves no other baton behind.
func droppedEntries(d *decision) (string, []archive.Entry) {
	if es := droppedBaton(d); len(es) > 0 {
		return archive.Month(recOf[baton.Baton](d.lost()).CreatedAt), es
	}
	// This clone's final baton, replaced by a later one of another id
	// (the kept side is the other: the command adopts it).
	for _, f := range finalReplaced(d) {
		return f.month, f.entries
	}
	return "", nil
}

// applyDropped makes u, the local write of a command that joins by itself
// (a claim adopting the arbiter's version, the lazy merge of fetched
// copies), with message msg, and when d, its join, drops this clone's
// baton for another, the move of the archive month that keeps it, first,
// in the same transaction: the baton leaves its live ref only with the
// month that keeps it, as in sync. Written one after the other, a month
// write that failed (a month other commands moved meanwhile, one a prune
// damaged) left the dropped baton in a reflog its ref's retirement took
// (found by the soak). A month that cannot be staged leaves u to be made
// alone, and says why in notArchived. A lost swap of u itself is
// ErrConflict, as from Apply.
func applyDropped(ctx context.Context, st refstore.Records, msg string, u refstore.Update, d *decision) (notArchived error, err error) {
	as, ok := st.(archive.Store)
	month, entries := droppedEntries(d)
	if !ok || len(entries) == 0 {
		return nil, st.Apply(ctx, msg, u)
	}
	for range 4 {
		arch, moved, serr := archive.Staged(ctx, as, month, entries)
		if serr != nil {
			return serr, st.Apply(ctx, msg, u)
		}
		ups := []refstore.Update{u}
		if moved {
			ups = []refstore.Update{arch, u}
		}
		err := st.Apply(ctx, msg, ups...)
		if !errors.Is(err, refstore.ErrConflict) || !moved {
			return nil, err
		}
		// The month or the ref moved meanwhile: a ref that moved is the
		// caller's lost swap; a month, staged again.
		if cur, rerr := refstore.ResolveID(ctx, st, u.Ref); rerr != nil && !errors.Is(rerr, refstore.ErrNotFound) || cur != u.Old {
			return nil, err
		}
	}
	return errors.New("the archive month kept moving"), st.Apply(ctx, msg, u)
}

// archiveView reads archive trees, newest first.
type archiveView struct {
	st    archive.Store
	trees []string
	// floors are the trees' floors (archive.KeysDir), by tree and then
	// by the baton ref's directory: one git ls-tree per tree for a whole
	// sync, not one per tree and baton (a year's 13 months and 300
	// waiting batons made a teammate's first sync spawn 4,000 processes).
	floors map[string]map[string][]refstore.TreeEntry
}

// floorsIn lists the floors tree holds under dir, listing the tree's
// floors once.
func (a *archiveView) floorsIn(ctx context.Context, tree, dir string) ([]refstore.TreeEntry, error) {
	if a.floors == nil {
		a.floors = map[string]map[string][]refstore.TreeEntry{}
	}
	byDir, ok := a.floors[tree]
	if !ok {
		all, err := a.st.ListTree(ctx, tree, archive.KeysDir)
		if err != nil {
			return nil, err
		}
		byDir = map[string][]refstore.TreeEntry{}
		for _, e := range all {
			if i := strings.LastIndexByte(e.Path, '/'); i > 0 {
				byDir[e.Path[:i]] = append(byDir[e.Path[:i]], e)
			}
		}
		a.floors[tree] = byDir
	}
	return byDir[strings.TrimSuffix(dir, "/")], nil
}

// at is the blob the newest tree holding path has there, "" when none.
func (a *archiveView) at(ctx context.Context, path string) (string, error) {
	for _, t := range a.trees {
		e, err := a.st.ReadPath(ctx, t, path)
		if err == nil {
			return e.OID, nil
		}
		if !errors.Is(err, refstore.ErrNotFound) {
			return "", err
		}
	}
	return "", nil
}

// movedOn reports whether the archive holds a floor of the baton ref that
// v does not descend from: the ref went on past v, then retired.
func (a *archiveView) movedOn(ctx context.Context, ref string, v *version) (bool, error) {
	c := kindOf(ref).cause(v.rec)
	return a.anyFloor(ctx, ref, func(e refstore.Entry) bool {
		d, ok := c.Descends(refstore.RevOf(e.Data))
		return e.OID == v.oid || !ok || !d
	})
}

// anyFloor reports whether a tree holds a floor of the baton ref (a
// version retired there, one per baton: archive.KeyDir) match accepts.
func (a *archiveView) anyFloor(ctx context.Context, ref string, match func(refstore.Entry) bool) (bool, error) {
	dir, err := archive.KeyDir(ref)
	if err != nil {
		return false, nil
	}
	for _, t := range a.trees {
		floors, err := a.floorsIn(ctx, t, dir)
		if err != nil {
			return false, err
		}
		for _, f := range floors {
			e, err := a.st.ReadObject(ctx, f.OID)
			if err != nil {
				continue // gone from this clone: it says nothing
			}
			if match(e) {
				return true, nil
			}
		}
	}
	return false, nil
}

// anyAt reports whether a tree holds path at an entry match accepts.
// Every tree counts, not only the newest month's: months are named by
// when records became final, by clocks that may be skewed, so the newest
// month need not hold the latest version.
func (a *archiveView) anyAt(ctx context.Context, path string, match func(refstore.Entry) bool) (bool, error) {
	for _, t := range a.trees {
		e, err := a.st.ReadPath(ctx, t, path)
		if errors.Is(err, refstore.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		if match(e) {
			return true, nil
		}
	}
	return false, nil
}

// atOrAfter is anyAt's match for an entry that is v or descends from it.
func atOrAfter(k *kind, v *version) func(refstore.Entry) bool {
	c := k.cause(v.rec)
	return func(e refstore.Entry) bool {
		d, ok := refstore.RevOf(e.Data).Descends(c)
		return e.OID == v.oid || ok && d
	}
}

// recLive reports whether v, a baton version, waits.
func recLive(v *version) bool {
	b := recOf[baton.Baton](v)
	return b.Live()
}

// behind reports whether the archive holds v's record at v or at a version
// that descends from it.
func (a *archiveView) behind(ctx context.Context, k *kind, v *version) (bool, error) {
	p := k.archivePath(v)
	if p == "" {
		return false, nil
	}
	return a.anyAt(ctx, p, atOrAfter(k, v))
}

// outjoined joins v, the one side of d that holds the key, with each
// version the archive holds of the same record, by the kind's own rules,
// as if the other side still held it, and reports whether an archived one
// wins: then v retires too. So a record reads the same on every clone
// however soon it retired: an ended or replaced session retired there
// while this clone changed its copy concurrently (a summary written, a
// turn noted), or a baton two clones claimed offline, one claim already
// retired when the other arrives. Where the two were concurrent,
// d.conflict is set and d.archived is the other side, for the conflict
// report, whichever won: a version that wins (the earlier of two offline
// claims, a session revived after it retired) stays, and retires over the
// archived one when it is final.
func (a *archiveView) outjoined(ctx context.Context, k *kind, d *decision, v *version) (bool, error) {
	p := k.archivePath(v)
	if p == "" {
		return false, nil
	}
	look := storeLookup(ctx, a.st)
	return a.anyAt(ctx, p, func(e refstore.Entry) bool {
		if e.OID == v.oid {
			return false // behind already said
		}
		e.Ref = d.ref
		arch, err := read(k, d.ref, e)
		if err != nil {
			return false // a version this clone cannot read decides nothing
		}
		j := decide(k, d.ref, v, arch, look)
		if j.conflict {
			d.conflict, d.archived = true, arch
		}
		if j.winner == arch {
			d.archived = arch
			return true
		}
		return false
	})
}

// stale reports whether v, a version of the baton ref, is behind what
// the archive holds: its baton archived, or the ref's floor descending
// from it.
func (a *archiveView) stale(ctx context.Context, ref string, v *version) (bool, error) {
	if p, err := archive.BatonPath(recOf[baton.Baton](v).ID); err == nil {
		if at, err := a.at(ctx, p); err != nil || at != "" {
			return at != "", err
		}
	}
	return a.anyFloor(ctx, ref, atOrAfter(kindOf(ref), v))
}

// unpushedArchive is what this clone's archive holds that the remote's,
// as last fetched, does not: the paths of each month here that the
// remote's copy of that month lacks, or holds another version at. A
// record whose retirement here has not reached the remote is among them
// from the moment its month is written here (the archive goes before the
// live ref) until a push lands the month there; a month the two sides
// hold alike, which is every month after a sync that pushed, costs
// nothing. Read once, when first asked.
type unpushedArchive struct {
	st            refstore.Trees
	local, remote map[string]string // month → tree, here and at the remote
	paths         map[string]bool   // nil until read
	err           error             // the months could not be listed
}

// unpushedFor is unpushedArchive for the lazy merge, from this clone's
// months and the copies of the remote's under tp: nil (nothing) when st
// keeps no trees.
func unpushedFor(ctx context.Context, st refstore.Records, tp string) *unpushedArchive {
	ts, ok := st.(refstore.Trees)
	if !ok {
		return nil
	}
	u := &unpushedArchive{st: ts, local: map[string]string{}, remote: map[string]string{}}
	for prefix, months := range map[string]map[string]string{refstore.ArchivePrefix: u.local, archiveCopies(tp): u.remote} {
		ids, err := st.RefIDs(ctx, prefix)
		if err != nil {
			u.err = err
			return u
		}
		for _, id := range ids {
			months[strings.TrimPrefix(id.Ref, prefix)] = id.OID
		}
	}
	return u
}

// holds reports whether path is among them ("" never is).
func (u *unpushedArchive) holds(ctx context.Context, path string) (bool, error) {
	if u == nil || path == "" {
		return false, nil
	}
	if u.err != nil {
		return false, u.err
	}
	if u.paths == nil {
		paths := map[string]bool{}
		for m, t := range u.local {
			r := u.remote[m]
			if r == t {
				continue
			}
			here, err := u.st.ListTree(ctx, t, "")
			if err != nil {
				return false, err
			}
			there := map[string]string{}
			if r != "" {
				es, err := u.st.ListTree(ctx, r, "")
				if err != nil {
					return false, err
				}
				for _, e := range es {
					there[e.Path] = e.OID
				}
			}
			for _, e := range here {
				if there[e.Path] != e.OID {
					paths[e.Path] = true
				}
			}
		}
		u.paths = paths
	}
	return u.paths[path], nil
}
