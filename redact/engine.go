package redact

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// rule is one kind of secret, from gitleaks' configuration or our own.
type rule struct {
	id          string
	description string
	// source is the regex; compiled on first use (re).
	source string
	// secretGroup: which capture group is the secret; 0: the first that
	// matched something, or the whole match when there is none.
	secretGroup int
	// entropy: a secret of this Shannon entropy or less is not one.
	entropy float64
	// keywords, lower case: a text that holds none of them (in any case)
	// is not given to the regex at all. Gitleaks writes them so that every
	// match holds one.
	keywords []string
	kwIndex  []int // the keywords' places in the rule set's keywordIndex
	allow    []*allowlist
	// check, for our own rules: whether a secret is one.
	check func(secret string) bool
	// trimEnd, for our own rules: the spaces and newlines (also
	// JSON-escaped ones) that end a secret stay in the text.
	trimEnd bool
	// rank: which rule names a marker over findings that overlap, lowest
	// first: rankBlock for a key block (what is inside it is part of the
	// key), rankProvider for a provider's token, rankGeneric for a value
	// known only by its name or place (as gitleaks prefers a provider's
	// rule to its generic-api-key).
	rank int

	// The regex is compiled when a text needs it run, the anchors when a
	// text first holds the rule's keywords: most texts that wake a rule
	// need only its anchors' heads, which are small and quick to compile.
	once    sync.Once
	anchors []*anchor // none: the regex runs over the whole text
	reOnce  sync.Once
	re      *regexp.Regexp
}

// compile makes the rule's anchors, once.
func (r *rule) compile() {
	r.once.Do(func() { r.anchors = anchorsOf(r.source, r.keywords) })
}

func (r *rule) regexp() *regexp.Regexp {
	r.reOnce.Do(func() { r.re = regexp.MustCompile(r.source) })
	return r.re
}

// allowlist says which findings are not secrets, as gitleaks' do.
type allowlist struct {
	// and: every check given must hold; otherwise any one.
	and bool
	// target: what the regexes look at: "" the secret, "match" the whole
	// match, "line" the lines the match is on.
	target    string
	regexes   []string
	stopwords []string // lower case; looked for in the secret
	// needsPathOrCommit: the allowlist names paths or commits, which a
	// text has none of.
	needsPathOrCommit bool

	once sync.Once
	re   *regexp.Regexp // the regexes joined
}

func (a *allowlist) regexp() *regexp.Regexp {
	a.once.Do(func() {
		if len(a.regexes) > 0 {
			a.re = regexp.MustCompile("(?:" + strings.Join(a.regexes, ")|(?:") + ")")
		}
	})
	return a.re
}

// allows: the finding (secret, the whole match, its lines) is one this
// allowlist lets through.
func (a *allowlist) allows(secret, match string, line func() string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line()
	}
	re := a.regexp()
	byRegex := re != nil && target != "" && re.MatchString(target)
	byStopword := false
	if len(a.stopwords) > 0 && secret != "" {
		lower := strings.ToLower(secret)
		for _, w := range a.stopwords {
			if strings.Contains(lower, w) {
				byStopword = true
				break
			}
		}
	}
	if !a.and {
		return byRegex || byStopword
	}
	if a.needsPathOrCommit {
		return false
	}
	checks := 0
	if re != nil {
		if !byRegex {
			return false
		}
		checks++
	}
	if len(a.stopwords) > 0 {
		if !byStopword {
			return false
		}
		checks++
	}
	return checks > 0
}

// shannonEntropy is gitleaks' measure: over the characters of s, with
// frequencies taken against its length in bytes.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	var ascii [128]int
	var other map[rune]int
	for _, c := range s {
		if c < 128 {
			ascii[c]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[c]++
	}
	inv := 1 / float64(len(s))
	h := 0.0
	add := func(n int) {
		if n > 0 {
			f := float64(n) * inv
			h -= f * math.Log2(f)
		}
	}
	for _, n := range ascii {
		add(n)
	}
	for _, n := range other {
		add(n)
	}
	return h
}

// ruleSet is the rules in the order their findings win, with what finds
// the ones a text calls for.
type ruleSet struct {
	rules  []*rule
	global []*allowlist
	kw     keywordIndex
	// order of each kind, for reporting hits in rule order.
	kindOrder map[string]int
}

func newRuleSet(rules []*rule, global []*allowlist) *ruleSet {
	rs := &ruleSet{rules: rules, global: global, kindOrder: map[string]int{}}
	var words []string
	at := map[string]int{}
	for _, r := range rules {
		if _, ok := rs.kindOrder[r.id]; !ok {
			rs.kindOrder[r.id] = len(rs.kindOrder)
		}
		for _, k := range r.keywords {
			w, ok := at[k]
			if !ok {
				w = len(words)
				at[k] = w
				words = append(words, k)
			}
			r.kwIndex = append(r.kwIndex, w)
		}
	}
	rs.kw = newKeywordIndex(words)
	return rs
}

// finding is one secret in a text: where it is and which rule found it.
type finding struct {
	from, to int
	rule     int
}

// find returns every finding of the rules s's keywords call for.
func (rs *ruleSet) find(s string) []finding {
	at := rs.kw.find(s)
	var nl newlines
	var out []finding
	for i, r := range rs.rules {
		var where []int
		if len(r.keywords) > 0 {
			for _, k := range r.kwIndex {
				where = append(where, at[k]...)
			}
			if len(where) == 0 {
				continue
			}
		}
		r.compile()
		if r.anchors == nil {
			out = rs.findIn(s, 0, len(s), i, out)
			continue
		}
		slices.Sort(where)
		// done: the last window searched; one inside it is not searched
		// again (a line with many keywords, a run of them).
		var doneFrom, doneTo int
		for _, p := range slices.Compact(where) {
			for _, a := range r.anchors {
				from, to, ok := a.window(s, &nl, p, doneFrom, doneTo)
				if !ok {
					continue
				}
				out = rs.findIn(s, from, to, i, out)
				doneFrom, doneTo = from, to
			}
		}
	}
	return out
}

// everywhere adds to found every other place in s that holds the text of
// a secret found: a token that a rule found where it was assigned is the
// same secret where the text repeats it bare. Secrets shorter than 8 bytes
// (a URL's password may be one character) are not looked for.
func everywhere(s string, found []finding) []finding {
	seen := map[string]bool{}
	n := len(found)
	for _, f := range found[:n] {
		secret := s[f.from:f.to]
		if len(secret) < 8 || seen[secret] {
			continue
		}
		seen[secret] = true
		for at := 0; ; {
			j := strings.Index(s[at:], secret)
			if j < 0 {
				break
			}
			if from := at + j; from != f.from {
				found = append(found, finding{from: from, to: from + len(secret), rule: f.rule})
			}
			at += j + 1
		}
	}
	return found
}

// findIn adds rule i's findings in s[wFrom:wTo] to out, the way gitleaks'
// detector decides them: the secret is the secretGroup'th capture group,
// or the first that matched, or the whole match; it must have more
// entropy than the rule asks; no allowlist, global or the rule's, may let
// it through.
func (rs *ruleSet) findIn(s string, wFrom, wTo int, i int, out []finding) []finding {
	r := rs.rules[i]
	for _, loc := range r.regexp().FindAllStringSubmatchIndex(s[wFrom:wTo], -1) {
		for j := range loc {
			if loc[j] >= 0 {
				loc[j] += wFrom
			}
		}
		// gitleaks trims newlines off both ends of a match.
		mFrom, mTo := loc[0], loc[1]
		for mTo > mFrom && s[mTo-1] == '\n' {
			mTo--
		}
		for mFrom < mTo && s[mFrom] == '\n' {
			mFrom++
		}
		from, to := mFrom, mTo
		if len(loc) > 2 {
			if g := r.secretGroup; g > 0 {
				if 2*g+1 >= len(loc) || loc[2*g] < 0 {
					continue
				}
				from, to = loc[2*g], loc[2*g+1]
			} else {
				for g := 2; g+1 < len(loc); g += 2 {
					if loc[g] >= 0 && loc[g+1] > loc[g] {
						from, to = loc[g], loc[g+1]
						break
					}
				}
			}
			from, to = max(from, mFrom), min(to, mTo)
		}
		if r.trimEnd {
			to = from + len(trimNewlines(s[from:to]))
		}
		if from >= to {
			continue
		}
		secret := s[from:to]
		if strings.Contains(secret, markerPrefix) {
			continue // what is already redacted
		}
		if r.entropy != 0 && shannonEntropy(secret) <= r.entropy {
			continue
		}
		if r.check != nil && !r.check(secret) {
			continue
		}
		if rs.allowed(r, s, secret, mFrom, mTo) {
			continue
		}
		out = append(out, finding{from: from, to: to, rule: i})
	}
	return out
}

func (rs *ruleSet) allowed(r *rule, s, secret string, mFrom, mTo int) bool {
	// The lines the match is on, looked for only when an allowlist asks:
	// a text of one long line would otherwise cost its length a finding.
	line := func() string {
		from := strings.LastIndexByte(s[:mFrom], '\n') + 1
		to := len(s)
		if j := strings.IndexByte(s[mTo:], '\n'); j >= 0 {
			to = mTo + j
		}
		return s[from:to]
	}
	for _, list := range [][]*allowlist{rs.global, r.allow} {
		for _, a := range list {
			if a.allows(secret, s[mFrom:mTo], line) {
				return true
			}
		}
	}
	return false
}

// redact replaces each finding in s with a marker naming its rule, and
// counts them by kind. Findings that overlap become one marker over all
// of them, named for the best of their rules (see better), and counted once.
func (rs *ruleSet) redact(s string, found []finding) (string, []Hit) {
	if len(found) == 0 {
		return s, nil
	}
	sort.Slice(found, func(a, b int) bool {
		if found[a].from != found[b].from {
			return found[a].from < found[b].from
		}
		return found[a].to > found[b].to
	})
	counts := map[string]int{}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(found); {
		from, to, best := found[i].from, found[i].to, found[i].rule
		j := i + 1
		for ; j < len(found) && found[j].from < to; j++ {
			to = max(to, found[j].to)
			if rs.better(found[j].rule, best) {
				best = found[j].rule
			}
		}
		from, to = widenToRunes(s, from, to)
		from = max(from, last)
		kind := rs.rules[best].id
		b.WriteString(s[last:from])
		b.WriteString(marker(kind))
		counts[kind]++
		last = to
		i = j
	}
	b.WriteString(s[last:])
	hits := make([]Hit, 0, len(counts))
	for k, n := range counts {
		hits = append(hits, Hit{Kind: k, Count: n})
	}
	sort.Slice(hits, func(a, b int) bool { return rs.kindOrder[hits[a].Kind] < rs.kindOrder[hits[b].Kind] })
	return b.String(), hits
}

const (
	rankBlock = iota
	rankProvider
	rankGeneric
)

// better: rule a's name is the one to give a marker over b's.
func (rs *ruleSet) better(a, b int) bool {
	ra, rb := rs.rules[a].rank, rs.rules[b].rank
	if ra != rb {
		return ra < rb
	}
	return a < b
}

// widenToRunes moves from and to outwards to whole UTF-8 characters, so
// that a marker never leaves half of one behind (a rule's \S or . can end
// inside a character only where the text is not UTF-8 already).
func widenToRunes(s string, from, to int) (int, int) {
	for from > 0 && from < len(s) && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	return from, to
}

// keywordIndex finds which of a set of lower-case keywords a text holds,
// in any ASCII case, in one pass: each position's two bytes, folded, are
// looked up in a bit set of the keywords' first two bytes, and only then
// compared. (gitleaks builds an Aho-Corasick automaton; building one took
// 20 ms here, more than all the rest of a short note's redaction.)
type keywordIndex struct {
	words  []string
	pairs  [1 << 16 / 64]uint64
	byPair map[uint16][]int
	// single: keywords of one byte, looked for alone.
	single [256][]int
}

var foldTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return
}()

func newKeywordIndex(words []string) keywordIndex {
	ix := keywordIndex{words: words, byPair: map[uint16][]int{}}
	for w, k := range words {
		if len(k) == 1 {
			ix.single[foldTable[k[0]]] = append(ix.single[foldTable[k[0]]], w)
			continue
		}
		p := uint16(foldTable[k[0]])<<8 | uint16(foldTable[k[1]])
		ix.pairs[p>>6] |= 1 << (p & 63)
		ix.byPair[p] = append(ix.byPair[p], w)
	}
	return ix
}

// find returns, for each keyword, where s holds it.
func (ix *keywordIndex) find(s string) [][]int {
	at := make([][]int, len(ix.words))
	for i := 0; i < len(s); i++ {
		c := foldTable[s[i]]
		for _, w := range ix.single[c] {
			at[w] = append(at[w], i)
		}
		if i+1 == len(s) {
			break
		}
		p := uint16(c)<<8 | uint16(foldTable[s[i+1]])
		if ix.pairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		for _, w := range ix.byPair[p] {
			if hasPrefixFold(s[i:], ix.words[w]) {
				at[w] = append(at[w], i)
			}
		}
	}
	return at
}

// hasPrefixFold: s begins with the lower-case word, in any ASCII case.
func hasPrefixFold(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if foldTable[s[i]] != word[i] {
			return false
		}
	}
	return true
}
