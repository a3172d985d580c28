// Package redact takes credentials out of text before git-handoff writes it
// where others read it: batons, summaries, transcript and terminal excerpts,
// objectives, handoff packages. Each secret is replaced by a marker naming
// the rule that found it, "[redacted github-pat]", and the caller is told
// what was taken, by rule, to pass on as a notice or in --json; never the
// secret itself.
//
// The rules are gitleaks' (gitleaks.go): the 200-odd its maintainers keep
// in its default configuration (the version go.mod names), each with a
// regex, the keywords every match holds, an entropy threshold, the capture
// group that is the secret and allowlists, applied as gitleaks' detector
// applies them. What differs
// from running gitleaks' detector, and why:
//
//   - Only the rules a text's keywords call for are compiled, on first
//     use, and kept for the next text: a note of one line wakes none or
//     two, where gitleaks compiles every rule when it starts.
//   - gitleaks' provider rules end a token at a space, a quote, a
//     semicolon or the end of the text; here also at , . ) ] } and >, as
//     prose ends a sentence or a list after a token ("the key was AIza….").
//   - Rules that gitleaks applies only to files of some path are left out
//     (there is no path); so is its decoding of base64, hex and percent
//     encoded text, and a "gitleaks:allow" comment allows nothing here: it
//     is a reviewer's mark in source code, and these texts are not that.
//   - A few rules of our own (ours.go) find what gitleaks has no rule for
//     and these texts hold: a key block cut short, a URL's password, an
//     Authorization header outside a curl command, a password with
//     symbols in it, a --flag and its secret value apart.
//
// gitleaks' allowlists are kept, the published examples among them:
// AWS's documentation key AKIA…EXAMPLE and the GitHub token of the alphabet
// and the digits pass through. They grant nothing to anyone, no real key
// has that shape (an AWS key id ending in EXAMPLE by chance is one in
// 2^35), and a note that discusses one, in a test fixture or a doc,
// should read as written rather than announce a redaction that protected
// nothing. The same allowlists keep placeholders (${TOKEN}, {{ .Values.x
// }}, %s, /usr/… paths) and ordinary words out of generic-api-key.
//
// What it misses, because no rule set is complete: secrets that are short
// or look like words ("PASSWORD=hunter2"), under names that say nothing
// ("DB_PW=…"), split across lines, or encoded; a value whose quote is
// itself escaped (\"password\": \"…\", JSON quoted inside JSON).
//
// Every pattern is an RE2 regular expression, so a text costs time linear
// in its length whatever it holds.
package redact

import (
	"fmt"
	"strings"
	"sync"
)

// Hit says how many secrets one rule found in a text.
type Hit struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// String names the hit for a notice: "2 github-pat".
func (h Hit) String() string { return fmt.Sprintf("%d %s", h.Count, h.Kind) }

// Describe is the notice for hits: "redacted before writing: 1
// github-pat, 1 private-key"; "" when there are none.
func Describe(hits []Hit) string {
	if len(hits) == 0 {
		return ""
	}
	parts := make([]string, len(hits))
	for i, h := range hits {
		parts[i] = h.String()
	}
	return "redacted before writing: " + strings.Join(parts, ", ")
}

// Text returns s with each secret replaced by the marker "[redacted RULE]"
// and what was found, by rule, in the rules' order. Text of its own
// result returns it unchanged and finds nothing.
//
// An empty text holds nothing and reads no rule: a start without an
// objective pays nothing for the rules it would otherwise parse first
// (about a millisecond, issue 36).
func Text(s string) (string, []Hit) {
	if s == "" {
		return s, nil
	}
	return defaultRules().text(s)
}

func (rs *ruleSet) text(s string) (string, []Hit) {
	var all []Hit
	// Once a secret is gone its surroundings read differently: a value an
	// allowlist let through for a stopword in the part that was a token
	// is a secret without it. So Text runs again over what it made until
	// nothing more is found. Each pass that finds something puts markers
	// in place of text that holds none (a secret never holds a marker), so
	// the text left to look at shrinks and the passes end; the bound is a
	// guard. A text without secrets takes one pass.
	for range 64 {
		out, hits := rs.redact(s, everywhere(s, rs.find(s)))
		if hits == nil {
			break
		}
		s, all = out, rs.merge(all, hits)
	}
	return s, all
}

// Strings redacts each element into a new slice and merges the hits.
func Strings(in []string) ([]string, []Hit) {
	if in == nil {
		return nil, nil
	}
	out := make([]string, len(in))
	var hits []Hit
	for i, s := range in {
		var h []Hit
		out[i], h = Text(s)
		hits = Merge(hits, h)
	}
	return out, hits
}

// Merge adds b's counts to a's: kinds in the rules' order, then any kind
// no rule has, in the order met.
func Merge(a, b []Hit) []Hit {
	if len(a) == 0 || len(b) == 0 {
		return append(a, b...) // the one that has any, in its order: no rule read
	}
	return defaultRules().merge(a, b)
}

func (rs *ruleSet) merge(a, b []Hit) []Hit {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	order := rs.kindOrder
	sum := map[string]int{}
	var kinds []string
	for _, list := range [][]Hit{a, b} {
		for _, h := range list {
			if _, ok := sum[h.Kind]; !ok {
				kinds = append(kinds, h.Kind)
			}
			sum[h.Kind] += h.Count
		}
	}
	rank := func(k string) int {
		if n, ok := order[k]; ok {
			return n
		}
		return len(order)
	}
	// A stable insertion sort: few kinds, and unknown ones keep their order.
	for i := 1; i < len(kinds); i++ {
		for j := i; j > 0 && rank(kinds[j]) < rank(kinds[j-1]); j-- {
			kinds[j], kinds[j-1] = kinds[j-1], kinds[j]
		}
	}
	out := make([]Hit, len(kinds))
	for i, k := range kinds {
		out[i] = Hit{Kind: k, Count: sum[k]}
	}
	return out
}

// defaultRules is gitleaks' rules and ours, read on first use.
var defaultRules = sync.OnceValue(func() *ruleSet {
	rs, err := buildRules(defaultGitleaksConfig())
	if err != nil {
		// The configuration is compiled into the binary, and the tests
		// read it: this is a dependency upgrade gone wrong, not input.
		panic("redact: " + err.Error())
	}
	return rs
})

// proseEnd is how gitleaks' provider rules end a token, and proseEndWider
// what they end it with here (see the package comment).
const (
	proseEnd      = `(?:[\x60'"\s;]|\\[nr]|$)`
	proseEndWider = `(?:[\x60'"\s;,.)\]}>]|\\[nr]|$)`
)

// buildRules is the rule set of a gitleaks configuration, in its order,
// then ours.
func buildRules(config string) (*ruleSet, error) {
	gl, global, err := gitleaksRules(config)
	if err != nil {
		return nil, err
	}
	var generic *rule
	for _, r := range gl {
		r.source = strings.ReplaceAll(r.source, proseEnd, proseEndWider)
		r.rank = rankProvider
		if r.id == "private-key" {
			r.rank = rankBlock
		}
		if r.id == "generic-api-key" {
			r.rank = rankGeneric
			generic = r
		}
	}
	ours := ourRules()
	for _, r := range ours {
		if (r.id == "secret-flag" || r.id == "secret-assignment") && generic != nil {
			r.allow = generic.allow
		}
	}
	return newRuleSet(append(gl, ours...), global), nil
}
