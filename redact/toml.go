package redact

import (
	"fmt"
	"strconv"
	"strings"
)

// A reader of the part of TOML that gitleaks' generated configuration is
// written in: comments, [table] and [[array-of-tables]] headers, and
// key = value lines whose values are strings (basic, literal, multi-line
// literal), numbers, booleans and arrays of strings. A full TOML decoder
// took 4 to 15 ms to read the file here, on every command that writes a
// note; this takes a fraction of a millisecond. Anything outside the
// subset is an error, not a guess, and TestGitleaksRulesAsGitleaksReadsThem
// holds what it reads to what gitleaks' own loader reads.

// tomlEntry is one key = value under the table header before it.
type tomlEntry struct {
	table string // "rules", "rules.allowlists", "allowlist"; "" at the top
	// newTable: the entry is the first after a header, which opens a new
	// element when the header was [[…]].
	newTable bool
	key      string
	value    any // string, float64, int64, bool or []string
	line     int
}

type tomlReader struct {
	s    string
	i    int
	line int
}

// readTOML returns the entries of src in order. A header with no entry
// under it is returned as an entry with an empty key.
func readTOML(src string) ([]tomlEntry, error) {
	r := &tomlReader{s: src, line: 1}
	var out []tomlEntry
	table, fresh := "", false
	for {
		r.skipBlank()
		if r.i >= len(r.s) {
			break
		}
		if r.s[r.i] == '[' {
			name, err := r.header()
			if err != nil {
				return nil, err
			}
			if fresh {
				out = append(out, tomlEntry{table: table, newTable: true, line: r.line})
			}
			table, fresh = name, true
			continue
		}
		key, err := r.key()
		if err != nil {
			return nil, err
		}
		r.skipSpace()
		if !r.take('=') {
			return nil, r.errorf("want = after %q", key)
		}
		r.skipSpace()
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		out = append(out, tomlEntry{table: table, newTable: fresh, key: key, value: v, line: r.line})
		fresh = false
		r.skipSpace()
		if r.i < len(r.s) && r.s[r.i] == '#' {
			r.skipComment()
		}
		if r.i < len(r.s) && !r.take('\n') && !r.takeString("\r\n") {
			return nil, r.errorf("want the end of the line after %s", key)
		}
	}
	if fresh {
		out = append(out, tomlEntry{table: table, newTable: true, line: r.line})
	}
	return out, nil
}

func (r *tomlReader) errorf(format string, args ...any) error {
	return fmt.Errorf("gitleaks config line %d: %s", r.line, fmt.Sprintf(format, args...))
}

func (r *tomlReader) take(c byte) bool {
	if r.i < len(r.s) && r.s[r.i] == c {
		r.i++
		if c == '\n' {
			r.line++
		}
		return true
	}
	return false
}

func (r *tomlReader) takeString(p string) bool {
	if strings.HasPrefix(r.s[r.i:], p) {
		r.line += strings.Count(p, "\n")
		r.i += len(p)
		return true
	}
	return false
}

func (r *tomlReader) skipSpace() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t') {
		r.i++
	}
}

func (r *tomlReader) skipComment() {
	for r.i < len(r.s) && r.s[r.i] != '\n' {
		r.i++
	}
}

// skipBlank skips spaces, newlines and comments.
func (r *tomlReader) skipBlank() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\r':
			r.i++
		case '\n':
			r.i++
			r.line++
		case '#':
			r.skipComment()
		default:
			return
		}
	}
}

func (r *tomlReader) header() (string, error) {
	double := r.takeString("[[")
	if !double {
		r.i++
	}
	end := "]"
	if double {
		end = "]]"
	}
	j := strings.Index(r.s[r.i:], end)
	if j < 0 || strings.ContainsAny(r.s[r.i:r.i+j], "\n\"'") {
		return "", r.errorf("a table header that does not end on its line")
	}
	name := strings.TrimSpace(r.s[r.i : r.i+j])
	r.i += j + len(end)
	r.skipSpace()
	if r.i < len(r.s) && r.s[r.i] == '#' {
		r.skipComment()
	}
	if r.i < len(r.s) && r.s[r.i] != '\n' && r.s[r.i] != '\r' {
		return "", r.errorf("text after the header [%s]", name)
	}
	return name, nil
}

// key reads a bare key (letters, digits, _ and -); the generated file has
// no quoted or dotted keys.
func (r *tomlReader) key() (string, error) {
	start := r.i
	for r.i < len(r.s) {
		c := r.s[r.i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' {
			r.i++
			continue
		}
		break
	}
	if r.i == start {
		return "", r.errorf("want a key, found %q", r.s[r.i:min(r.i+10, len(r.s))])
	}
	return r.s[start:r.i], nil
}

func (r *tomlReader) value() (any, error) {
	if r.i >= len(r.s) {
		return nil, r.errorf("a key without a value")
	}
	switch c := r.s[r.i]; {
	case strings.HasPrefix(r.s[r.i:], "'''"):
		return r.multiLiteral()
	case strings.HasPrefix(r.s[r.i:], `"""`):
		return nil, r.errorf(`a multi-line basic string ("""), which this reader does not take`)
	case c == '\'':
		r.i++
		j := strings.IndexAny(r.s[r.i:], "'\n")
		if j < 0 || r.s[r.i+j] != '\'' {
			return nil, r.errorf("a literal string without its closing quote")
		}
		v := r.s[r.i : r.i+j]
		r.i += j + 1
		return v, nil
	case c == '"':
		return r.basic()
	case c == '[':
		return r.array()
	case r.takeString("true"):
		return true, nil
	case r.takeString("false"):
		return false, nil
	default:
		return r.number()
	}
}

func (r *tomlReader) multiLiteral() (string, error) {
	r.i += 3
	// A newline right after the opening quotes is not part of the string.
	if !r.take('\n') {
		r.takeString("\r\n")
	}
	j := strings.Index(r.s[r.i:], "'''")
	if j < 0 {
		return "", r.errorf("a multi-line literal string without its closing quotes")
	}
	// Up to two quotes may end the string just before the closing three.
	for extra := 0; extra < 2 && r.i+j+3 < len(r.s) && r.s[r.i+j+3] == '\''; extra++ {
		j++
	}
	v := r.s[r.i : r.i+j]
	r.line += strings.Count(v, "\n")
	r.i += j + 3
	return v, nil
}

func (r *tomlReader) basic() (string, error) {
	r.i++
	// Most strings hold no escape: they are the text as it stands.
	if j := strings.IndexAny(r.s[r.i:], "\"\\\n"); j >= 0 && r.s[r.i+j] == '"' {
		v := r.s[r.i : r.i+j]
		r.i += j + 1
		return v, nil
	}
	var b strings.Builder
	for r.i < len(r.s) {
		c := r.s[r.i]
		switch {
		case c == '"':
			r.i++
			return b.String(), nil
		case c == '\n':
			return "", r.errorf("a string without its closing quote")
		case c == '\\':
			if r.i+1 >= len(r.s) {
				return "", r.errorf("an escape at the end of the file")
			}
			e := r.s[r.i+1]
			r.i += 2
			switch e {
			case '"', '\\':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if r.i+n > len(r.s) {
					return "", r.errorf("a short \\%c escape", e)
				}
				code, err := strconv.ParseUint(r.s[r.i:r.i+n], 16, 32)
				if err != nil {
					return "", r.errorf("a bad \\%c escape", e)
				}
				b.WriteRune(rune(code))
				r.i += n
			default:
				return "", r.errorf("an unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
			r.i++
		}
	}
	return "", r.errorf("a string without its closing quote")
}

// array reads [s, s, …] over any number of lines, with a comma allowed
// after the last string. The arrays of gitleaks' configuration hold
// strings alone (keywords, regexes, stopwords).
func (r *tomlReader) array() ([]string, error) {
	r.i++
	out := []string{}
	for {
		r.skipBlank()
		if r.take(']') {
			return out, nil
		}
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		str, ok := v.(string)
		if !ok {
			return nil, r.errorf("an array of something other than strings")
		}
		out = append(out, str)
		r.skipBlank()
		if r.take(',') {
			continue
		}
		if r.take(']') {
			return out, nil
		}
		return nil, r.errorf("want , or ] in an array")
	}
}

func (r *tomlReader) number() (any, error) {
	start := r.i
	for r.i < len(r.s) && strings.IndexByte("+-0123456789._eE", r.s[r.i]) >= 0 {
		r.i++
	}
	text := strings.ReplaceAll(r.s[start:r.i], "_", "")
	if text == "" {
		return nil, r.errorf("a value this reader does not take: %q", r.s[start:min(start+10, len(r.s))])
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, r.errorf("a bad number %q", text)
	}
	return f, nil
}
