package lease

import (
	"errors"
	"fmt"
	"strings"
)

// Path leases hold git pathspecs in their default ("non-magic") form, as
// `git add src/lexer`, `git ls-files '*.go'` read them:
//
//   - A pattern with none of the characters * ? [ \ is literal: it matches
//     the path itself and everything under it as a directory ("src"
//     matches "src" and "src/a.go"; "src/" only what is under src/).
//   - Any other pattern is matched by git's wildmatch against the whole
//     path without WM_PATHNAME: "*" matches any run of bytes, "/"
//     included (so "*.go" matches "cmd/main.go" and "src/**" is "src/*"),
//     "?" any one byte, "[...]" a class ("!" or "^" negates, ranges,
//     [:alpha:] and friends), "\" escapes the next byte.
//
// Git can say which existing files a pathspec matches (git ls-files --
// PATHSPEC, which the tests use to hold Compile to git), but two leases
// overlap when some file could match both, also one nobody has created
// yet, and git has no command that intersects two patterns: Overlap is
// ours, an automaton product below.

// A Pattern is a compiled pathspec: a union of globs over the path.
type Pattern struct {
	src   string
	globs [][]token
}

func (p Pattern) String() string { return p.src }

// token is one step of a glob: a byte from a set, or (star) any run of
// bytes.
type token struct {
	star bool
	set  byteSet
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)     { s[c>>6] |= 1 << (c & 63) }
func (s byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s byteSet) and(o byteSet) (r byteSet) {
	for i := range s {
		r[i] = s[i] & o[i]
	}
	return r
}
func (s byteSet) empty() bool { return s[0]|s[1]|s[2]|s[3] == 0 }

// anyByte is what a path can hold: every byte but NUL.
var anyByte = func() (s byteSet) {
	for c := 1; c < 256; c++ {
		s.add(byte(c))
	}
	return s
}()

var slashOnly = func() (s byteSet) { s.add('/'); return s }()

// isLiteral is git's test (simple_length in dir.c): no glob special byte.
func isLiteral(p string) bool { return !strings.ContainsAny(p, "*?[\\") }

// Compile reads a pathspec. A pattern that can match no file (a wildcard
// pattern ending in "/", since git matches files, not directories) is an
// error: a lease on it would guard nothing.
func Compile(p string) (Pattern, error) {
	if p == "" {
		return Pattern{}, errors.New("empty pathspec")
	}
	if isLiteral(p) {
		lit := literal(p)
		if strings.HasSuffix(p, "/") {
			return Pattern{src: p, globs: [][]token{append(lit, token{star: true})}}, nil
		}
		under := append(append(append([]token{}, lit...), token{set: slashOnly}), token{star: true})
		return Pattern{src: p, globs: [][]token{lit, under}}, nil
	}
	g, err := parseGlob(p)
	if err != nil {
		return Pattern{}, err
	}
	pat := Pattern{src: p, globs: [][]token{g}}
	if !pat.matchesSomeFile() {
		return Pattern{}, fmt.Errorf("pathspec %q can match no file", p)
	}
	return pat, nil
}

func literal(p string) []token {
	out := make([]token, len(p))
	for i := 0; i < len(p); i++ {
		out[i].set.add(p[i])
	}
	return out
}

// parseGlob reads a wildmatch pattern. Runs of "*" are one star (without
// WM_PATHNAME "**" means what "*" does).
func parseGlob(p string) ([]token, error) {
	var out []token
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '*':
			if len(out) == 0 || !out[len(out)-1].star {
				out = append(out, token{star: true})
			}
		case '?':
			out = append(out, token{set: anyByte})
		case '\\':
			if i+1 == len(p) {
				return nil, fmt.Errorf("pathspec %q ends in a lone backslash", p)
			}
			i++
			var t token
			t.set.add(p[i])
			out = append(out, t)
		case '[':
			set, next, err := parseClass(p, i)
			if err != nil {
				return nil, err
			}
			out = append(out, token{set: set})
			i = next - 1
		default:
			var t token
			t.set.add(c)
			out = append(out, t)
		}
	}
	return out, nil
}

// posixClasses are the [:name:] classes wildmatch knows, over ASCII.
var posixClasses = map[string]func(c byte) bool{
	"alnum":  func(c byte) bool { return isAlpha(c) || isDigit(c) },
	"alpha":  isAlpha,
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl":  func(c byte) bool { return c < 0x20 || c == 0x7f },
	"digit":  isDigit,
	"graph":  func(c byte) bool { return c > 0x20 && c < 0x7f },
	"lower":  func(c byte) bool { return c >= 'a' && c <= 'z' },
	"print":  func(c byte) bool { return c >= 0x20 && c < 0x7f },
	"punct":  func(c byte) bool { return c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c) },
	"space":  func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' },
	"upper":  func(c byte) bool { return c >= 'A' && c <= 'Z' },
	"xdigit": func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' },
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseClass reads the class starting at p[i] == '[' as wildmatch does: a
// leading "!" or "^" negates, a "]" right after the opening (or the
// negation) is literal, "a-z" is a range, "\" escapes. It returns the set
// and the index after the closing "]". An unclosed class is an error
// (wildmatch would match nothing with it).
func parseClass(p string, i int) (byteSet, int, error) {
	var set byteSet
	j := i + 1
	negate := false
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		negate = true
		j++
	}
	first := true
	var prev int = -1 // the last single byte added, for a range
	for ; j < len(p); j++ {
		c := p[j]
		switch {
		case c == ']' && !first:
			if negate {
				var inv byteSet
				for b := 1; b < 256; b++ {
					if !set.has(byte(b)) {
						inv.add(byte(b))
					}
				}
				set = inv
			}
			return set, j + 1, nil
		case c == '\\':
			if j+1 == len(p) {
				return set, 0, fmt.Errorf("pathspec %q: unclosed [", p)
			}
			j++
			set.add(p[j])
			prev = int(p[j])
		case c == '-' && prev >= 0 && j+1 < len(p) && p[j+1] != ']':
			j++
			hi := p[j]
			if hi == '\\' && j+1 < len(p) {
				j++
				hi = p[j]
			}
			for b := prev; b <= int(hi); b++ {
				set.add(byte(b))
			}
			prev = -1
		case c == '[' && j+1 < len(p) && p[j+1] == ':':
			end := strings.Index(p[j+2:], ":]")
			if end < 0 {
				set.add(c)
				prev = int(c)
				break
			}
			name := p[j+2 : j+2+end]
			f, ok := posixClasses[name]
			if !ok {
				return set, 0, fmt.Errorf("pathspec %q: unknown class [:%s:]", p, name)
			}
			for b := 1; b < 256; b++ {
				if f(byte(b)) {
					set.add(byte(b))
				}
			}
			j += 2 + end + 1
			prev = -1
		default:
			set.add(c)
			prev = int(c)
		}
		first = false
	}
	return set, 0, fmt.Errorf("pathspec %q: unclosed [", p)
}

// Where a path is, byte by byte, for the rules every file's path keeps
// (it is not empty, does not start or end with "/", has no "//"): at its
// start, right after a "/", or inside a component.
const (
	atStart = iota
	afterSlash
	inComponent
)

// step is a state of the product automaton: a position in each glob, and
// where the path is.
type step struct{ i, j, at int }

// Match reports whether the pattern matches path (a file's path from the
// top of the worktree). It answers what intersect would of the glob and
// the path as a literal glob, without the product search: a pre-tool hook
// matches every write against every path lease, so this is one pass over
// the path with the set of glob positions it may be at (time
// len(path)·len(glob), two slices of memory).
func (p Pattern) Match(path string) bool {
	if !isPath(path) {
		return false
	}
	for _, g := range p.globs {
		if matchGlob(g, path) {
			return true
		}
	}
	return false
}

// isPath holds the rules intersect keeps for every path: not empty, no
// "/" at either end, no "//".
func isPath(p string) bool {
	return p != "" && p[0] != '/' && p[len(p)-1] != '/' && !strings.Contains(p, "//")
}

// matchGlob runs g's automaton over path: at[i] says the bytes read so
// far can leave g at token i. A star may be passed over (an empty run)
// or take a byte and stay; a set takes one byte it holds and moves on.
// A star takes any byte but NUL (anyByte), as intersect's does.
func matchGlob(g []token, path string) bool {
	at, next := make([]bool, len(g)+1), make([]bool, len(g)+1)
	at[0] = true
	closeStars(g, at)
	for k := 0; k < len(path); k++ {
		c := path[k]
		clear(next)
		some := false
		for i, ok := range at[:len(g)] {
			if !ok {
				continue
			}
			switch t := g[i]; {
			case t.star && anyByte.has(c):
				next[i], some = true, true
			case !t.star && t.set.has(c):
				next[i+1], some = true, true
			}
		}
		if !some {
			return false
		}
		closeStars(g, next)
		at, next = next, at
	}
	return at[len(g)]
}

// closeStars adds to at what passing over stars reaches.
func closeStars(g []token, at []bool) {
	for i, t := range g {
		if at[i] && t.star {
			at[i+1] = true
		}
	}
}

// Overlap reports whether some file's path matches both pathspecs.
func Overlap(a, b Pattern) bool {
	for _, ga := range a.globs {
		for _, gb := range b.globs {
			if intersect(ga, gb) {
				return true
			}
		}
	}
	return false
}

// matchesSomeFile reports whether any file's path matches p.
func (p Pattern) matchesSomeFile() bool {
	all := []token{{star: true}}
	for _, g := range p.globs {
		if intersect(g, all) {
			return true
		}
	}
	return false
}

// intersect decides whether some valid path matches both globs: a search
// of the product of the two globs' automata and the path rules'. A state
// is (position in a, position in b, where the path is); a star may be
// left (an empty run) or consume one byte while staying; a set consumes
// one byte and moves on. A byte both sides accept exists when the sets'
// intersection is not empty, and the path rule only asks whether that
// intersection holds "/" or a byte other than "/". The states are finite
// ((len a+1)·(len b+1)·3), so the search ends, and it finds a path
// whenever one exists, since every path matching both is a walk through
// these states: the answer is exact, no guess in either direction.
func intersect(a, b []token) bool {
	// The states seen, one flag each, indexed as (i, j, at): a slice, not
	// a map, since every lease read (Decode, Compile) searches once.
	seen := make([]bool, (len(a)+1)*(len(b)+1)*3)
	index := func(s step) int { return (s.i*(len(b)+1)+s.j)*3 + s.at }
	queue := make([]step, 1, 16)
	queue[0] = step{0, 0, atStart}
	push := func(s step) {
		if k := index(s); !seen[k] {
			seen[k] = true
			queue = append(queue, s)
		}
	}
	seen[index(queue[0])] = true
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s.i == len(a) && s.j == len(b) && s.at == inComponent {
			return true
		}
		// Empty runs of a star.
		if s.i < len(a) && a[s.i].star {
			push(step{s.i + 1, s.j, s.at})
		}
		if s.j < len(b) && b[s.j].star {
			push(step{s.i, s.j + 1, s.at})
		}
		if s.i == len(a) || s.j == len(b) {
			continue // one side is done: it accepts no more bytes
		}
		ta, tb := a[s.i], b[s.j]
		setA, setB := ta.set, tb.set
		if ta.star {
			setA = anyByte
		}
		if tb.star {
			setB = anyByte
		}
		both := setA.and(setB)
		if both.empty() {
			continue
		}
		ni, nj := s.i, s.j
		if !ta.star {
			ni++
		}
		if !tb.star {
			nj++
		}
		if both.has('/') && s.at == inComponent {
			push(step{ni, nj, afterSlash})
		}
		if both != slashOnly {
			push(step{ni, nj, inComponent})
		}
	}
	return false
}
