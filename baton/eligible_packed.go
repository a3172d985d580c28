package baton

import (
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/git-handoff/git-handoff/refstore"
)

// What a directory's packed refs decoded to is kept apart from its loose
// ones, in shared-batons.d/<hash>.packed, under the sum of packed-refs'
// shared range it was read from. packed-refs changes only by a rewrite
// whose sum the head already checks, so while that sum holds, a directory
// whose loose files changed is listed by its loose files alone: at a
// thousand packed shared batons of one owner and a few loose ones, a
// teammate's new baton costs a stat of those few, not of a thousand.
//
// The note is a header and then the entries in checksummed chunks: the
// waiting batons first, newest first, then the others (unreadable ones in
// the header, read again every time). A start reads the header and the
// first chunk, and walks on only past the packed batons that a loose ref
// of the same name hides, or when it needs every waiting one.

const packedMagic = "git-handoff shared baton packed v1\n"

// packedChunk: entries per checksummed chunk.
const packedChunk = 32

// packedFirstRead: how much of a note the first read takes; the header
// and a chunk fit in it unless names are very long.
const packedFirstRead = 8 << 10

func packedNotePath(st *refstore.Store, dir string) string {
	return dirNotePath(st, dir) + ".packed"
}

// packedNote reads a packed note chunk by chunk.
type packedNote struct {
	dir     string
	sum     uint64
	total   int      // packed refs directly in the directory
	live    int      // of them waiting
	reread  []string // unreadable ones, full ref names
	f       *os.File // open until the last chunk is read
	buf     []byte   // read, not yet parsed
	ents    []dirEntry
	next    int // index in ents of the next entry walk gives
	ended   bool
	damaged bool
}

// readPackedNote opens the note of dir and reads its header; nil for a
// note that is missing, of another directory or damaged.
func readPackedNote(path, dir string) *packedNote {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	n := &packedNote{dir: dir, f: f}
	buf := make([]byte, packedFirstRead)
	k, err := io.ReadFull(f, buf)
	switch err {
	case nil:
	case io.ErrUnexpectedEOF, io.EOF:
		n.closeFile()
	default:
		n.closeFile()
		return nil
	}
	n.buf = buf[:k]
	hdr := &enc{b: []byte(packedMagic)}
	hdr.str(dir)
	if !bytes.HasPrefix(n.buf, hdr.b) {
		n.closeFile()
		return nil
	}
	n.buf = n.buf[len(hdr.b):]
	body, ok := n.chunk()
	if !ok {
		n.closeFile()
		return nil
	}
	d := &dec{b: body}
	n.sum, n.total, n.live = d.uint(), int(d.uint()), int(d.uint())
	for k := d.count(); k > 0 && !d.bad; k-- {
		n.reread = append(n.reread, dir+d.str())
	}
	if d.bad || len(d.b) != 0 || n.live > n.total {
		n.closeFile()
		return nil
	}
	return n
}

func (n *packedNote) closeFile() {
	if n.f != nil {
		n.f.Close()
		n.f = nil
	}
}

// chunk takes the next checksummed chunk from buf, reading the rest of
// the file first when buf does not hold it whole.
func (n *packedNote) chunk() ([]byte, bool) {
	for {
		if rec, rest, ok := splitRecord(n.buf); ok {
			n.buf = rest
			return recordBody(rec)
		}
		if n.f == nil || !n.readRest() {
			return nil, false
		}
	}
}

// readRest reads what is left of the file after the first read.
func (n *packedNote) readRest() bool {
	rest, err := io.ReadAll(n.f)
	n.closeFile()
	n.buf = append(n.buf, rest...)
	return err == nil
}

// walk returns the next entry of the note (waiting ones first, newest
// first); ok is false at the end or on damage (then damaged is set).
func (n *packedNote) walk() (dirEntry, bool) {
	for n.next == len(n.ents) {
		if n.ended || n.damaged {
			return dirEntry{}, false
		}
		if len(n.buf) == 0 && n.f != nil && !n.readRest() {
			n.fail()
			return dirEntry{}, false
		}
		if len(n.buf) == 0 {
			n.ended = true
			n.check()
			return dirEntry{}, false
		}
		body, ok := n.chunk()
		if !ok {
			n.fail()
			return dirEntry{}, false
		}
		d := &dec{b: body}
		for c := d.count(); c > 0 && !d.bad; c-- {
			ref := refstore.DirRef{Ref: n.dir + d.str(), OID: d.str()}
			n.ents = append(n.ents, dirEntry{ref: ref, info: d.maybeInfo()})
		}
		if d.bad || len(d.b) != 0 {
			n.fail()
			return dirEntry{}, false
		}
	}
	e := n.ents[n.next]
	n.next++
	return e, true
}

// check marks the note damaged when what it held is not what its header
// counted.
func (n *packedNote) check() {
	live := 0
	for _, e := range n.ents {
		if e.info.live {
			live++
		}
	}
	if len(n.ents) != n.total || live != n.live {
		n.fail()
	}
}

func (n *packedNote) fail() {
	n.damaged = true
	n.closeFile()
}

// all reads the rest of the note and returns every entry; ok is false
// for a damaged note.
func (n *packedNote) all() ([]dirEntry, bool) {
	for {
		if _, ok := n.walk(); !ok {
			break
		}
	}
	return n.ents, !n.damaged
}

// packedNoteOf is the note writePackedNote writes of ents, as read back.
func packedNoteOf(dir string, sum uint64, ents []dirEntry, reread []string) *packedNote {
	ordered := slices.Clone(ents)
	slices.SortFunc(ordered, func(a, b dirEntry) int {
		switch {
		case a.info.live != b.info.live:
			if a.info.live {
				return -1
			}
			return 1
		case !a.info.live:
			return strings.Compare(a.ref.Ref, b.ref.Ref)
		}
		ca := candidate{info: a.info}
		cb := candidate{info: b.info}
		switch {
		case ca.newer(&cb):
			return -1
		case cb.newer(&ca):
			return 1
		}
		return strings.Compare(a.ref.Ref, b.ref.Ref)
	})
	live := 0
	for _, e := range ents {
		if e.info.live {
			live++
		}
	}
	return &packedNote{dir: dir, sum: sum, total: len(ents), live: live, reread: reread, ents: ordered, ended: true}
}

// writePackedNote replaces the packed note of n.dir with n, made by
// packedNoteOf. Failing is no error: the next listing decodes again.
func writePackedNote(ctx context.Context, st *refstore.Store, path string, n *packedNote) {
	if n.total == 0 && len(n.reread) == 0 {
		os.Remove(path)
		return
	}
	dir := n.dir
	out := &enc{b: []byte(packedMagic)}
	out.str(dir)
	h := &enc{}
	h.uint(n.sum)
	h.uint(uint64(n.total))
	h.uint(uint64(n.live))
	h.uint(uint64(len(n.reread)))
	for _, r := range n.reread {
		h.str(strings.TrimPrefix(r, dir))
	}
	out.b = appendRecord(out.b, h.b)
	for lo := 0; lo < len(n.ents); lo += packedChunk {
		c := &enc{}
		part := n.ents[lo:min(lo+packedChunk, len(n.ents))]
		c.uint(uint64(len(part)))
		for _, e := range part {
			c.str(strings.TrimPrefix(e.ref.Ref, dir))
			c.str(e.ref.OID)
			c.maybeInfo(e.info)
		}
		out.b = appendRecord(out.b, c.b)
	}
	_ = st.WriteCheckedNote(ctx, path, out.b)
}
