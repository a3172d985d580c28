// Package jsonrec reads and writes JSON in one pass without reflection.
// Records are encoding/json's (package refstore's Encode and Decode); what
// is left here is refstore's own: reading a record's cause without knowing
// its kind (RevOf), writing a cause's fields, and the transaction journal.
//
// The Reader accepts only input that encoding/json would decode without an
// error, and must give the same values (the decoders built on it are fuzzed
// against encoding/json). What it does not bother with — null, surrogate
// escapes, invalid UTF-8 in a decoded string, a key repeated, a key that
// matches a field only when case is ignored, nesting deeper than a record
// has — makes it fail, and the caller decodes with encoding/json instead,
// which also says what is wrong. Failing is always safe; accepting is the
// promise.
//
// marshal.go writes what json.Marshal writes (HTML escaped).
package jsonrec

import (
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting Skip follows. Records nest a few levels;
// deeper input is left to encoding/json (which allows 10,000).
const maxDepth = 64

// Reader reads one JSON document. After the first failure every method
// returns zero values and Failed reports true.
type Reader struct {
	data    []byte
	pos     int
	bad     bool
	depth   int
	scratch []byte // unescaped strings, valid until the next string read
}

// Reset points r at data, keeping its scratch space.
func (r *Reader) Reset(data []byte) {
	r.data, r.pos, r.bad, r.depth = data, 0, false, 0
}

// Failed reports whether anything read so far was not accepted.
func (r *Reader) Failed() bool { return r.bad }

// Fail marks the document as not accepted (a decoder's own refusal: a
// type it does not handle, a key seen twice).
func (r *Reader) Fail() {
	r.bad = true
	r.pos = len(r.data)
}

func (r *Reader) ws() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// peek returns the next byte after whitespace, 0 at the end.
func (r *Reader) peek() byte {
	r.ws()
	if r.pos >= len(r.data) {
		return 0
	}
	return r.data[r.pos]
}

// End reports whether only whitespace is left, as json.Unmarshal requires.
func (r *Reader) End() bool {
	r.ws()
	if r.pos != len(r.data) {
		r.Fail()
	}
	return !r.bad
}

// Object is an object being read: Next yields its keys in turn.
type Object struct {
	r     *Reader
	first bool
}

// Object starts reading an object (the next value must be one).
func (r *Reader) Object() Object {
	if r.peek() != '{' {
		r.Fail()
		return Object{r: r}
	}
	r.pos++
	return Object{r: r, first: true}
}

// Next reads the next key and its colon, and reports false at the end of
// the object (or on a failure). The key is unescaped and valid until the
// next read; the caller must read its value before calling Next again.
func (o *Object) Next() ([]byte, bool) {
	r := o.r
	if r.bad {
		return nil, false
	}
	c := r.peek()
	if c == '}' {
		r.pos++
		return nil, false
	}
	if !o.first {
		if c != ',' {
			r.Fail()
			return nil, false
		}
		r.pos++
		c = r.peek()
	}
	o.first = false
	if c != '"' {
		r.Fail()
		return nil, false
	}
	key := r.str()
	if r.peek() != ':' {
		r.Fail()
		return nil, false
	}
	r.pos++
	return key, !r.bad
}

// Unknown handles a key no field of the object's type has: encoding/json
// would match it to a field whose name differs only in case (folding
// non-ASCII letters as well), so such a key fails; any other is skipped.
// fields are the type's JSON field names, in lower case.
func (r *Reader) Unknown(key []byte, fields []string) {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			r.Fail()
			return
		}
	}
	for _, f := range fields {
		if len(f) == len(key) && lowerEqual(key, f) {
			r.Fail()
			return
		}
	}
	r.Skip()
}

func lowerEqual(key []byte, lower string) bool {
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// Seen marks field bit of an object as read, failing when it was read
// already: for a repeated key encoding/json keeps parts of both values in
// ways not worth copying.
func (r *Reader) Seen(mask *uint64, bit uint) {
	if *mask&(1<<bit) != 0 {
		r.Fail()
	}
	*mask |= 1 << bit
}

// String reads a string value (null is not accepted).
func (r *Reader) String() string {
	if r.peek() != '"' {
		r.Fail()
		return ""
	}
	b := r.str()
	if r.bad || len(b) == 0 {
		return ""
	}
	return string(b)
}

// str reads the string at r.pos (its opening quote), unescaped: a slice of
// the input when it has no escapes, else of r.scratch. Invalid UTF-8 and
// surrogate escapes fail (encoding/json would put U+FFFD in their place).
func (r *Reader) str() []byte {
	d := r.data
	start := r.pos + 1
	ascii := true
	for i := start; i < len(d); i++ {
		c := d[i]
		switch {
		case c == '"':
			r.pos = i + 1
			if !ascii && !utf8.Valid(d[start:i]) {
				r.Fail()
				return nil
			}
			return d[start:i]
		case c == '\\':
			return r.strEscaped(start, i)
		case c < 0x20:
			r.Fail()
			return nil
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	r.Fail()
	return nil
}

// strEscaped finishes str from the first backslash at i.
func (r *Reader) strEscaped(start, i int) []byte {
	d := r.data
	out := append(r.scratch[:0], d[start:i]...)
	defer func() { r.scratch = out[:0] }()
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			r.pos = i + 1
			if !utf8.Valid(out) {
				r.Fail()
				return nil
			}
			return out
		case c < 0x20:
			r.Fail()
			return nil
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(d) {
			r.Fail()
			return nil
		}
		switch e := d[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+6 > len(d) {
				r.Fail()
				return nil
			}
			v, ok := hex4(d[i+2 : i+6])
			if !ok || 0xd800 <= v && v < 0xe000 {
				r.Fail()
				return nil
			}
			out = utf8.AppendRune(out, rune(v))
			i += 6
			continue
		default:
			r.Fail()
			return nil
		}
		i += 2
	}
	r.Fail()
	return nil
}

func hex4(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | int(c)
	}
	return v, true
}

func (r *Reader) literal(lit string) bool {
	if len(r.data)-r.pos < len(lit) || string(r.data[r.pos:r.pos+len(lit)]) != lit {
		r.Fail()
		return false
	}
	r.pos += len(lit)
	return true
}

// number returns the next number literal, checked against JSON's grammar.
func (r *Reader) number() []byte {
	d := r.data
	r.ws()
	start, i := r.pos, r.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = skipDigits(d, i)
	default:
		r.Fail()
		return nil
	}
	if i < len(d) && d[i] == '.' {
		i++
		n := i
		i = skipDigits(d, i)
		if i == n {
			r.Fail()
			return nil
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		n := i
		i = skipDigits(d, i)
		if i == n {
			r.Fail()
			return nil
		}
	}
	r.pos = i
	return d[start:i]
}

// numberLit reads a number's literal for Uint64 and Int; a value that is
// not a number fails the reader.
func (r *Reader) numberLit() ([]byte, bool) {
	if c := r.peek(); c != '-' && (c < '0' || c > '9') {
		r.Fail()
		return nil, false
	}
	lit := r.number()
	return lit, !r.bad
}

// Uint64 reads a number into a uint64 as encoding/json does
// (strconv.ParseUint: no sign, fraction or exponent).
func (r *Reader) Uint64() uint64 {
	lit, ok := r.numberLit()
	if !ok {
		return 0
	}
	v, err := strconv.ParseUint(string(lit), 10, 64)
	if err != nil {
		r.Fail()
	}
	return v
}

// Uint64Map reads an object of numbers into a map[string]uint64 (a
// record's version vector): {} is an empty map, not nil, and a repeated
// key keeps its last value, as encoding/json does.
func (r *Reader) Uint64Map() map[string]uint64 {
	m := map[string]uint64{}
	o := r.Object()
	for key, ok := o.Next(); ok; key, ok = o.Next() {
		k := string(key)
		m[k] = r.Uint64()
	}
	if r.bad {
		return nil
	}
	return m
}

// Skip reads any value, checking it is valid JSON.
func (r *Reader) Skip() {
	switch c := r.peek(); {
	case c == '"':
		r.skipString()
	case c == '{':
		r.nest()
		o := r.Object()
		for _, ok := o.Next(); ok; _, ok = o.Next() {
			r.Skip()
		}
		r.depth--
	case c == '[':
		r.nest()
		r.pos++
		if r.peek() == ']' {
			r.pos++
		} else {
			for !r.bad {
				r.Skip()
				if c := r.peek(); c == ',' {
					r.pos++
				} else if c == ']' {
					r.pos++
					break
				} else {
					r.Fail()
				}
			}
		}
		r.depth--
	case c == 't':
		r.literal("true")
	case c == 'f':
		r.literal("false")
	case c == 'n':
		r.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		r.number()
	default:
		r.Fail()
	}
}

func (r *Reader) nest() {
	if r.depth++; r.depth > maxDepth {
		r.Fail()
	}
}

// skipString moves past the string at r.pos, checking its escapes (any
// byte of 0x20 and above may appear in a string encoding/json accepts).
func (r *Reader) skipString() {
	d := r.data
	for i := r.pos + 1; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			r.pos = i + 1
			return
		case c < 0x20:
			r.Fail()
			return
		case c == '\\':
			if i+1 >= len(d) {
				r.Fail()
				return
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+6 > len(d) {
					r.Fail()
					return
				}
				if _, ok := hex4(d[i+2 : i+6]); !ok {
					r.Fail()
					return
				}
				i += 5
			default:
				r.Fail()
				return
			}
		}
	}
	r.Fail()
}

// skipDigits returns the index of the first byte at or after i in d that
// is not a decimal digit.
func skipDigits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}
