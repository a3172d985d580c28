// Package memstore keeps records in memory: the in-memory twin of the
// git adapter, for tests of workflow code and a deterministic simulation
// of several clones and their remotes, with nothing of git but its ids
// and its rules. Objects are blobs and trees whose ids are computed as git
// computes them (go-git's hashing of the object header and content, SHA-1
// or SHA-256; trees encoded and ordered as git writes them), refs are
// checked and swapped as the git store checks and swaps them, and
// recordstest holds both to the same conformance suite.
//
// A Store is one repository's records, configuration, notes and trees
// (refstore.Writer, refstore.Trees). A Clone is a worktree of one: every
// role of a refstore.Clone, its HEAD, binding, changes and commits set
// by the test (worktree.go). A Network holds Stores as remotes by URL,
// which Clones fetch from and push to as git does, with injected faults
// (remote.go).
//
// A Store is safe for concurrent use by goroutines, each swap atomic
// under one lock: what git's ref locks are across processes, the mutex is
// across goroutines. Nothing is ever collected: every object written
// stays readable by its id, as in a repository before gc.
package memstore

import (
	"context"
	"crypto"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/git-handoff/git-handoff/refstore"
)

// Store is a record store in memory.
type Store struct {
	format string // refstore.FormatSHA1 or FormatSHA256
	crypto crypto.Hash

	mu      sync.RWMutex
	objects map[string][]byte   // object id -> content, never modified
	types   map[string]string   // object id -> type, for objects other than blobs (trees.go)
	refs    map[string]string   // ref -> object id
	config  map[string][]string // canonical key -> values (clone.go)
	local   *Notes              // the clone's notes (clone.go)
	repo    *repository         // its worktrees and commits, once a Clone is made of it (worktree.go)
}

var _ refstore.Records = (*Store)(nil)

// New returns an empty store whose ids are of format: refstore.FormatSHA1
// ("" too) or refstore.FormatSHA256.
func New(format string) (*Store, error) {
	s := &Store{objects: map[string][]byte{}, types: map[string]string{}, refs: map[string]string{}}
	switch format {
	case "", refstore.FormatSHA1:
		s.format, s.crypto = refstore.FormatSHA1, crypto.SHA1
	case refstore.FormatSHA256:
		s.format, s.crypto = refstore.FormatSHA256, crypto.SHA256
	default:
		return nil, fmt.Errorf("memstore: object format %q: want %s or %s", format, refstore.FormatSHA1, refstore.FormatSHA256)
	}
	return s, nil
}

// ObjectFormat is the store's object format, as git names it.
func (s *Store) ObjectFormat() string { return s.format }

// BlobID is the id git gives a blob of data in format: the hash of the
// object header ("blob", a space, the size in decimal, a NUL) and the
// content, with go-git's hash of the format (sha1cd, which detects
// collision attacks as git's SHA-1 does; crypto/sha256).
func BlobID(format string, data []byte) (string, error) {
	var h crypto.Hash
	switch format {
	case "", refstore.FormatSHA1:
		h = crypto.SHA1
	case refstore.FormatSHA256:
		h = crypto.SHA256
	default:
		return "", fmt.Errorf("memstore: object format %q: want %s or %s", format, refstore.FormatSHA1, refstore.FormatSHA256)
	}
	return blobID(h, data), nil
}

// blobID is plumbing.NewHasher for either hash: go-git picks its hash at
// build time (plumbing.Hash is SHA-1 unless built with -tags sha256), a
// store picks it when made.
func blobID(c crypto.Hash, data []byte) string {
	h := hash.New(c)
	h.Write(plumbing.BlobObject.Bytes())
	h.Write([]byte(" "))
	h.Write([]byte(strconv.Itoa(len(data))))
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Store) hexLen() int { return refstore.HexLen(s.format) }

// entry is the Entry of the object id holds, its Data a copy (nil over
// MaxRecord, as git's store reads it). The caller holds s.mu.
func (s *Store) entry(ref, id string) (refstore.Entry, error) {
	data, ok := s.objects[id]
	if !ok {
		// Unreachable while Apply refuses ids the store lacks and nothing
		// is collected; said as git's store says it all the same.
		return refstore.Entry{Ref: ref, OID: id, Type: refstore.TypeMissing}, fmt.Errorf("%s: %w", id, refstore.ErrMissingObject)
	}
	e := refstore.Entry{Ref: ref, OID: id, Type: s.typeOf(id), Size: int64(len(data))}
	if len(data) <= refstore.MaxRecord {
		e.Data = append(make([]byte, 0, len(data)), data...)
	}
	return e, nil
}

// typeOf is the type of the object id names ("blob" unless the store
// wrote it as another). The caller holds s.mu.
func (s *Store) typeOf(id string) string {
	if t, ok := s.types[id]; ok {
		return t
	}
	return "blob"
}

// Get reads the record at ref (refstore.Records).
func (s *Store) Get(ctx context.Context, ref string) (refstore.Entry, error) {
	if err := refstore.CheckRef(ref); err != nil {
		return refstore.Entry{Ref: ref}, err
	}
	if err := ctx.Err(); err != nil {
		return refstore.Entry{Ref: ref}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	id, ok := s.refs[ref]
	if !ok {
		return refstore.Entry{Ref: ref}, fmt.Errorf("%s: %w", ref, refstore.ErrNotFound)
	}
	return s.entry(ref, id)
}

// ReadObject reads an object by its full id (refstore.Records).
func (s *Store) ReadObject(ctx context.Context, oid string) (refstore.Entry, error) {
	if err := ctx.Err(); err != nil {
		return refstore.Entry{OID: oid}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.objects[oid]; !ok {
		return refstore.Entry{OID: oid}, fmt.Errorf("%s: %w", oid, refstore.ErrNotFound)
	}
	return s.entry("", oid)
}

// RefIDs lists the refs under prefix, in ref order (refstore.Records).
func (s *Store) RefIDs(ctx context.Context, prefix string) ([]refstore.RefID, error) {
	if err := refstore.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var ids []refstore.RefID
	for ref, id := range s.refs {
		if refstore.UnderPrefix(ref, prefix) {
			ids = append(ids, refstore.RefID{Ref: ref, OID: id})
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].Ref < ids[j].Ref })
	return ids, nil
}

// EachStreamed hands fn the records under prefix, in ref order, as they
// were when the listing started (refstore.Records). fn may use the store.
func (s *Store) EachStreamed(ctx context.Context, prefix string, fn func(refstore.Entry) error) error {
	ids, err := s.RefIDs(ctx, prefix)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.mu.RLock()
		e, err := s.entry(id.Ref, id.OID)
		s.mu.RUnlock()
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// WriteBlob stores data as a blob (refstore.Records): ErrTooLarge over
// MaxRecord.
func (s *Store) WriteBlob(ctx context.Context, data []byte) (string, error) {
	if len(data) > refstore.MaxRecord {
		return "", fmt.Errorf("%w: %d bytes, at most %d", refstore.ErrTooLarge, len(data), refstore.MaxRecord)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return s.WriteRawBlob(data), nil
}

// WriteRawBlob stores data as a blob whatever its size, as another writer
// of a repository (git hash-object -w) could: for tests of records over
// MaxRecord.
func (s *Store) WriteRawBlob(data []byte) string {
	id := blobID(s.crypto, data)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[id]; !ok {
		s.objects[id] = append(make([]byte, 0, len(data)), data...)
	}
	return id
}

// Apply swaps every update or none (refstore.Records).
func (s *Store) Apply(ctx context.Context, msg string, updates ...refstore.Update) error {
	if len(updates) == 0 {
		return nil
	}
	if err := refstore.CheckUpdates(updates, s.hexLen()); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(updates); err != nil {
		return err
	}
	for _, u := range updates {
		if u.New == "" {
			delete(s.refs, u.Ref)
		} else {
			s.refs[u.Ref] = u.New
		}
	}
	s.noteConflicts(msg, updates)
	return nil
}

// noteConflicts appends a refstore.ConflictNote for each update of a
// write whose message says it settled a conflict, to the notes'
// "conflicts", as the git store does: `git handoff log` and the
// simulation's accounting read them (refstore.ConflictNotes). The caller
// holds s.mu.
func (s *Store) noteConflicts(msg string, updates []refstore.Update) {
	if !strings.HasPrefix(msg, refstore.ConflictReflog) {
		return
	}
	if s.local == nil {
		s.local = NewLocal(fmt.Sprintf("/mem/store-%p/handoff", s))
	}
	old, _ := s.local.Read("conflicts")
	for _, u := range updates {
		line, err := json.Marshal(refstore.ConflictNote{Ref: u.Ref, Kept: u.New, Dropped: u.Old, Message: strings.Join(strings.Fields(msg), " ")})
		if err == nil {
			old = append(append(old, line...), '\n')
		}
	}
	_ = s.local.Write(context.Background(), "conflicts", old)
}

// check decides whether updates can be made, as git's transaction would
// (the caller holds s.mu): every Old held (the first that is not, in the
// order given, is the conflict), every New an object the store has, and
// no ref left beside a directory of refs of the same name (git keeps refs
// as paths, refs/ao/a and refs/ao/a/b cannot both exist).
func (s *Store) check(updates []refstore.Update) error {
	for _, u := range updates {
		if cur := s.refs[u.Ref]; cur != u.Old {
			return &refstore.ConflictError{Ref: u.Ref, Expected: u.Old, Actual: cur}
		}
	}
	for _, u := range updates {
		if _, ok := s.objects[u.New]; u.New != "" && !ok {
			return fmt.Errorf("%w: %s would point at %s, which this store does not have", refstore.ErrMissingObject, u.Ref, u.New)
		}
	}
	after := func(ref string) bool {
		for _, u := range updates {
			if u.Ref == ref {
				return u.New != ""
			}
		}
		_, ok := s.refs[ref]
		return ok
	}
	for _, u := range updates {
		if u.New == "" || u.Old != "" {
			continue // only a new ref can collide with another's path
		}
		for i := strings.IndexByte(u.Ref, '/'); i >= 0; i = next(u.Ref, i) {
			if parent := u.Ref[:i]; after(parent) {
				return fmt.Errorf("%w: %s exists; cannot create %s", refstore.ErrBadName, parent, u.Ref)
			}
		}
		for ref := range s.refs {
			if strings.HasPrefix(ref, u.Ref+"/") && after(ref) {
				return fmt.Errorf("%w: %s exists; cannot create %s", refstore.ErrBadName, ref, u.Ref)
			}
		}
		for _, o := range updates {
			if o.New != "" && strings.HasPrefix(o.Ref, u.Ref+"/") {
				return fmt.Errorf("%w: cannot create both %s and %s", refstore.ErrBadName, u.Ref, o.Ref)
			}
		}
	}
	return nil
}

// next is the index of the '/' after the one at i in ref, or -1.
func next(ref string, i int) int {
	j := strings.IndexByte(ref[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// ApplyEach swaps each update on its own (refstore.Records): every update
// is tried; an update refused for another reason than a lost swap is
// returned first, else the first lost swap.
func (s *Store) ApplyEach(ctx context.Context, msg string, updates ...refstore.Update) error {
	if err := refstore.CheckUpdates(updates, s.hexLen()); err != nil {
		return err
	}
	var lost, hard error
	for _, u := range updates {
		err := s.Apply(ctx, msg, u)
		switch {
		case err == nil:
		case errors.Is(err, refstore.ErrConflict):
			if lost == nil {
				lost = err
			}
		case hard == nil:
			hard = err
		}
	}
	if hard != nil {
		return hard
	}
	return lost
}

// History walks a record's versions from the blob tip along their "prev"
// ids (refstore.Records, refstore.WalkHistory).
func (s *Store) History(ctx context.Context, tip string, fn func(refstore.Entry) bool) error {
	return refstore.WalkHistory(ctx, s.ReadObject, tip, fn)
}

// ReadEach hands fn the objects ids name, in order (refstore.Records); a
// missing one comes with the type "missing". An id without an OID reads
// the object its ref holds, as the git store's cat-file resolves it.
func (s *Store) ReadEach(ctx context.Context, ids []refstore.RefID, fn func(refstore.Entry) error) error {
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.mu.RLock()
		oid := id.OID
		if oid == "" {
			oid = s.refs[id.Ref]
		}
		e, err := s.entry(id.Ref, oid)
		s.mu.RUnlock()
		if err != nil && !errors.Is(err, refstore.ErrMissingObject) {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}
