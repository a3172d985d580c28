package jsonrec

import (
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// A quoting is one way of writing strings: which ASCII bytes go as they
// are (every other one below 0x80 is escaped, with a short form where
// JSON has one).
type quoting struct {
	plain [utf8.RuneSelf]bool
}

// asciiAsIs is the table of the ASCII bytes from space up (DEL too) but
// quote, backslash and those of except.
func asciiAsIs(except string) (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && !strings.ContainsRune(except, rune(c))
	}
	return t
}

// appendString is AppendHTMLString.
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
