package jsonrec

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// The appenders below write what json.Marshal writes, for the records
// stored in git: unlike the Encoder the views use, Marshal escapes <, >
// and & (as \u003c, \u003e, \u0026). A short process that writes one
// record would otherwise spend a good part of its time building
// encoding/json's reflection caches for the record's type.

// htmlQuoting copies as they are inside a string the ASCII bytes
// json.Marshal copies.
var htmlQuoting = quoting{plain: asciiAsIs("<>&")}

// AppendHTMLString appends s as json.Marshal writes a string: as
// AppendString does, and <, > and & as \u003c, \u003e and \u0026.
func AppendHTMLString(dst []byte, s string) []byte { return appendString(dst, s, &htmlQuoting) }

// AppendHTMLStrings appends a list of strings as json.Marshal writes a
// []string: nil is null, an empty list [].
func AppendHTMLStrings(dst []byte, list []string) []byte {
	return appendStrings(dst, list, &htmlQuoting)
}

// AppendUint64 appends n in decimal.
func AppendUint64(dst []byte, n uint64) []byte { return strconv.AppendUint(dst, n, 10) }

// SortedKeys returns m's keys in the order json.Marshal writes a map with
// string keys: by their bytes.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// AppendHTMLUint64Map appends m as json.Marshal writes a
// map[string]uint64: keys in byte order, nil as null.
func AppendHTMLUint64Map(dst []byte, m map[string]uint64) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	for i, k := range SortedKeys(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendHTMLString(dst, k)
		dst = append(dst, ':')
		dst = AppendUint64(dst, m[k])
	}
	return append(dst, '}')
}

// AppendHTMLRaw appends raw as json.Marshal writes a json.RawMessage that
// is not nil: compacted, with <, >, &, U+2028 and U+2029 escaped. Invalid
// JSON is an error, for which the caller lets encoding/json report its
// own. Compact and HTMLEscape together do what Marshal does in one pass:
// compacting removes only whitespace between tokens, and the bytes
// HTMLEscape changes occur only inside strings.
func AppendHTMLRaw(dst []byte, raw []byte) ([]byte, error) {
	if cleanCompact(raw) {
		// The Reader's check is the one the record decoders have run
		// already in this process (json.Valid's scanner would be code
		// paged in for this alone); what it declines goes the long way.
		var r Reader
		r.Reset(raw)
		r.Skip()
		if r.End() {
			return append(dst, raw...), nil
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(dst)
	json.HTMLEscape(out, compact.Bytes())
	return out.Bytes(), nil
}

// cleanCompact reports whether Marshal would copy raw as it is, were it
// valid: no whitespace outside strings and nothing to escape. (Within
// invalid input the quotes it pairs may be wrong; the check of validity
// after it refuses such input.)
func cleanCompact(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			in = !in
		case '\\':
			if in {
				i++ // the escaped byte cannot end the string
			}
		case ' ', '\t', '\n', '\r':
			if !in {
				return false
			}
		case '<', '>', '&':
			return false
		case 0xe2:
			if i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xa8 {
				return false
			}
		}
	}
	return true
}
