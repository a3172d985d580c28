package view

import (
	"encoding/binary"
	"time"
	"unsafe"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// A listing of sessions holds every record it prints until the last has
// been read (the lineage shown with each needs them all). Held as the
// indented JSON it prints, 100,000 sessions were 100 MB, and the memory
// the kernel had to hand over cost more than writing the JSON. A packed
// record is what that JSON is made of and nothing else: each string as
// its length and bytes, each time as three varints, the launched map in
// the order it is written, about a third of the size; PackedWriter
// writes from it, when the record is printed, the bytes
// AppendRecordOpenIndented writes (TestPackedMatchesIndented,
// FuzzPackedMatchesIndented).
//
// The layout, in order: a byte of flags (packEndedAt, packHandoffAt), the
// strings of packedStrings, createdAt, updatedAt, endedAt and handoffAt
// when flagged, the number of launched entries and each entry (harness,
// nativeId, first, last), harnesses in byte order. A time is its Unix
// seconds (zigzag varint), nanoseconds (uvarint) and zone offset in
// seconds (zigzag varint): what RFC 3339 shows of it.

const (
	packEndedAt = 1 << iota
	packHandoffAt
)

// PackRecord appends r packed to dst, as a listing shows it (no handoff
// package). It reports false, and leaves dst as it was, for a record with
// a part it does not hold (a switch in flight, a claimed baton, a pull
// request, a runtime): the caller keeps such a record for
// AppendRecordOpenIndented. r may be borrowed; nothing of it is kept.
func PackRecord(dst []byte, r *session.Record) ([]byte, bool) {
	if r.Switching != nil || r.ClaimedHandoff != nil || r.PR != nil || r.Runtime != nil {
		return dst, false
	}
	var flags byte
	if r.EndedAt != nil {
		flags |= packEndedAt
	}
	if r.HandoffAt != nil {
		flags |= packHandoffAt
	}
	dst = append(dst, flags)
	dst = packString(dst, r.ID)
	// The ref shapeSession shows, built in place: SessionRef would
	// allocate it.
	if enc, err := refstore.EncodeComponent(r.ID); err != nil {
		dst = packString(dst, "")
	} else {
		dst = binary.AppendUvarint(dst, uint64(len(refstore.SessionPrefix)+len(enc)))
		dst = append(dst, refstore.SessionPrefix...)
		dst = append(dst, enc...)
	}
	for _, s := range [...]string{r.Owner, r.Branch, r.Worktree, r.Host, r.Harness, r.Model, r.Status, r.Prompt,
		r.Summary, r.Supersedes, r.ReplacedBy, r.HandoffReason, r.HandoffContextMode} {
		dst = packString(dst, s)
	}
	dst = packTime(dst, r.CreatedAt)
	dst = packTime(dst, r.UpdatedAt)
	if r.EndedAt != nil {
		dst = packTime(dst, *r.EndedAt)
	}
	if r.HandoffAt != nil {
		dst = packTime(dst, *r.HandoffAt)
	}
	dst = binary.AppendUvarint(dst, uint64(len(r.Launched)))
	if len(r.Launched) == 0 {
		return dst, true
	}
	// Harnesses in the order they are written: one, or a few.
	var one [2]string
	keys := one[:0]
	for k := range r.Launched {
		keys = append(keys, k)
	}
	sortStrings(keys)
	for _, k := range keys {
		l := r.Launched[k]
		dst = packString(dst, k)
		dst = packString(dst, l.NativeID)
		dst = packTime(dst, l.First)
		dst = packTime(dst, l.Last)
	}
	return dst, true
}

// sortStrings sorts a few strings in place (slices.Sort for one or two
// costs more than the comparison).
func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func packString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func packTime(dst []byte, t time.Time) []byte {
	_, off := t.Zone()
	dst = binary.AppendVarint(dst, t.Unix())
	dst = binary.AppendUvarint(dst, uint64(t.Nanosecond()))
	return binary.AppendVarint(dst, int64(off))
}

// A PackedWriter writes packed records; its zero value is ready. It keeps
// the zones of the times it rebuilt, one each.
type PackedWriter struct {
	zones    map[int]*time.Location
	launched []packedLaunched
	// The record's optional times: a Session points at them.
	endedAt, handoffAt time.Time
}

type packedLaunched struct {
	harness string
	Launched
}

// AppendIndented appends the record p was packed from as
// AppendRecordOpenIndented appends it (AppendSessionTailIndented closes
// it). Its error is the one AppendRecordOpenIndented would give (a time
// JSON cannot hold); Record then gives the record for encoding/json.
func (w *PackedWriter) AppendIndented(dst, p []byte) ([]byte, error) {
	var s Session
	rd := packReader{p: p}
	w.read(&rd, &s)
	launched := w.launched[:0]
	for n := rd.uvarint(); n > 0; n-- {
		var l packedLaunched
		l.harness, l.NativeID = rd.str(), rd.str()
		l.First, l.Last = w.time(&rd), w.time(&rd)
		launched = append(launched, l)
	}
	w.launched = launched
	dst, err := appendSessionHead(dst, &item, &s)
	if err != nil {
		return nil, err
	}
	if len(launched) == 0 {
		dst = append(dst, "{}"...)
	} else {
		for i := range launched {
			if dst, err = appendLaunchedItem(dst, &item, i == 0, launched[i].harness, launched[i].Launched); err != nil {
				return nil, err
			}
		}
		dst = appendLaunchedEnd(dst, &item)
	}
	return appendSessionRest(dst, &item, &s)
}

// read reads the packed fields up to the launched map into s, shaped as
// shapeSession shapes them. Its strings share p's memory.
func (w *PackedWriter) read(rd *packReader, s *Session) {
	flags := rd.byte()
	s.ID, s.Ref = rd.str(), rd.str()
	for _, f := range [...]*string{&s.Owner, &s.Branch, &s.Worktree, &s.Host, &s.Harness, &s.Model, &s.Status, &s.Prompt,
		&s.Summary, &s.Supersedes, &s.ReplacedBy, &s.HandoffReason, &s.HandoffContextMode} {
		*f = rd.str()
	}
	s.ReadOnly = s.Status == session.StatusMerged
	s.CreatedAt, s.UpdatedAt = w.time(rd), w.time(rd)
	if flags&packEndedAt != 0 {
		w.endedAt = w.time(rd)
		s.EndedAt = &w.endedAt
	}
	if flags&packHandoffAt != 0 {
		w.handoffAt = w.time(rd)
		s.HandoffAt = &w.handoffAt
	}
}

// Record returns the record p was packed from, as far as a listing shows
// it (OfSession(Record(p), false) is OfSession of the record packed), in
// memory of its own.
func (w *PackedWriter) Record(p []byte) session.Record {
	var s Session
	rd := packReader{p: p}
	w.read(&rd, &s)
	r := session.Record{Schema: session.Schema, ID: s.ID, Owner: s.Owner, Branch: s.Branch, Worktree: s.Worktree,
		Host: s.Host, Harness: s.Harness, Model: s.Model, Status: s.Status, Prompt: s.Prompt, Summary: s.Summary,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, EndedAt: s.EndedAt, Supersedes: s.Supersedes,
		ReplacedBy: s.ReplacedBy, HandoffReason: s.HandoffReason, HandoffAt: s.HandoffAt,
		HandoffContextMode: s.HandoffContextMode}
	if n := rd.uvarint(); n > 0 {
		r.Launched = make(map[string]session.Launched, n)
		for ; n > 0; n-- {
			k, id := rd.str(), rd.str()
			first, last := w.time(&rd), w.time(&rd)
			r.Launched[k] = session.Launched{NativeID: id, First: first, Last: last}
		}
	}
	return r.Clone()
}

// time rebuilds a packed time: the same instant in a zone of the same
// offset, which is all RFC 3339 shows of its zone.
func (w *PackedWriter) time(rd *packReader) time.Time {
	sec, nsec, off := rd.varint(), rd.uvarint(), int(rd.varint())
	t := time.Unix(sec, int64(nsec))
	if off == 0 {
		return t.UTC()
	}
	z, ok := w.zones[off]
	if !ok {
		if w.zones == nil {
			w.zones = map[int]*time.Location{}
		}
		z = time.FixedZone("", off)
		w.zones[off] = z
	}
	return t.In(z)
}

// packReader reads what PackRecord wrote (and nothing else: a packed
// record is never stored or read from elsewhere).
type packReader struct{ p []byte }

func (r *packReader) byte() byte {
	b := r.p[0]
	r.p = r.p[1:]
	return b
}

func (r *packReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.p)
	r.p = r.p[n:]
	return v
}

func (r *packReader) varint() int64 {
	v, n := binary.Varint(r.p)
	r.p = r.p[n:]
	return v
}

// str returns the next string, sharing r's memory.
func (r *packReader) str() string {
	n := int(r.uvarint())
	if n == 0 {
		return ""
	}
	b := r.p[:n]
	r.p = r.p[n:]
	return unsafe.String(&b[0], n)
}
