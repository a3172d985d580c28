package redact

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSamples(t *testing.T) {
	for _, c := range samples() {
		t.Run(c.name, func(t *testing.T) {
			got, hits := Text(c.in)
			if got != c.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
			if !reflect.DeepEqual(hits, c.hits) {
				t.Errorf("hits %v, want %v", hits, c.hits)
			}
			checkProperties(t, c.in, got, hits)
		})
	}
}

func TestNearMissesPassThrough(t *testing.T) {
	for _, in := range nearMisses() {
		got, hits := Text(in)
		if got != in || hits != nil {
			t.Errorf("Text(%q)\n got %q, %v\nwant it unchanged", in, got, hits)
		}
		if f := findings(in); f != nil {
			t.Errorf("findings(%q) = %q, want none", in, f)
		}
	}
}

// TestEveryRuleHasASample: each rule of the table (not just each kind)
// finds a secret in some sample, so a rule that stopped matching, or one
// added without a sample, fails here.
func TestEveryRuleHasASample(t *testing.T) {
	all := samples()
	for i := range table {
		r := &table[i]
		found := false
		for _, c := range all {
			texts := []string{c.in}
			if !r.block {
				texts = strings.Split(c.in, "\n")
			}
			for _, text := range texts {
				for _, loc := range r.re.FindAllStringSubmatchIndex(text, -1) {
					if _, _, ok := r.secret(text, loc); ok {
						found = true
					}
				}
			}
		}
		if !found {
			t.Errorf("rule %d (%s, %s) finds nothing in any sample", i, r.kind, r.re)
		}
	}
}

// TestTable: kinds are kebab-case and their rules sit side by side (hitsOf
// relies on it), and line rules' keywords are lower case (the line filter
// compares them with the lower-cased line).
func TestTable(t *testing.T) {
	seen := map[string]int{}
	for i, r := range table {
		for _, c := range r.kind {
			if !('a' <= c && c <= 'z' || c == '-') {
				t.Errorf("kind %q is not kebab-case", r.kind)
			}
		}
		if j, ok := seen[r.kind]; ok && j != i-1 {
			t.Errorf("rules of kind %q at %d and %d are not side by side", r.kind, j, i)
		}
		seen[r.kind] = i
		if r.noun == "" || len(r.keywords) == 0 {
			t.Errorf("rule %d (%s) lacks a noun or keywords", i, r.kind)
		}
		for _, k := range r.keywords {
			if !r.block && k != strings.ToLower(k) {
				t.Errorf("rule %d (%s): keyword %q is not lower case", i, r.kind, k)
			}
		}
	}
}

// TestMarkersPassThrough: a marker, alone or where a secret was, is never
// taken for a secret, whatever surrounds it.
func TestMarkersPassThrough(t *testing.T) {
	for _, r := range table {
		mk := marker(r.kind)
		for _, in := range []string{
			mk,
			"API_KEY=" + mk,
			"export TOKEN=\"" + mk + "\"",
			`{"client_secret": "` + mk + `"}`,
			"--password " + mk,
			"https://user:" + mk + "@host/",
			"Authorization: Bearer " + mk,
			"Authorization: Basic " + mk,
			"-----BEGIN RSA PRIVATE KEY-----\n" + mk + "\n-----END RSA PRIVATE KEY-----",
		} {
			if got, hits := Text(in); got != in || hits != nil {
				t.Errorf("Text(%q) = %q, %v; want it unchanged", in, got, hits)
			}
		}
	}
}

func TestStringsAndMerge(t *testing.T) {
	g := newGen(3)
	gh := "gh" + "p_" + g.of(base62, 36)
	in := []string{"first " + gh, "nothing", "API_KEY=" + g.of(base62, 30) + " and " + gh}
	keep := append([]string(nil), in...)
	out, hits := Strings(in)
	if !reflect.DeepEqual(in, keep) {
		t.Fatalf("Strings changed its input: %q", in)
	}
	want := []string{"first " + marker("github-token"), "nothing", "API_KEY=" + marker("secret-assignment") + " and " + marker("github-token")}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("Strings = %q, want %q", out, want)
	}
	if wantHits := []Hit{{"github-token", 2}, {"secret-assignment", 1}}; !reflect.DeepEqual(hits, wantHits) {
		t.Fatalf("hits %v, want %v", hits, wantHits)
	}
	if out, hits := Strings(nil); out != nil || hits != nil {
		t.Fatalf("Strings(nil) = %q, %v", out, hits)
	}

	got := Merge([]Hit{{"secret-assignment", 1}, {"someone-elses", 2}}, []Hit{{"jwt", 1}, {"private-key", 3}, {"secret-assignment", 4}})
	if want := []Hit{{"private-key", 3}, {"jwt", 1}, {"secret-assignment", 5}, {"someone-elses", 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Merge = %v, want %v", got, want)
	}
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		hits []Hit
		want string
	}{
		{nil, ""},
		{[]Hit{{"github-token", 1}}, "redacted before writing: 1 GitHub token"},
		{[]Hit{{"github-token", 2}, {"private-key", 1}, {"url-password", 2}, {"new-kind", 1}}, "redacted before writing: 2 GitHub tokens, 1 private key, 2 URL passwords, 1 new-kind"},
	} {
		if got := Describe(c.hits); got != c.want {
			t.Errorf("Describe(%v) = %q, want %q", c.hits, got, c.want)
		}
	}
	data, err := json.Marshal([]Hit{{"jwt", 2}})
	if err != nil || string(data) != `[{"kind":"jwt","count":2}]` {
		t.Fatalf("json: %s, %v", data, err)
	}
}

// TestLargeInput: ten megabytes of near-misses in lines, and two on one
// line (where each rule's regexp runs over all of it), come back unchanged.
// The time it takes is BenchmarkText's to report; the test's deadline is go
// test's -timeout.
func TestLargeInput(t *testing.T) {
	lines := nearMissText(10 << 20)
	oneLine := strings.ReplaceAll(nearMissText(2<<20), "\n", " ")
	for name, in := range map[string]string{"lines": lines, "one line": oneLine} {
		got, hits := Text(in)
		if got != in || hits != nil {
			t.Errorf("%s: %d bytes of near-misses changed: %v", name, len(in), hits)
		}
	}
}

// nearMissText is at least n bytes of near-misses, one to a line.
func nearMissText(n int) string {
	var b strings.Builder
	misses := nearMisses()
	for i := 0; b.Len() < n; i++ {
		s := misses[i%len(misses)]
		if strings.HasPrefix(s, markerPrefix) {
			continue
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String()
}

// checkProperties holds Text's promises for one input: its output redacts
// to itself with no hits, no rule finds a secret in it, valid UTF-8 stays
// valid, every hit left exactly one marker, and no hit means no change.
func checkProperties(t *testing.T, in, out string, hits []Hit) {
	t.Helper()
	if again, more := Text(out); again != out || more != nil {
		t.Fatalf("not idempotent: Text(%q)\n = %q\n then %q, %v", in, out, again, more)
	}
	if f := findings(out); f != nil {
		t.Fatalf("Text(%q) = %q still holds %q", in, out, f)
	}
	if utf8.ValidString(in) && !utf8.ValidString(out) {
		t.Fatalf("Text(%q) = %q is not UTF-8", in, out)
	}
	if hits == nil && out != in {
		t.Fatalf("Text(%q) = %q changed it without a hit", in, out)
	}
	for _, r := range table {
		n := 0
		for _, h := range hits {
			if h.Kind == r.kind {
				n = h.Count
			}
		}
		mk := marker(r.kind)
		if added := strings.Count(out, mk) - strings.Count(in, mk); added != n {
			t.Fatalf("Text(%q) = %q: %d %s markers added, %d hits", in, out, added, r.kind, n)
		}
	}
	for _, h := range hits {
		if h.Count <= 0 {
			t.Fatalf("hit %v counts nothing", h)
		}
	}
}

// TestSplicedSamples holds Text's promises on texts spliced at random from
// pieces of the samples and near-misses, joined by characters the rules
// care about: secrets side by side, cut short, inside each other's names.
// The fuzz target does the same from its corpus, unseeded.
func TestSplicedSamples(t *testing.T) {
	var pieces []string
	for _, c := range samples() {
		pieces = append(pieces, c.in)
	}
	pieces = append(pieces, nearMisses()...)
	joiners := []string{"", " ", "\n", "=", ": ", `"`, "'", "@", "://", ":", "\\n", "-", "_", ",", "é"}
	g := newGen(4)
	for range 3000 {
		var b strings.Builder
		for range 1 + g.r.IntN(4) {
			p := pieces[g.r.IntN(len(pieces))]
			if len(p) > 0 && g.r.IntN(3) == 0 {
				from := g.r.IntN(len(p))
				p = p[from : from+g.r.IntN(len(p)-from+1)]
			}
			b.WriteString(p)
			b.WriteString(joiners[g.r.IntN(len(joiners))])
		}
		in := b.String()
		out, hits := Text(in)
		checkProperties(t, in, out, hits)
	}
}

// TestRandomIsSeldomWords bounds how often madeOfWords takes random
// letters and digits for a name, which would let a secret through: at most
// 2% of 16-character strings and 0.5% of 24-character ones (fixed seed).
func TestRandomIsSeldomWords(t *testing.T) {
	g := newGen(5)
	for _, alphabet := range []string{base62, b64url, lower + digits, upper + digits, hexLow} {
		for n, most := range map[int]float64{16: 0.02, 24: 0.005} {
			words, tried := 0, 0
			for range 5000 {
				b := make([]byte, n)
				for i := range b {
					b[i] = alphabet[g.r.IntN(len(alphabet))]
				}
				s := string(b)
				if !hasDigit(s) || !hasLetter(s) {
					continue
				}
				tried++
				if madeOfWords(s) {
					words++
				}
			}
			if rate := float64(words) / float64(tried); rate > most {
				t.Errorf("%d-character strings of %q: %.2f%% taken for words, want at most %.2f%%", n, alphabet, 100*rate, 100*most)
			}
		}
	}
	for _, name := range []string{"NewFloat64Schema", "TokenCountPerRequest1", "prod-db-password-v2", "x509Certificate", "3rdParty", "sha256"} {
		if !madeOfWords(name) {
			t.Errorf("madeOfWords(%q) = false", name)
		}
	}
}
