package teamsync

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// Retention: records whose story is over leave the live refs, on every
// clone and on the remote, and move to the monthly archive (package
// archive), which costs refs per month, not per record, and stays
// answerable (session show, lineage, log, the status page). A record
// retires once it has been final for longer than the retention age:
//
//   - a session that ended, was replaced or terminated, unless a live
//     session still needs it: every session on the lineage of an active
//     one, and the owner of a pull request not merged yet;
//   - a baton claimed, cancelled or dismissed;
//   - a cleared objective (not archived: it says nothing);
//   - the ownership record of a merged pull request.
//
// Retirement is a decision of sync's join: the key goes away on both sides
// by compare-and-swap (locally) and a push with a lease (remotely), in the
// same atomic push as the archive month that now holds it, so a record
// another clone changed meanwhile is decided again, never removed, and the
// remote never drops a record its archive lacks. A clone that still holds
// a record the remote retired withholds it (seen.go) until its own
// retention removes it.
//
// Judging every record costs a read of each, so a sync retires only now
// and then (RetireEvery, or `sync --retire`); a sync with nothing new
// reads no record.

// RetentionKey is the git config key holding the retention age: days
// ("30d"), a Go duration ("720h"), or "never" (or "0") to keep every record
// live. The older key MaxAgeKey is read when it is unset.
const RetentionKey = "handoff.retention"

// DefaultRetention is how long a record stays live once final: a week of
// work stays in `session ls --all` and the like, and a clone that was
// away that long still joins without withholding. Retired records stay
// answerable (the archive), while every live record is a ref that each
// plain `git fetch` of every clone checks: measured over a year of a
// team's records (bench/year.sh), a week keeps about 5,000 refs live and a
// teammate's first sync at 7 s, where 30 days keeps 17,500 and takes 14 s.
const DefaultRetention = 7 * 24 * time.Hour

// MaxAgeKey is the key of the tombstone age in versions before retention;
// read when RetentionKey is unset.
const MaxAgeKey = "handoff.tombstoneMaxAge"

// RetireEvery is how often sync judges every record for retention.
const RetireEvery = 24 * time.Hour

// Retention reads the retention age from git config (DefaultRetention when
// unset; 0 = never retire).
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
// "720h", "never" or "0" (0: never).
func ParseAge(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "never", "0":
		return 0, nil
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

// retiredPath names the local note retired/<remote, encoded>: when this
// clone last retired with remote.
func retiredPath(remote string) (string, error) {
	enc, err := refstore.EncodeComponent(remote)
	if err != nil {
		return "", err
	}
	return "retired/" + enc, nil
}

// RetireDue reports whether the last retention with remote here is older
// than RetireEvery (or never happened).
func RetireDue(st refstore.Writer, remote string, now time.Time) bool {
	p, err := retiredPath(remote)
	if err != nil {
		return false
	}
	b, err := st.Local().Read(p)
	if err != nil {
		return true
	}
	last, err := time.Parse(time.RFC3339, strings.TrimSpace(string(b)))
	return err != nil || now.Sub(last) >= RetireEvery || now.Before(last)
}

func noteRetired(st refstore.Writer, remote string, now time.Time) error {
	p, err := retiredPath(remote)
	if err != nil {
		return err
	}
	return st.Local().Write(context.Background(), p, []byte(now.UTC().Format(time.RFC3339)+"\n"))
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

// retireRecords marks the decisions whose winner is final since before
// cutoff as retired (collected, with the archive path it moves to), the
// sessions a live one still needs excepted. ds must hold every key: the
// needs are read from them.
func retireRecords(ds []decision, cutoff time.Time) {
	needed := neededSessions(ds)
	for i := range ds {
		d := &ds[i]
		if d.winner == nil {
			continue
		}
		r, ok := kindOf(d.ref).retires(d.winner, cutoff, needed)
		if !ok {
			continue
		}
		r.oid, r.what = d.winner.oid, kindOf(d.ref).describe(d.winner)
		if kindOf(d.ref).prefix == refstore.HandoffsPrefix {
			// The ref's floor for this baton (archive.KeyPath).
			r.floor, _ = archive.KeyPath(d.ref, recOf[baton.Baton](d.winner).ID)
		}
		d.winner, d.collected, d.retired = nil, true, &r
	}
}

// final says whether a record that became final at at is final since
// before the retention's cutoff.
type final func(at time.Time) bool

// retiresBaton: a claimed or removed baton retires, to its month; a
// waiting one never does.
func retiresBaton(b baton.Baton, final final, _ map[string]bool) (retirement, bool) {
	var at time.Time
	switch {
	case b.Claimed && b.ClaimedAt != nil:
		at = *b.ClaimedAt
	case b.Deleted != nil:
		at = b.Deleted.At
	default:
		return retirement{}, false // waiting: never retires
	}
	if !final(at) {
		return retirement{}, false
	}
	p, err := archive.BatonPath(b.ID)
	return retirement{path: p, month: archive.Month(at)}, err == nil
}

// retiresObjective: a cleared objective goes, archived nowhere.
func retiresObjective(o baton.Objective, final final, _ map[string]bool) (retirement, bool) {
	return retirement{}, o.Text == "" && final(o.SetAt)
}

// retiresSession: an ended session no live one needs.
func retiresSession(s session.Record, final final, needed map[string]bool) (retirement, bool) {
	if s.Live() || needed[s.ID] {
		return retirement{}, false
	}
	at := s.UpdatedAt
	if s.EndedAt != nil {
		at = *s.EndedAt
	}
	if !final(at) {
		return retirement{}, false
	}
	p, err := archive.SessionPath(s.ID)
	return retirement{path: p, month: archive.Month(at)}, err == nil
}

// retiresPR: the ownership of a merged pull request.
func retiresPR(r prown.Record, final final, _ map[string]bool) (retirement, bool) {
	if r.MergedAt == nil || !final(*r.MergedAt) {
		return retirement{}, false
	}
	owner, repo, ok := strings.Cut(r.Repo, "/")
	if !ok {
		return retirement{}, false
	}
	p, err := archive.PRPath(owner, repo, r.Number)
	return retirement{path: p, month: archive.Month(*r.MergedAt)}, err == nil
}

// neededSessions are the sessions a live one still needs: each active
// session and every session on its lineage (what it superseded, and so
// on), and each owner of a pull request not merged yet.
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
