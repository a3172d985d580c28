package jsonrec

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-handoff/git-handoff/internal/safetext"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as encoding/json's Encoder writes a string with
// SetEscapeHTML(false): quote and backslash escaped, the controls it has
// short forms for as those and the other C0 controls as \u00XX, invalid
// UTF-8 as \ufffd, and U+2028 and U+2029 escaped (for JavaScript).
func AppendString(dst []byte, s string) []byte { return appendString(dst, s, &plainQuoting) }

// AppendSafeString appends s as AppendString does and then
// safetext.Writer would filter it: what safetext.Unsafe reports and JSON
// does not escape (DEL, the C1 controls, the bidi marks and overrides) is
// written as safetext.AppendEscape writes it, which but for DEL is also
// JSON's own escape of the rune. Output made of such strings can go to a
// safetext.Writer's WriteEscaped unscanned, and comes out as the
// AppendString text would through its Write.
func AppendSafeString(dst []byte, s string) []byte { return appendString(dst, s, &safeQuoting) }

// A quoting is one way of writing strings: which ASCII bytes go as they
// are (every other one below 0x80 is escaped, with a short form where
// JSON has one), and whether the runes a terminal must not see are
// escaped as safetext escapes them.
type quoting struct {
	plain [utf8.RuneSelf]bool
	term  bool
}

// plainQuoting is the Encoder's without HTML escaping, safeQuoting the
// same for a terminal, htmlQuoting json.Marshal's.
var (
	plainQuoting = quoting{plain: asciiAsIs("")}
	safeQuoting  = quoting{plain: asciiAsIs("\x7f"), term: true}
)

// asciiAsIs is the table of the ASCII bytes from space up (DEL too) but
// quote, backslash and those of except.
func asciiAsIs(except string) (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && !strings.ContainsRune(except, rune(c))
	}
	return t
}

// appendString is AppendString, AppendSafeString and AppendHTMLString.
func appendString(dst []byte, s string, q *quoting) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if q.plain[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case 0x7f: // only when q.term: the Encoder copies DEL
				dst = safetext.AppendEscape(dst, rune(c))
			default: // the other controls, and < > & when HTML is escaped
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		case q.term && safetext.Unsafe(r):
			dst = append(dst, s[start:i]...)
			dst = safetext.AppendEscape(dst, r)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendTime appends t as its MarshalJSON does; the error is its error
// (a year outside 0…9999), for which the caller encodes with
// encoding/json to report it as it always has.
func AppendTime(dst []byte, t time.Time) ([]byte, error) {
	dst = append(dst, '"')
	dst, err := t.AppendText(dst)
	if err != nil {
		return nil, err
	}
	return append(dst, '"'), nil
}

// AppendBool appends true or false.
func AppendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "true"...)
	}
	return append(dst, "false"...)
}

// AppendInt appends n in decimal.
func AppendInt(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// AppendStrings appends a list of strings; nil is null, as encoding/json
// writes it.
func AppendStrings(dst []byte, list []string) []byte { return appendStrings(dst, list, &plainQuoting) }

// AppendSafeStrings is AppendStrings with AppendSafeString's strings.
func AppendSafeStrings(dst []byte, list []string) []byte {
	return appendStrings(dst, list, &safeQuoting)
}

// appendStrings is AppendStrings, AppendSafeStrings and
// AppendHTMLStrings: nil is null, an empty list [].
func appendStrings(dst []byte, list []string, q *quoting) []byte {
	if list == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s, q)
	}
	return append(dst, ']')
}

// Indent appends src, compact JSON as this package or encoding/json writes
// it (no space outside strings), indented as json.Indent(dst, src, prefix,
// indent) would: each element on its own line, "key": value, and an empty
// object or array kept as {} or [].
func Indent(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			// Copy the string whole: only a quote not escaped ends it.
			j := stringEnd(src, i+1)
			dst = append(dst, src[i:j]...)
			i = j - 1
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// stringEnd returns the index just past the quote that closes the string
// whose contents start at i (len(src) when none does). The searches are
// the library's vectorised ones: most of a record's bytes are in strings.
func stringEnd(src []byte, i int) int {
	for {
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			return len(src)
		}
		b := bytes.IndexByte(src[i:i+q], '\\')
		if b < 0 {
			return i + q + 1
		}
		i += b + 2 // past the escape and the byte it escapes
		if i >= len(src) {
			return len(src)
		}
	}
}

// Reindent appends src, JSON indented with tabs as Indent(dst, compact,
// "", "\t") writes it, indented as Indent(dst, compact, prefix, indent)
// would. No string holds a raw newline or tab (JSON escapes both), so
// every newline is a line break and the tabs after it its depth: what is
// between them is copied as it is, with no looking into strings. A
// listing keeps its items tab-indented, a little larger than compact and
// much cheaper to print than compact is to indent.
func Reindent(dst, src []byte, prefix, indent string) []byte {
	// The indentation of the first depths, in one piece.
	var padBuf [64]byte
	pad := append(padBuf[:0], prefix...)
	shallow := 0
	for len(pad)+len(indent) <= len(padBuf) {
		pad = append(pad, indent...)
		shallow++
	}
	for {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i+1]...)
		src = src[i+1:]
		depth := 0
		for depth < len(src) && src[depth] == '\t' {
			depth++
		}
		src = src[depth:]
		if depth <= shallow {
			dst = append(dst, pad[:len(prefix)+depth*len(indent)]...)
			continue
		}
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
	}
}
