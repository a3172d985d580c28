package refstore

import (
	"cmp"
	"context"
	"runtime"
	"runtime/debug"
	"slices"
)

// bulkList hands fn the entries of ids, listed by RefIDs, their objects
// read in process by a bulkReader, each with its place in ids: in ref
// order, or with packOrder in the order the objects lie in their packs.
// It returns which entries fn was given (a bit per place). An error
// wrapping errBulk is the reader's, and the entries fn was not given are
// for git; any other is fn's or ctx's. Each entry fn has seen is cleared
// in ids, as readBatch does.
//
// With a second processor, one goroutine reads (inflates, applies deltas,
// hashes) while the caller's decodes what it read before: the objects are
// copied into a few batches handed back and forth.
func (s *Store) bulkList(ctx context.Context, ids []RefID, packOrder bool, fn func(int, Entry) error) (delivered []uint64, err error) {
	if s.objects == nil {
		return nil, bulkErr("objects not read in process")
	}
	r, err := openBulk(s.objects.dir)
	if err != nil {
		return nil, err
	}
	defer r.close()
	var order []bulkWanted
	if packOrder {
		if order, err = r.packOrder(ids); err != nil {
			return nil, err
		}
	}
	delivered = make([]uint64, (len(ids)+63)/64)
	give := func(n int, typ string, size int64, data []byte) error {
		if data == nil && size <= MaxRecord {
			data = []byte{} // empty, not over the limit
		}
		e := Entry{Ref: ids[n].Ref, OID: ids[n].OID, Type: typ, Size: size, Data: data}
		delivered[n/64] |= 1 << (n % 64)
		ids[n] = RefID{}
		return fn(n, e)
	}
	if len(ids) < bulkPipelineMin || runtime.GOMAXPROCS(0) < 2 {
		var ferr error
		err := r.produce(ctx, ids, order, func(n int, typ string, size int64, data []byte) bool {
			ferr = give(n, typ, size, data)
			return ferr == nil
		})
		if ferr != nil {
			return delivered, ferr
		}
		return delivered, err
	}
	return delivered, r.pipeline(ctx, ids, order, give)
}

// bulkPipelineMin is the listing below which reading beside the caller
// is not worth a goroutine.
const bulkPipelineMin = 512

// bulkWanted is one object of a listing read in pack order: its pack
// (its place in r.packs, or len(r.packs) for loose) and offset, its place
// in ref order, and its id, decoded once (read in pack order, the ids'
// text would be gone to again in an order of no use to the caches).
type bulkWanted struct {
	key uint64 // pack<<48 | offset, which sorts by both
	n   int32
	id  [20]byte
}

// packOrder locates every object of ids and sorts them by pack and
// offset; then the packs' indexes are let go of (dropPages), their part
// done.
func (r *bulkReader) packOrder(ids []RefID) (ws []bulkWanted, err error) {
	// The indexes and packs are read here too: a fault is an error.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			ws, err = nil, bulkErr("%v", v)
		}
	}()
	ws = make([]bulkWanted, len(ids))
	for i, id := range ids {
		w := &ws[i]
		if err := decodeID(&w.id, id); err != nil {
			return nil, err
		}
		w.key, w.n = uint64(len(r.packs))<<48, int32(i)
		if loc := r.locate(&w.id); loc.p != nil {
			w.key = cacheKey(r.packNo(loc.p), loc.off)
		}
	}
	slices.SortFunc(ws, func(a, b bulkWanted) int { return cmp.Compare(a.key, b.key) })
	// In pack order a chain passes by once, a base before its deltas:
	// what is kept is what deltas still to come are applied onto.
	r.cache.init(bulkCachePackOrder)
	places := make([]uint64, 0, len(ws))
	for _, w := range ws {
		if int(w.key>>48) < len(r.packs) { // the loose ones come last
			places = append(places, w.key)
		}
	}
	if err := r.plan(slices.Compact(places)); err != nil {
		return nil, err
	}
	for _, p := range r.packs {
		if p.mapped {
			dropPages(p.idx)
		}
		if p.dataMapped {
			dropPages(p.data) // read again in order, and let go of as it goes
		}
	}
	return ws, nil
}

func decodeID(want *[20]byte, id RefID) error {
	if len(id.OID) != 40 {
		return bulkErr("%s: no object id", id.Ref) // symbolic: git resolves it
	}
	// By hand: hex.Decode would want the string copied into bytes first.
	for i := range want {
		hi, lo := unhex(id.OID[2*i]), unhex(id.OID[2*i+1])
		if hi > 15 || lo > 15 {
			return bulkErr("%s: %q is not an object id", id.Ref, id.OID)
		}
		want[i] = hi<<4 | lo
	}
	return nil
}

func unhex(c byte) byte { return unhexTable[c] }

// unhexTable is each byte's value as a hex digit, 255 for none.
var unhexTable = func() (t [256]byte) {
	for i := range t {
		t[i] = 255
	}
	for i := byte(0); i < 10; i++ {
		t['0'+i] = i
	}
	for i := byte(0); i < 6; i++ {
		t['a'+i], t['A'+i] = 10+i, 10+i
	}
	return t
}()

// produce reads the objects of ids, in order's order or else in ref
// order, and hands each to emit until emit says stop. In pack order the
// pages of each pack the reading has passed are let go of as it goes: a
// base is rarely far behind its delta, and one that is is read again from
// the page cache.
//
// Reads of the mappings happen in readGuarded, where a fault is an error;
// a panic of emit's (the caller's fn, when not pipelined) is the caller's.
func (r *bulkReader) produce(ctx context.Context, ids []RefID, order []bulkWanted, emit func(n int, typ string, size int64, data []byte) bool) error {
	const dropEvery, dropBehind = 1 << 20, 256 << 10
	dropped, droppedPack := int64(0), -1
	for k := range ids {
		if k&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if order == nil {
				r.adapt(1024)
			}
		}
		n := k
		var want [20]byte
		var loc location
		if order != nil {
			w := &order[k]
			n, want = int(w.n), w.id
			if no := int(w.key >> 48); no < len(r.packs) {
				loc = location{p: r.packs[no], off: int64(w.key & (1<<48 - 1))}
				if no != droppedPack {
					dropped, droppedPack = 0, no
				}
				if loc.p.dataMapped && loc.off-dropped > dropEvery+dropBehind {
					dropPages(loc.p.data[:loc.off-dropBehind])
					dropped = loc.off - dropBehind
				}
			}
		}
		if order == nil {
			if err := decodeID(&want, ids[n]); err != nil {
				return err
			}
		}
		typ, size, data, err := r.readGuarded(&want, loc, order == nil, MaxRecord)
		if err != nil {
			return err
		}
		if !emit(n, typ, size, data) {
			return nil
		}
	}
	return nil
}

// bulkBatch is objects read and copied out of the reader's buffers, on
// their way to the caller's goroutine; err ends the reading.
type bulkBatch struct {
	items []bulkItem
	buf   []byte
	err   error
}

type bulkItem struct {
	n      int32
	typ    string
	size   int64
	lo, hi int32 // the data in buf; hi < 0 for none
}

// pipeline is produce in a goroutine of its own, give called on the
// caller's for each object read. The goroutine has ended when pipeline
// returns: the reader's mappings may then go.
func (r *bulkReader) pipeline(ctx context.Context, ids []RefID, order []bulkWanted, give func(n int, typ string, size int64, data []byte) error) error {
	// Batches of a thousand records: with 128, a listing of 100,000
	// handed over 780 batches, each a wake-up of the other goroutine's
	// thread (the scheduler's futexes and spinning, 1–2% of the CPU);
	// three of 256 KB are little memory.
	const batches, batchItems, batchBytes = 3, 1024, 256 << 10
	full := make(chan *bulkBatch, batches)
	free := make(chan *bulkBatch, batches)
	stop := make(chan struct{})
	for range batches {
		free <- &bulkBatch{items: make([]bulkItem, 0, batchItems), buf: make([]byte, 0, batchBytes+4<<10)}
	}
	go func() {
		defer close(full)
		b := <-free
		var err error
		defer func() {
			// A bug of the reader's, here where nothing would catch it:
			// the rest of the listing is git's.
			if v := recover(); v != nil && b != nil {
				b.err = bulkErr("%v", v)
				select {
				case full <- b:
				case <-stop:
				}
			}
		}()
		err = r.produce(ctx, ids, order, func(n int, typ string, size int64, data []byte) bool {
			it := bulkItem{n: int32(n), typ: typ, size: size, lo: int32(len(b.buf)), hi: -1}
			if data != nil {
				b.buf = append(b.buf, data...)
				it.hi = int32(len(b.buf))
			}
			b.items = append(b.items, it)
			if len(b.items) < batchItems && len(b.buf) < batchBytes {
				return true
			}
			select {
			case <-stop: // the caller has stopped: fill no more batches
				return false
			default:
			}
			select {
			case full <- b:
				b = nil // the caller's now
			case <-stop:
				return false
			}
			select {
			case b = <-free:
			case <-stop:
				return false
			}
			b.items, b.buf = b.items[:0], b.buf[:0]
			return true
		})
		if b == nil {
			return // stopped by the caller between batches
		}
		b.err = err
		select {
		case full <- b:
		case <-stop:
		}
	}()
	var err error
	for b := range full {
		if err != nil {
			continue // draining: the goroutine is stopping
		}
		for _, it := range b.items {
			var data []byte
			if it.hi >= 0 {
				data = b.buf[it.lo:it.hi:it.hi]
			}
			if err = give(int(it.n), it.typ, it.size, data); err != nil {
				break
			}
		}
		if err == nil {
			err = b.err
		}
		if err != nil {
			close(stop)
			continue
		}
		free <- b
	}
	return err
}

// undelivered is the entries of ids bulkList did not give, in ref order,
// with their places.
func undelivered(ids []RefID, delivered []uint64) ([]RefID, []int) {
	var rest []RefID
	var places []int
	for i := range ids {
		if delivered == nil || delivered[i/64]&(1<<(i%64)) == 0 {
			rest = append(rest, ids[i])
			places = append(places, i)
		}
	}
	return rest, places
}
