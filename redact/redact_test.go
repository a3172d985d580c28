package redact

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestProviderTokens: each provider's token is redacted wherever a note
// puts it, and named for its provider's rule.
func TestProviderTokens(t *testing.T) {
	for _, tok := range tokens() {
		for _, c := range contexts {
			in := c.wrap(tok.value)
			t.Run(tok.rule+"/"+c.name, func(t *testing.T) {
				out, hits := Text(in)
				if want := c.wrap(m(tok.rule)); out != want {
					t.Errorf("Text(%q)\n got %q\nwant %q", in, out, want)
				}
				if !reflect.DeepEqual(hits, hit(tok.rule)) {
					t.Errorf("hits %v, want %v", hits, hit(tok.rule))
				}
				checkProperties(t, in, out, hits)
			})
		}
	}
}

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
		if got, hits := Text(in); got != in || hits != nil {
			t.Errorf("Text(%q)\n got %q, %v\nwant it unchanged", in, got, hits)
		}
	}
}

// TestPublishedExamplesPassThrough holds the decision the package comment
// explains: gitleaks' allowlists stand, the published examples with them.
func TestPublishedExamplesPassThrough(t *testing.T) {
	for _, in := range examples() {
		if got, hits := Text(in); got != in || hits != nil {
			t.Errorf("Text(%q) = %q, %v; want it unchanged", in, got, hits)
		}
	}
}

// TestSeveralInOneText: tokens side by side, one text, hits in rule order.
func TestSeveralInOneText(t *testing.T) {
	var in, want strings.Builder
	counts := map[string]int{}
	for i, tok := range tokens() {
		c := contexts[i%len(contexts)]
		in.WriteString(c.wrap(tok.value) + "\n")
		want.WriteString(c.wrap(m(tok.rule)) + "\n")
		counts[tok.rule]++
	}
	out, hits := Text(in.String())
	if out != want.String() {
		t.Fatalf("Text\n got %q\nwant %q", out, want.String())
	}
	order := defaultRules().kindOrder
	for i, h := range hits {
		if counts[h.Kind] != h.Count {
			t.Errorf("hit %v, want %d", h, counts[h.Kind])
		}
		if i > 0 && order[hits[i-1].Kind] > order[h.Kind] {
			t.Errorf("hits out of rule order: %v", hits)
		}
	}
	if len(hits) != len(counts) {
		t.Errorf("hits %v, want one for each of %v", hits, counts)
	}
	checkProperties(t, in.String(), out, hits)
}

// TestMarkersPassThrough: a marker, alone or where a secret was, is never
// taken for a secret, whatever surrounds it.
func TestMarkersPassThrough(t *testing.T) {
	rs := defaultRules()
	for _, r := range rs.rules {
		mk := marker(r.id)
		for _, in := range []string{
			mk,
			"API_KEY=" + mk,
			"export TOKEN=\"" + mk + "\"",
			`{"client_secret": "` + mk + `"}`,
			"--password " + mk,
			"https://user:" + mk + "@host/",
			"Authorization: Bearer " + mk,
			"-----BEGIN RSA PRIVATE KEY-----\n" + mk + "\n-----END RSA PRIVATE KEY-----",
		} {
			if got, hits := Text(in); got != in || hits != nil {
				t.Errorf("Text(%q) = %q, %v; want it unchanged", in, got, hits)
			}
		}
	}
}

// TestNoticeNamesKindsNotSecrets: the notice and the hits name rules and
// counts, and hold nothing of the secrets.
func TestNoticeNamesKindsNotSecrets(t *testing.T) {
	for _, tok := range tokens() {
		_, hits := Text("note: " + tok.value)
		n := Describe(hits)
		if n != "redacted before writing: 1 "+tok.rule {
			t.Errorf("notice %q for a %s", n, tok.rule)
		}
		if strings.Contains(n, tok.value[len(tok.value)-8:]) {
			t.Errorf("notice %q holds the secret", n)
		}
	}
}

func TestStringsAndMerge(t *testing.T) {
	toks := tokens()
	gh, npm := toks[11].value, toks[7].value
	in := []string{"first " + gh, "nothing", "then " + npm + " and " + gh}
	keep := append([]string(nil), in...)
	out, hits := Strings(in)
	if !reflect.DeepEqual(in, keep) {
		t.Fatalf("Strings changed its input: %q", in)
	}
	want := []string{"first " + m("github-pat"), "nothing", "then " + m("npm-access-token") + " and " + m("github-pat")}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("Strings = %q, want %q", out, want)
	}
	if wantHits := []Hit{{"github-pat", 2}, {"npm-access-token", 1}}; !reflect.DeepEqual(hits, wantHits) {
		t.Fatalf("hits %v, want %v", hits, wantHits)
	}
	if out, hits := Strings(nil); out != nil || hits != nil {
		t.Fatalf("Strings(nil) = %q, %v", out, hits)
	}

	got := Merge([]Hit{{"secret-flag", 1}, {"someone-elses", 2}}, []Hit{{"jwt", 1}, {"private-key", 3}, {"secret-flag", 4}})
	if want := []Hit{{"jwt", 1}, {"private-key", 3}, {"secret-flag", 5}, {"someone-elses", 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Merge = %v, want %v", got, want)
	}
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		hits []Hit
		want string
	}{
		{nil, ""},
		{[]Hit{{"github-pat", 1}}, "redacted before writing: 1 github-pat"},
		{[]Hit{{"github-pat", 2}, {"private-key", 1}, {"new-kind", 1}}, "redacted before writing: 2 github-pat, 1 private-key, 1 new-kind"},
	} {
		if got := Describe(c.hits); got != c.want {
			t.Errorf("Describe(%v) = %q, want %q", c.hits, got, c.want)
		}
	}
}

// TestSplicedSamples holds Text's promises on texts spliced at random from
// pieces of the tokens, samples and near-misses, joined by characters the
// rules care about: secrets side by side, cut short, inside each other's
// names. The fuzz target does the same from its corpus, unseeded.
func TestSplicedSamples(t *testing.T) {
	var pieces []string
	for _, tok := range tokens() {
		pieces = append(pieces, tok.value)
	}
	for _, c := range samples() {
		pieces = append(pieces, c.in)
	}
	pieces = append(pieces, nearMisses()...)
	pieces = append(pieces, examples()...)
	joins := []string{"", " ", "\n", "=", ":", "\"", "'", "\\n", "@", "/", "_", ",", "."}
	g := newGen(7)
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for j := 0; j < 1+g.r.IntN(4); j++ {
			p := pieces[g.r.IntN(len(pieces))]
			if len(p) > 0 && g.r.IntN(3) == 0 {
				a := g.r.IntN(len(p))
				p = p[a : a+g.r.IntN(len(p)-a)+1]
			}
			b.WriteString(p)
			b.WriteString(joins[g.r.IntN(len(joins))])
		}
		in := b.String()
		out, hits := Text(in)
		checkProperties(t, in, out, hits)
	}
}

// checkProperties holds Text's promises for one input: its output redacts
// to itself with no hits; no secret a rule found in the input (of 8 bytes
// or more) is left anywhere in it; valid UTF-8 stays valid; no hit means
// no change, and a change means a hit.
func checkProperties(t *testing.T, in, out string, hits []Hit) {
	t.Helper()
	if again, more := Text(out); again != out || more != nil {
		t.Fatalf("not idempotent: Text(%q)\n = %q\n then %q, %v", in, out, again, more)
	}
	rs := defaultRules()
	bare := withoutMarkers(out)
	for _, f := range rs.find(in) {
		if secret := in[f.from:f.to]; len(secret) >= 8 && strings.Contains(bare, secret) {
			t.Fatalf("Text(%q) = %q still holds %q, found by %s", in, out, secret, rs.rules[f.rule].id)
		}
	}
	if utf8.ValidString(in) && !utf8.ValidString(out) {
		t.Fatalf("Text(%q) = %q is not UTF-8", in, out)
	}
	if (hits == nil) != (out == in) {
		t.Fatalf("Text(%q) = %q, hits %v", in, out, hits)
	}
	for _, h := range hits {
		if h.Count <= 0 || !strings.Contains(out, marker(h.Kind)) {
			t.Fatalf("Text(%q) = %q: hit %v without its marker", in, out, h)
		}
	}
}

// withoutMarkers is s with each marker cut out, so that a secret that is
// a piece of a marker's words ("redacted") is not taken for one left.
func withoutMarkers(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, markerPrefix)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteByte(0)
		s = s[i+j+1:]
	}
}
