package teamsync

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// Retirement: a record whose story is over leaves the live refs, on
// every clone and on the remote, at the next sync that sees it final, and
// moves to the monthly archive (package archive), which costs refs per
// month, not per record, and stays answerable (session show, lineage, log,
// the status page). Live refs are live work: every ref under refs/ao/ is
// one more ref each plain `git fetch` of every clone checks, so what
// nobody can act on any more does not keep one. Final means:
//
//   - a session that ended, was replaced or terminated, unless a live
//     session still needs it: every session on the lineage of an active
//     one, and the owner of a pull request not merged yet;
//   - a baton claimed or cancelled; a dismissed one once the retention
//     age has passed since (until then `undismiss` can still act on it);
//   - a cleared objective (not archived: it says nothing);
//   - the ownership record of a merged pull request.
//
// Finality is a property of the record, not of anybody's clock: a record
// a clone whose clock runs hours ahead made final retires as soon as any
// clone sees it, and no clock decides whether it does (the dismissed
// baton's undo window excepted, which only delays).
//
// Retirement is a decision of sync's join: the key goes away on both sides
// by compare-and-swap (locally) and a push with a lease (remotely), in the
// same atomic push as the archive month that now holds it, so a record
// another clone changed meanwhile is decided again, never removed, and the
// remote never drops a record its archive lacks. A clone that still holds
// a record the remote retired retires its copy too (settleArchived).
//
// Judging every record costs a read of each: a sync judges them when
// anything differs between the two sides (then the live records are few:
// what is being worked on), and now and then for the undo window
// (RetireEvery, or `sync --retire`); a sync with nothing new reads no
// record.

// RetentionKey is the git config key holding the retention age: days
// ("30d"), a Go duration ("720h"), or "never" (or "0"). It no longer keeps
// final records live (they retire at once): it is how long a dismissed
// baton can still be undone, and how far back the listings of final
// records (`session ls --all`) reach into the archive. The older key
// MaxAgeKey is read when it is unset.
const RetentionKey = "handoff.retention"

// DefaultRetention is the retention age when none is set: a week of
// dismissals can be undone, and a week of ended sessions is listed.
const DefaultRetention = 7 * 24 * time.Hour

// Never is the retention "never": dismissed batons stay live, and the
// listings reach back to the first archive month.
const Never time.Duration = math.MaxInt64

// MaxAgeKey is the key of the tombstone age in versions before retention;
// read when RetentionKey is unset.
const MaxAgeKey = "handoff.tombstoneMaxAge"

// RetireEvery is how often sync judges every record for retention.
const RetireEvery = 24 * time.Hour

// Retention reads the retention age from git config (DefaultRetention when
// unset; Never for "never").
func Retention(ctx context.Context, st refstore.Config) (time.Duration, error) {
	cfg, err := st.Config(ctx, RetentionKey, MaxAgeKey)
	if err != nil {
		return 0, err
	}
	key := RetentionKey
	v, ok := cfg[strings.ToLower(RetentionKey)]
	if !ok {
		key = MaxAgeKey
		if v, ok = cfg[strings.ToLower(MaxAgeKey)]; !ok {
			return DefaultRetention, nil
		}
	}
	d, err := ParseAge(v)
	if err != nil {
		return 0, fmt.Errorf("git config %s: %w", key, err)
	}
	return d, nil
}

// ParseAge reads an age as git config handoff.retention holds it: "30d",
// "720h", "never" or "0" (both Never).
func ParseAge(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "never", "0":
		return Never, nil
	}
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 16)
		if err == nil && n > 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	} else if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("%q is not an age such as 30d, 720h or never", v)
}

// undoCutoff is when a dismissal must have happened to be past undoing,
// with the retention age retention (0: DefaultRetention; Never: never):
// the start of what the listings reach.
func undoCutoff(now time.Time, retention time.Duration) time.Time {
	if retention == Never {
		return time.Time{}
	}
	return ListedSince(now, retention)
}

// ListedSince is how far back a listing of final records (`session ls
// --all`, the status page's) reaches into the archive at now, with the
// retention age retention (0: DefaultRetention; Never: to the first
// month).
func ListedSince(now time.Time, retention time.Duration) time.Time {
	switch retention {
	case 0:
		retention = DefaultRetention
	case Never:
		return time.Unix(0, 0).UTC()
	}
	return now.Add(-retention)
}

// retiredPath names the local note retirement/<remote, encoded>: when
// this clone last judged every record with remote. (Releases that kept
// final records live for the retention age wrote retired/<remote>: a
// clone they left finds retirement due at its first sync, which retires
// what they kept.)
func retiredPath(remote string) (string, error) {
	enc, err := refstore.EncodeComponent(remote)
	if err != nil {
		return "", err
	}
	return "retirement/" + enc, nil
}

// RetireDue reports whether the last retention with remote here is older
// than RetireEvery (or never happened).
func RetireDue(st refstore.Writer, remote string, now time.Time) bool {
	p, err := retiredPath(remote)
	if err != nil {
		return false
	}
	return due(st.Local(), p, now, RetireEvery)
}

// due reports whether the time the note says (RFC 3339) is every or more
// before now, or after now (a clock set back), or unreadable.
func due(l refstore.NoteReader, note string, now time.Time, every time.Duration) bool {
	b, err := l.Read(note)
	if err != nil {
		return true
	}
	last, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
	return err != nil || now.Sub(last) >= every || now.Before(last)
}

// noteTime writes now into the note due reads.
func noteTime(ctx context.Context, l refstore.Local, note string, now time.Time) error {
	return l.Write(ctx, note, []byte(now.UTC().Format(time.RFC3339)+"\n"))
}

func noteRetired(st refstore.Writer, remote string, now time.Time) error {
	p, err := retiredPath(remote)
	if err != nil {
		return err
	}
	return noteTime(context.Background(), st.Local(), p, now)
}

// retirement is where a retiring record goes: its archive path ("" for a
// record not worth keeping) and the month it retired in.
type retirement struct {
	path  string
	month string
	oid   string // the blob retired
	what  string // the record retired, in words
	// floor is where the retired version also goes as its baton ref's
	// floor (archive.KeyPath); "" for other kinds.
	floor string
	// stale: a live copy of a record decided and retired at the remote,
	// retired here too (settleArchived), and said so.
	stale bool
}

// retireRecords marks the decisions whose winner is final as retired
// (collected, with the archive path it moves to), the sessions a live one
// still needs excepted, and dismissed batons only once dismissed before
// undo. ds must hold every key: the needs are read from them.
func retireRecords(ds []decision, undo time.Time) {
	needed := neededSessions(ds)
	for i := range ds {
		d := &ds[i]
		if d.winner == nil {
			continue
		}
		r, ok := kindOf(d.ref).retires(d.winner, undo, needed)
		if !ok {
			continue
		}
		r.oid, r.what = d.winner.oid, kindOf(d.ref).describe(d.winner)
		if kindOf(d.ref).prefix == refstore.HandoffsPrefix {
			// The ref's floor for this baton (archive.KeyPath).
			r.floor, _ = archive.KeyPath(d.ref, recOf[baton.Baton](d.winner).ID)
		}
		d.final, d.winner, d.collected, d.retired = d.winner, nil, true, &r
	}
}

// final says whether a record that became final at at retires now: always
// for a record that says when (a record that does not is kept, as one from
// a version before that field); for what can still be undone, only once
// undoable says it no longer can.
type final struct {
	undo time.Time // a dismissal before this can no longer be undone
}

// at: a record final at at retires.
func (f final) at(at time.Time) bool { return !at.IsZero() }

// undone: a record final at at that can be undone until the retention age
// has passed retires.
func (f final) undone(at time.Time) bool { return !at.IsZero() && at.Before(f.undo) }

// retiresBaton: a claimed or cancelled baton retires, to its month; a
// dismissed one once it can no longer be undone (handoff.Undismiss); a
// waiting one never does.
func retiresBaton(b baton.Baton, final final, _ map[string]bool) (retirement, bool) {
	var at time.Time
	switch {
	case b.Claimed && b.ClaimedAt != nil:
		at = *b.ClaimedAt
	case b.Deleted != nil:
		at = b.Deleted.At
		if b.Deleted.Reason == "dismissed" && !final.undone(at) {
			return retirement{}, false
		}
	default:
		return retirement{}, false // waiting: never retires
	}
	if !final.at(at) {
		return retirement{}, false
	}
	p, err := archive.BatonPath(b.ID)
	return retirement{path: p, month: archive.Month(at)}, err == nil
}

// retiresObjective: a cleared objective goes, archived nowhere.
func retiresObjective(o baton.Objective, final final, _ map[string]bool) (retirement, bool) {
	return retirement{}, o.Text == "" && final.at(o.SetAt)
}

// retiresSession: an ended session no live one needs.
func retiresSession(s session.Record, final final, needed map[string]bool) (retirement, bool) {
	if s.Live() || needed[s.ID] {
		return retirement{}, false
	}
	at := s.FinalAt()
	if !final.at(at) {
		return retirement{}, false
	}
	p, err := archive.SessionPath(s.ID)
	return retirement{path: p, month: archive.Month(at)}, err == nil
}

// retiresPR: the ownership of a merged pull request.
func retiresPR(r prown.Record, final final, _ map[string]bool) (retirement, bool) {
	if r.MergedAt == nil || !final.at(*r.MergedAt) {
		return retirement{}, false
	}
	p, err := prArchivePath(r)
	return retirement{path: p, month: archive.Month(*r.MergedAt)}, err == nil
}

// prArchivePath is where r is archived: in lower case, as its live ref is
// named (prown.Ref), so that one pull request is one path whatever case a
// clone's remote wrote (prown.Find reads either).
func prArchivePath(r prown.Record) (string, error) {
	owner, repo, ok := strings.Cut(r.Repo, "/")
	if !ok {
		return "", fmt.Errorf("%w: pull request repository %q", refstore.ErrInvalidRecord, r.Repo)
	}
	return archive.PRPath(strings.ToLower(owner), strings.ToLower(repo), r.Number)
}

// neededSessions are the sessions a live one still needs: each active
// session and every session on its lineage (what it superseded, and so
// on), each owner of a pull request not merged yet, and each session a
// waiting baton came from, with their lineages.
func neededSessions(ds []decision) map[string]bool {
	byID := map[string]session.Record{}
	var roots []string
	for _, d := range ds {
		if d.winner == nil {
			continue
		}
		switch kindOf(d.ref).prefix {
		case refstore.SessionPrefix:
			r := recOf[session.Record](d.winner)
			byID[r.ID] = r
			if r.Live() {
				roots = append(roots, r.ID)
			}
		case refstore.PRPrefix:
			if r := recOf[prown.Record](d.winner); r.MergedAt == nil && r.OwnerSession != "" {
				roots = append(roots, r.OwnerSession)
			}
		case refstore.HandoffsPrefix:
			// The session a waiting baton came from: its next session
			// reads its record and applies its snapshot (snapshots
			// retire with their session).
			if b := recOf[baton.Baton](d.winner); b.Live() {
				for _, id := range []string{b.SessionID, autoSession(b.Auto)} {
					if id != "" {
						roots = append(roots, id)
					}
				}
			}
		}
	}
	needed := map[string]bool{}
	for _, id := range roots {
		// A lineage is a chain; the guard stops a cycle a hand-edited
		// record could make.
		for id != "" && !needed[id] {
			needed[id] = true
			id = byID[id].Supersedes
		}
	}
	return needed
}

// snapshotRetired says, once retention has judged every record, whether
// the session a snapshot belongs to (its ref component) has left the live
// records: retired by this sync, or held by neither side at all. Its
// snapshot, uncommitted work of a session that ended long ago, retires with
// it and is not archived. A session whose record could not be read keeps
// its snapshot.
func snapshotRetired(ds []decision, ids refIDs) func(enc string) bool {
	retired := map[string]bool{}
	for i := range ds {
		if ds[i].retired != nil && strings.HasPrefix(ds[i].ref, refstore.SessionPrefix) {
			retired[ds[i].ref] = true
		}
	}
	return func(enc string) bool {
		ref := refstore.SessionPrefix + enc
		return retired[ref] || ids.local[ref] == "" && ids.remote[ref] == ""
	}
}

// autoSession is the session an automatic handoff speaks for ("" for none).
func autoSession(a *baton.Auto) string {
	if a == nil {
		return ""
	}
	return a.Session
}
