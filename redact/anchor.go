package redact

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Go's regexp finds a match fast when the pattern begins with a literal:
// it skips ahead to it. Most of gitleaks' patterns begin otherwise: with
// \b, or with a name's first characters, [\w.-]{0,50}?, before the word
// that says what the value is (generic-api-key and some 90 providers'
// rules). Given a whole text such a pattern tries a match at every byte;
// generic-api-key alone took 30 ms and more over 64 KB here.
//
// But the keyword index already knows where the rule's keywords are. An
// anchor splits a pattern into a lead that matches at most lead bytes,
// and a rest every match of which begins with one of the rule's keywords.
// Every match of the pattern then has its rest begin at a keyword found
// in the text, and begins at most lead bytes before it. So, at each
// keyword:
//
//   - the rest's head (what all its matches begin with, in a few hundred
//     bytes at most) is tried, anchored, on as many bytes as it can
//     match: that fails within a few bytes where there is nothing;
//   - where it matches, the rest is tried, anchored, on the bytes up to
//     where a match could end (the end of the line where the rest's last
//     newline could be: it matches so many at most, often none but the
//     one that ends it), or on restMax of them when that is further;
//   - where the rest matches, or might past restMax, the whole pattern
//     is run over the window from lead bytes before the keyword to that
//     end. A window inside the last one searched is not searched again.
//
// So a keyword costs a few hundred bytes at most, and a line is searched
// once per rule however many keywords it holds: time stays linear in the
// text's length, as a scan of the whole text is. A match is not lost
// (TestAnchorsFindWhatTheWholeTextDoes); a window's edge can only add one,
// where a \b or $ at its edge holds that would not in the whole text.
type anchor struct {
	lead int
	// sameLine: the lead cannot hold a newline, so a match begins on its
	// keyword's line.
	sameLine bool
	head     *regexp.Regexp // ^(?:head)
	headLen  int            // the most bytes head matches
	// newlines is the most newlines the rest can match after its head;
	// -1: no bound.
	newlines int
	// restSrc is ^(?:rest), compiled on first use; "" when the head is
	// all of the rest.
	restSrc string
	once    sync.Once
	rest    *regexp.Regexp
}

const (
	// headMax bounds a head's length, and so what trying it costs.
	headMax = 256
	// restMax bounds what trying a rest costs.
	restMax = 256
)

// window is where in s to run the pattern for the keyword at p: from,
// to; ok false when no match can hold that keyword, or when the window
// lies inside the one searched last, [doneFrom, doneTo).
func (a *anchor) window(s string, nl *newlines, p, doneFrom, doneTo int) (from, to int, ok bool) {
	// A few bytes past the head's longest match, so that an assertion at
	// its end (\b, $) sees what follows.
	if a.head.FindStringIndex(s[p:min(len(s), p+a.headLen+utf8.UTFMax)]) == nil {
		return 0, 0, false
	}
	from = max(p-a.lead, 0)
	if a.sameLine {
		from = max(from, nl.lineStart(s, p))
	}
	to = len(s)
	if a.newlines >= 0 {
		// The head ends by p+headLen; the rest then ends on the line of
		// its last newline, which the window takes with its own newline.
		to = nl.after(s, min(len(s), p+a.headLen), a.newlines+1)
	}
	if doneTo > 0 && from >= doneFrom && to <= doneTo {
		return 0, 0, false
	}
	if a.restSrc == "" {
		return from, to, true
	}
	a.once.Do(func() { a.rest = regexp.MustCompile(a.restSrc) })
	if end := min(to, p+restMax); a.rest.FindStringIndex(s[p:end]) == nil && end == to {
		return 0, 0, false
	}
	return from, to, true
}

// newlines is where a text's newlines are, found on first use: looking
// for them from each keyword would cost a long line's length per keyword.
type newlines struct {
	at   []int
	done bool
}

func (nl *newlines) find(s string) []int {
	if !nl.done {
		for i := 0; ; {
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				break
			}
			nl.at = append(nl.at, i+j)
			i += j + 1
		}
		nl.done = true
	}
	return nl.at
}

// lineStart is where the line holding s[p] begins.
func (nl *newlines) lineStart(s string, p int) int {
	at := nl.find(s)
	i, _ := slices.BinarySearch(at, p)
	if i == 0 {
		return 0
	}
	return at[i-1] + 1
}

// after is just past the kth newline at or after s[p]; len(s) when there
// are fewer.
func (nl *newlines) after(s string, p, k int) int {
	at := nl.find(s)
	i, _ := slices.BinarySearch(at, p)
	if i+k-1 >= len(at) {
		return len(s)
	}
	return at[i+k-1] + 1
}

// anchorsOf is the anchors of pattern src whose matches hold one of
// keywords: one, or one for each branch of a pattern that is an
// alternation at its top. It is nil when the pattern, or one of its
// branches, is not of that shape; the rule then runs over the whole text.
func anchorsOf(src string, keywords []string) []*anchor {
	if len(keywords) == 0 {
		return nil
	}
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	branches := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		branches = re.Sub
	}
	var out []*anchor
	for _, b := range branches {
		a := anchorOf(b, keywords)
		if a == nil {
			return nil
		}
		out = append(out, a)
	}
	return out
}

func anchorOf(re *syntax.Regexp, keywords []string) *anchor {
	nodes := flatten(re)
	a := &anchor{sameLine: true}
	for i, n := range nodes {
		if beginsWithKeyword(nodes[i:], keywords) {
			return a.split(nodes[i:])
		}
		m, ok := maxLen(n)
		if !ok {
			return nil
		}
		a.lead += m
		a.sameLine = a.sameLine && !matchesNewline(n)
	}
	return nil
}

// split makes rest, the nodes from the keyword on, the anchor's head.
func (a *anchor) split(rest []*syntax.Regexp) *anchor {
	head, whole := headOf(rest, headMax)
	if head == nil {
		return nil
	}
	a.headLen, _ = maxLen(head)
	var err error
	a.head, err = regexp.Compile(`^(?:` + source(head) + `)`)
	if err != nil {
		return nil
	}
	if whole {
		return a
	}
	a.restSrc = `^(?:` + source(concat(rest)) + `)`
	// What follows the head: from the first node it does not hold whole
	// (it may hold its beginning; counting all of that node's newlines
	// only widens the window).
	k := len(head.Sub)
	if k > 0 && k <= len(rest) && head.Sub[k-1] != rest[k-1] {
		k--
	}
	for _, n := range rest[k:] {
		m := maxNewlines(n)
		if m < 0 {
			a.newlines = -1
			break
		}
		a.newlines += m
	}
	return a
}

// maxNewlines is the most newlines n can match; -1: no bound.
func maxNewlines(n *syntax.Regexp) int {
	switch n.Op {
	case syntax.OpLiteral:
		return strings.Count(string(n.Rune), "\n")
	case syntax.OpCharClass, syntax.OpAnyChar:
		if matchesNewline(n) {
			return 1
		}
		return 0
	case syntax.OpCapture, syntax.OpQuest:
		return maxNewlines(n.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		m := maxNewlines(n.Sub[0])
		if m == 0 {
			return 0
		}
		if m < 0 || n.Op != syntax.OpRepeat || n.Max < 0 {
			return -1
		}
		return m * n.Max
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, sub := range n.Sub {
			m := maxNewlines(sub)
			if m < 0 {
				return -1
			}
			if n.Op == syntax.OpConcat {
				total += m
			} else {
				total = max(total, m)
			}
		}
		return total
	}
	return 0
}

// headOf is what every match of nodes, one after another, begins with, as
// a pattern that matches at most budget bytes: the nodes as far as they
// fit, then the beginning of the next (a{3,99} begins with a{3}). whole:
// it is all of them. nil: nothing worth trying.
func headOf(nodes []*syntax.Regexp, budget int) (head *syntax.Regexp, whole bool) {
	var subs []*syntax.Regexp
	for _, n := range nodes {
		if m, ok := maxLen(n); ok && m <= budget {
			subs = append(subs, n)
			budget -= m
			continue
		}
		if p := prefixOf(n, budget); p != nil {
			subs = append(subs, p)
		}
		if len(subs) == 0 {
			return nil, false
		}
		return concat(subs), false
	}
	if len(subs) == 0 {
		return nil, false
	}
	return concat(subs), true
}

// prefixOf is what every match of n begins with, in at most budget bytes;
// nil when that is nothing.
func prefixOf(n *syntax.Regexp, budget int) *syntax.Regexp {
	switch n.Op {
	case syntax.OpCapture:
		return prefixOf(n.Sub[0], budget)
	case syntax.OpConcat:
		h, _ := headOf(n.Sub, budget)
		return h
	case syntax.OpPlus, syntax.OpRepeat:
		lo := n.Min
		if n.Op == syntax.OpPlus {
			lo = 1
		}
		m, ok := maxLen(n.Sub[0])
		if lo == 0 || !ok || m*lo > budget {
			return nil
		}
		return &syntax.Regexp{Op: syntax.OpRepeat, Flags: n.Flags &^ syntax.NonGreedy, Min: lo, Max: lo, Sub: []*syntax.Regexp{n.Sub[0]}}
	case syntax.OpAlternate:
		alt := &syntax.Regexp{Op: syntax.OpAlternate}
		for _, b := range n.Sub {
			if m, ok := maxLen(b); ok && m <= budget {
				alt.Sub = append(alt.Sub, b)
				continue
			}
			p := prefixOf(b, budget)
			if p == nil {
				return nil
			}
			alt.Sub = append(alt.Sub, p)
		}
		return alt
	}
	return nil
}

func concat(nodes []*syntax.Regexp) *syntax.Regexp {
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: nodes}
}

// source writes n back as a pattern. syntax.Regexp's String does too, but
// works out the flags of every case-folded class rune by rune, which took
// most of a short note's redaction; this spells the flags out where they
// matter and the classes as the parser left them (already folded), and
// drops capture groups, which an anchor does not ask for.
func source(n *syntax.Regexp) string {
	var b strings.Builder
	writeSource(&b, n)
	return b.String()
}

func writeSource(b *strings.Builder, n *syntax.Regexp) {
	group := func(sub *syntax.Regexp) {
		b.WriteString("(?:")
		writeSource(b, sub)
		b.WriteString(")")
	}
	switch n.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString("(?:)")
	case syntax.OpLiteral:
		if n.Flags&syntax.FoldCase != 0 {
			b.WriteString("(?i:")
		}
		for _, r := range n.Rune {
			fmt.Fprintf(b, `\x{%x}`, r)
		}
		if n.Flags&syntax.FoldCase != 0 {
			b.WriteString(")")
		}
	case syntax.OpCharClass:
		if len(n.Rune) == 0 {
			b.WriteString(`[^\x00-\x{10FFFF}]`)
			return
		}
		b.WriteString("[")
		for i := 0; i+1 < len(n.Rune); i += 2 {
			fmt.Fprintf(b, `\x{%x}-\x{%x}`, n.Rune[i], n.Rune[i+1])
		}
		b.WriteString("]")
	case syntax.OpAnyCharNotNL:
		b.WriteString("(?-s:.)")
	case syntax.OpAnyChar:
		b.WriteString("(?s:.)")
	case syntax.OpBeginLine:
		b.WriteString("(?m:^)")
	case syntax.OpEndLine:
		b.WriteString("(?m:$)")
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpCapture:
		group(n.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		group(n.Sub[0])
		switch n.Op {
		case syntax.OpStar:
			b.WriteString("*")
		case syntax.OpPlus:
			b.WriteString("+")
		case syntax.OpQuest:
			b.WriteString("?")
		default:
			switch {
			case n.Max == -1:
				fmt.Fprintf(b, "{%d,}", n.Min)
			case n.Max == n.Min:
				fmt.Fprintf(b, "{%d}", n.Min)
			default:
				fmt.Fprintf(b, "{%d,%d}", n.Min, n.Max)
			}
		}
		if n.Flags&syntax.NonGreedy != 0 {
			b.WriteString("?")
		}
	case syntax.OpConcat:
		for _, sub := range n.Sub {
			group(sub)
		}
	case syntax.OpAlternate:
		b.WriteString("(?:")
		for i, sub := range n.Sub {
			if i > 0 {
				b.WriteString("|")
			}
			writeSource(b, sub)
		}
		b.WriteString(")")
	}
}

// flatten is the nodes of re's top-level concatenation, with its groups
// opened (a capture only numbers the text; the rest is not asked for
// groups).
func flatten(re *syntax.Regexp) []*syntax.Regexp {
	var out []*syntax.Regexp
	var walk func(n *syntax.Regexp)
	walk = func(n *syntax.Regexp) {
		switch n.Op {
		case syntax.OpConcat:
			for _, s := range n.Sub {
				walk(s)
			}
		case syntax.OpCapture:
			walk(n.Sub[0])
		default:
			out = append(out, n)
		}
	}
	walk(re)
	return out
}

// maxLen is the most bytes n can match, if that is bounded.
func maxLen(n *syntax.Regexp) (int, bool) {
	switch n.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpLiteral:
		m := 0
		for _, r := range n.Rune {
			m += runeMax(r, n.Flags&syntax.FoldCase != 0)
		}
		return m, true
	case syntax.OpCharClass:
		m := 0
		for i := 1; i < len(n.Rune); i += 2 {
			m = max(m, utf8.RuneLen(n.Rune[i]))
		}
		return m, true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(n.Sub[0])
	case syntax.OpRepeat:
		if n.Max < 0 {
			return 0, false
		}
		m, ok := maxLen(n.Sub[0])
		return m * n.Max, ok
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, s := range n.Sub {
			m, ok := maxLen(s)
			if !ok {
				return 0, false
			}
			if n.Op == syntax.OpConcat {
				total += m
			} else {
				total = max(total, m)
			}
		}
		return total, true
	}
	return 0, false // star, plus
}

// runeMax is the longest encoding of r or, folding case, of a rune it
// folds to (K folds to the three-byte Kelvin sign).
func runeMax(r rune, fold bool) int {
	m := utf8.RuneLen(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = max(m, utf8.RuneLen(f))
		}
	}
	return m
}

// matchesNewline: n can match text holding a newline.
func matchesNewline(n *syntax.Regexp) bool {
	switch n.Op {
	case syntax.OpLiteral:
		for _, r := range n.Rune {
			if r == '\n' {
				return true
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(n.Rune); i += 2 {
			if n.Rune[i] <= '\n' && '\n' <= n.Rune[i+1] {
				return true
			}
		}
	case syntax.OpAnyChar:
		return true
	}
	for _, s := range n.Sub {
		if matchesNewline(s) {
			return true
		}
	}
	return false
}

// beginsWithKeyword: every text that nodes, one after another, match
// begins with one of keywords (lower case), in any ASCII case. It spells
// out the nodes' beginnings, as far as they are few.
func beginsWithKeyword(nodes []*syntax.Regexp, keywords []string) bool {
	prefixes, _ := spellSeq(nodes)
	for _, p := range prefixes {
		found := false
		for _, k := range keywords {
			if strings.HasPrefix(p, k) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// spellLimit bounds how many texts spell lists.
const spellLimit = 4096

// spell is what n matches, lower case: every text it matches, when exact,
// or else a beginning of each (at worst the empty one).
func spell(n *syntax.Regexp) (texts []string, exact bool) {
	switch n.Op {
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary,
		syntax.OpBeginLine, syntax.OpBeginText:
		return []string{""}, true
	case syntax.OpLiteral:
		return []string{asciiLower(string(n.Rune))}, true
	case syntax.OpCharClass:
		var out []string
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Rune); i += 2 {
			if n.Rune[i+1]-n.Rune[i] > 8 {
				return []string{""}, false
			}
			for r := n.Rune[i]; r <= n.Rune[i+1]; r++ {
				if s := asciiLower(string(r)); !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
		if len(out) > 16 {
			return []string{""}, false
		}
		return out, true
	case syntax.OpCapture:
		return spell(n.Sub[0])
	case syntax.OpQuest:
		t, exact := spell(n.Sub[0])
		return append(t, ""), exact
	case syntax.OpRepeat, syntax.OpPlus:
		if n.Min >= 1 || n.Op == syntax.OpPlus {
			t, _ := spell(n.Sub[0])
			return t, false
		}
	case syntax.OpAlternate:
		var out []string
		exact := true
		for _, s := range n.Sub {
			t, e := spell(s)
			out = append(out, t...)
			exact = exact && e
		}
		if len(out) > spellLimit {
			return []string{""}, false
		}
		return out, exact
	case syntax.OpConcat:
		return spellSeq(n.Sub)
	}
	return []string{""}, false
}

// spellSeq spells nodes one after another, as far as each is exact.
func spellSeq(nodes []*syntax.Regexp) ([]string, bool) {
	out := []string{""}
	for _, n := range nodes {
		t, exact := spell(n)
		next := make([]string, 0, len(out)*len(t))
		for _, p := range out {
			for _, x := range t {
				next = append(next, p+x)
			}
		}
		if len(next) > spellLimit {
			return out, false
		}
		out = next
		if !exact {
			return out, false
		}
	}
	return out, true
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = foldTable[c]
	}
	return string(b)
}
