// Package redact takes credentials out of text before git-handoff writes it
// where others read it: batons, summaries, transcript and terminal excerpts,
// handoff packages. Each secret is replaced by a marker naming its kind,
// "[redacted github-token]", and the caller is told what was taken, by kind,
// to pass on as a notice or in --json.
//
// What it finds (one table, rules.go, one test per rule):
//   - tokens of GitHub (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), GitLab
//     (glpat-, gldt-, glrt-, glptt-), AWS access key IDs (AKIA, ASIA, ABIA,
//     ACCA), Google API keys (AIza), Anthropic (sk-ant-), OpenAI (sk-,
//     sk-proj-, sk-svcacct-, sk-admin-), Slack (xoxa/b/e/o/p/r/s- and webhook
//     URLs), Stripe (sk_/rk_ live and test), npm (npm_), PyPI (pypi-AgE…),
//     Hugging Face (hf_);
//   - JSON Web Tokens whose header decodes to JSON naming an "alg";
//   - PEM, OpenSSH and PGP private key blocks, also one cut short with no
//     END line, also with its newlines written as JSON escapes;
//   - the password of a URL (scheme://user:password@host: only the password);
//   - Authorization (and Proxy-Authorization) Bearer, Token and Basic values;
//   - AWS secret access keys assigned to their usual names, and any value
//     assigned to a name containing KEY, TOKEN, SECRET, PASSWORD, PASSWD or
//     PASSPHRASE (env, shell export, YAML, JSON, TOML, Go, --flag=value and
//     --flag value) when it looks random: 16 characters or more mixing
//     letters and digits, not made of words, with the entropy of random text.
//
// What it misses, because no rule set is complete: providers outside the
// table (Azure, Twilio, SendGrid, Datadog, database vendors, …) unless their
// key is assigned to a secret-shaped name; secrets that are short or look
// like words ("PASSWORD=hunter2", a memorable passphrase), that have no
// digit, or that begin like a path ("/…") or a reference ("$…"); secrets under names that say nothing ("DB_PW=…", "AUTH=…"); a
// password given without "=" or ":" (a .netrc's "password x", "mysql
// -px"); a value split across lines or assigned across lines (a YAML block
// scalar); UUID-shaped keys; anything encoded (base64 of a config file,
// URL-encoded JSON). It errs the other way too: a value of 32 or more hex
// digits assigned to such a name, a commit id under "key:" say, is taken
// for a secret.
//
// A cut-short key block also takes the first word of the line after it.
//
// Every pattern is an RE2 regular expression, so a text costs time linear in
// its length whatever it holds; a line without any rule's keyword costs one
// lower-casing and a few substring searches.
package redact

import (
	"bytes"
	"fmt"
	"strings"
)

// Hit says how many secrets of one kind a text held.
type Hit struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// String names the hit for a notice: "2 GitHub tokens".
func (h Hit) String() string {
	noun := h.Kind
	for _, r := range table {
		if r.kind == h.Kind {
			noun = r.noun
			break
		}
	}
	if h.Count != 1 {
		noun += "s"
	}
	return fmt.Sprintf("%d %s", h.Count, noun)
}

// Describe is the notice for hits: "redacted before writing: 1 GitHub
// token, 1 private key"; "" when there are none.
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

// Text returns s with each secret replaced by the marker "[redacted KIND]"
// and what was found, by kind, in table order. Text of its own result
// returns it unchanged and finds nothing.
func Text(s string) (string, []Hit) {
	counts := make([]int, len(table))
	out := redactBlocks(s, counts)

	var b strings.Builder
	var lower []byte
	copied := false
	for start := 0; ; {
		end := strings.IndexByte(out[start:], '\n')
		if end < 0 {
			end = len(out)
		} else {
			end += start
		}
		line := out[start:end]
		red := redactLine(line, &lower, counts)
		if red != line && !copied {
			b.Grow(len(out) + 64)
			b.WriteString(out[:start])
			copied = true
		}
		if copied {
			b.WriteString(red)
			if end < len(out) {
				b.WriteByte('\n')
			}
		}
		if end == len(out) {
			break
		}
		start = end + 1
	}
	if copied {
		out = b.String()
	}
	return out, hitsOf(counts)
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

// Merge adds b's counts to a's: kinds in table order, then any kind the
// table does not know, in the order met.
func Merge(a, b []Hit) []Hit {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	sum := map[string]int{}
	var order []string
	for _, list := range [][]Hit{a, b} {
		for _, h := range list {
			if _, ok := sum[h.Kind]; !ok {
				order = append(order, h.Kind)
			}
			sum[h.Kind] += h.Count
		}
	}
	var out []Hit
	for _, r := range table {
		if n, ok := sum[r.kind]; ok {
			out = append(out, Hit{Kind: r.kind, Count: n})
			delete(sum, r.kind)
		}
	}
	for _, k := range order {
		if n, ok := sum[k]; ok {
			out = append(out, Hit{Kind: k, Count: n})
			delete(sum, k)
		}
	}
	return out
}

func hitsOf(counts []int) []Hit {
	var hits []Hit
	for i, r := range table {
		if counts[i] == 0 {
			continue
		}
		if j := len(hits) - 1; j >= 0 && hits[j].Kind == r.kind {
			hits[j].Count += counts[i]
			continue
		}
		// Rules of one kind sit side by side in the table.
		hits = append(hits, Hit{Kind: r.kind, Count: counts[i]})
	}
	return hits
}

// redactBlocks runs the rules that span lines over the whole text.
func redactBlocks(s string, counts []int) string {
	for i := range table {
		r := &table[i]
		if !r.block || !containsAny(s, r.keywords) {
			continue
		}
		s = r.replace(s, &counts[i])
	}
	return s
}

// redactLine runs the line rules over one line, in table order, each over
// what the ones before it left. A marker ends in "]", which no name, token
// or value continues, so a replacement never makes a match for a rule that
// ran before it (FuzzText holds it to that).
func redactLine(line string, lower *[]byte, counts []int) string {
	*lower = appendLower((*lower)[:0], line)
	for i := range table {
		r := &table[i]
		if r.block || !lowerHasAny(*lower, r.keywordBytes) {
			continue
		}
		n := counts[i]
		line = r.replace(line, &counts[i])
		if counts[i] != n {
			*lower = appendLower((*lower)[:0], line)
		}
	}
	return line
}

// replace puts a marker in place of each secret re finds in s that passes
// the check, and counts them.
func (r *rule) replace(s string, count *int) string {
	locs := r.re.FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		from, to, ok := r.secret(s, loc)
		if !ok {
			continue
		}
		if last == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:from])
		b.WriteString(marker(r.kind))
		last = to
		*count++
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// secret is where the secret of the match at loc is in s, and whether it
// is one.
func (r *rule) secret(s string, loc []int) (from, to int, ok bool) {
	if r.wordStart && afterWord(s, loc[0]) {
		return 0, 0, false
	}
	from, to = loc[0], loc[1]
	for g := 2; g < len(loc); g += 2 {
		if loc[g] >= 0 {
			from, to = loc[g], loc[g+1]
			break
		}
	}
	if r.trimEnd {
		to = from + len(trimNewlines(s[from:to]))
	}
	return from, to, from < to && (r.check == nil || r.check(s[from:to]))
}

// trimNewlines drops the spaces and newlines, also JSON-escaped ones, that
// end s.
func trimNewlines(s string) string {
	for {
		t := strings.TrimRight(s, " \t\r\n")
		for _, esc := range []string{`\\n`, `\\r`, `\n`, `\r`} {
			if strings.HasSuffix(t, esc) {
				t = t[:len(t)-len(esc)]
				break
			}
		}
		if t == s {
			return s
		}
		s = t
	}
}

// findings is every secret Text would replace in s, as "kind: secret",
// found without the keyword filter; tests use it to say that nothing is
// left.
func findings(s string) []string {
	var found []string
	look := func(r *rule, text string) {
		for _, loc := range r.re.FindAllStringSubmatchIndex(text, -1) {
			if from, to, ok := r.secret(text, loc); ok {
				found = append(found, r.kind+": "+text[from:to])
			}
		}
	}
	for i := range table {
		if table[i].block {
			look(&table[i], s)
			continue
		}
		for line := range strings.SplitSeq(s, "\n") {
			look(&table[i], line)
		}
	}
	return found
}

// afterWord: s[i] follows a letter, digit or underscore that is not the
// end of an escape (\n, \t).
func afterWord(s string, i int) bool {
	if i == 0 || !isAlnum(s[i-1]) && s[i-1] != '_' {
		return false
	}
	return i < 2 || s[i-2] != '\\'
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func lowerHasAny(lower []byte, subs [][]byte) bool {
	for _, sub := range subs {
		if bytes.Contains(lower, sub) {
			return true
		}
	}
	return false
}

// appendLower appends s with ASCII letters lower-cased: enough for the
// keywords, which are ASCII, and it keeps byte offsets.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
