package session

import (
	"encoding/json"
	"time"
	"unsafe"

	"github.com/git-handoff/git-handoff/internal/jsonrec"
	"github.com/git-handoff/git-handoff/refstore"
)

// The JSON names of Record's fields and of those of its parts (Cause's
// promoted ones included), in lower case, for jsonrec.Reader.Unknown.
var (
	recordFields = []string{"schema", "id", "owner", "branch", "worktree", "host", "harness", "model", "status",
		"prompt", "starthead", "summary", "createdat", "updatedat", "endedat", "supersedes", "replacedby",
		"handoffreason", "handoffat", "handoffcontextmode", "handoffpackage", "launched", "switching",
		"claimedhandoff", "pr", "runtime", "rev", "prev", "seen"}
	launchedFields  = []string{"nativeid", "first", "last"}
	switchingFields = []string{"by", "since", "until", "to"}
	prFields        = []string{"repo", "number", "url"}
	runtimeFields   = []string{"kind", "socket", "name", "host"}
)

// decodeFast decodes a well-formed session record in one pass, accepting
// exactly what refstore.Decode would (a blob within the cap, one JSON
// object whose schema is ours); anything else is left to refstore.Decode,
// which parses twice but says what is wrong. UnmarshalFast reads the
// records git-handoff writes without reflection; what it declines
// json.Unmarshal reads in one pass still.
//
// With a borrower b, the record's strings share e.Data where they can and
// its launched map is b's, reused: see Borrower.
func decodeFast(e refstore.Entry, s *Record, b *Borrower) bool {
	if e.Size > refstore.MaxRecord || len(e.Data) > refstore.MaxRecord || (e.Type != "" && e.Type != "blob") {
		return false
	}
	var ok bool
	if b != nil {
		ok = b.unmarshal(e.Data, s)
	} else {
		ok = UnmarshalFast(e.Data, s)
	}
	if ok && s.Schema == Schema {
		return true
	}
	var t Record // on the heap only when encoding/json reads it
	ok = json.Unmarshal(e.Data, &t) == nil && t.Schema == Schema
	*s = t
	return ok
}

// UnmarshalFast decodes data into s in one pass, as json.Unmarshal would,
// and reports whether it did: false leaves s unspecified and the caller
// to encoding/json (jsonrec says what it declines). Fuzzed against
// json.Unmarshal (FuzzUnmarshalFast).
func UnmarshalFast(data []byte, s *Record) bool {
	var r jsonrec.Reader
	r.Reset(data)
	readRecord(&r, s, nil)
	return r.End()
}

// A Borrower decodes records for a listing that writes each out as it is
// read and keeps little of it: a record it decodes shares the memory of
// the blob it was read from (its strings) and of the record before it
// (its launched map), so it is valid only until the next record is read
// and the blob's buffer reused. What is kept is copied (Record.Clone).
// Without it every record cost a dozen strings and a map, a hundred
// thousand times over.
type Borrower struct {
	r        jsonrec.Reader
	data     []byte // the record being read
	launched map[string]Launched
	// The launched map's keys met last, kept to be met again: a key of
	// the reused map was one string per record. A few harnesses exist.
	harness [8]string
	nextKey int // the slot the next new key takes
	// What the record's endedAt and handoffAt point at: borrowed too.
	endedAt, handoffAt time.Time
}

// harnessKey returns key as a string: the one kept for it when there is
// one.
func (b *Borrower) harnessKey(key []byte) string {
	for _, k := range b.harness {
		if k == string(key) && k != "" {
			return k
		}
	}
	k := string(key)
	b.harness[b.nextKey%len(b.harness)] = k
	b.nextKey++
	return k
}

// time reads a time as jsonrec.Reader.Time does, but the time
// git-handoff writes on a UTC clock (2006-01-02T15:04:05.999999999Z), a
// few per record, is read without time's general parser (utcTime).
func (b *Borrower) time() time.Time {
	r := &b.r
	s := r.String()
	if r.Failed() {
		return time.Time{}
	}
	raw, ok := b.token(s)
	if !ok {
		// Empty, or escaped: time.Time.UnmarshalJSON, which reads the
		// token as it is, accepts no backslash, and no empty time.
		r.Fail()
		return time.Time{}
	}
	if t, ok := utcTime(s); ok {
		return t
	}
	var t time.Time
	if err := t.UnmarshalJSON(raw); err != nil {
		r.Fail()
	}
	return t
}

// token returns the JSON string s was read from, quotes and all, when s
// is borrowed (jsonrec.Reader.Borrow: the string had no escapes, and s is
// the data between its quotes); else false.
func (b *Borrower) token(s string) ([]byte, bool) {
	if s == "" {
		return nil, false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b.data)))
	if p <= base || p+uintptr(len(s)) >= base+uintptr(len(b.data)) {
		return nil, false
	}
	off := int(p - base)
	return b.data[off-1 : off+len(s)+1], true
}

// utcTime reads s as time.Time.UnmarshalJSON reads the quoted s, for the
// form 2006-01-02T15:04:05Z with up to nine digits of a second's
// fraction, and reports false for anything else, which the caller leaves
// to time (FuzzUTCTime).
func utcTime(s string) (time.Time, bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, month, day := digits(s[0:4]), digits(s[5:7]), digits(s[8:10])
	hour, minute, sec := digits(s[11:13]), digits(s[14:16]), digits(s[17:19])
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := s[19 : len(s)-1]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		if nsec = digits(frac[1:]); nsec < 0 {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	// time.Date's own arithmetic, without its normalising of out-of-range
	// fields (there are none): days since 1970 of the proleptic
	// Gregorian calendar, counted from March so leap days come last.
	y := year
	if month <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = -1
	}
	yoe := y - era*400
	doy := (153*((month+9)%12)+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := int64(era)*146097 + int64(doe) - 719468
	return time.Unix(days*86400+int64(hour*3600+minute*60+sec), int64(nsec)).UTC(), true
}

// digits is s in decimal, -1 unless s is all digits.
func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return -1
		}
		n = n*10 + int(c)
	}
	return n
}

func daysIn(month, year int) int {
	if month == 2 {
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 30 + (month+month/8)%2
}

// Decode is session.Decode, borrowing.
func (b *Borrower) Decode(e refstore.Entry) (Stored, error) {
	return decode(e, b)
}

func (b *Borrower) unmarshal(data []byte, s *Record) bool {
	b.r.Borrow()
	b.r.Reset(data)
	b.data = data
	readRecord(&b.r, s, b)
	b.data = nil
	return b.r.End()
}

// readTime reads a time, with b's reader when b is not nil.
func readTime(r *jsonrec.Reader, b *Borrower) time.Time {
	if b != nil {
		return b.time()
	}
	return r.Time()
}

// readRecord reads a record into s; with b, its launched map is b's.
func readRecord(r *jsonrec.Reader, s *Record, b *Borrower) {
	var seen uint64
	o := r.Object()
	for key, ok := o.Next(); ok; key, ok = o.Next() {
		switch string(key) {
		case "schema":
			r.Seen(&seen, 0)
			s.Schema = r.String()
		case "id":
			r.Seen(&seen, 1)
			s.ID = r.String()
		case "owner":
			r.Seen(&seen, 2)
			s.Owner = r.String()
		case "branch":
			r.Seen(&seen, 3)
			s.Branch = r.String()
		case "worktree":
			r.Seen(&seen, 4)
			s.Worktree = r.String()
		case "host":
			r.Seen(&seen, 5)
			s.Host = r.String()
		case "harness":
			r.Seen(&seen, 6)
			s.Harness = r.String()
		case "model":
			r.Seen(&seen, 7)
			s.Model = r.String()
		case "status":
			r.Seen(&seen, 8)
			s.Status = r.String()
		case "prompt":
			r.Seen(&seen, 9)
			s.Prompt = r.String()
		case "startHead":
			r.Seen(&seen, 10)
			s.StartHead = r.String()
		case "summary":
			r.Seen(&seen, 11)
			s.Summary = r.String()
		case "createdAt":
			r.Seen(&seen, 12)
			s.CreatedAt = readTime(r, b)
		case "updatedAt":
			r.Seen(&seen, 13)
			s.UpdatedAt = readTime(r, b)
		case "endedAt":
			r.Seen(&seen, 14)
			if b != nil {
				b.endedAt = b.time()
				s.EndedAt = &b.endedAt
			} else {
				t := r.Time()
				s.EndedAt = &t
			}
		case "supersedes":
			r.Seen(&seen, 15)
			s.Supersedes = r.String()
		case "replacedBy":
			r.Seen(&seen, 16)
			s.ReplacedBy = r.String()
		case "handoffReason":
			r.Seen(&seen, 17)
			s.HandoffReason = r.String()
		case "handoffAt":
			r.Seen(&seen, 18)
			if b != nil {
				b.handoffAt = b.time()
				s.HandoffAt = &b.handoffAt
			} else {
				t := r.Time()
				s.HandoffAt = &t
			}
		case "handoffContextMode":
			r.Seen(&seen, 19)
			s.HandoffContextMode = r.String()
		case "handoffPackage":
			r.Seen(&seen, 20)
			s.HandoffPackage = r.String()
		case "launched":
			r.Seen(&seen, 21)
			var m map[string]Launched
			if b != nil {
				if b.launched == nil {
					b.launched = map[string]Launched{}
				}
				m = b.launched
				clear(m)
			}
			s.Launched = readLaunched(r, m, b)
		case "switching":
			r.Seen(&seen, 22)
			s.Switching = readSwitching(r)
		case "claimedHandoff":
			r.Seen(&seen, 23)
			s.ClaimedHandoff = r.Raw()
		case "pr":
			r.Seen(&seen, 24)
			s.PR = readPR(r)
		case "runtime":
			r.Seen(&seen, 25)
			s.Runtime = readRuntime(r)
		case "rev":
			r.Seen(&seen, 26)
			s.Rev = r.Uint64()
		case "prev":
			r.Seen(&seen, 27)
			s.Prev = r.String()
		case "seen":
			r.Seen(&seen, 28)
			s.Seen = r.Uint64Map()
		default:
			r.Unknown(key, recordFields)
		}
	}
}

// readLaunched reads the map as encoding/json does: {} an empty map, each
// value decoded into a fresh Launched, a repeated key keeping its last.
// It fills m, empty, when it is not nil; its keys are b's when b is not
// nil.
func readLaunched(r *jsonrec.Reader, m map[string]Launched, b *Borrower) map[string]Launched {
	if m == nil {
		m = map[string]Launched{}
	}
	o := r.Object()
	for key, ok := o.Next(); ok; key, ok = o.Next() {
		var k string
		if b != nil {
			k = b.harnessKey(key)
		} else {
			k = string(key)
		}
		var l Launched
		var seen uint64
		lo := r.Object()
		for key, ok := lo.Next(); ok; key, ok = lo.Next() {
			switch string(key) {
			case "nativeId":
				r.Seen(&seen, 0)
				l.NativeID = r.String()
			case "first":
				r.Seen(&seen, 1)
				l.First = readTime(r, b)
			case "last":
				r.Seen(&seen, 2)
				l.Last = readTime(r, b)
			default:
				r.Unknown(key, launchedFields)
			}
		}
		m[k] = l
	}
	return m
}

func readSwitching(r *jsonrec.Reader) *Switching {
	g := &Switching{}
	var seen uint64
	o := r.Object()
	for key, ok := o.Next(); ok; key, ok = o.Next() {
		switch string(key) {
		case "by":
			r.Seen(&seen, 0)
			g.By = r.String()
		case "since":
			r.Seen(&seen, 1)
			g.Since = r.Time()
		case "until":
			r.Seen(&seen, 2)
			g.Until = r.Time()
		case "to":
			r.Seen(&seen, 3)
			g.To = r.String()
		default:
			r.Unknown(key, switchingFields)
		}
	}
	return g
}

func readPR(r *jsonrec.Reader) *PRPointer {
	p := &PRPointer{}
	var seen uint64
	o := r.Object()
	for key, ok := o.Next(); ok; key, ok = o.Next() {
		switch string(key) {
		case "repo":
			r.Seen(&seen, 0)
			p.Repo = r.String()
		case "number":
			r.Seen(&seen, 1)
			p.Number = r.Int()
		case "url":
			r.Seen(&seen, 2)
			p.URL = r.String()
		default:
			r.Unknown(key, prFields)
		}
	}
	return p
}

func readRuntime(r *jsonrec.Reader) *Runtime {
	rt := &Runtime{}
	var seen uint64
	o := r.Object()
	for key, ok := o.Next(); ok; key, ok = o.Next() {
		switch string(key) {
		case "kind":
			r.Seen(&seen, 0)
			rt.Kind = r.String()
		case "socket":
			r.Seen(&seen, 1)
			rt.Socket = r.String()
		case "name":
			r.Seen(&seen, 2)
			rt.Name = r.String()
		case "host":
			r.Seen(&seen, 3)
			rt.Host = r.String()
		default:
			r.Unknown(key, runtimeFields)
		}
	}
	return rt
}
