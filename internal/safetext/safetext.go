// Package safetext keeps other people's text from acting on a terminal.
//
// Batons, objectives, session records and pull-request titles come from
// teammates and their agents, through the remote. Printed raw, an escape
// sequence in one could recolour, hide or rewrite what the user reads (and a
// bidi override could reorder it), so every human output path goes through
// one filter: Writer. It leaves printable text, newlines and tabs alone and
// writes everything else as a visible escape (\x1b, \u202e). The escapes it
// writes are also JSON string escapes, and encoding/json already escapes
// every C0 control, so JSON passed through a Writer decodes to the same
// values.
package safetext

import (
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Unsafe reports whether r must not reach a terminal as itself: C0 controls
// other than newline and tab, DEL, C1 controls, and the invisible marks and
// overrides that change the order text is shown in.
func Unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // arabic letter mark, LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // isolates
		return true
	}
	return false
}

// String returns s with every unsafe rune and every byte that is not UTF-8
// written as a visible escape.
func String(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	appendSafe(&b, []byte(s), true)
	return b.String()
}

func clean(s string) bool {
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are all printable ASCII (a
		// listing's output is megabytes of it): flagged is nonzero when
		// one of them is below 0x20 or 0x7f and above, and then they are
		// looked at one by one. It may flag more than that, never less.
		if i+8 <= len(s) {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			const ones, highs = 0x0101010101010101, 0x8080808080808080
			if flagged := ((w - 0x20*ones) &^ w) | (w + ones) | w; flagged&highs == 0 {
				i += 8
				continue
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

// appendSafe writes p to b with unsafe runes escaped. Unless final, it stops
// before a trailing incomplete UTF-8 sequence and returns how many bytes it
// consumed, so a caller can carry the rest into its next write.
func appendSafe(b *strings.Builder, p []byte, final bool) int {
	out, used := appendEscaped(nil, p, final)
	b.Write(out)
	return used
}

// Append appends p to dst as String writes it: for text made by a writer
// that does not escape what Writer does (encoding/json, say) on its way to
// one that passes bytes through (Writer.WriteEscaped).
func Append(dst, p []byte) []byte {
	out, _ := appendEscaped(dst, p, true)
	return out
}

func appendEscaped(dst, p []byte, final bool) ([]byte, int) {
	i := 0
	for i < len(p) {
		c := p[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				dst = appendByte(dst, c)
			} else {
				dst = append(dst, c)
			}
			i++
			continue
		}
		if !final && !utf8.FullRune(p[i:]) {
			return dst, i
		}
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = appendByte(dst, c)
		case Unsafe(r):
			dst = AppendEscape(dst, r)
		default:
			dst = append(dst, p[i:i+n]...)
		}
		i += n
	}
	return dst, i
}

const hexDigits = "0123456789abcdef"

// AppendEscape appends the visible escape Writer writes for a rune r that
// Unsafe reports: \xNN below 0x80, \uNNNN above. An encoder that writes
// these itself makes text Writer would pass unchanged (WriteEscaped).
func AppendEscape(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		return appendByte(dst, byte(r))
	}
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// appendByte is the escape of a control byte, or of one that is not UTF-8.
// DEL is the one control a JSON encoder leaves as it is, so its escape is
// JSON's own (\u007f): \x7f made every --json output holding one invalid
// JSON. The others never reach here from JSON, which escapes them itself.
func appendByte(dst []byte, c byte) []byte {
	if c == 0x7f {
		return append(dst, `\u007f`...)
	}
	return append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
}

// Writer filters everything written through it as String does. A rune split
// across two writes is held until the next one; Flush writes what is held.
type Writer struct {
	w    io.Writer
	held []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write filters p and writes the result. It reports len(p) when the
// underlying write succeeds, whatever the escapes added.
func (sw *Writer) Write(p []byte) (int, error) {
	buf := p
	if len(sw.held) > 0 {
		buf = append(sw.held, p...)
		sw.held = nil
	}
	// The common case: nothing to escape, nothing split. buf is only read
	// while clean looks at it; string(buf) would copy every write (a
	// listing's 50 MB) to look at it once.
	if clean(unsafe.String(unsafe.SliceData(buf), len(buf))) {
		if _, err := sw.w.Write(buf); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	var b strings.Builder
	used := appendSafe(&b, buf, false)
	sw.held = append(sw.held[:0], buf[used:]...)
	if _, err := io.WriteString(sw.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes any incomplete rune still held, escaped byte by byte.
func (sw *Writer) Flush() error {
	if len(sw.held) == 0 {
		return nil
	}
	var b strings.Builder
	appendSafe(&b, sw.held, true)
	sw.held = nil
	_, err := io.WriteString(sw.w, b.String())
	return err
}

// WriteEscaped writes p as it is, after anything held: p is text an
// encoder has already made safe as Write would (every rune Unsafe reports
// and every byte that is not UTF-8 written as AppendEscape writes it), for
// which Write's scan would find nothing to change. A listing's megabytes
// of JSON are not looked at twice.
func (sw *Writer) WriteEscaped(p []byte) (int, error) {
	if err := sw.Flush(); err != nil {
		return 0, err
	}
	return sw.w.Write(p)
}

// Escaped returns a writer whose writes go to w as they are, through
// WriteEscaped when w is a Writer: for text made safe by its encoder.
func Escaped(w io.Writer) io.Writer {
	if sw, ok := w.(*Writer); ok {
		return escapedWriter{sw}
	}
	return w
}

type escapedWriter struct{ sw *Writer }

func (e escapedWriter) Write(p []byte) (int, error) { return e.sw.WriteEscaped(p) }
