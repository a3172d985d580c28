package baton

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/git-handoff/git-handoff/refstore"
)

// The head is its magic and then records, each checksummed on its own, as
// a directory's note is: the first states every directory, each later one
// what one start listed again (and the directories that went), with the
// packed-refs stamp and sum that start held. A start that listed one
// directory of a hundred appends a record of one, not the head rewritten
// (a new file and a rename, the dearer part of a start at 100,000 shared
// batons).
//
// A later record wins for each directory it names; the packed-refs fields
// are the last record's, and a directory stated under another sum than
// the last record's is dropped, to be listed again: what it said of its
// packed refs is of another packed-refs. Appends race harmlessly: each
// directory's entry names the stamp it was listed under, so an older
// entry landing last only makes the next start list that directory
// again. A record that is torn or fails its checksum ends the head there.

// headRecord kinds.
const (
	headWhole  = 0
	headUpdate = 1
)

// readHead reads the head; ok is false when its first record is
// unreadable.
func readHead(path string) (sharedHead, bool) {
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte(headMagic)) {
		return sharedHead{}, false
	}
	b = b[len(headMagic):]
	var h sharedHead
	var names joiner
	// Each directory's latest entry, and the sum it was stated under.
	type stated struct {
		u   *sharedDir
		sum uint64
	}
	byDir := map[string]stated{}
	read := 0
	for first := true; len(b) > 0; first = false {
		body, rest, ok := nextRecord(b)
		if !ok {
			break
		}
		b = rest
		d := &dec{b: body}
		if kind := d.uint(); first != (kind == headWhole) || kind > headUpdate {
			break
		}
		g := sharedHead{watched: d.uint() == 1, packed: d.stamp(), sum: d.uint()}
		// One allocation for the record's directories and one (mostly)
		// for their candidates, not one each.
		slab := make([]sharedDir, d.count())
		dirs := make([]*sharedDir, 0, len(slab))
		cands := make([]candidate, 0, len(slab)*topN)
		for i := range slab {
			if d.bad {
				break
			}
			cands = readHeadDir(d, &names, &slab[i], cands)
			dirs = append(dirs, &slab[i])
		}
		var gone []string
		for i := d.count(); i > 0 && !d.bad; i-- {
			gone = append(gone, names.join(refstore.SharedPrefix, d.str()))
		}
		if d.bad || len(d.b) != 0 {
			// Checksummed and still wrong: written wrong. Believe none
			// of the head.
			return sharedHead{}, false
		}
		read++
		h.watched, h.packed, h.sum = g.watched, g.packed, g.sum
		for _, u := range dirs {
			byDir[u.dir] = stated{u, g.sum}
			h.records++
		}
		for _, dir := range gone {
			delete(byDir, dir)
			h.records++
		}
	}
	if read == 0 {
		return sharedHead{}, false
	}
	h.whole = len(b) == 0
	for _, e := range byDir {
		if e.sum == h.sum {
			h.dirs = append(h.dirs, e.u)
		}
	}
	slices.SortFunc(h.dirs, func(a, b *sharedDir) int { return strings.Compare(a.dir, b.dir) })
	return h, true
}

// readHeadDir reads one directory's entry into u, its candidates appended
// to cands (u.top is their part of it), and returns cands.
func readHeadDir(d *dec, t *joiner, u *sharedDir, cands []candidate) []candidate {
	*u = sharedDir{dir: t.join(refstore.SharedPrefix, d.str()), stamp: d.stamp(), live: int(d.uint())}
	start := len(cands)
	for k := d.count(); k > 0 && !d.bad; k-- {
		ref := t.join(u.dir, d.str())
		oid := d.str()
		cands = append(cands, candidate{ref: ref, oid: oid, info: d.info(), dir: u.dir})
	}
	if len(cands) > start {
		u.top = cands[start:len(cands):len(cands)]
	}
	for k := d.count(); k > 0 && !d.bad; k-- {
		u.reread = append(u.reread, t.join(u.dir, d.str()))
	}
	return cands
}

// joiner makes the head's ref names, a directory and a name each, in
// shared blocks: a head of a hundred directories holds four hundred.
type joiner struct{ buf []byte }

func (j *joiner) join(a, b string) string {
	n := len(a) + len(b)
	if cap(j.buf)-len(j.buf) < n {
		j.buf = make([]byte, 0, max(16<<10, n))
	}
	start := len(j.buf)
	j.buf = append(append(j.buf, a...), b...)
	// Only ever appended to past this: the bytes stay as they are.
	return unsafe.String(&j.buf[start], n)
}

// headRecord encodes one record: h's packed-refs fields, dirs, and the
// directories gone.
func headRecord(kind uint64, h *sharedHead, dirs []*sharedDir, gone []string) []byte {
	e := &enc{b: make([]byte, 0, 64+len(dirs)*160)}
	e.uint(kind)
	if h.watched {
		e.uint(1)
	} else {
		e.uint(0)
	}
	e.stamp(h.packed)
	e.uint(h.sum)
	e.uint(uint64(len(dirs)))
	for _, u := range dirs {
		e.str(strings.TrimPrefix(u.dir, refstore.SharedPrefix))
		e.stamp(u.stamp)
		e.uint(uint64(u.live))
		e.uint(uint64(len(u.top)))
		for _, c := range u.top {
			e.str(strings.TrimPrefix(c.ref, u.dir))
			e.str(c.oid)
			e.info(c.info)
		}
		e.uint(uint64(len(u.reread)))
		for _, r := range u.reread {
			e.str(strings.TrimPrefix(r, u.dir))
		}
	}
	e.uint(uint64(len(gone)))
	for _, dir := range gone {
		e.str(strings.TrimPrefix(dir, refstore.SharedPrefix))
	}
	return appendRecord(nil, e.b)
}

// writeHead replaces the head, whole. Failing to is no error: the next
// start lists again.
func writeHead(ctx context.Context, st *refstore.Store, path string, h *sharedHead) {
	_ = st.WriteCheckedNote(ctx, path, append([]byte(headMagic), headRecord(headWhole, h, h.dirs, nil)...))
}

// updateHead brings the head (read as old, nil when unreadable) to h: by
// a record of the directories this start listed and those gone, or, when
// the old one was damaged, the sum of packed-refs' shared range moved
// (every directory was listed) or the records have grown well past the
// directories, whole.
func updateHead(ctx context.Context, st *refstore.Store, path string, old, h *sharedHead) {
	if old == nil || !old.whole || old.sum != h.sum || !old.watched || !h.watched {
		writeHead(ctx, st, path, h)
		return
	}
	var listed []*sharedDir
	now := make(map[string]bool, len(h.dirs))
	for _, u := range h.dirs {
		now[u.dir] = true
		if u.listed {
			listed = append(listed, u)
		}
	}
	var gone []string
	for _, u := range old.dirs {
		if !now[u.dir] {
			gone = append(gone, u.dir)
		}
	}
	// Every record read costs each start: half again the directories
	// at most, then whole (at a hundred directories, one start in sixty).
	if old.records+len(listed)+len(gone) > len(h.dirs)+len(h.dirs)/2+16 {
		writeHead(ctx, st, path, h)
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		writeHead(ctx, st, path, h)
		return
	}
	_, err = f.Write(headRecord(headUpdate, h, listed, gone))
	if cerr := f.Close(); err != nil || cerr != nil {
		writeHead(ctx, st, path, h)
	}
}
