// Package archive is the monthly archive of retired records. A year of use
// makes a hundred thousand session refs; the records that no longer change
// (ended sessions past their retention age, claimed or cancelled batons,
// PR records of merged PRs) leave their live refs and move here, where they
// cost one ref per month instead of one per record and stay answerable.
//
// Each month is one ref, refs/ao/archive/<YYYY-MM>, naming a git tree
// through the one commit that holds it (refstore.TreeCommit: no parent,
// the same on every clone; the archive has no history of its own, and two
// clones' months join by Union, not by merging commits). The commit is
// there so that git's own fetch does not read the whole archive each time
// (refstore.TreeCommitIdent says why); a month an older release wrote
// names its tree directly, is read the same, and takes the commit at its
// next write or sync (Seal). Inside the tree:
//
//	sessions/<session-id>
//	handoffs/<baton-id>
//	prs/<gh-owner>/<gh-repo>/<number>
//	keys/<baton ref>/<baton-id>
//	leases/<kind>/<value>
//
// each a blob that is the record's final version, the very blob its live
// ref held (nothing is rewritten, so signatures and "prev" chains still
// hold). Path components are encoded as the live refs' are
// (refstore.EncodeComponent). Batons are kept by their id, not their ref:
// the next baton of the same owner and branch reuses the ref, so keys/
// holds, for each baton ref, the versions retired there, one per baton
// (the ref's "floors"): a copy of the ref a floor descends from is stale,
// however long its holder was away (teamsync, settleArchived).
//
// A lease (package lease) is kept by its key: leases/ holds, for each key
// whose lease was released or broken and then retired, that final version,
// which is also the key's floor. A new take of the key builds on it (its
// rev above the floor's), and a copy of the key the floor is at or descends
// from is stale: a holding that ended, never brought back.
//
// Trees are built by git itself (read-tree, update-index --index-info,
// write-tree on an index file of our own, then commit-tree) and the month's ref moves by
// compare-and-swap through refstore.Store.Apply, so locks, reflogs,
// reftable and SHA-256 behave as git's. Which records retire, and when, is
// sync's business (teamsync); this package only keeps them.
package archive

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// The kind directories at the top of a month's tree.
const (
	SessionsDir = "sessions"
	HandoffsDir = "handoffs"
	PRsDir      = "prs"
	KeysDir     = "keys"
	LeasesDir   = "leases"
)

// Store is what the archive is kept in: the records (the months' refs,
// swapped as every record's are) and the trees of the months. *refstore.Store
// is one; a store without trees (package memstore) has no archive.
type Store interface {
	refstore.Records
	refstore.Trees
}

// Entry is one archived record: its path in the month's tree and the blob
// id of its final version.
type Entry = refstore.TreeEntry

// Found is an archived record and the month that holds it.
type Found struct {
	Entry
	Month string // "2026-01"
}

// Month is the archive month of t, in UTC: "2026-01".
func Month(t time.Time) string { return t.UTC().Format(monthLayout) }

const monthLayout = "2006-01"

// Ref is the ref of month's archive.
func Ref(month string) string { return refstore.ArchivePrefix + month }

// checkMonth refuses anything but a month as Month writes it.
func checkMonth(month string) error {
	if t, err := time.Parse(monthLayout, month); err != nil || Month(t) != month {
		return fmt.Errorf("%w: archive month %q is not YYYY-MM", refstore.ErrBadName, month)
	}
	return nil
}

// SessionPath is where session id is archived.
func SessionPath(id string) (string, error) { return path(SessionsDir, id) }

// BatonPath is where the baton of id is archived.
func BatonPath(id string) (string, error) { return path(HandoffsDir, id) }

// KeyDir holds the floors of the baton ref: the versions retired there.
func KeyDir(ref string) (string, error) { return path(KeysDir, ref) }

// KeyPath is where the floor of baton id at the baton ref is archived.
func KeyPath(ref, id string) (string, error) { return path(KeysDir, ref, id) }

// BatonEntries are the entries that archive blob oid, a version of baton
// id leaving baton ref other than by its ref's retirement (a tie-break
// dropped it for another baton, a later end replaced it, waiting or
// final): at the baton's own path, which makes every copy of it stale
// everywhere, and as a floor of ref, which keeps what it was written over
// or after seeing; what retirement writes for a baton too. The archive is
// what keeps it readable: its ref's reflog goes when the ref retires, and
// a prune then takes the blob. None when id cannot name a path.
func BatonEntries(ref, id, oid string) []Entry {
	var out []Entry
	if p, err := BatonPath(id); err == nil {
		out = append(out, Entry{Path: p, OID: oid})
	}
	if p, err := KeyPath(ref, id); err == nil {
		out = append(out, Entry{Path: p, OID: oid})
	}
	return out
}

// Dedupe keeps one entry per path, the last: a baton id retired under two
// refs (a copy a teammate misplaced), or noted twice, is one archived
// record.
func Dedupe(es []Entry) []Entry {
	at := map[string]int{}
	var out []Entry
	for _, e := range es {
		if i, ok := at[e.Path]; ok {
			out[i] = e
			continue
		}
		at[e.Path] = len(out)
		out = append(out, e)
	}
	return out
}

// LeasePath is where the final version of the lease of the key kind:value
// is archived (the key's floor): one path per key, the latest retirement's
// version winning a join of two (teamsync joins them by the lease's rules).
func LeasePath(kind, value string) (string, error) { return path(LeasesDir, kind, value) }

// PRPath is where the record of pull request number of ghOwner/ghRepo is
// archived.
func PRPath(ghOwner, ghRepo string, number int) (string, error) {
	if number <= 0 {
		return "", fmt.Errorf("%w: pull request number %d", refstore.ErrBadName, number)
	}
	return path(PRsDir, ghOwner, ghRepo, strconv.Itoa(number))
}

func path(dir string, parts ...string) (string, error) {
	var b strings.Builder
	b.WriteString(dir)
	for _, p := range parts {
		enc, err := refstore.EncodeComponent(p)
		if err != nil {
			return "", err
		}
		b.WriteByte('/')
		b.WriteString(enc)
	}
	return b.String(), nil
}

// CheckPath refuses a path that is not one SessionPath, BatonPath or
// PRPath makes: a known kind directory and the right number of canonically
// encoded components. Every path written or read is checked, so that no
// tree ever holds a path two names could reach, and no read asks cat-file
// for anything but a plain path.
func CheckPath(p string) error {
	parts := strings.Split(p, "/")
	want := 0
	switch parts[0] {
	case SessionsDir, HandoffsDir:
		want = 2
	case KeysDir, LeasesDir:
		want = 3
	case PRsDir:
		want = 4
	default:
		return fmt.Errorf("%w: archive path %q is not under %s/, %s/, %s/, %s/ or %s/", refstore.ErrBadName, p, SessionsDir, HandoffsDir, PRsDir, KeysDir, LeasesDir)
	}
	if len(parts) != want {
		return fmt.Errorf("%w: archive path %q has %d components, want %d", refstore.ErrBadName, p, len(parts), want)
	}
	for _, c := range parts[1:] {
		if _, err := refstore.DecodeComponent(c); err != nil {
			return fmt.Errorf("archive path %q: %w", p, err)
		}
	}
	if parts[0] == PRsDir {
		if n, err := strconv.Atoi(parts[3]); err != nil || n <= 0 || strconv.Itoa(n) != parts[3] {
			return fmt.Errorf("%w: archive path %q: %q is not a pull request number", refstore.ErrBadName, p, parts[3])
		}
	}
	return nil
}

// maxTries bounds Add's compare-and-swap retries: each lost swap means
// another writer archived into the same month meanwhile, which is rare.
const maxTries = 8

// Add puts entries into month's tree and moves the month's ref to the new
// tree by compare-and-swap, trying again (a bounded number of times) when
// another writer moved it meanwhile, so that neither's entries are lost.
// An entry whose path the month holds already replaces it: the caller
// archives a record's final version. It returns the month's tree as it now
// stands; a call that changes nothing writes nothing.
func Add(ctx context.Context, st Store, month string, entries []Entry, msg string) (string, error) {
	if err := checkMonth(month); err != nil {
		return "", err
	}
	if len(entries) == 0 {
		old, _, err := monthTree(ctx, st, month)
		return old, err
	}
	if err := checkEntries(ctx, st, entries); err != nil {
		return "", err
	}
	ref := Ref(month)
	var err error
	for range maxTries {
		old, _, rerr := monthTree(ctx, st, month)
		if rerr != nil {
			return "", rerr
		}
		tree, berr := st.BuildTree(ctx, old, entries)
		if berr != nil {
			return "", berr
		}
		if tree == old {
			return old, nil
		}
		err = st.Apply(ctx, msg, refstore.Update{Ref: ref, Old: old, New: tree})
		if err == nil {
			return tree, nil
		}
		if !errors.Is(err, refstore.ErrConflict) {
			return "", err
		}
	}
	return "", fmt.Errorf("archiving into %s: %d writers in a row moved it first: %w", ref, maxTries, err)
}

// checkEntries refuses a bad path, a path given twice, and an id that does
// not name a blob this repository has: a tree of ours holds only records.
func checkEntries(ctx context.Context, st refstore.Records, entries []Entry) error {
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if err := CheckPath(e.Path); err != nil {
			return err
		}
		if seen[e.Path] {
			return fmt.Errorf("%w: archive path %q given twice", refstore.ErrBadName, e.Path)
		}
		seen[e.Path] = true
		o, err := st.ReadObject(ctx, e.OID)
		if err != nil {
			return fmt.Errorf("archiving %s: %w", e.Path, err)
		}
		if o.Type != "blob" {
			return fmt.Errorf("%w: archiving %s: %s is a %s, not a record's blob", refstore.ErrInvalidRecord, e.Path, e.OID, o.Type)
		}
	}
	return nil
}

// monthTree is the tree month's ref names, "" when there is none yet.
func monthTree(ctx context.Context, st refstore.Records, month string) (string, string, error) {
	ref := Ref(month)
	e, err := st.Get(ctx, ref)
	if errors.Is(err, refstore.ErrNotFound) {
		return "", ref, nil
	}
	if err != nil {
		return "", ref, err
	}
	if e.Type != "commit" && e.Type != "tree" {
		return "", ref, fmt.Errorf("%w: %s points at a %s, not a tree or the commit of one", refstore.ErrInvalidRecord, ref, e.Type)
	}
	return e.OID, ref, nil
}

// sealed is id (a month) as its TreeCommit: id itself when it names a
// commit already (or nothing), else the commit of the tree an older
// release named directly, built now. Union's answers go through it, so
// the first join that touches a month of an older release moves it to
// the commit on both sides, the same on every clone.
func sealed(ctx context.Context, st Store, id string) (string, error) {
	if id == "" {
		return "", nil
	}
	o, err := st.ReadObject(ctx, id)
	if errors.Is(err, refstore.ErrNotFound) {
		// A month whose commit a prune took: for Mend to put right.
		return "", fmt.Errorf("%w: %s: %v", refstore.ErrMissingObject, id, err)
	}
	if err != nil {
		return "", err
	}
	if o.Type != "tree" {
		return id, nil
	}
	return st.BuildTree(ctx, id, nil)
}

// Seal moves every month of this clone that names a tree (an older
// release wrote it) to the commit of that tree, by compare-and-swap, and
// returns how many it moved. Sync runs it until it has nothing to do (a
// note says so): the next join pushes the sealed months as any change.
func Seal(ctx context.Context, st Store) (int, error) {
	months, err := Months(ctx, st)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range months {
		c, err := sealed(ctx, st, m.OID)
		if err != nil {
			return n, fmt.Errorf("sealing %s: %w", m.Ref, err)
		}
		if c == m.OID {
			continue
		}
		err = st.Apply(ctx, "handoff: archive month as a commit", refstore.Update{Ref: m.Ref, Old: m.OID, New: c})
		if err != nil && !errors.Is(err, refstore.ErrConflict) {
			return n, fmt.Errorf("sealing %s: %w", m.Ref, err)
		}
		if err == nil {
			n++
		}
	}
	return n, nil
}

// Union returns the tree holding every path of trees a and b, either of
// which may be "" (absent): what sync makes of two clones that archived
// into the same month. Where both hold a path with different blobs, pick
// chooses (it must return one of the two ids, and be deterministic and
// symmetric, so that every clone reaches the same tree; sync passes the
// record ordering). Trees and their commits are content-addressed, so
// equal ids need no work, and a union equal to a or b is that month itself
// (as its commit, when it named a tree: sealed).
func Union(ctx context.Context, st Store, a, b string, pick func(path, oidA, oidB string) string) (string, error) {
	switch {
	case a == b:
		return a, nil
	case b == "":
		return sealed(ctx, st, a)
	case a == "":
		return sealed(ctx, st, b)
	}
	ea, err := st.ListTree(ctx, a, "")
	if err != nil {
		return "", err
	}
	eb, err := st.ListTree(ctx, b, "")
	if err != nil {
		return "", err
	}
	have := make(map[string]string, len(ea))
	for _, e := range ea {
		have[e.Path] = e.OID
	}
	var put []Entry
	for _, e := range eb {
		if err := CheckPath(e.Path); err != nil {
			return "", fmt.Errorf("archive union: tree %s: %w", b, err)
		}
		cur, ok := have[e.Path]
		switch {
		case !ok:
			put = append(put, e)
		case cur != e.OID:
			won := pick(e.Path, cur, e.OID)
			if won != cur && won != e.OID {
				return "", fmt.Errorf("archive union: pick chose %q for %s, neither %s nor %s", won, e.Path, cur, e.OID)
			}
			if won == e.OID {
				put = append(put, e)
			}
		}
	}
	if len(put) == 0 {
		return sealed(ctx, st, a)
	}
	return st.BuildTree(ctx, a, put)
}

// Months lists the archive's months, newest first. Only this clone's own
// months: the copies fetched from a remote (refs/ao/remotes/<remote>/
// archive/<month>) are sync's to join into them.
func Months(ctx context.Context, st refstore.Records) ([]refstore.RefID, error) {
	return MonthsUnder(ctx, st, refstore.ArchivePrefix)
}

// MonthsUnder lists the months whose refs are under prefix, newest first:
// refstore.ArchivePrefix (Months), or where a remote's fetched copies are.
func MonthsUnder(ctx context.Context, st refstore.Records, prefix string) ([]refstore.RefID, error) {
	ids, err := st.RefIDs(ctx, prefix)
	if err != nil {
		return nil, err
	}
	out := ids[:0]
	for _, id := range ids {
		if checkMonth(strings.TrimPrefix(id.Ref, prefix)) == nil {
			out = append(out, id)
		}
	}
	slices.Reverse(out)
	return out, nil
}

// Find reads the archived record at path from the newest month that holds
// it: one cat-file read per month, through the store's long-lived
// cat-file. The entry's Ref is the revision it was read as
// ("refs/ao/archive/2026-01:sessions/s-1"). ErrNotFound when no month
// holds it.
func Find(ctx context.Context, st Store, path string) (refstore.Entry, string, error) {
	if err := CheckPath(path); err != nil {
		return refstore.Entry{}, "", err
	}
	months, err := Months(ctx, st)
	if err != nil {
		return refstore.Entry{}, "", err
	}
	for _, m := range months {
		e, err := st.ReadPath(ctx, m.Ref, path)
		if errors.Is(err, refstore.ErrNotFound) {
			continue
		}
		if err != nil {
			return e, "", err
		}
		if e.Type != "blob" {
			return e, "", fmt.Errorf("%w: %s is a %s, not a record", refstore.ErrInvalidRecord, e.Ref, e.Type)
		}
		return e, strings.TrimPrefix(m.Ref, refstore.ArchivePrefix), nil
	}
	return refstore.Entry{}, "", fmt.Errorf("archive: %s: %w", path, refstore.ErrNotFound)
}

// List returns every record archived under kindDir (SessionsDir,
// HandoffsDir, PRsDir or LeasesDir), each with its month: newest month first, in
// path order within a month, and a path archived in several months only
// once, from the newest. One git ls-tree per month.
func List(ctx context.Context, st Store, kindDir string) ([]Found, error) {
	return ListFrom(ctx, st, kindDir, "")
}

// ListFrom is List of the months from month from ("2026-01") on; "" for
// every month. Records are archived under the month they became final
// in, so a listing of what became final since a time reads only the
// months since.
func ListFrom(ctx context.Context, st Store, kindDir, from string) ([]Found, error) {
	kindDir = strings.TrimSuffix(kindDir, "/")
	if kindDir != SessionsDir && kindDir != HandoffsDir && kindDir != PRsDir && kindDir != LeasesDir {
		return nil, fmt.Errorf("%w: %q is not an archive kind", refstore.ErrBadName, kindDir)
	}
	months, err := Months(ctx, st)
	if err != nil {
		return nil, err
	}
	var out []Found
	seen := map[string]bool{}
	for _, m := range months {
		month := strings.TrimPrefix(m.Ref, refstore.ArchivePrefix)
		if month < from {
			break // newest first: the rest are older too
		}
		entries, err := st.ListTree(ctx, m.OID, kindDir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if seen[e.Path] {
				continue
			}
			seen[e.Path] = true
			out = append(out, Found{Entry: e, Month: month})
		}
	}
	return out, nil
}
