package baton

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// What Eligible needs of a shared baton (waiting or not, its order, the ref
// it belongs at) is kept per blob id in a note under the common git dir, so
// a start decodes only the blobs it has not seen before instead of every
// shared baton. A blob's id names its content, so an entry is never stale:
// a claim or a sync that moves a ref gives it a new id, which the note does
// not know yet and which is decoded. The note only orders the candidates:
// the one delivered is always re-read from its ref and decoded, so even a
// wrong note cannot hand out a claimed baton. A note that is missing, torn
// or fails its checksum is ignored and written again.

const sharedNoteMagic = "git-handoff shared batons v1\n"

// bulkDecode: with more unknown blobs than this, one `git for-each-ref`
// streaming every shared blob is cheaper than reading them one by one.
const bulkDecode = 256

// sharedInfo is a decoded shared baton, reduced to what ordering needs.
type sharedInfo struct {
	live    bool
	created time.Time
	id      string
	home    string // the ref it belongs at, less refstore.SharedPrefix
}

func infoOf(s *Stored) sharedInfo {
	return sharedInfo{live: s.Live(), created: s.CreatedAt, id: s.ID, home: strings.TrimPrefix(s.Ref, refstore.SharedPrefix)}
}

func sharedNotePath(st *refstore.Store) string {
	return filepath.Join(st.CommonDir(), "handoff", "shared-batons")
}

// readSharedNote reads the note; anything unreadable is an empty note.
func readSharedNote(path string) map[string]sharedInfo {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < len(sharedNoteMagic)+4 || !bytes.HasPrefix(b, []byte(sharedNoteMagic)) {
		return map[string]sharedInfo{}
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return map[string]sharedInfo{}
	}
	r := body[len(sharedNoteMagic):]
	n, r, ok := uvarint(r)
	if !ok || n > uint64(len(r)) {
		return map[string]sharedInfo{}
	}
	out := make(map[string]sharedInfo, n)
	for len(r) > 0 {
		var oid, id, home string
		var sec int64
		var nsec uint64
		if oid, r, ok = str(r); !ok || len(r) == 0 {
			return map[string]sharedInfo{}
		}
		live := r[0] == 1
		r = r[1:]
		if home, r, ok = str(r); !ok {
			return map[string]sharedInfo{}
		}
		info := sharedInfo{live: live, home: home}
		if live {
			if sec, r, ok = varint(r); !ok {
				return map[string]sharedInfo{}
			}
			if nsec, r, ok = uvarint(r); !ok || nsec >= 1e9 {
				return map[string]sharedInfo{}
			}
			if id, r, ok = str(r); !ok {
				return map[string]sharedInfo{}
			}
			info.created, info.id = time.Unix(sec, int64(nsec)).UTC(), id
		}
		out[oid] = info
	}
	return out
}

func uvarint(b []byte) (uint64, []byte, bool) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, b, false
	}
	return v, b[n:], true
}

func varint(b []byte) (int64, []byte, bool) {
	v, n := binary.Varint(b)
	if n <= 0 {
		return 0, b, false
	}
	return v, b[n:], true
}

func str(b []byte) (string, []byte, bool) {
	n, r, ok := uvarint(b)
	if !ok || n > uint64(len(r)) {
		return "", b, false
	}
	return string(r[:n]), r[n:], true
}

// writeSharedNote replaces the note, whole. Failing to is no error: the
// next start decodes again.
func writeSharedNote(ctx context.Context, st *refstore.Store, path string, m map[string]sharedInfo) {
	oids := make([]string, 0, len(m))
	for oid := range m {
		oids = append(oids, oid)
	}
	sort.Strings(oids)
	b := make([]byte, 0, len(sharedNoteMagic)+len(m)*96)
	b = append(b, sharedNoteMagic...)
	b = binary.AppendUvarint(b, uint64(len(m)))
	putStr := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, oid := range oids {
		info := m[oid]
		putStr(oid)
		if info.live {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		putStr(info.home)
		if info.live {
			b = binary.AppendVarint(b, info.created.Unix())
			b = binary.AppendUvarint(b, uint64(info.created.Nanosecond()))
			putStr(info.id)
		}
	}
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	_ = st.WriteNote(ctx, path, b)
}

// candidate is a waiting shared baton as the note or a decode saw it.
type candidate struct {
	ref, oid string
	info     sharedInfo
}

// sharedCandidates returns the shared batons that were waiting when their
// refs were listed, and the warnings for unreadable ones (in
// ref order), decoding only blobs the note does not know.
func sharedCandidates(ctx context.Context, st *refstore.Store) ([]candidate, []Warning, error) {
	path := sharedNotePath(st)
	known := readSharedNote(path)
	ids, err := st.RefIDs(ctx, refstore.SharedPrefix)
	if err != nil {
		return nil, nil, err
	}
	unknown := 0
	for _, r := range ids {
		if info, ok := known[r.OID]; !ok || r.OID == "" || refstore.SharedPrefix+info.home != r.Ref {
			unknown++
		}
	}
	var cands []candidate
	var warns []Warning
	seen := make(map[string]sharedInfo, len(ids))
	added := 0
	take := func(ref, oid string, info sharedInfo) {
		seen[oid] = info
		if info.live {
			cands = append(cands, candidate{ref: ref, oid: oid, info: info})
		}
	}
	decoded := func(e refstore.Entry) error {
		s, err := Decode(e)
		if err != nil {
			warns = append(warns, Warning{Ref: e.Ref, Err: err})
			return nil
		}
		if _, ok := known[e.OID]; !ok {
			added++
		}
		take(e.Ref, e.OID, infoOf(&s))
		return nil
	}
	if unknown > bulkDecode {
		// Many new blobs (the first start, or after a large fetch): stream
		// them all through one git process, decoding only the unknown.
		err = st.Each(ctx, refstore.SharedPrefix, func(e refstore.Entry) error {
			if info, ok := known[e.OID]; ok && refstore.SharedPrefix+info.home == e.Ref {
				take(e.Ref, e.OID, info)
				return nil
			}
			return decoded(e)
		})
	} else {
		for _, r := range ids {
			if info, ok := known[r.OID]; ok && r.OID != "" && refstore.SharedPrefix+info.home == r.Ref {
				take(r.Ref, r.OID, info)
				continue
			}
			e, gerr := st.Get(ctx, r.Ref)
			switch {
			case errors.Is(gerr, refstore.ErrNotFound):
				continue // gone since it was listed
			case gerr != nil && !isBadRecord(gerr):
				return nil, warns, gerr
			case gerr != nil:
				warns = append(warns, Warning{Ref: r.Ref, Err: gerr})
				continue
			}
			if err := decoded(e); err != nil {
				return nil, warns, err
			}
		}
	}
	if err != nil {
		return nil, warns, err
	}
	// Rewrite the note when it learnt something, or when it holds many
	// blobs no ref names any more; keep only what the refs name now.
	if added > 0 || len(known) > 2*len(seen)+64 {
		writeSharedNote(ctx, st, path, seen)
	}
	return cands, warns, nil
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
// waits too.
func newestShared(ctx context.Context, st *refstore.Store, ok func(*Stored) bool, warns []Warning) (*Stored, []Warning, error) {
	cands, w, err := sharedCandidates(ctx, st)
	warns = append(warns, w...)
	if err != nil {
		return nil, warns, err
	}
	h := byNewest(cands)
	heap.Init(&h)
	moves := 0
	for h.Len() > 0 {
		c := heap.Pop(&h).(candidate)
		s, err := Read(ctx, st, c.ref)
		switch {
		case errors.Is(err, refstore.ErrNotFound):
			continue
		case err != nil && isBadRecord(err):
			warns = append(warns, Warning{Ref: c.ref, Err: err})
			continue
		case err != nil:
			return nil, warns, err
		case !s.Live():
			continue
		case s.OID != c.oid:
			// A newer version that waits too: it takes its own place
			// in the order. Bounded, so a ref rewritten without end
			// cannot keep us here.
			if moves++; moves > 16 {
				continue
			}
			heap.Push(&h, candidate{ref: s.Ref, oid: s.OID, info: infoOf(&s)})
			continue
		}
		if ok(&s) {
			return &s, warns, nil
		}
	}
	return nil, warns, nil
}
