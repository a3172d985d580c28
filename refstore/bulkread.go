package refstore

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// bulkReader reads many objects for one listing, in process: the packed
// ones straight from mapped packs, parsing each entry's header itself
// with one zlib reader reset for every stream, the loose ones from their
// files with the same reader. The objects a delta chain passes through
// are kept, up to a byte budget, by their place in the pack, so that a
// chain is resolved once for all the objects that share it (in a pack
// written by fast-import or gc a delta's base is usually the entry just
// before it).
//
// It owns its mappings (objectDB's may be dropped by a reindex while a
// listing runs, from the listing's own callback), and anything it does not
// understand or that does not check out is an error: the listing then
// asks git instead. It never returns bytes whose SHA-1 is not the id asked
// for.
type bulkReader struct {
	dir   string
	packs []*bulkPack

	zr    io.ReadCloser // one zlib reader for every stream (zlib.Resetter)
	src   bytes.Reader
	delta []byte // the inflated instructions of the delta being applied
	loose []byte // a loose object's file
	chain []chainLink
	cache objectCache
	links int // the deltas applied since the cache's budget was last looked at
	// nodes are the places (cacheKey), sorted, of the entries a listing
	// read in pack order passes (plan), and uses counts, by node, the
	// deltas still to be applied onto each: an object is kept while it
	// has some, and let go of at its last. In pack order the cache is
	// keyed by node, found near the last one (near) with no hashing; nil
	// in ref order, where it is keyed by place.
	nodes []uint64
	uses  []int32
	near  int
	sum   hash.Hash
	idSum []byte
	hdr   []byte  // an object's header, for its hash
	one   [1]byte // for the read that must find a stream's end
}

// bulkPack is one pack and its index, both mapped for the listing.
type bulkPack struct {
	*pack
	data       []byte // the mapped .pack
	dataMapped bool
}

// chainLink is a delta met on the way down a chain: its place and where
// its instructions start.
type chainLink struct {
	key  uint64
	p    *bulkPack
	at   int64 // the zlib stream
	size int64 // the instructions' size
}

// Pack entry types.
const (
	objCommit   = 1
	objTree     = 2
	objBlob     = 3
	objTag      = 4
	objOfsDelta = 6
	objRefDelta = 7
)

var typeNames = [...]string{objCommit: "commit", objTree: "tree", objBlob: "blob", objTag: "tag"}

// bulkMaxObject bounds any object the reader inflates, a chain's bases
// included: records are at most MaxRecord, and anything much larger is
// left to git.
const bulkMaxObject = 16 << 20

// The budget for the objects kept for the chains that pass through them.
// Read in pack order, a chain passes by once and little need be kept
// (bulkCachePackOrder). Read in ref order, which in a pack may be any
// order, a listing starts with bulkCacheStart and doubles it, up to
// bulkCacheMax (a sixth of what git's delta base cache may hold), while
// its objects' chains mostly miss: a ref order that follows the pack's,
// as gc writes it, needs little, and every megabyte kept is a megabyte
// more for the caller's collector to keep its heap above.
const (
	bulkCachePackOrder = 1 << 20
	bulkCacheStart     = 1 << 20
	bulkCacheMax       = 16 << 20
)

// errBulk marks what the in-process reader could not do; the caller then
// asks git.
var errBulk = errors.New("in-process read")

func bulkErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBulk, fmt.Sprintf(format, args...))
}

// openBulk maps every pack of the objects directory dir. A repository
// whose objects may be elsewhere (alternates) is not for it.
func openBulk(dir string) (*bulkReader, error) {
	// Not a matter of correctness (every object read is checked against
	// its id, and one not found sends the rest of the listing to git),
	// but of not starting what would end with git anyway.
	if _, err := os.Stat(filepath.Join(dir, "info", "alternates")); err == nil {
		return nil, bulkErr("alternates")
	}
	for _, v := range []string{"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH"} {
		if os.Getenv(v) != "" {
			return nil, bulkErr("%s set", v)
		}
	}
	r := &bulkReader{dir: dir, sum: sha1.New()}
	r.cache.init(bulkCacheStart)
	entries, err := os.ReadDir(filepath.Join(dir, "pack"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok {
			continue
		}
		p, err := openBulkPack(filepath.Join(dir, "pack", name))
		if err != nil {
			r.close()
			return nil, err
		}
		r.packs = append(r.packs, p)
	}
	return r, nil
}

// openBulkPack maps a pack and its index and checks that they belong
// together: the header's count is the index's, and the pack's trailing
// checksum is the one the index names.
func openBulkPack(path string) (*bulkPack, error) {
	p, err := openPack(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errBulk, err)
	}
	bp := &bulkPack{pack: p}
	bp.data, bp.dataMapped, _, err = mapFile(path + ".pack")
	if err != nil {
		bp.close()
		return nil, fmt.Errorf("%w: %w", errBulk, err)
	}
	d := bp.data
	if len(d) < 12+20 || string(d[:4]) != "PACK" || (binary.BigEndian.Uint32(d[4:]) != 2 && binary.BigEndian.Uint32(d[4:]) != 3) ||
		int(binary.BigEndian.Uint32(d[8:])) != p.n || !bytes.Equal(d[len(d)-20:], p.idx[len(p.idx)-40:len(p.idx)-20]) {
		bp.close()
		return nil, bulkErr("%s.pack: not the pack its index describes", path)
	}
	return bp, nil
}

func (bp *bulkPack) close() {
	if bp.mapped {
		unmapFile(bp.idx)
	}
	if bp.dataMapped {
		unmapFile(bp.data)
	}
	bp.idx, bp.data = nil, nil
}

func (r *bulkReader) close() {
	for _, p := range r.packs {
		p.close()
	}
	r.packs = nil
}

// location is where one wanted object is: a pack and an offset in it, or
// loose (p nil).
type location struct {
	p   *bulkPack
	off int64
}

// locate finds id in the packs; loose when no pack has it.
func (r *bulkReader) locate(id *[20]byte) location {
	for _, p := range r.packs {
		if off, ok := p.find(*id); ok {
			return location{p: p, off: off}
		}
	}
	return location{}
}

// read returns the object id names, found at loc, with its data when it
// is at most limit bytes. The data is the reader's: valid until the next
// read.
func (r *bulkReader) read(id *[20]byte, loc location, limit int64) (typ string, size int64, data []byte, err error) {
	var t int
	if loc.p == nil {
		t, data, err = r.readLoose(id)
	} else {
		t, data, err = r.resolve(loc.p, loc.off)
	}
	if err != nil {
		return "", 0, nil, err
	}
	// The id is the proof: whatever the pack's state, bytes that hash
	// to what was asked for are the object.
	r.sum.Reset()
	r.hdr = append(strconv.AppendInt(append(append(r.hdr[:0], typeNames[t]...), ' '), int64(len(data)), 10), 0)
	r.sum.Write(r.hdr)
	r.sum.Write(data)
	r.idSum = r.sum.Sum(r.idSum[:0])
	if !bytes.Equal(r.idSum, id[:]) {
		return "", 0, nil, bulkErr("object %x: contents do not hash to its id", *id)
	}
	size = int64(len(data))
	if size > limit {
		data = nil
	}
	return typeNames[t], size, data, nil
}

// readLoose reads objects/xx/yyyy: a zlib stream of "type size\0" and the
// contents.
func (r *bulkReader) readLoose(id *[20]byte) (int, []byte, error) {
	var name [41]byte
	hex.Encode(name[:], id[:])
	name[2] = '/'
	hex.Encode(name[3:], id[1:])
	path := filepath.Join(r.dir, string(name[:]))
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %w", errBulk, err)
	}
	defer f.Close()
	buf := bytes.NewBuffer(r.loose[:0])
	if _, err := buf.ReadFrom(io.LimitReader(f, bulkMaxObject)); err != nil {
		return 0, nil, fmt.Errorf("%w: %w", errBulk, err)
	}
	r.loose = buf.Bytes()
	zr, err := r.inflater(r.loose)
	if err != nil {
		return 0, nil, bulkErr("loose object %x: %v", *id, err)
	}
	// The header is at most "commit " and 20 digits and a NUL.
	var hdr [32]byte
	n := 0
	for n < len(hdr) {
		if _, err := io.ReadFull(zr, hdr[n:n+1]); err != nil {
			return 0, nil, bulkErr("loose object %x: header: %v", *id, err)
		}
		if hdr[n] == 0 {
			break
		}
		n++
	}
	tname, size, ok := looseHeader(string(hdr[:n]))
	t := slices.Index(typeNames[:], tname)
	if n == len(hdr) || !ok || size > bulkMaxObject || t <= 0 {
		return 0, nil, bulkErr("loose object %x: bad header", *id)
	}
	data := r.cache.alloc(int(size))
	if err := inflateAll(zr, data, r.one[:]); err != nil {
		return 0, nil, bulkErr("loose object %x: %v", *id, err)
	}
	// Kept like a packed object, so that its buffer is used again.
	r.cache.put(looseKey, t, data, false)
	return t, data, nil
}

// looseKey is no place in a pack: the slot the last loose object read
// takes in the cache.
const looseKey = ^uint64(0)

// inflater resets the one zlib reader onto b.
func (r *bulkReader) inflater(b []byte) (io.Reader, error) {
	r.src.Reset(b)
	if r.zr == nil {
		zr, err := zlib.NewReader(&r.src)
		if err != nil {
			return nil, err
		}
		r.zr = zr
		return zr, nil
	}
	if err := r.zr.(zlib.Resetter).Reset(&r.src, nil); err != nil {
		return nil, err
	}
	return r.zr, nil
}

// inflateAll fills dst from zr, which must then be at the end of its
// stream (where zlib checks the stream's checksum).
func inflateAll(zr io.Reader, dst, one []byte) error {
	if _, err := io.ReadFull(zr, dst); err != nil {
		return fmt.Errorf("inflating: %w", err)
	}
	for range 4 {
		n, err := zr.Read(one)
		switch {
		case n > 0:
			return errors.New("inflating: more than the size its header gives")
		case err == io.EOF:
			return nil
		case err != nil:
			return fmt.Errorf("inflating: %w", err)
		}
	}
	return errors.New("inflating: no end to the stream")
}

func cacheKey(packNo int, off int64) uint64 {
	return uint64(packNo)<<48 | uint64(off)
}

// entryHeader parses the entry at off in p: its type, its size (of the
// object, or of a delta's instructions), where its zlib stream starts,
// and a delta's base.
func (r *bulkReader) entryHeader(p *bulkPack, off int64) (t int, size int64, at int64, base location, err error) {
	d := p.data
	end := int64(len(d) - 20) // the trailing checksum
	if off < 12 || off >= end {
		return 0, 0, 0, location{}, bulkErr("%s.pack: offset %d outside the pack", p.name, off)
	}
	pos := off
	c := d[pos]
	pos++
	t = int(c>>4) & 7
	size = int64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if pos >= end || shift > 50 {
			return 0, 0, 0, location{}, bulkErr("%s.pack at %d: bad entry header", p.name, off)
		}
		c = d[pos]
		pos++
		size |= int64(c&0x7f) << shift
	}
	switch t {
	case objCommit, objTree, objBlob, objTag:
	case objOfsDelta:
		if pos >= end {
			return 0, 0, 0, location{}, bulkErr("%s.pack at %d: bad delta base", p.name, off)
		}
		c = d[pos]
		pos++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if pos >= end || rel > 1<<48 {
				return 0, 0, 0, location{}, bulkErr("%s.pack at %d: bad delta base", p.name, off)
			}
			c = d[pos]
			pos++
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		// A base is always earlier in the pack: that also ends a
		// damaged pack's cycle.
		if rel <= 0 || rel > off-12 {
			return 0, 0, 0, location{}, bulkErr("%s.pack at %d: bad delta base", p.name, off)
		}
		base = location{p: p, off: off - rel}
	case objRefDelta:
		if pos+20 > end {
			return 0, 0, 0, location{}, bulkErr("%s.pack at %d: bad delta base", p.name, off)
		}
		var id [20]byte
		copy(id[:], d[pos:pos+20])
		pos += 20
		if base = r.locate(&id); base.p == nil {
			return 0, 0, 0, location{}, bulkErr("%s.pack at %d: delta base %x in no pack", p.name, off, id)
		}
	default:
		return 0, 0, 0, location{}, bulkErr("%s.pack at %d: entry type %d", p.name, off, t)
	}
	if size > bulkMaxObject {
		return 0, 0, 0, location{}, bulkErr("%s.pack at %d: %d bytes", p.name, off, size)
	}
	return t, size, pos, base, nil
}

func (r *bulkReader) packNo(p *bulkPack) int {
	for i, q := range r.packs {
		if q == p {
			return i
		}
	}
	return -1
}

// resolve returns the object whose entry is at off in p: down its delta
// chain to an object kept or whole, then back up applying each delta,
// keeping every object passed.
func (r *bulkReader) resolve(p *bulkPack, off int64) (int, []byte, error) {
	r.chain = r.chain[:0]
	no := r.packNo(p)
	var t int
	var data []byte
	var baseKey uint64 // the key of data
	for k := 0; ; k++ {
		key, err := r.key(no, off, k == 0)
		if err != nil {
			return 0, nil, err
		}
		baseKey = key
		if ct, cd, ok := r.cache.get(key); ok {
			t, data = ct, cd
			break
		}
		et, size, at, base, err := r.entryHeader(p, off)
		if err != nil {
			return 0, nil, err
		}
		if et < objOfsDelta {
			zr, err := r.inflater(p.data[at:])
			if err != nil {
				return 0, nil, bulkErr("%s.pack at %d: %v", p.name, off, err)
			}
			data = r.cache.alloc(int(size))
			if err := inflateAll(zr, data, r.one[:]); err != nil {
				return 0, nil, bulkErr("%s.pack at %d: %v", p.name, off, err)
			}
			t = et
			r.cache.put(key, t, data, r.pinned(key))
			break
		}
		if len(r.chain) >= maxDeltaChain {
			return 0, nil, bulkErr("%s.pack at %d: delta chain too long", p.name, off)
		}
		r.chain = append(r.chain, chainLink{key: key, p: p, at: at, size: size})
		if base.p != p {
			p, no = base.p, r.packNo(base.p)
		}
		off = base.off
	}
	for i := len(r.chain) - 1; i >= 0; i-- {
		l := r.chain[i]
		zr, err := r.inflater(l.p.data[l.at:])
		if err != nil {
			return 0, nil, bulkErr("%s.pack: a delta: %v", l.p.name, err)
		}
		r.delta = slices.Grow(r.delta[:0], int(l.size))[:l.size]
		if err := inflateAll(zr, r.delta, r.one[:]); err != nil {
			return 0, nil, bulkErr("%s.pack: a delta: %v", l.p.name, err)
		}
		n, err := deltaResultSize(r.delta, len(data))
		if err != nil {
			return 0, nil, bulkErr("%s.pack: %v", l.p.name, err)
		}
		out := r.cache.alloc(n)
		if err := applyDelta(out, data, r.delta); err != nil {
			return 0, nil, bulkErr("%s.pack: %v", l.p.name, err)
		}
		r.used(baseKey)
		r.cache.put(l.key, t, out, r.pinned(l.key))
		data, baseKey = out, l.key
	}
	r.links += len(r.chain)
	return t, data, nil
}

// key is the cache's key of the entry at off in the pack numbered no: its
// place (cacheKey) in ref order, its node in pack order, looked for from
// the last one found (the wanted objects come in order, and a base is
// most often just before its delta). first says it is a wanted object,
// not a base: the next one is looked for from it.
func (r *bulkReader) key(no int, off int64, first bool) (uint64, error) {
	place := cacheKey(no, off)
	if r.nodes == nil {
		return place, nil
	}
	i, ok := seek(r.nodes, r.near, place)
	if !ok {
		return 0, bulkErr("%s.pack at %d: an entry the plan did not see", r.packs[no].name, off)
	}
	if first {
		r.near = i
	}
	return uint64(i), nil
}

// seek finds key in the sorted keys, galloping from near in its
// direction: steps of 1, 2, 4… to a range that holds it, then a binary
// search. A key next to near costs a comparison or two.
func seek(keys []uint64, near int, key uint64) (int, bool) {
	if len(keys) == 0 {
		return 0, false
	}
	near = min(max(near, 0), len(keys)-1)
	lo, hi := 0, len(keys) // keys[lo:hi] holds key if any does
	if keys[near] < key {
		lo = near + 1
		for step := 1; lo+step-1 < len(keys); step *= 2 {
			if keys[lo+step-1] >= key {
				hi = lo + step
				break
			}
			lo += step
		}
	} else {
		hi = near + 1
		for step := 1; hi-step >= 0; step *= 2 {
			if keys[hi-step] <= key {
				lo = hi - step
				break
			}
			hi -= step
		}
	}
	i, ok := slices.BinarySearch(keys[lo:hi], key)
	return lo + i, ok
}

// plan reads the headers of the entries at places (cacheKey, sorted) and
// of the chains below them, and makes them the reader's nodes, with the
// deltas to be applied onto each counted: read in pack order, a base is
// applied to long after it was read as often as not (gc writes a delta
// family together, a base first, then each delta's own family), and kept
// by use rather than by recency the objects kept at once are few.
func (r *bulkReader) plan(places []uint64) error {
	// Each entry passed and its base (none for a whole object), in the
	// order met; a chain is followed down to a whole object or to a
	// wanted one, which is followed from itself.
	type link struct{ key, base uint64 }
	const none = ^uint64(0)
	links := make([]link, 0, len(places)+len(places)/8)
	for i, key := range places {
		for range maxDeltaChain {
			no := int(key >> 48)
			t, _, _, base, err := r.entryHeader(r.packs[no], int64(key&(1<<48-1)))
			if err != nil {
				return err
			}
			if t < objOfsDelta {
				links = append(links, link{key, none})
				break
			}
			bk := cacheKey(r.packNo(base.p), base.off)
			links = append(links, link{key, bk})
			if _, wanted := seek(places, i, bk); wanted {
				break
			}
			key = bk
		}
	}
	slices.SortFunc(links, func(a, b link) int { return cmp.Compare(a.key, b.key) })
	links = slices.CompactFunc(links, func(a, b link) bool { return a.key == b.key })
	r.nodes = make([]uint64, len(links))
	for i, l := range links {
		r.nodes[i] = l.key
	}
	r.uses = make([]int32, len(links))
	for i, l := range links {
		if l.base == none {
			continue
		}
		j, ok := seek(r.nodes, i, l.base)
		if !ok {
			// Followed past maxDeltaChain: resolve refuses the chain,
			// and the rest is git's.
			continue
		}
		if r.uses[j] == math.MaxInt32 {
			return bulkErr("a base of too many deltas")
		}
		r.uses[j]++
	}
	r.near = 0
	r.cache.dense = make([]int32, len(r.nodes)+1) // and the last loose object
	return nil
}

// pinned reports whether deltas are still to be applied onto the object
// at key.
func (r *bulkReader) pinned(key uint64) bool {
	return r.uses != nil && r.uses[key] > 0
}

// used counts one delta applied onto the object at key, which the cache
// lets go of after the last.
func (r *bulkReader) used(key uint64) {
	if r.uses == nil || r.uses[key] == 0 {
		return // applied again after its base was let go of: not counted
	}
	r.uses[key]--
	if r.uses[key] == 0 {
		r.cache.drop(key)
	}
}

// deltaVarint reads one of a delta's two leading sizes: seven bits a
// byte, least significant first.
func deltaVarint(d []byte) (int64, int, bool) {
	var v int64
	for i, shift := 0, 0; i < len(d) && shift <= 56; i, shift = i+1, shift+7 {
		v |= int64(d[i]&0x7f) << shift
		if d[i]&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

// deltaResultSize checks a delta's base size against the base's and
// returns the size of what it makes.
func deltaResultSize(delta []byte, baseLen int) (int, error) {
	src, n, ok := deltaVarint(delta)
	if !ok || src != int64(baseLen) {
		return 0, fmt.Errorf("a delta for a base of %d bytes applied to %d", src, baseLen)
	}
	dst, _, ok := deltaVarint(delta[n:])
	if !ok || dst > bulkMaxObject {
		return 0, fmt.Errorf("a delta's result size")
	}
	return int(dst), nil
}

// applyDelta writes into out, which has the size the delta gives, base
// as delta changes it. After the two sizes git's delta is a list of
// instructions: a byte with its top bit set copies a range of the base
// (the low four bits say which offset bytes follow, the next three which
// size bytes; a size of 0 is 0x10000), one without inserts the next that
// many bytes of the delta (0 is reserved). The result must fill out
// exactly.
func applyDelta(out, base, delta []byte) error {
	src, n, ok := deltaVarint(delta)
	if !ok || src != int64(len(base)) {
		return errors.New("a delta's base size is not its base's")
	}
	delta = delta[n:]
	dst, n, ok := deltaVarint(delta)
	if !ok || dst != int64(len(out)) {
		return errors.New("a delta's result size is not the one given")
	}
	delta = delta[n:]
	w := 0
	for len(delta) > 0 {
		c := delta[0]
		delta = delta[1:]
		switch {
		case c&0x80 != 0:
			var off, size uint32
			for i := uint(0); i < 4; i++ {
				if c&(1<<i) != 0 {
					if len(delta) == 0 {
						return errors.New("a delta's copy is cut short")
					}
					off |= uint32(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := uint(0); i < 3; i++ {
				if c&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return errors.New("a delta's copy is cut short")
					}
					size |= uint32(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if size == 0 {
				size = 0x10000
			}
			if uint64(off)+uint64(size) > uint64(len(base)) || int(size) > len(out)-w {
				return errors.New("a delta's copy is out of bounds")
			}
			w += copy(out[w:], base[off:off+size])
		case c != 0:
			if int(c) > len(delta) || int(c) > len(out)-w {
				return errors.New("a delta's insert is out of bounds")
			}
			w += copy(out[w:], delta[:c])
			delta = delta[c:]
		default:
			return errors.New("a delta has the reserved instruction 0")
		}
	}
	if w != len(out) {
		return errors.New("a delta's result is short of its size")
	}
	return nil
}

// objectCache keeps inflated objects by their place in a pack: the
// pinned ones (which deltas are still to be applied onto, plan)
// until they are dropped, up to pinLimit bytes of them, the others most
// recently used first within a byte budget; and it lends the buffers of
// the objects it lets go to the next ones.
type objectCache struct {
	index      map[uint64]int32 // by place, in ref order
	dense      []int32          // by node (looseKey the last), in pack order: 1 + the entry, 0 for none
	ents       []cacheEntry
	head, tail int32 // the unpinned, most and least recently used; -1 when none
	free       []int32
	bytes      int // of the unpinned
	limit      int
	pinBytes   int
	spare      [][]byte
}

// pinLimit bounds the pinned objects: past it a pack's objects are kept
// by recency alone.
const pinLimit = bulkCacheMax

type cacheEntry struct {
	key        uint64
	typ        int
	data       []byte
	prev, next int32
	pinned     bool
}

func (c *objectCache) init(limit int) {
	*c = objectCache{index: make(map[uint64]int32, 1024), head: -1, tail: -1, limit: limit}
}

// lookup finds the entry kept for key.
func (c *objectCache) lookup(key uint64) (int32, bool) {
	if c.dense == nil {
		i, ok := c.index[key]
		return i, ok
	}
	if key == looseKey {
		key = uint64(len(c.dense) - 1)
	}
	i := c.dense[key]
	return i - 1, i > 0
}

// setIndex records entry i as key's, or none when i is -1.
func (c *objectCache) setIndex(key uint64, i int32) {
	switch {
	case c.dense == nil && i < 0:
		delete(c.index, key)
	case c.dense == nil:
		c.index[key] = i
	default:
		if key == looseKey {
			key = uint64(len(c.dense) - 1)
		}
		c.dense[key] = i + 1
	}
}

func (c *objectCache) get(key uint64) (int, []byte, bool) {
	i, ok := c.lookup(key)
	if !ok {
		return 0, nil, false
	}
	if !c.ents[i].pinned {
		c.unlink(i)
		c.pushFront(i)
	}
	return c.ents[i].typ, c.ents[i].data, true
}

func (c *objectCache) unlink(i int32) {
	e := &c.ents[i]
	if e.prev >= 0 {
		c.ents[e.prev].next = e.next
	} else {
		c.head = e.next
	}
	if e.next >= 0 {
		c.ents[e.next].prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = -1, -1
}

func (c *objectCache) pushFront(i int32) {
	e := &c.ents[i]
	e.prev, e.next = -1, c.head
	if c.head >= 0 {
		c.ents[c.head].prev = i
	}
	c.head = i
	if c.tail < 0 {
		c.tail = i
	}
}

// adapt doubles the cache's budget, up to bulkCacheMax, when the last
// objects read (n of them) needed more than two deltas applied each on
// average: their chains were not kept.
func (r *bulkReader) adapt(n int) {
	if r.links > 2*n && r.cache.limit < bulkCacheMax {
		r.cache.limit *= 2
	}
	r.links = 0
}

// alloc returns a buffer of n bytes, making room for it by letting the
// least recently used unpinned objects go; never the most recent, which
// may be the base being applied (a pinned base is not let go of here).
func (c *objectCache) alloc(n int) []byte {
	for c.bytes+n > c.limit && c.tail >= 0 && c.tail != c.head {
		c.evict(c.tail)
	}
	for i := len(c.spare) - 1; i >= 0 && i >= len(c.spare)-4; i-- {
		if b := c.spare[i]; cap(b) >= n {
			c.spare[i] = c.spare[len(c.spare)-1]
			c.spare = c.spare[:len(c.spare)-1]
			return b[:n]
		}
	}
	return make([]byte, n, n+n/8)
}

// evict lets entry i go, its buffer kept for the next alloc.
func (c *objectCache) evict(i int32) {
	e := &c.ents[i]
	if e.pinned {
		c.pinBytes -= cap(e.data)
	} else {
		c.unlink(i)
		c.bytes -= cap(e.data)
	}
	c.setIndex(e.key, -1)
	if len(c.spare) < 64 {
		c.spare = append(c.spare, e.data)
	}
	e.data = nil
	c.free = append(c.free, i)
}

// drop lets the object at key go, if it is kept.
func (c *objectCache) drop(key uint64) {
	if i, ok := c.lookup(key); ok {
		c.evict(i)
	}
}

// put keeps data, from alloc, as the object at key: pinned if pin and
// there is room for it.
func (c *objectCache) put(key uint64, typ int, data []byte, pin bool) {
	if i, ok := c.lookup(key); ok {
		c.evict(i)
	}
	var i int32
	if n := len(c.free); n > 0 {
		i = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		c.ents = append(c.ents, cacheEntry{})
		i = int32(len(c.ents) - 1)
	}
	pin = pin && c.pinBytes+cap(data) <= pinLimit
	c.ents[i] = cacheEntry{key: key, typ: typ, data: data, prev: -1, next: -1, pinned: pin}
	c.setIndex(key, i)
	if pin {
		c.pinBytes += cap(data)
		return
	}
	c.bytes += cap(data)
	c.pushFront(i)
}

// readGuarded is read, the object located first unless located, with a
// fault reading a mapping (a pack or index truncated under the reader) or
// a panic of the reader's (a bug meeting a damaged pack) made an error.
func (r *bulkReader) readGuarded(id *[20]byte, loc location, locate bool, limit int64) (typ string, size int64, data []byte, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			typ, size, data, err = "", 0, nil, bulkErr("object %x: %v", *id, v)
		}
	}()
	if locate {
		loc = r.locate(id)
	}
	return r.read(id, loc, limit)
}
