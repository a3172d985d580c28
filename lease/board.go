package lease

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/git-handoff/git-handoff/refstore"
)

// A Board is where leases are decided: the arbiter remote, or this clone
// (LocalBoard) without one or with --offline. It is read whole and
// written by one swap of several refs, all or none.
type Board interface {
	// Where names the board for messages ("remote origin", "this clone").
	Where() string
	// Local reports whether the board is this clone's own refs.
	Local() bool
	// Snapshot reads what the board holds now (a remote: fetched now).
	Snapshot(ctx context.Context) (Snapshot, error)
	// Swap moves every update's ref from Old to New at the board, all or
	// none, and then this clone's refs to what the board took. A lost
	// swap is an error wrapping refstore.ErrConflict.
	Swap(ctx context.Context, msg string, ups []refstore.Update) error
}

// Snapshot is what a board holds.
type Snapshot struct {
	// Leases are the lease records by ref (under Prefix).
	Leases map[string]Stored
	// Guard is the blob id at GuardRef ("" for none), Paths what it lists:
	// each held path lease's key and blob id.
	Guard string
	Paths map[string]string
	// Skipped are lease refs that could not be read.
	Skipped []refstore.Skipped
	// Archive are the trees of the board's archive months, newest first:
	// a released or broken lease retires there (package archive, its
	// key's floor), and a take of a key the board holds no ref of builds
	// on the key's floor (Floor).
	Archive []string
}

// Why a guard: each key's lease is its own ref, and a swap of one ref
// says nothing about the others, so two clones taking "src/**" and
// "src/a.go" would both land. Every write of a path lease therefore also
// swaps the guard, one blob naming every held path lease's version: two
// writes of path leases never both land from one guard, and each decides
// overlap from the guard it swaps from. The guard is read as one ref, so a
// reader never sees half of another's transaction (git moves the refs of
// one transaction one after the other); the leases it names are read by
// blob id. Path leases a sync brought to the board without the guard (taken
// offline) are found by listing and counted too.

// guard is the guard blob.
type guard struct {
	Schema string            `json:"schema"`
	Paths  map[string]string `json:"paths"`
}

const guardSchema = "leaseguard/v1"

// RecordSchema is the guard's schema (refstore.Versioned).
func (g guard) RecordSchema() string { return g.Schema }

func readGuard(e refstore.Entry) (map[string]string, error) {
	var g guard
	if err := refstore.Decode(e, guardSchema, &g); err != nil {
		return nil, err
	}
	for k, oid := range g.Paths {
		pk, err := ParseKey(k)
		if err != nil || pk.Kind != KindPath || pk.String() != k || oid == "" {
			return nil, fmt.Errorf("%w: %s lists %q", refstore.ErrInvalidRecord, e.Ref, k)
		}
	}
	if g.Paths == nil {
		g.Paths = map[string]string{}
	}
	return g.Paths, nil
}

// writeGuard stores paths as a guard blob.
func writeGuard(ctx context.Context, w refstore.Writer, paths map[string]string) (string, error) {
	data, err := refstore.Encode(guard{Schema: guardSchema, Paths: paths})
	if err != nil {
		return "", err
	}
	return w.WriteBlob(ctx, data)
}

// ReadBoard reads the leases under prefix, the guard at guardRef and the
// archive months under archPrefixes from st: this clone's own (Prefix,
// GuardRef, refstore.ArchivePrefix) or a remote's fetched copies.
// The archive is listed only when the guard names a version the listing
// does not hold (a reading that answers from this clone's refs on every
// agent turn costs no more); a board's Snapshot lists it always (Boards).
func ReadBoard(ctx context.Context, st refstore.Records, prefix, guardRef string, archPrefixes ...string) (Snapshot, error) {
	return readBoard(ctx, st, prefix, guardRef, archPrefixes, false)
}

// ReadBoardWithArchive is ReadBoard that always lists the archive: what a
// Board's Snapshot answers, for a take to find a retired key's floor.
func ReadBoardWithArchive(ctx context.Context, st refstore.Records, prefix, guardRef string, archPrefixes ...string) (Snapshot, error) {
	return readBoard(ctx, st, prefix, guardRef, archPrefixes, true)
}

func readBoard(ctx context.Context, st refstore.Records, prefix, guardRef string, archPrefixes []string, eager bool) (Snapshot, error) {
	list, skipped, err := List(ctx, st, prefix)
	if err != nil {
		return Snapshot{}, fmt.Errorf("listing leases: %w", err)
	}
	s := Snapshot{Leases: map[string]Stored{}, Paths: map[string]string{}, Skipped: skipped}
	listed := false
	listArchive := func() error {
		if listed {
			return nil
		}
		listed = true
		for _, p := range archPrefixes {
			trees, err := archiveTrees(ctx, st, p)
			if err != nil {
				return err
			}
			for _, t := range trees {
				if !slices.Contains(s.Archive, t) {
					s.Archive = append(s.Archive, t)
				}
			}
		}
		return nil
	}
	if eager {
		if err := listArchive(); err != nil {
			return Snapshot{}, err
		}
	}
	for _, l := range list {
		s.Leases[l.Ref] = l
	}
	e, err := st.Get(ctx, guardRef)
	switch {
	case err == nil:
		s.Guard = e.OID
		if s.Paths, err = readGuard(e); err != nil {
			return Snapshot{}, err
		}
	case !errors.Is(err, refstore.ErrNotFound):
		return Snapshot{}, err
	}
	// A path lease the guard names whose ref the listing lacks (a fetch
	// left it out, its object lost at the remote; or a torn read) is
	// taken as the guard has it: a swap from that version fails unless
	// the board still holds it, so nothing is decided on a guess.
	for k, oid := range s.Paths {
		pk, _ := ParseKey(k)
		ref, err := pk.Ref()
		if err != nil {
			continue
		}
		cur, has := s.Leases[ref]
		if has && cur.OID == oid {
			continue
		}
		// A version the key's floor is at or after was retired: the
		// guard was not swapped when it ended (a release decided
		// elsewhere, brought by a sync). It holds nothing, and the next
		// guard written leaves it out.
		if err := listArchive(); err != nil {
			return Snapshot{}, err
		}
		if retired, err := atOrBelowFloor(ctx, st, s.Archive, ref, oid); err != nil {
			return Snapshot{}, err
		} else if retired {
			delete(s.Paths, k)
			continue
		}
		if has {
			continue
		}
		if e, err := st.ReadObject(ctx, oid); err == nil {
			e.Ref = ref
			if l, err := Decode(e); err == nil {
				s.Leases[ref] = l
			}
		}
	}
	return s, nil
}

// LocalBoard decides in this clone's refs alone.
type LocalBoard struct{ St refstore.Writer }

func (LocalBoard) Where() string { return "this clone" }
func (LocalBoard) Local() bool   { return true }

func (b LocalBoard) Snapshot(ctx context.Context) (Snapshot, error) {
	return ReadBoardWithArchive(ctx, b.St, Prefix, GuardRef, refstore.ArchivePrefix)
}

func (b LocalBoard) Swap(ctx context.Context, msg string, ups []refstore.Update) error {
	return b.St.Apply(ctx, msg, ups...)
}

// Carry: this clone is the board, so its version is there already; the
// update only guards it (Carrier).
func (b LocalBoard) Carry(ctx context.Context, ref string) (refstore.Update, error) {
	e, err := b.St.Get(ctx, ref)
	if err != nil {
		return refstore.Update{}, err
	}
	return refstore.Update{Ref: ref, New: e.OID, Old: e.OID}, nil
}

// pathHolders are the held path leases the snapshot knows: those the
// guard names (read by blob id) and those listed, each version once.
func pathHolders(ctx context.Context, st refstore.Records, s Snapshot) ([]Stored, error) {
	seen := map[string]bool{}
	var out []Stored
	keys := make([]string, 0, len(s.Paths))
	for k := range s.Paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		pk, _ := ParseKey(k)
		ref, err := pk.Ref()
		if err != nil {
			continue
		}
		oid := s.Paths[k]
		e, err := st.ReadObject(ctx, oid)
		if err != nil {
			// The guard names a version not fetched with it: another
			// write landed between the two reads. Read again.
			return nil, &refstore.ConflictError{Ref: ref, Expected: oid}
		}
		e.Ref = ref
		l, err := Decode(e)
		if err != nil {
			return nil, fmt.Errorf("the lease guard names %s: %w", oid, err)
		}
		seen[oid] = true
		if l.Held() {
			out = append(out, l)
		}
	}
	refs := make([]string, 0, len(s.Leases))
	for ref := range s.Leases {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	for _, ref := range refs {
		l := s.Leases[ref]
		if l.Held() && !seen[l.OID] && l.ParsedKey().Kind == KindPath {
			out = append(out, l)
		}
	}
	return out, nil
}
