package refstore

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// objectDB reads a repository's objects in process: loose ones from their
// files, packed ones through each pack's .idx, mapped and binary-searched
// as git does, then go-git's pack scanner and delta patcher on the .pack.
//
// go-git's own object storage decodes a pack's whole index into memory at
// the first read from it, and maps every offset back to its id: with the
// 100,000 records a `git gc` packs, that was 8 ms and 2.8 MB read by every
// start, for one object. Here a read costs the same at any size.
type objectDB struct {
	dir string // the objects directory

	mu     sync.Mutex
	listed bool
	packs  []*pack

	recent recentObjects
}

// errObjectMissing: neither a loose object nor in any pack listed so far.
var errObjectMissing = errors.New("object not found")

// pack is one pack and its index.
type pack struct {
	name   string // the path less ".idx" / ".pack"
	idx    []byte // the mapped .idx
	mapped bool
	n      int // objects in the pack
	file   *os.File
	scan   *packfile.Scanner
}

// rawObject is an object's type and contents; data is nil when size is
// over the limit the caller gave.
type rawObject struct {
	typ  string
	size int64
	data []byte
}

// read returns the object id names, with its data when it is at most limit
// bytes.
func (db *objectDB) read(id string, limit int64) (rawObject, error) {
	if len(id) != 40 || !isHexID(id) {
		return rawObject{}, fmt.Errorf("object %q: not an object id", id)
	}
	if o, ok := db.recent.get(id, limit); ok {
		return o, nil
	}
	o, err := db.loose(id, limit)
	if errors.Is(err, fs.ErrNotExist) {
		db.mu.Lock()
		o, err = db.packed(id, limit, 0)
		db.mu.Unlock()
	}
	if err == nil {
		db.recent.put(id, o)
	}
	return o, err
}

// recentObjects keeps the last few objects read whole, by id: a command
// reads the record it replaces two or three times (to decide, to order
// its version, to report), and an object's id names its bytes for good.
// Each read hands out a copy, so no caller sees another's changes.
type recentObjects struct {
	mu   sync.Mutex
	objs map[string]rawObject
}

// recentMax bounds the cache: a few records, far below a listing's size.
const recentMax = 16

func (r *recentObjects) get(id string, limit int64) (rawObject, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.objs[id]
	if !ok || o.size > limit {
		return rawObject{}, false
	}
	o.data = bytes.Clone(o.data)
	return o, true
}

func (r *recentObjects) put(id string, o rawObject) {
	if o.data == nil || o.size > MaxRecord {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.objs == nil || len(r.objs) >= recentMax {
		r.objs = make(map[string]rawObject, recentMax)
	}
	o.data = bytes.Clone(o.data)
	r.objs[id] = o
}

// reindex makes the next read list the packs again: after a fetch wrote
// one, or gc replaced them.
func (db *objectDB) reindex() {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.closePacks()
}

func (db *objectDB) close() {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.closePacks()
}

func (db *objectDB) closePacks() {
	for _, p := range db.packs {
		if p.mapped {
			unmapFile(p.idx)
		}
		if p.file != nil {
			p.file.Close()
		}
	}
	db.packs, db.listed = nil, false
}

// loose reads objects/xx/yyyy: a zlib stream of "type size\0" and the
// contents.
func (db *objectDB) loose(id string, limit int64) (rawObject, error) {
	f, err := os.Open(filepath.Join(db.dir, id[:2], id[2:]))
	if err != nil {
		return rawObject{}, err
	}
	defer f.Close()
	var in io.Reader = f
	if fi, err := f.Stat(); err == nil && fi.Size() <= storedFileMax {
		b := make([]byte, fi.Size())
		if _, err := io.ReadFull(f, b); err != nil {
			return rawObject{}, fmt.Errorf("loose object %s: %w", id, err)
		}
		if body, ok := zlibStoredBody(b); ok {
			return looseBody(id, body, limit)
		}
		in = bytes.NewReader(b)
	}
	zr, err := zlib.NewReader(bufio.NewReaderSize(in, 4096))
	if err != nil {
		return rawObject{}, fmt.Errorf("loose object %s: %w", id, err)
	}
	defer zr.Close()
	br := bufio.NewReaderSize(zr, 512)
	hdr, err := br.ReadString(0)
	if err != nil {
		return rawObject{}, fmt.Errorf("loose object %s: no header: %w", id, err)
	}
	typ, size, ok := looseHeader(strings.TrimSuffix(hdr, "\x00"))
	if !ok {
		return rawObject{}, fmt.Errorf("loose object %s: bad header %q", id, hdr)
	}
	o := rawObject{typ: typ, size: size}
	if size > limit {
		return o, nil
	}
	o.data = make([]byte, size)
	if _, err := io.ReadFull(br, o.data); err != nil {
		return rawObject{}, fmt.Errorf("loose object %s: %w", id, err)
	}
	// Read to the stream's end, where zlib checks its Adler-32: damaged
	// contents are an error, not other bytes.
	var one [1]byte
	if n, err := br.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("more data than its header says")
		}
		return rawObject{}, fmt.Errorf("loose object %s: %w", id, err)
	}
	return o, nil
}

// storedFileMax is the largest loose object file writeLoose stores
// without deflating: its stream's 11 bytes of framing and storedMax.
const storedFileMax = 2 + 5 + storedMax + 4

// zlibStoredBody returns what a zlib stream of one final stored block
// holds (as writeLoose writes records, see zlibStored), its Adler-32
// checked, without an inflater: setting one up costs more than the rest of
// reading a record. Any other stream is not ok, for zlib to read.
func zlibStoredBody(b []byte) ([]byte, bool) {
	if len(b) < 11 || b[0] != 0x78 || (uint(b[0])<<8|uint(b[1]))%31 != 0 || b[1]&0x20 != 0 || b[2] != 0x01 {
		return nil, false
	}
	n := int(b[3]) | int(b[4])<<8
	if n != ^(int(b[5])|int(b[6])<<8)&0xffff || len(b) != 7+n+4 {
		return nil, false
	}
	body := b[7 : 7+n]
	if adler32.Checksum(body) != binary.BigEndian.Uint32(b[7+n:]) {
		return nil, false
	}
	return body, true
}

// looseHeader parses a loose object's header, "type size" without its NUL.
func looseHeader(h string) (typ string, size int64, ok bool) {
	typ, sz, ok := strings.Cut(h, " ")
	size, err := strconv.ParseInt(sz, 10, 64)
	if !ok || err != nil || size < 0 || objectType(typ) == 0 {
		return "", 0, false
	}
	return typ, size, true
}

// looseBody parses a loose object's inflated bytes: "type size\0" and
// exactly size bytes of contents.
func looseBody(id string, body []byte, limit int64) (rawObject, error) {
	nul := bytes.IndexByte(body, 0)
	if nul < 0 {
		return rawObject{}, fmt.Errorf("loose object %s: no header", id)
	}
	hdr := string(body[:nul])
	typ, size, ok := looseHeader(hdr)
	if !ok || size != int64(len(body)-nul-1) {
		return rawObject{}, fmt.Errorf("loose object %s: bad header %q", id, hdr)
	}
	o := rawObject{typ: typ, size: size}
	if size <= limit {
		o.data = body[nul+1:]
	}
	return o, nil
}

func objectType(s string) plumbing.ObjectType {
	t, err := plumbing.ParseObjectType(s)
	if err != nil || t < plumbing.CommitObject || t > plumbing.TagObject {
		return 0
	}
	return t
}

// packed finds id in the packs (listing them first if need be) and reads
// it. depth counts the ref-delta bases followed, so that a corrupt pack's
// cycle ends.
func (db *objectDB) packed(id string, limit int64, depth int) (rawObject, error) {
	if !db.listed {
		if err := db.list(); err != nil {
			return rawObject{}, err
		}
	}
	var want [20]byte
	if _, err := hex.Decode(want[:], []byte(id)); err != nil {
		return rawObject{}, err
	}
	for _, p := range db.packs {
		if off, ok := p.find(want); ok {
			return db.at(p, off, limit, depth)
		}
	}
	return rawObject{}, fmt.Errorf("object %s: %w", short(id), errObjectMissing)
}

// list maps the index of every pack in objects/pack.
func (db *objectDB) list() error {
	entries, err := os.ReadDir(filepath.Join(db.dir, "pack"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok {
			continue
		}
		path := filepath.Join(db.dir, "pack", name)
		p, err := openPack(path)
		if err != nil {
			// A pack being written (its .idx is renamed into place last,
			// but may be torn on a crash) or removed by gc meanwhile:
			// its objects are elsewhere, or the read falls back to git.
			continue
		}
		db.packs = append(db.packs, p)
	}
	db.listed = true
	return nil
}

// openPack maps path+".idx", a version 2 index: the magic and version, 256
// fan-out counts, then per object its id, CRC and offset (the offsets with
// the top bit set index a table of 64-bit ones), then two checksums.
func openPack(path string) (*pack, error) {
	data, mapped, _, err := mapFile(path + ".idx")
	if err != nil {
		return nil, err
	}
	p := &pack{name: path, idx: data, mapped: mapped}
	bad := func(why string) (*pack, error) {
		if mapped {
			unmapFile(data)
		}
		return nil, fmt.Errorf("%s.idx: %s", path, why)
	}
	if len(data) < 8+256*4+40 || !bytes.Equal(data[:4], []byte("\xfftOc")) || binary.BigEndian.Uint32(data[4:]) != 2 {
		return bad("not a version 2 pack index")
	}
	p.n = int(binary.BigEndian.Uint32(data[8+255*4:]))
	if min := 8 + 256*4 + p.n*(20+4+4) + 40; p.n < 0 || len(data) < min {
		return bad("truncated")
	}
	// The fan-out must only grow: find trusts it for its bounds.
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		f := binary.BigEndian.Uint32(data[8+i*4:])
		if f < prev {
			return bad("fan-out not sorted")
		}
		prev = f
	}
	return p, nil
}

// find binary-searches the ids whose first byte is id[0] (the fan-out
// gives their range) and returns the object's offset in the pack.
func (p *pack) find(id [20]byte) (int64, bool) {
	fan := func(i int) int { return int(binary.BigEndian.Uint32(p.idx[8+i*4:])) }
	lo, hi := 0, fan(int(id[0]))
	if id[0] > 0 {
		lo = fan(int(id[0]) - 1)
	}
	const ids = 8 + 256*4
	// The first eight bytes as a number settle nearly every step of the
	// search without a call (a listing looks up a hundred thousand ids).
	head := binary.BigEndian.Uint64(id[:8])
	for lo < hi {
		mid := lo + (hi-lo)/2
		at := p.idx[ids+mid*20 : ids+mid*20+20]
		c := cmp.Compare(binary.BigEndian.Uint64(at[:8]), head)
		if c == 0 {
			c = bytes.Compare(at[8:], id[8:])
		}
		switch {
		case c == 0:
			return p.offset(mid), true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

func (p *pack) offset(i int) int64 {
	offs := 8 + 256*4 + p.n*24
	o := binary.BigEndian.Uint32(p.idx[offs+i*4:])
	if o&0x80000000 == 0 {
		return int64(o)
	}
	large := offs + p.n*4 + int(o&0x7fffffff)*8
	if large+8 > len(p.idx)-40 {
		return -1
	}
	return int64(binary.BigEndian.Uint64(p.idx[large:]))
}

// maxDeltaChain bounds the bases followed for one object: git's own
// deepest packs (gc --aggressive) chain 250.
const maxDeltaChain = 4096

// at reads the object at off in p, following its delta chain to the base.
// A pack so damaged that the scanner or the patcher panics is an error:
// the caller then asks git, whose message says what is wrong.
func (db *objectDB) at(p *pack, off int64, limit int64, depth int) (o rawObject, err error) {
	defer func() {
		if r := recover(); r != nil {
			o, err = rawObject{}, fmt.Errorf("%s.pack at %d: unreadable: %v", p.name, off, r)
		}
	}()
	if p.file == nil {
		f, err := os.Open(p.name + ".pack")
		if err != nil {
			return rawObject{}, err
		}
		p.file, p.scan = f, packfile.NewScanner(f)
	}
	// The chain, from the object down to its base: each delta's
	// instructions are inflated before the scanner moves on.
	var deltas [][]byte
	for {
		if off <= 0 || len(deltas) > maxDeltaChain || depth > maxDeltaChain {
			return rawObject{}, fmt.Errorf("%s.pack: bad offset or delta chain", p.name)
		}
		h, err := p.scan.SeekObjectHeader(off)
		if err != nil {
			return rawObject{}, fmt.Errorf("%s.pack at %d: %w", p.name, off, err)
		}
		switch h.Type {
		case plumbing.OFSDeltaObject, plumbing.REFDeltaObject:
			var d bytes.Buffer
			if _, _, err := p.scan.NextObject(&d); err != nil {
				return rawObject{}, fmt.Errorf("%s.pack at %d: %w", p.name, off, err)
			}
			deltas = append(deltas, d.Bytes())
			if h.Type == plumbing.OFSDeltaObject {
				off = h.OffsetReference
				continue
			}
			base, err := db.packedOrLoose(h.Reference.String(), depth+1)
			if err != nil {
				return rawObject{}, fmt.Errorf("the base of a delta in %s.pack: %w", p.name, err)
			}
			return patchChain(base, deltas, limit)
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
			o := rawObject{typ: h.Type.String(), size: h.Length}
			if len(deltas) == 0 && h.Length > limit {
				return o, nil
			}
			var b bytes.Buffer
			b.Grow(int(h.Length))
			if _, _, err := p.scan.NextObject(&b); err != nil {
				return rawObject{}, fmt.Errorf("%s.pack at %d: %w", p.name, off, err)
			}
			o.data = b.Bytes()
			return patchChain(o, deltas, limit)
		default:
			return rawObject{}, fmt.Errorf("%s.pack at %d: object type %d", p.name, off, h.Type)
		}
	}
}

// packedOrLoose is a ref-delta's base: in any pack, or loose.
func (db *objectDB) packedOrLoose(id string, depth int) (rawObject, error) {
	if o, err := db.packed(id, 1<<62, depth); err == nil {
		return o, nil
	}
	return db.loose(id, 1<<62)
}

// patchChain applies deltas (the object's first, its base's last) to base.
func patchChain(base rawObject, deltas [][]byte, limit int64) (rawObject, error) {
	data := base.data
	for i := len(deltas) - 1; i >= 0; i-- {
		var err error
		if data, err = packfile.PatchDelta(data, deltas[i]); err != nil {
			return rawObject{}, fmt.Errorf("applying a delta: %w", err)
		}
	}
	if data == nil {
		data = []byte{} // empty, not over the limit
	}
	o := rawObject{typ: base.typ, size: int64(len(data)), data: data}
	if o.size > limit {
		o.data = nil
	}
	return o, nil
}
