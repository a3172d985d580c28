package baton

import (
	"bytes"
	"container/heap"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/git-handoff/git-handoff/refstore"
)

// Finding the newest waiting shared baton must cost the same at 100,000
// shared batons as at ten: a start may neither decode nor list every one.
// So what the choice needs is kept per directory of shared refs (one per
// owner, refs/ao/handoffs/shared/<owner>/), in two kinds of note under
// <common dir>/handoff/:
//
//   - shared-batons, the head: for each directory, the refstore.Stamp it
//     had when it was last listed, its newest few waiting batons (ref, blob
//     id, createdAt, id), how many wait in all, and the refs to read again
//     every time (unreadable or symbolic ones, so their warnings repeat);
//     plus packed-refs' stamp and a sum of its shared range.
//   - shared-batons.d/<hash of the directory>: each directory's loose refs
//     with their blob ids, what stat said of their files (and when), and
//     what the blobs decoded to: listing a directory again stats its files
//     and reads and decodes only those whose stat moved.
//   - shared-batons.d/<hash>.packed: what its packed refs decoded to, under
//     the sum of packed-refs' shared range (eligible_packed.go).
//
// A start reads the head, stats packed-refs and each directory, and lists
// again only the directories whose stamp moved or was not yet settled
// (refstore says why a stamp moves with every change git makes), by their
// loose files, decoding only the blobs their notes do not know. A
// packed-refs whose shared range changed (pack-refs, gc, a packed shared
// ref deleted) makes every directory be listed again, its packed refs read
// from packed-refs. Where stamps cannot be trusted (another ref backend, a
// network filesystem) every directory is listed every time, and the
// directory notes still spare the decoding.
//
// What this costs grows with the loose files of the directory that
// changed: a thousand loose shared batons of one owner are a thousand
// stats per change (git's writers leave no trace finer than a directory's
// stamp). gc and pack-refs make them packed, and then a change costs the
// loose few.
//
// The notes only order candidates: the one delivered is always re-read
// from its ref and decoded, and its claim is a compare-and-swap, so no
// note, however wrong, hands out a claimed baton. A stale note cannot
// hide one either: what changed since moved a stamp. (One forged to match
// the stamps could; the checksums are against damage, not forgery.) A
// note that is missing, torn or fails its checksum is ignored and written
// again.

const (
	headMagic = "git-handoff shared batons v4\n"
	dirMagic  = "git-handoff shared baton dir v4\n"
)

// topN: how many of a directory's waiting batons the head keeps. More are
// needed only when accept refuses all of them, or another process claims
// them between this start's stamps and its reads (a claim moves the
// directory's stamp, so the next start lists it anyway): then the
// directory is listed again. Every start reads every directory's few, so
// the fewer the better: at a hundred owners, four made the head the
// dearest part of a start after the stamps.
const topN = 2

// bulkDecode: with more unknown blobs than this, one `git for-each-ref`
// streaming every shared blob is cheaper than reading them one by one.
const bulkDecode = 256

// sharedInfo is a decoded shared baton, reduced to what ordering needs.
type sharedInfo struct {
	live    bool
	created time.Time
	id      string
}

func infoOf(s *Stored) sharedInfo {
	return sharedInfo{live: s.Live(), created: s.CreatedAt, id: s.ID}
}

// candidate is a waiting shared baton as a note or a decode saw it.
type candidate struct {
	ref, oid string
	info     sharedInfo
	dir      string // the directory it was found in
}

// sharedDir is one directory of shared refs as the head keeps it.
type sharedDir struct {
	dir    string // a ref prefix ending in "/"
	stamp  refstore.Stamp
	live   int         // waiting batons in it
	top    []candidate // the newest of them, newest first, at most topN
	reread []string    // refs read again every time
	all    []candidate // when listed by this run: every waiting one loose, and packed ones newest first
	listed bool
	// Listed by this run: whether all holds every waiting one, and how far
	// the packed note was walked (for the rest, when they are wanted).
	complete bool
	walk     *packedWalk
}

type sharedHead struct {
	watched bool // the stamps were taken, and may be trusted
	packed  refstore.Stamp
	sum     uint64
	dirs    []*sharedDir
	records int  // directory entries in all its records, to know when to rewrite it
	whole   bool // read to its end without damage
}

func sharedNotePath(st *refstore.Store) string {
	return filepath.Join(st.CommonDir(), "handoff", "shared-batons")
}

func dirNotePath(st *refstore.Store, dir string) string {
	h := sha1.Sum([]byte(dir))
	return filepath.Join(st.CommonDir(), "handoff", "shared-batons.d", hex.EncodeToString(h[:8]))
}

// enc and dec write and read the notes' fields.
type enc struct{ b []byte }

func (e *enc) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) str(s string) {
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}
func (e *enc) stamp(s refstore.Stamp) {
	e.uint(s.Ino)
	e.int(s.Size)
	e.uint(s.Nlink)
	e.int(s.Mtime)
	e.int(s.Ctime)
	e.int(s.At)
}
func (e *enc) info(i sharedInfo) {
	e.int(i.created.Unix())
	e.uint(uint64(i.created.Nanosecond()))
	e.str(i.id)
}

// maybeInfo writes whether the baton waits, and then what it decoded to
// if it does.
func (e *enc) maybeInfo(i sharedInfo) {
	if !i.live {
		e.uint(0)
		return
	}
	e.uint(1)
	e.info(i)
}

// After its header, a note is a run of records, each its length, its body
// and the body's checksum: one torn or damaged ends the note there, and
// those before it stand.

// appendRecord appends body to b as a record.
func appendRecord(b, body []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(body)+4))
	b = append(b, body...)
	return binary.BigEndian.AppendUint32(b, noteSum(body))
}

// splitRecord takes the first record off b; ok is false when b does not
// hold one whole.
func splitRecord(b []byte) (rec, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n < 4 || n > uint64(len(b)-k) {
		return nil, b, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// recordBody checks a record's checksum and returns its body.
func recordBody(rec []byte) ([]byte, bool) {
	body, sum := rec[:len(rec)-4], binary.BigEndian.Uint32(rec[len(rec)-4:])
	return body, noteSum(body) == sum
}

// nextRecord is the body of b's first record and what follows it; ok is
// false (and rest is b) for a record torn or damaged.
func nextRecord(b []byte) (body, rest []byte, ok bool) {
	rec, rest, ok := splitRecord(b)
	if !ok {
		return nil, b, false
	}
	if body, ok = recordBody(rec); !ok {
		return nil, b, false
	}
	return body, rest, true
}

// sealed is the note's bytes with its checksum.
func (e *enc) sealed() []byte {
	return binary.BigEndian.AppendUint32(e.b, noteSum(e.b))
}

type dec struct {
	b   []byte
	bad bool
}

// open checks the magic and the checksum; a failed dec reads as zeros.
func open(b []byte, magic string) *dec {
	if len(b) < len(magic)+4 || !bytes.HasPrefix(b, []byte(magic)) {
		return &dec{bad: true}
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if noteSum(body) != sum {
		return &dec{bad: true}
	}
	return &dec{b: body[len(magic):]}
}

func (d *dec) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) str() string {
	n := d.uint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	// A view of the note's bytes, not a copy: they are read once and
	// never written, and a thousand refs' ids and names would otherwise
	// be as many allocations.
	s := unsafe.String(unsafe.SliceData(d.b), int(n))
	d.b = d.b[n:]
	return s
}

// count reads a length that the rest of the note must be able to hold
// (each item takes a byte at least), so a damaged one allocates nothing.
func (d *dec) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return 0
	}
	return int(n)
}

func (d *dec) stamp() refstore.Stamp {
	return refstore.Stamp{Ino: d.uint(), Size: d.int(), Nlink: d.uint(), Mtime: d.int(), Ctime: d.int(), At: d.int()}
}

func (d *dec) info() sharedInfo {
	sec, nsec := d.int(), d.uint()
	if nsec >= 1e9 {
		d.bad = true
	}
	return sharedInfo{live: true, created: time.Unix(sec, int64(nsec)).UTC(), id: d.str()}
}

// maybeInfo reads what enc.maybeInfo wrote: the zero info for a baton
// that does not wait.
func (d *dec) maybeInfo() sharedInfo {
	if d.uint() == 1 {
		return d.info()
	}
	return sharedInfo{}
}

// dirNote is what a directory's note says: each ref with the blob id it
// held, what stat said of its loose file and when (refstore.ListDir
// trusts a file's stamp only when it had settled by then), and what the
// blob decoded to.
//
// The note is a header and then records, each checksummed on its own:
// the first holds every ref, each later one what a listing found changed
// (a directory of a thousand refs in which one changed costs a record of
// one ref, appended, not the whole note rewritten). A later record wins;
// one that is torn or fails its checksum ends the note there (it and what
// follows are decoded again). Appends race harmlessly: a ref's entry
// names the file stamp it was read under, so an older entry landing last
// only makes the next listing read that file again.
type dirNote struct {
	dir     string
	ents    map[string]dirEntry // by name in dir
	records int                 // entries in all records, to know when to rewrite
	whole   bool                // read to its end without damage
}

// dirEntry is one ref of a directory with what its blob decoded to.
type dirEntry struct {
	ref  refstore.DirRef
	info sharedInfo
}

// same compares two entries of one ref.
func (a dirEntry) same(b dirEntry) bool {
	return a.ref.OID == b.ref.OID && a.ref.File == b.ref.File && a.ref.At == b.ref.At &&
		a.info.live == b.info.live && a.info.id == b.info.id && a.info.created.Equal(b.info.created)
}

// entry is the note's entry of ref, with its name filled in.
func (n *dirNote) entry(ref string) (dirEntry, bool) {
	name, ok := strings.CutPrefix(ref, n.dir)
	if !ok {
		return dirEntry{}, false
	}
	e, ok := n.ents[name]
	e.ref.Ref = ref
	return e, ok
}

// prev is the note as ListDir takes it.
func (n *dirNote) prev(ref string) (refstore.DirRef, bool) {
	e, ok := n.entry(ref)
	return e.ref, ok
}

// readDirNote reads the note of dir; anything unreadable is an empty one.
func readDirNote(path, dir string) *dirNote {
	empty := &dirNote{dir: dir, ents: map[string]dirEntry{}}
	b, err := os.ReadFile(path)
	if err != nil {
		return empty
	}
	hdr := &enc{b: []byte(dirMagic)}
	hdr.str(dir)
	if !bytes.HasPrefix(b, hdr.b) {
		return empty // another directory's (the name is a hash) or damaged
	}
	b = b[len(hdr.b):]
	out := &dirNote{dir: dir}
	for len(b) > 0 {
		body, rest, ok := nextRecord(b)
		if !ok {
			break
		}
		b = rest
		d := &dec{b: body}
		c := d.count()
		if out.ents == nil {
			out.ents = make(map[string]dirEntry, c)
		}
		// Keyed by name, a view of the note's bytes: no allocation per
		// ref. A record that passed its checksum and does not parse was
		// written wrong: believe none of the note.
		for ; c > 0 && !d.bad; c-- {
			name := d.str()
			if d.uint() == 0 {
				delete(out.ents, name)
				out.records++
				continue
			}
			r := refstore.DirRef{OID: d.str()}
			r.File = refstore.FileStamp{Ino: d.uint(), Size: d.int(), Mtime: d.int(), Ctime: d.int()}
			r.At = d.int()
			out.ents[name] = dirEntry{ref: r, info: d.maybeInfo()}
			out.records++
		}
		if d.bad || len(d.b) != 0 {
			return empty
		}
	}
	if out.ents == nil {
		out.ents = map[string]dirEntry{}
	}
	out.whole = len(b) == 0
	return out
}

// noteSum is the notes' checksum: CRC-32 (IEEE), whose tables cost a
// start 20 µs to build, where Castagnoli's, as fast to sum with, cost
// 200 µs (measured on amd64): every start that reads a note pays it.
func noteSum(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// record encodes entries (and refs gone) as one checksummed record.
func dirRecord(dir string, ents []dirEntry, gone []string) []byte {
	e := &enc{b: make([]byte, 0, 16+len(ents)*120)}
	e.uint(uint64(len(ents) + len(gone)))
	for _, ref := range gone {
		e.str(strings.TrimPrefix(ref, dir))
		e.uint(0)
	}
	for _, en := range ents {
		e.str(strings.TrimPrefix(en.ref.Ref, dir))
		e.uint(1)
		e.str(en.ref.OID)
		f := en.ref.File
		e.uint(f.Ino)
		e.int(f.Size)
		e.int(f.Mtime)
		e.int(f.Ctime)
		e.int(en.ref.At)
		e.maybeInfo(en.info)
	}
	return appendRecord(nil, e.b)
}

// writeDirNote brings the note of dir (read as old) to ents: by one
// appended record of what changed, or, when the note is damaged or has
// grown well past what it holds, by writing it again whole. Failing is no
// error: the next listing reads and decodes again.
func writeDirNote(ctx context.Context, st *refstore.Store, path, dir string, old *dirNote, ents []dirEntry) {
	if len(ents) == 0 {
		os.Remove(path)
		return
	}
	var changed []dirEntry
	now := make(map[string]bool, len(ents))
	for _, en := range ents {
		name := strings.TrimPrefix(en.ref.Ref, dir)
		now[name] = true
		if o, ok := old.ents[name]; !ok || !o.same(en) {
			changed = append(changed, en)
		}
	}
	var gone []string
	for name := range old.ents {
		if !now[name] {
			gone = append(gone, dir+name)
		}
	}
	if len(changed)+len(gone) == 0 && old.whole {
		return
	}
	if old.whole && len(old.ents) > 0 && old.records+len(changed)+len(gone) <= 2*len(ents)+64 {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_, err = f.Write(dirRecord(dir, changed, gone))
			if cerr := f.Close(); err == nil && cerr == nil {
				return
			}
		}
	}
	hdr := &enc{b: []byte(dirMagic)}
	hdr.str(dir)
	_ = st.WriteCheckedNote(ctx, path, append(hdr.b, dirRecord(dir, ents, nil)...))
}

// sharedScan is one start's look at the shared batons.
type sharedScan struct {
	st    *refstore.Store
	watch bool
	head  sharedHead
	dirty bool        // the head must be written
	old   *sharedHead // the head as read, when it was readable
	warns []Warning
	open  []*packedNote // packed notes read part way, closed by close
}

// sharedCandidates returns the newest few waiting shared batons of every
// directory, and the warnings for unreadable ones (in ref order),
// listing only directories that changed and decoding only blobs their
// notes do not know. The caller closes the scan.
func sharedCandidates(ctx context.Context, st *refstore.Store) (*sharedScan, []candidate, error) {
	sc := &sharedScan{st: st, watch: st.Watchable()}
	path := sharedNotePath(st)
	old, ok := readHead(path)
	if ok {
		sc.old = &old
	}
	ok = ok && old.watched
	all := !ok
	var listings map[string]refstore.DirRefs
	if sc.watch {
		ps, err := st.PackedStamp()
		if err != nil {
			return nil, nil, err
		}
		sc.head = sharedHead{watched: true, packed: ps, sum: old.sum}
		if !ok || !ps.Same(old.packed) || !old.packed.Settled() {
			// packed-refs was rewritten (or never seen): only a change
			// in its shared range makes every directory suspect.
			sum, sorted, err := st.PackedSum(refstore.SharedPrefix)
			if err != nil {
				return nil, nil, err
			}
			sc.watch = sorted
			all = all || sum != old.sum
			sc.head.sum, sc.dirty = sum, true
		}
	}
	var dirty []string
	keep := map[string]*sharedDir{}
	notes := map[string]*dirNote{}
	if sc.watch {
		listings = map[string]refstore.DirRefs{}
		queue := []string{refstore.SharedPrefix}
		if !all {
			for _, u := range old.dirs {
				queue = append(queue, u.dir)
			}
		}
		seen := map[string]bool{}
		byDir := map[string]*sharedDir{}
		if !all {
			for _, u := range old.dirs {
				byDir[u.dir] = u
			}
		}
		// Stamp every known directory in one go (relative to the shared
		// directory, not each from the root).
		stamps, err := st.DirStamps(refstore.SharedPrefix, queue)
		if err != nil {
			return nil, nil, err
		}
		now := make(map[string]refstore.Stamp, len(queue))
		for i, dir := range queue {
			now[dir] = stamps[i]
		}
		if testHookStamped != nil {
			testHookStamped()
		}
		for len(queue) > 0 {
			dir := queue[0]
			queue = queue[1:]
			if seen[dir] {
				continue
			}
			seen[dir] = true
			if u := byDir[dir]; u != nil {
				if s, ok := now[dir]; ok && s.Same(u.stamp) && u.stamp.Settled() {
					keep[dir] = u
					continue
				}
			}
			note := readDirNote(dirNotePath(st, dir), dir)
			l, err := st.ListLoose(dir, note.prev)
			if err != nil {
				return nil, nil, err
			}
			listings[dir], notes[dir] = l, note
			dirty = append(dirty, dir)
			queue = append(queue, l.Dirs...)
		}
		if len(dirty) > 0 || len(keep) != len(old.dirs) {
			sc.dirty = true
		}
	} else {
		ids, err := st.RefIDs(ctx, refstore.SharedPrefix)
		if err != nil {
			return nil, nil, err
		}
		listings = map[string]refstore.DirRefs{}
		for _, r := range ids {
			dir := r.Ref[:strings.LastIndexByte(r.Ref, '/')+1]
			l := listings[dir]
			l.Refs = append(l.Refs, refstore.DirRef{Ref: r.Ref, OID: r.OID})
			listings[dir] = l
		}
		for dir := range listings {
			dirty = append(dirty, dir)
		}
	}
	built, err := sc.build(ctx, dirty, listings, notes, false)
	if err != nil {
		sc.close()
		return nil, nil, err
	}
	for _, u := range built {
		keep[u.dir] = u
	}
	for _, u := range keep {
		sc.head.dirs = append(sc.head.dirs, u)
	}
	sort.Slice(sc.head.dirs, func(i, j int) bool { return sc.head.dirs[i].dir < sc.head.dirs[j].dir })
	cands := sc.reread(ctx)
	for _, u := range sc.head.dirs {
		cands = append(cands, u.top...)
	}
	slices.SortStableFunc(sc.warns, func(a, b Warning) int { return strings.Compare(a.Ref, b.Ref) })
	return sc, cands, nil
}

// testHookStamped, when set by a test, runs once the directories are
// stamped and before they are listed: where another process's pack-refs
// can land.
var testHookStamped func()

// close closes the packed notes still open.
func (sc *sharedScan) close() {
	for _, n := range sc.open {
		n.closeFile()
	}
	sc.open = nil
}

// packedStable reports whether packed-refs is still the file whose shared
// sum the head holds. Asked after the loose files were listed: a ref that
// pack-refs moved out of them since the sum was taken is then read from
// the packed-refs it moved into.
func (sc *sharedScan) packedStable() bool {
	ps, err := sc.st.PackedStamp()
	return err == nil && ps.Same(sc.head.packed)
}

// build makes the head's entries of the directories listed, decoding the
// blobs their notes do not know (through one stream when there are many),
// and writes the notes that learnt or forgot something. A directory with
// nothing in it or under it that no longer exists is dropped. notes holds
// the notes already read (for ListLoose); the others are read here.
//
// Watched, the listings hold loose refs only, and each directory's packed
// refs come from its packed note when that was made under the sum the
// head holds, else from packed-refs (decoding what neither note knows).
// full asks for every waiting baton of each directory, not only enough
// for its newest few.
func (sc *sharedScan) build(ctx context.Context, dirs []string, listings map[string]refstore.DirRefs, notes map[string]*dirNote, full bool) ([]*sharedDir, error) {
	type pending struct {
		dir    string
		note   *dirNote
		ents   []dirEntry
		reread []string
		pn     *packedNote // watched: its packed refs, when the note holds them
		fresh  []dirEntry  // watched, else: its packed refs as packed-refs has them
		sum    uint64      // the sum fresh was read under
		save   bool        // fresh is to be written as its packed note
	}
	var ps []*pending
	unknown := map[string]string{} // oid and ref → ref, for the blobs to decode
	known := func(p *pending, old map[string]dirEntry, r refstore.DirRef) (dirEntry, bool) {
		if e, ok := old[r.Ref]; ok && e.ref.OID == r.OID {
			return dirEntry{ref: r, info: e.info}, true
		}
		if e, ok := p.note.entry(r.Ref); ok && e.ref.OID == r.OID {
			return dirEntry{ref: r, info: e.info}, true
		}
		unknown[r.OID+" "+r.Ref] = r.Ref
		return dirEntry{ref: r}, false
	}
	stable := sc.watch && sc.packedStable()
	if sc.watch && !stable {
		// What this run lists is of a newer packed-refs than the sum the
		// head keeps: the head it leaves is not trusted, so that the next
		// start lists every directory once.
		sc.head.watched, sc.dirty = false, true
	}
	for _, dir := range dirs {
		l := listings[dir]
		p := &pending{dir: dir, note: notes[dir]}
		if p.note == nil {
			p.note = readDirNote(dirNotePath(sc.st, dir), dir)
		}
		for _, r := range l.Refs {
			if r.OID == "" {
				p.reread = append(p.reread, r.Ref)
				continue
			}
			e, _ := known(p, nil, r)
			p.ents = append(p.ents, e)
		}
		ps = append(ps, p)
		if !sc.watch {
			continue
		}
		path := packedNotePath(sc.st, dir)
		pn := readPackedNote(path, dir)
		if pn != nil && stable && pn.sum == sc.head.sum {
			p.pn = pn
			sc.open = append(sc.open, pn)
			continue
		}
		refs, sum, ok, err := sc.st.PackedDir(dir, refstore.SharedPrefix)
		if err != nil {
			if pn != nil {
				pn.closeFile()
			}
			return nil, err
		}
		old := map[string]dirEntry{}
		if pn != nil {
			ents, _ := pn.all() // of another sum: what it knew of each blob still holds
			for _, e := range ents {
				old[e.ref.Ref] = e
			}
		}
		p.sum, p.save = sum, ok
		for _, r := range refs {
			e, _ := known(p, old, refstore.DirRef{Ref: r.Ref, OID: r.OID})
			p.fresh = append(p.fresh, e)
		}
	}
	decoded := map[string]sharedInfo{}
	bad := map[string]bool{}
	take := func(e refstore.Entry) {
		k := e.OID + " " + e.Ref
		if _, ok := unknown[k]; !ok {
			return
		}
		delete(unknown, k)
		s, err := Decode(e)
		if err != nil {
			bad[k] = true
			return
		}
		decoded[k] = infoOf(&s)
	}
	if len(unknown) > bulkDecode {
		// Many new blobs (the first start, or after a large fetch): stream
		// them through one git process, that of their directory when they
		// are in a few.
		by := map[string]bool{}
		for _, ref := range unknown {
			by[ref[:strings.LastIndexByte(ref, '/')+1]] = true
		}
		prefixes := []string{refstore.SharedPrefix}
		if len(by) <= 4 {
			prefixes = prefixes[:0]
			for dir := range by {
				prefixes = append(prefixes, dir)
			}
		}
		for _, prefix := range prefixes {
			if err := sc.st.Each(ctx, prefix, func(e refstore.Entry) error {
				take(e)
				return nil
			}); err != nil {
				return nil, err
			}
		}
	}
	for k, ref := range unknown {
		oid, _, _ := strings.Cut(k, " ")
		e, err := sc.st.ReadObject(ctx, oid)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			bad[k] = true // missing or unreadable: Get says which, every time
			continue
		}
		e.Ref, e.OID = ref, oid
		take(e)
	}
	// settle gives each entry what its blob decoded to; those that did not
	// decode are read again every time instead.
	settle := func(in []dirEntry, reread []string) ([]dirEntry, []string) {
		var out []dirEntry
		for _, en := range in {
			k := en.ref.OID + " " + en.ref.Ref
			if bad[k] {
				reread = append(reread, en.ref.Ref)
				continue
			}
			if info, ok := decoded[k]; ok {
				en.info = info
			}
			out = append(out, en)
		}
		return out, reread
	}
	var out []*sharedDir
	for _, p := range ps {
		l := listings[p.dir]
		u := &sharedDir{dir: p.dir, stamp: l.Stamp, listed: true}
		var ents []dirEntry
		ents, u.reread = settle(p.ents, p.reread)
		writeDirNote(ctx, sc.st, dirNotePath(sc.st, p.dir), p.dir, p.note, ents)
		for _, en := range ents {
			if en.info.live {
				u.all = append(u.all, candidate{ref: en.ref.Ref, oid: en.ref.OID, info: en.info, dir: p.dir})
			}
		}
		u.live, u.complete = len(u.all), true
		packed := 0
		if sc.watch {
			if p.pn == nil {
				fresh, reread := settle(p.fresh, nil)
				p.pn = packedNoteOf(p.dir, p.sum, fresh, reread)
				if p.save {
					writePackedNote(ctx, sc.st, packedNotePath(sc.st, p.dir), p.pn)
				}
			}
			u.complete = false
			u.walk = &packedWalk{note: p.pn, listing: l}
			for _, r := range p.pn.reread {
				if !u.walk.hidden(r) {
					u.reread = append(u.reread, r)
				}
			}
			if err := sc.walk(ctx, u, full); err != nil {
				return nil, err
			}
			packed = p.pn.total + len(p.pn.reread)
		}
		u.top = newest(u.all, topN)
		sort.Strings(u.reread)
		if len(ents) == 0 && len(u.reread) == 0 && packed == 0 && len(l.Dirs) == 0 && l.Stamp.Absent() && p.dir != refstore.SharedPrefix {
			continue // gone
		}
		out = append(out, u)
	}
	return out, nil
}

// packedWalk is how far a directory's packed note has been walked.
type packedWalk struct {
	note       *packedNote
	listing    refstore.DirRefs // the directory's loose refs (in ref order) and subdirectories
	taken      int              // waiting packed batons added to all
	hiddenLive int              // waiting packed batons passed over as hidden
}

// hidden reports whether a loose ref of the same name hides packed ref.
func (w *packedWalk) hidden(ref string) bool {
	_, ok := slices.BinarySearchFunc(w.listing.Refs, ref, func(r refstore.DirRef, ref string) int { return strings.Compare(r.Ref, ref) })
	return ok
}

// walk adds u's waiting packed batons to u.all, newest first, until it
// holds topN of them (every one when full) or they end, and counts u.live:
// exactly once the walk has ended, and until then at most as many as
// wait. A damaged note is read again from packed-refs, as if missing.
func (sc *sharedScan) walk(ctx context.Context, u *sharedDir, full bool) error {
	w := u.walk
	for taken := 0; full || taken < topN; {
		e, ok := w.note.walk()
		if !ok || !e.info.live {
			u.complete = !w.note.damaged
			break
		}
		if w.hidden(e.ref.Ref) {
			w.hiddenLive++
			continue
		}
		u.all = append(u.all, candidate{ref: e.ref.Ref, oid: e.ref.OID, info: e.info, dir: u.dir})
		taken++
		w.taken++
	}
	if w.note.damaged {
		// Only a note read from disk can be damaged: list the directory
		// as if it had none.
		os.Remove(packedNotePath(sc.st, u.dir))
		built, err := sc.build(ctx, []string{u.dir}, map[string]refstore.DirRefs{u.dir: w.listing}, map[string]*dirNote{}, full)
		if err != nil {
			return err
		}
		if len(built) == 1 {
			*u = *built[0]
		}
		return nil
	}
	if u.complete {
		u.live = len(u.all)
	} else {
		u.live = len(u.all) - w.taken + w.note.live - w.hiddenLive
	}
	return nil
}

// newest returns the n newest of cs, newest first, without ordering the
// rest (a directory may hold a thousand).
func newest(cs []candidate, n int) []candidate {
	top := make([]candidate, 0, n+1)
	for _, c := range cs {
		if len(top) == n && !c.newer(&top[n-1]) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return c.newer(&top[i]) })
		top = slices.Insert(top, i, c)
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}

// reread reads the refs that must be read every time: the unreadable
// ones warn again, a symbolic one that leads to a waiting baton is a
// candidate.
func (sc *sharedScan) reread(ctx context.Context) []candidate {
	var out []candidate
	for _, u := range sc.head.dirs {
		for _, ref := range u.reread {
			s, err := Read(ctx, sc.st, ref)
			switch {
			case errors.Is(err, refstore.ErrNotFound):
			case err != nil:
				sc.warns = append(sc.warns, Warning{Ref: ref, Err: err})
			case s.Live():
				out = append(out, candidate{ref: s.Ref, oid: s.OID, info: infoOf(&s)})
			}
		}
	}
	return out
}

// more returns every waiting baton of dir, listing it again when this run
// has not, or walking the rest of its packed note: for when the head's
// newest few were all refused or taken.
func (sc *sharedScan) more(ctx context.Context, dir string) ([]candidate, error) {
	i := sort.Search(len(sc.head.dirs), func(i int) bool { return sc.head.dirs[i].dir >= dir })
	if i == len(sc.head.dirs) || sc.head.dirs[i].dir != dir {
		return nil, nil
	}
	u := sc.head.dirs[i]
	if u.listed {
		if !u.complete {
			if err := sc.walk(ctx, u, true); err != nil {
				return nil, err
			}
		}
		return u.all, nil
	}
	if u.live <= len(u.top) {
		return nil, nil
	}
	if !sc.watch {
		return nil, nil // every directory was listed
	}
	note := readDirNote(dirNotePath(sc.st, dir), dir)
	l, err := sc.st.ListLoose(dir, note.prev)
	if err != nil {
		return nil, err
	}
	built, err := sc.build(ctx, []string{dir}, map[string]refstore.DirRefs{dir: l}, map[string]*dirNote{dir: note}, true)
	if err != nil || len(built) == 0 {
		return nil, err
	}
	sc.head.dirs[i] = built[0]
	sc.dirty = true
	return built[0].all, nil
}

// byNewest is a heap of candidates, the newest on top: a start usually
// takes the first, so ordering thousands fully would be wasted.
type byNewest []candidate

func (h byNewest) Len() int           { return len(h) }
func (h byNewest) Less(i, j int) bool { return h[i].newer(&h[j]) }
func (h byNewest) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *byNewest) Push(x any)        { *h = append(*h, x.(candidate)) }
func (h *byNewest) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

func (c *candidate) newer(o *candidate) bool {
	a := Baton{CreatedAt: c.info.created, ID: c.info.id}
	b := Baton{CreatedAt: o.info.created, ID: o.info.id}
	return Newer(&a, &b)
}

// newestShared is the newest waiting shared baton that ok accepts. Each
// candidate is re-read from its ref and decoded before it is chosen, as the
// claim's compare-and-swap would: one claimed or replaced since it was
// listed is skipped, or put back in its new place when its new version
// waits too. When the last of a directory's newest few is passed over,
// the rest of that directory joins the heap: all of them are older than
// it, so the order stays right.
func newestShared(ctx context.Context, st *refstore.Store, ok func(*Stored) bool, warns []Warning) (*Stored, []Warning, error) {
	sc, cands, err := sharedCandidates(ctx, st)
	if err != nil {
		return nil, warns, err
	}
	defer sc.close()
	warns = append(warns, sc.warns...)
	h := byNewest(cands)
	heap.Init(&h)
	left := map[string]int{} // of each directory's newest few, those not yet popped
	for _, c := range cands {
		if c.dir != "" {
			left[c.dir]++
		}
	}
	popped := map[string]bool{}
	passOver := func(c candidate) error {
		if c.dir == "" {
			return nil
		}
		if left[c.dir]--; left[c.dir] != 0 {
			return nil
		}
		rest, err := sc.more(ctx, c.dir)
		if err != nil {
			return err
		}
		for _, m := range rest {
			if !popped[m.ref+" "+m.oid] {
				m.dir = "" // counted already
				heap.Push(&h, m)
			}
		}
		return nil
	}
	moves := 0
	for h.Len() > 0 {
		c := heap.Pop(&h).(candidate)
		popped[c.ref+" "+c.oid] = true
		s, err := Read(ctx, st, c.ref)
		switch {
		case errors.Is(err, refstore.ErrNotFound):
		case err != nil && isBadRecord(err):
			warns = append(warns, Warning{Ref: c.ref, Err: err})
		case err != nil:
			return nil, warns, err
		case !s.Live():
		case s.OID != c.oid:
			// A newer version that waits too: it takes its own place
			// in the order. Bounded, so a ref rewritten without end
			// cannot keep us here.
			if moves++; moves <= 16 {
				heap.Push(&h, candidate{ref: s.Ref, oid: s.OID, info: infoOf(&s)})
			}
		case ok(&s):
			sc.finish(ctx)
			return &s, warns, nil
		}
		if err := passOver(c); err != nil {
			return nil, warns, err
		}
	}
	sc.finish(ctx)
	return nil, warns, nil
}

// finish writes the head when this run changed it: a record of what it
// listed appended, or the head whole.
func (sc *sharedScan) finish(ctx context.Context) {
	if sc.watch && sc.dirty {
		updateHead(ctx, sc.st, sharedNotePath(sc.st), sc.old, &sc.head)
	}
}
