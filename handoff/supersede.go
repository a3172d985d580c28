package handoff

import (
	"context"
	"fmt"
	"sort"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// replaced is what the write of a new baton leaves behind at its ref,
// for the writing command: the batons it supersedes while they wait, the
// notices that tell their authors, and the archive months that keep what
// it replaces, for the write's own transaction (archiveReplaced).
type replaced struct {
	waiting []baton.Stored
	notices []string
	archive []refstore.Update
	// noted: a final baton it replaces was noted for archiving
	// (replacedFinal).
	noted bool
}

// replacing reads what up, the write of baton by, replaces (its old
// version, read once) and returns what it leaves behind: a waiting baton
// is superseded (supersededWaiting), and archived when supersede is set
// (an end's; a command that refuses to supersede, or never did, archives
// none); a final one is noted for the next sync to archive
// (replacedFinal).
func replacing(ctx context.Context, st refstore.Writer, up refstore.Update, by string, supersede bool) replaced {
	var old *baton.Baton
	if up.Old != "" {
		if e, err := st.ReadObject(ctx, up.Old); err == nil {
			if b, err := baton.DecodeVersion(e); err == nil && b.ID != by {
				old = &b
			}
		}
	}
	var r replaced
	r.waiting, r.notices = supersededWaiting(ctx, st, up, old, by)
	var unnoted *Retiring
	if old != nil && !old.Live() {
		unnoted = replacedFinal(ctx, st, up, *old)
		r.noted = unnoted == nil
	}
	archived := r.waiting
	if !supersede {
		archived = nil
	}
	var notice string
	if r.archive, notice = archiveReplaced(ctx, st, up.Ref, archived, unnoted); notice != "" {
		r.notices = append(r.notices, notice)
	}
	return r
}

// supersededWaiting returns the batons up replaced while they were still
// waiting (neither claimed nor cancelled), with a notice for each: a second
// `end` on the same owner and branch drops the first baton from the queue,
// and its author should hear of it. That is old, the version up replaces
// here, and the copy of a remote's, fetched and not merged, that up was
// written after seeing (supersededThere). Each is archived in the same
// transaction as up (archiveReplaced), where the notice sends its author.
// None when up creates the ref or replaces a baton already claimed or
// cancelled, or when the old record cannot be read (old is nil: then
// nothing is known to have been lost).
func supersededWaiting(ctx context.Context, st refstore.Writer, up refstore.Update, old *baton.Baton, by string) ([]baton.Stored, []string) {
	var out []baton.Stored
	var notices []string
	if old != nil && old.Live() {
		out = append(out, baton.Stored{Baton: *old, Ref: up.Ref, OID: up.Old})
		from := ""
		if old.SessionID != "" {
			from = " from session " + old.SessionID
		}
		notices = append(notices, fmt.Sprintf("baton %s%s was still waiting and is now superseded by %s; the archive keeps it (read it with `git cat-file -p %s`)",
			old.ID, from, by, up.Old))
	}
	there, note := supersededThere(ctx, st, up, by)
	if there != nil && (len(out) == 0 || out[0].ID != there.ID) {
		out, notices = append(out, *there), append(notices, note...)
	}
	return out, notices
}

// supersededThere is the baton waiting at a remote (its copy here, last
// fetched) that up replaces, when the merge has not brought it here: the new
// version descends from that copy (the version clock reads it), so the
// next sync drops it, and its author should hear of it now (found by the
// simulation: a start whose merge of the fetched baton failed, then an
// end, and the fetched baton went without a word).
func supersededThere(ctx context.Context, st refstore.Writer, up refstore.Update, by string) (*baton.Stored, []string) {
	remotes, err := st.Remotes(ctx)
	if err != nil {
		return nil, nil
	}
	for _, r := range remotes {
		tr, err := refstore.RemoteRef(r, up.Ref)
		if err != nil {
			continue
		}
		e, err := st.Get(ctx, tr)
		if err != nil {
			continue
		}
		b, err := baton.DecodeVersion(e)
		if err != nil || !b.Live() || b.ID == by || e.OID == up.Old {
			continue
		}
		return &baton.Stored{Baton: b, Ref: up.Ref, OID: e.OID}, []string{fmt.Sprintf("baton %s, waiting at %s, is superseded by %s: the next sync replaces it there, and the archive keeps it (read it with `git cat-file -p %s`)", b.ID, r, by, e.OID)}
	}
	return nil, nil
}

// archiveReplaced is the move of each archive month that keeps the
// batons an end replaced and must archive itself, for the end's own
// transaction, after its other writes: the batons it superseded while
// they waited (archive.BatonEntries, in the month each was created, as
// every clone computes it), and a final one whose note for the next sync
// could not be written (retiring.go). A transaction cut short by a kill
// then leaves at worst the baton unarchived, its ref's reflog keeping it
// as before, never a baton archived while it still waits. Without it the
// notice's promise lasted until the ref retired: retirement takes the
// ref's reflog, a prune then took the blob, and `git handoff log` no
// longer knew the baton had existed. None when st keeps no archive.
//
// An archive that cannot take them (a month damaged past mending) fails
// nothing: the end goes on without them, and notice says they stay in the
// ref's reflog until it retires, as before.
func archiveReplaced(ctx context.Context, st refstore.Writer, ref string, superseded []baton.Stored, final *Retiring) (ups []refstore.Update, notice string) {
	as, ok := st.(archive.Store)
	if !ok || len(superseded) == 0 && final == nil {
		return nil, ""
	}
	byMonth := map[string][]archive.Entry{}
	for _, b := range superseded {
		m := archive.Month(b.CreatedAt)
		byMonth[m] = append(byMonth[m], archive.BatonEntries(ref, b.ID, b.OID)...)
	}
	if final != nil {
		byMonth[final.Month] = append(byMonth[final.Month], final.Entries...)
	}
	months := make([]string, 0, len(byMonth))
	for m := range byMonth {
		months = append(months, m)
	}
	sort.Strings(months)
	for _, m := range months {
		up, moved, err := archive.Staged(ctx, as, m, byMonth[m])
		if err != nil {
			return nil, fmt.Sprintf("the baton this end replaced was not archived (%v): it stays in the reflog of %s until the ref retires", err, ref)
		}
		if moved {
			ups = append(ups, up)
		}
	}
	return ups, ""
}
