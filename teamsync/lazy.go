package teamsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// The lazy merge joins records that a fetch of ours brought into tracking
// refs without merging them (a claim's fetch of every baton from the
// arbiter, a sync killed half-way): the next git-handoff command joins
// them into the local refs. It must cost nothing when nothing was fetched,
// so it first compares the size and time of the note each fetch of ours
// rewrites (fetchedPath) with those it last merged at, kept in the git dir
// (not under refs/ao/, nothing to push); only when they differ does it
// list the tracking refs, and only when those differ from what was last
// merged does it read and merge the copies that differ from the local
// records.

// note is what the last merge saw, at <common dir>/handoff/merged.
type note struct {
	Stamp    string            `json:"stamp"`    // the fetched note's size and mtime (fetchStamp)
	Tracking map[string]string `json:"tracking"` // per remote: digest of its tracking refs
}

// mergedNote is the local note of what the last merge saw (refstore.Local).
const mergedNote = "merged"

func readNote(st refstore.Writer) note {
	var n note
	if b, err := st.Local().Read(mergedNote); err == nil {
		_ = json.Unmarshal(b, &n)
	}
	if n.Tracking == nil {
		n.Tracking = map[string]string{}
	}
	return n
}

func writeNote(st refstore.Writer, n note) error {
	b, _ := json.Marshal(n)
	return st.Local().Write(context.Background(), mergedNote, b)
}

// fetchedPath is <common dir>/handoff/fetched: rewritten by each fetch of
// ours (fetchPatiently), so that its size and time change whenever the
// tracking refs may have. A plain `git fetch` of the user's no longer
// fetches records, and costs the next command nothing.
const fetchedNote = "fetched"

// markFetched notes that a fetch of ours moved (or may have moved) the
// tracking refs.
func markFetched(st refstore.Writer) {
	_ = st.Local().Write(context.Background(), fetchedNote, []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n"))
}

// fetchStamp is the fetched note itself (the time of the last fetch of
// ours, to the nanosecond): what the lazy merge compares with the one it
// merged at.
func fetchStamp(st refstore.Writer) string {
	b, err := st.Local().Read(fetchedNote)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// digest fingerprints a set of tracking refs: each ref (prefix + Ref)
// and its id, in the refs' order, which sorts ids. The lines hashed,
// "<ref> <id>", sort as their refs do: no ref name holds a space or a
// byte below it.
func digest(prefix string, ids []refstore.RefID) string {
	slices.SortFunc(ids, func(a, b refstore.RefID) int { return strings.Compare(a.Ref, b.Ref) })
	h := sha256.New()
	var line []byte
	for _, id := range ids {
		line = append(append(append(append(append(line[:0], prefix...), id.Ref...), ' '), id.OID...), '\n')
		h.Write(line)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// noteSynced records that sync left remote's tracking refs holding the
// winners of ds and the settled keys, so the next command does not merge
// them again.
func noteSynced(st refstore.Writer, remote string, ds []decision, settled map[string]string) error {
	tp, err := TrackingPrefix(remote)
	if err != nil {
		return err
	}
	// The tracking refs, below tp.
	ids := make([]refstore.RefID, 0, len(ds)+len(settled))
	for ref, oid := range settled {
		ids = append(ids, refstore.RefID{Ref: strings.TrimPrefix(ref, refstore.Root), OID: oid})
	}
	for _, d := range ds {
		if d.winner != nil {
			ids = append(ids, refstore.RefID{Ref: strings.TrimPrefix(d.ref, refstore.Root), OID: d.winner.oid})
		}
	}
	n := readNote(st)
	if d := digest(tp, ids); n.Tracking[remote] != d {
		n.Tracking[remote] = d
		return writeNote(st, n)
	}
	return nil
}

// LazyResult is what a lazy merge did.
type LazyResult struct {
	Merged    []Change
	Conflicts []Conflict
	Warnings  []string
}

// Lazy joins records fetched by a plain `git fetch` into the local refs,
// if anything was fetched since the last merge. It never fetches or
// pushes, and never collects tombstones: that is sync's work. A local
// command writing at the same moment makes it give up quietly; the next
// command tries again.
func Lazy(ctx context.Context, st refstore.Clone) (LazyResult, error) {
	return lazy(ctx, st, false)
}

// lazy is Lazy; listed lists the tracking refs whatever the fetched note
// says: a fetch that moved them and died before its note was rewritten
// (markFetched) leaves the note as it was, and only the tracking refs'
// digests tell.
func lazy(ctx context.Context, st refstore.Clone, listed bool) (LazyResult, error) {
	var res LazyResult
	n := readNote(st)
	stamp := fetchStamp(st)
	if stamp == n.Stamp && !listed {
		return res, nil
	}
	byRemote, digests, stale, err := fetched(ctx, st, n)
	if err != nil {
		return res, err
	}
	if len(stale) == 0 && stamp == n.Stamp {
		return res, nil // listed, and nothing unmerged: the note stands
	}
	if len(stale) > 0 {
		seen, doubt := seenBy(ctx, st, stale)
		if err := lazyMerge(ctx, st, stale, byRemote, seen, doubt, &res); err != nil {
			if errors.Is(err, refstore.ErrConflict) {
				// Some keys moved; the next command joins the rest and
				// reports them.
				return LazyResult{Warnings: res.Warnings}, nil
			}
			return res, err
		}
	}
	n.Stamp, n.Tracking = stamp, digests
	return res, writeNote(st, n)
}

// Unmerged names the remotes whose fetched records the lazy merge has not
// joined yet, writing nothing: commands that only read call it instead of
// Lazy, so that `list` or `show` never changes a ref (and never races a
// writer for one). It costs what Lazy's check costs: a few file stats when
// nothing was fetched.
func Unmerged(ctx context.Context, st refstore.Writer) ([]string, error) {
	n := readNote(st)
	if fetchStamp(st) == n.Stamp {
		return nil, nil
	}
	_, _, stale, err := fetched(ctx, st, n)
	return stale, err
}

// fetched lists the tracking refs of every remote, reading no object, and
// compares each remote's digest with the note: stale lists, sorted, the
// remotes whose tracking refs changed since the last merge.
func fetched(ctx context.Context, st refstore.Records, n note) (byRemote map[string][]refstore.RefID, digests map[string]string, stale []string, err error) {
	byRemote = map[string][]refstore.RefID{}
	all, err := st.RefIDs(ctx, refstore.RemotesPrefix)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, id := range all {
		rest := strings.TrimPrefix(id.Ref, refstore.RemotesPrefix)
		enc, _, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		remote, err := refstore.DecodeComponent(enc)
		if err != nil || isCopyOfOther(refstore.RemotesPrefix+enc+"/", id.Ref) {
			continue // snapshots and archive months are not records to merge
		}
		byRemote[remote] = append(byRemote[remote], id)
	}
	digests = map[string]string{}
	for remote, ids := range byRemote {
		digests[remote] = digest("", slices.Clone(ids))
		if n.Tracking[remote] != digests[remote] {
			stale = append(stale, remote)
		}
	}
	sort.Strings(stale)
	return byRemote, digests, stale, nil
}

// seenBy is what each of remotes held at this clone's last sync with it
// (seenAt), and what pushes of ours with no answer may have left there
// (doubt.go).
func seenBy(ctx context.Context, st refstore.Clone, remotes []string) (seen, doubt map[string]map[string]string) {
	seen, doubt = map[string]map[string]string{}, map[string]map[string]string{}
	for _, remote := range remotes {
		if rc, err := checkRemote(ctx, st, remote); err == nil {
			seen[remote], doubt[remote] = readSeen(st, remote, rc.URL), readDoubt(st, remote, rc.URL)
		}
	}
	return seen, doubt
}

// lazyMerge joins the tracking copies of remotes into the local records,
// reading only the copies whose blob differs from the local ref's: what
// the fetch brought, not what exists. A copy of a record this clone no
// longer holds that the remote held already at the last sync (seen) is
// no news: the record left here since, retired by a sync whose push then
// failed, and the next sync settles it with the archive; adopted, the
// old copy came back over the retired version for good (found by the
// simulation, seed 1796557133988800600: a replaced session read active,
// replacedBy "", on every clone).
func lazyMerge(ctx context.Context, st refstore.Records, remotes []string, byRemote map[string][]refstore.RefID, seen, doubt map[string]map[string]string, res *LazyResult) error {
	localIDs := map[string]string{}
	for _, prefix := range refstore.Kinds {
		ids, err := st.RefIDs(ctx, prefix)
		if err != nil {
			return err
		}
		for _, id := range ids {
			localIDs[id.Ref] = id.OID
		}
	}
	// What each local ref holds, read only for the keys that differ.
	locals := map[string]*lazyLocal{}
	conflictMsgs := map[string]string{}
	dropped := map[string]decision{} // by ref: the joins that drop a local baton
	for _, remote := range remotes {
		tp, err := TrackingPrefix(remote)
		if err != nil {
			continue
		}
		var here *unpushedArchive // read when first needed
		var av *archiveView       // likewise
		for _, id := range byRemote[remote] {
			ref, ok := localRef(tp, id.Ref)
			if !ok {
				continue
			}
			c, met := locals[ref]
			if !met && localIDs[ref] == id.OID {
				continue // the same record on both sides
			}
			if !met && localIDs[ref] == "" && (seen[remote] != nil && seen[remote][ref] == id.OID || doubt[remote][ref] == id.OID) {
				continue // left here since the last sync (or a push of ours that may have landed): no news
			}
			k := kindOf(ref)
			e, err := st.ReadObject(ctx, id.OID)
			var r *version
			if err == nil {
				r, err = read(k, ref, e)
			}
			if err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("skipping %s: %v", id.Ref, err))
				continue
			}
			if !met && localIDs[ref] == "" {
				// Retired here, and the retirement not at the remote yet
				// (a sync that died before its push or its notes): the
				// next sync joins the copy with the archive
				// (retiredThere); adopted, it would be a live record both
				// sides hold alike, which no sync joins again.
				if here == nil {
					here = unpushedFor(ctx, st, tp)
				}
				if held, err := here.holds(ctx, k.archivePath(r)); err != nil || held {
					if err != nil {
						res.Warnings = append(res.Warnings, fmt.Sprintf("skipping %s: reading the archive: %v", id.Ref, err))
					}
					continue
				}
			}
			if !met {
				c = &lazyLocal{orig: localIDs[ref]}
				if c.orig != "" {
					le, err := st.ReadObject(ctx, c.orig)
					if err == nil {
						c.v, err = read(k, ref, le)
					}
					if err != nil {
						c.bad = true
						res.Warnings = append(res.Warnings, fmt.Sprintf("skipping %s: %v", ref, err))
					}
				}
				locals[ref] = c
			}
			if c.bad {
				continue
			}
			d := decide(k, ref, c.v, r, storeLookup(ctx, st))
			if k.prefix == refstore.HandoffsPrefix && d.winner != nil && d.local != nil && d.remote != nil {
				// A copy of a baton the archive holds is stale whatever
				// its cause says, as sync's join has it (settleArchived):
				// kept here by its rev over a baton written after the
				// retirement, it had a start pass over the baton waiting
				// for it (found by the soak on git 2.55, and by the
				// simulation's check of starts that receive nothing).
				// The lazy merge never retires: a winner stale on both
				// sides stays for the next sync.
				if av == nil {
					av = lazyArchive(ctx, st, tp)
				}
				if av != nil {
					if _, err := freshOver(ctx, av, &d); err != nil {
						res.Warnings = append(res.Warnings, fmt.Sprintf("%s: reading the archive: %v", ref, err))
					}
				}
			}
			if d.conflict {
				res.Conflicts = append(res.Conflicts, conflictOf(&d))
				if d.local != nil && d.local.oid == c.orig && d.winner != d.local {
					conflictMsgs[ref] = conflictMsg(&d, remote)
					dropped[ref] = d
				}
			} else if d.local != nil && d.local.oid == c.orig && d.winner != d.local && len(finalReplaced(&d)) > 0 {
				dropped[ref] = d // a final baton of this clone's, replaced
			}
			c.v = d.winner
		}
	}
	return applyMerged(ctx, st, locals, conflictMsgs, dropped, res)
}

// lazyLocal is what a local ref holds, as lazyMerge joins the fetched
// copies into it: orig, the blob it held, and v, the join so far.
type lazyLocal struct {
	orig string
	v    *version
	bad  bool // unreadable here: skipped
}

// applyMerged swaps each local ref whose join moved it, in ref order.
//
// A write whose join drops this clone's baton for another goes with the
// archive month that keeps the dropped baton, as sync's join keeps it
// (applyDropped).
func applyMerged(ctx context.Context, st refstore.Records, locals map[string]*lazyLocal, conflictMsgs map[string]string, dropped map[string]decision, res *LazyResult) error {
	var ups []refstore.Update
	var first error // the first lost swap of a write that drops a baton
	refs := make([]string, 0, len(locals))
	for ref := range locals {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	for _, ref := range refs {
		c := locals[ref]
		if c.bad || c.v == nil || c.v.oid == c.orig {
			continue
		}
		u := refstore.Update{Ref: ref, New: c.v.oid, Old: c.orig}
		res.Merged = append(res.Merged, Change{Ref: ref, Old: c.orig, New: c.v.oid, Reason: "merged", What: kindOf(ref).describe(c.v)})
		d, drops := dropped[ref]
		if !drops {
			ups = append(ups, u)
			continue
		}
		msg := conflictMsgs[ref]
		if msg == "" {
			msg = "handoff: merged fetched records"
		}
		notArchived, err := applyDropped(ctx, st, msg, u, &d)
		if err != nil && first == nil {
			first = err
		}
		if notArchived != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: the dropped baton was not archived here (%v); it stays in the reflog until its ref retires", ref, notArchived))
		}
	}
	if len(ups) > 0 {
		// Every key was joined on its own, so each swaps on its own.
		if err := applyLocal(ctx, st, "handoff: merged fetched records", ups, conflictMsgs); err != nil {
			return err
		}
	}
	return first
}

// MergeFetched is what every surface does on opening a store for one
// command or request: a command that writes first merges what a plain `git
// fetch` brought (Lazy); one that only reads never writes, and says what
// is not merged yet instead. It returns the notices for the user: the
// conflicts the merge settled, records it skipped, or what waits unmerged.
func MergeFetched(ctx context.Context, st refstore.Clone, writes bool) []string {
	if !writes {
		if remotes, err := Unmerged(ctx, st); err == nil && len(remotes) > 0 {
			return []string{fmt.Sprintf("records fetched from %s are not merged yet, so not shown: the next writing command or `git handoff sync` merges them", strings.Join(remotes, ", "))}
		}
		return nil
	}
	var notices []string
	// First the deletions this clone noted and may not have recorded
	// (handoff/unrecorded.go): start, claim and sync settle them too.
	if err := handoff.RecordDecided(ctx, st, Arbiter{}); err != nil {
		notices = append(notices, err.Error())
	}
	res, err := Lazy(ctx, st)
	if err != nil {
		return append(notices, "records fetched from the remote were not merged: "+err.Error())
	}
	for _, c := range res.Conflicts {
		notices = append(notices, c.Summary)
	}
	return append(notices, res.Warnings...)
}

// lazyArchive is the archive as this clone has it for the lazy merge of
// remote's copies (under its tracking prefix tp): its own months and its
// copies of the remote's, newest first; nil when st keeps no trees or
// holds no month.
func lazyArchive(ctx context.Context, st refstore.Records, tp string) *archiveView {
	as, ok := st.(archive.Store)
	if !ok {
		return nil
	}
	var trees []string
	for _, prefix := range []string{refstore.ArchivePrefix, archiveCopies(tp)} {
		months, err := archive.MonthsUnder(ctx, as, prefix)
		if err != nil {
			continue // an archive that cannot be listed decides nothing
		}
		for _, m := range months {
			if m.OID != "" && !slices.Contains(trees, m.OID) {
				trees = append(trees, m.OID)
			}
		}
	}
	if len(trees) == 0 {
		return nil
	}
	return &archiveView{st: as, trees: trees}
}
