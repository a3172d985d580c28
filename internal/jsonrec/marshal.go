package jsonrec

import (
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
