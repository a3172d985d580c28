package redact

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"
)

// rule is one kind of secret: where it is (re) and, where the shape alone
// also fits ordinary text, whether a match is one (check).
type rule struct {
	// kind names the marker and Hit.Kind; several rules may share one.
	kind string
	// noun is what a notice calls one hit; it takes an "s" for more.
	noun string
	// re finds candidates. The secret is its first capture group that took
	// part in the match, or the whole match when it has none, so that
	// what surrounds a secret (a name, a scheme, a user) stays.
	re *regexp.Regexp
	// keywords: every match contains one of these. A line whose lower-cased
	// text holds none is not given to re at all, which is what keeps a
	// megabyte of ordinary text cheap. A block rule's are looked for in the
	// text as it is.
	keywords []string
	// check says whether a candidate is a secret; nil: every one is.
	check func(secret string) bool
	// block rules match across lines and run on the whole text first.
	block bool
	// trimEnd: the newlines that end a match stay in the text.
	trimEnd bool
	// wordStart: a match counts only where no letter, digit or underscore
	// comes before it, or an escape does (the n of a JSON-escaped newline
	// in a transcript line). It stands for a leading \b, which would keep
	// Go's regexp from skipping ahead to the pattern's literal prefix.
	wordStart bool

	keywordBytes [][]byte // keywords as bytes, for the line filter
}

func init() {
	for i := range table {
		for _, k := range table[i].keywords {
			table[i].keywordBytes = append(table[i].keywordBytes, []byte(k))
		}
	}
}

// Pieces of the patterns below. A secret never holds a backslash or a quote,
// so a value inside JSON-escaped text (a transcript line) ends where its
// escaped quote begins.
const (
	// A newline, also as JSON writes it inside a string, once or twice escaped.
	nl = `(?:\r?\n|\\r\\n|\\n|\\\\r\\\\n|\\\\n)`
	// base64 characters of a PEM body.
	b64 = `[A-Za-z0-9+/=]`
	// A key block's label: RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … PRIVATE KEY.
	pemLabel = `[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?`
	// Words a secret's name contains, in any case. Spelled out rather than
	// (?i:…), which Go's regexp matches more slowly, folding each rune.
	secretWords = `(?:[Kk][Ee][Yy]|[Tt][Oo][Kk][Ee][Nn]|[Ss][Ee][Cc][Rr][Ee][Tt]|[Pp][Aa][Ss][Ss](?:[Ww](?:[Oo][Rr])?[Dd]|[Pp][Hh][Rr][Aa][Ss][Ee]))`
	// An optional quote, plain or escaped, around a name or before a value.
	quote = `(?:\\*["'])?`
	// A value: double-quoted (to its closing quote), single-quoted, or bare
	// (to the first space, quote, bracket, comma, semicolon or ampersand).
	value = `(?:\\*"([^"\\\r\n]+)|'([^'\\\r\n]+)|([A-Za-z0-9!#$%*+\-./:=?@^_|~]+))`
)

// table is every rule, most specific first: a provider's token inside an
// assignment or a URL is named for the provider, and the generic rules at
// the end see only what is left. Text reports hits in this order.
var table = []rule{
	{
		kind: "private-key", noun: "private key", block: true,
		// A block whose END is missing (an excerpt cut short) still ends
		// where its base64 lines do; its last, partial line goes too.
		re: regexp.MustCompile(`-----BEGIN ` + pemLabel + `-----` +
			`(?:(?:[ \t]*` + nl + `)+` +
			`(?:[ \t]*[A-Za-z][A-Za-z0-9-]*: [^\r\n\\]*(?:[ \t]*` + nl + `)+)*` +
			`(?:[ \t]*` + b64 + `+(?:[ \t]*` + nl + `)+)*` +
			`(?:[ \t]*-----END ` + pemLabel + `-----|[ \t]*` + b64 + `*))?`),
		keywords: []string{"-----BEGIN "},
		check:    keyBody,
		trimEnd:  true,
	},
	{
		kind: "github-token", noun: "GitHub token",
		re:        regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36,}`),
		keywords:  []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		check:     randomToken,
		wordStart: true,
	},
	{
		kind: "github-token", noun: "GitHub token",
		re:        regexp.MustCompile(`github_pat_[A-Za-z0-9_]{50,}`),
		keywords:  []string{"github_pat_"},
		check:     randomToken,
		wordStart: true,
	},
	{
		kind: "gitlab-token", noun: "GitLab token",
		re:        regexp.MustCompile(`gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*`),
		keywords:  []string{"glpat-", "gldt-", "glrt-", "glptt-"},
		check:     randomToken,
		wordStart: true,
	},
	{
		kind: "aws-access-key-id", noun: "AWS access key ID",
		re:        regexp.MustCompile(`A(?:KIA|SIA|BIA|CCA)[A-Z2-7]{16}\b`),
		keywords:  []string{"akia", "asia", "abia", "acca"},
		check:     randomToken,
		wordStart: true,
	},
	{
		kind: "aws-secret-access-key", noun: "AWS secret access key",
		re: regexp.MustCompile(`(?i:secret_?access_?key)` + quote + `[ \t]*(?::|=|=>)[ \t]*` + quote +
			`([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		keywords: []string{"secret"},
		check:    randomToken,
	},
	{
		kind: "google-api-key", noun: "Google API key",
		re:        regexp.MustCompile(`(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)`),
		keywords:  []string{"aiza"},
		check:     randomToken,
		wordStart: true,
	},
	{
		// Before OpenAI's rule: these keys begin with "sk-" too.
		kind: "anthropic-api-key", noun: "Anthropic API key",
		re:        regexp.MustCompile(`sk-ant-[A-Za-z0-9_-]{32,}`),
		keywords:  []string{"sk-ant-"},
		check:     randomToken,
		wordStart: true,
	},
	{
		kind: "openai-api-key", noun: "OpenAI API key",
		re:        regexp.MustCompile(`sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`),
		keywords:  []string{"sk-"},
		check:     randomValue,
		wordStart: true,
	},
	{
		kind: "slack-token", noun: "Slack token",
		re:        regexp.MustCompile(`xox[abeoprs]-[A-Za-z0-9-]{10,}`),
		keywords:  []string{"xox"},
		check:     slackToken,
		wordStart: true,
	},
	{
		kind: "slack-webhook", noun: "Slack webhook URL",
		re:       regexp.MustCompile(`https://hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/+-]{20,})`),
		keywords: []string{"hooks.slack.com/"},
		check:    randomToken,
	},
	{
		kind: "stripe-key", noun: "Stripe key",
		re:        regexp.MustCompile(`sk_(?:live|test)_[A-Za-z0-9]{20,}`),
		keywords:  []string{"sk_live_", "sk_test_"},
		check:     randomToken,
		wordStart: true,
	},
	{
		kind: "stripe-key", noun: "Stripe key",
		re:        regexp.MustCompile(`rk_(?:live|test)_[A-Za-z0-9]{20,}`),
		keywords:  []string{"rk_live_", "rk_test_"},
		check:     randomToken,
		wordStart: true,
	},
	{
		kind: "npm-token", noun: "npm token",
		re:        regexp.MustCompile(`npm_[A-Za-z0-9]{36,}`),
		keywords:  []string{"npm_"},
		check:     randomToken,
		wordStart: true,
	},
	{
		// Every PyPI token is a macaroon whose base64 begins "AgE".
		kind: "pypi-token", noun: "PyPI token",
		re:        regexp.MustCompile(`pypi-AgE[A-Za-z0-9_-]{50,}`),
		keywords:  []string{"pypi-age"},
		check:     randomToken,
		wordStart: true,
	},
	{
		kind: "huggingface-token", noun: "Hugging Face token",
		re:        regexp.MustCompile(`hf_[A-Za-z0-9]{30,}`),
		keywords:  []string{"hf_"},
		check:     randomToken,
		wordStart: true,
	},
	{
		kind: "jwt", noun: "JSON Web Token",
		re:        regexp.MustCompile(`eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*`),
		keywords:  []string{"eyj"},
		check:     jwtHeader,
		wordStart: true,
	},
	{
		// Only the password: the scheme, user and host say where it was.
		kind: "url-password", noun: "URL password",
		re:       regexp.MustCompile("://[^\\s:/?#@\"'<>\\\\`]*:([^\\s/?#@\"'<>\\\\`]+)@"),
		keywords: []string{"://"},
		check:    urlPassword,
	},
	{
		kind: "authorization-header", noun: "Authorization header",
		re: regexp.MustCompile(`(?i:authorization)` + quote + `[ \t]*[:=][ \t]*` + quote +
			`(?i:bearer|token)[ \t]+([A-Za-z0-9._~+/=-]{8,})`),
		keywords: []string{"authorization"},
		check:    bearerValue,
	},
	{
		kind: "authorization-header", noun: "Authorization header",
		re: regexp.MustCompile(`(?i:authorization)` + quote + `[ \t]*[:=][ \t]*` + quote +
			`(?i:basic)[ \t]+([A-Za-z0-9+/]{4,}={0,2})`),
		keywords: []string{"authorization"},
		check:    basicCredentials,
	},
	{
		// NAME=value, NAME: value, "name": "value", export NAME=…,
		// --name=…, name := …; the value only when random enough.
		kind: "secret-assignment", noun: "secret-named value",
		re: regexp.MustCompile(secretWords + `[A-Za-z0-9_.-]*` + quote +
			`[ \t]*(?::=|=>|=|:)[ \t]*` + value),
		keywords: []string{"key", "token", "secret", "pass"},
		check:    randomValue,
	},
	{
		// A command line's --name value, the form with a space.
		kind: "secret-assignment", noun: "secret-named value",
		re:       regexp.MustCompile(`(?:^|[ \t])--?[A-Za-z0-9_-]*` + secretWords + `[A-Za-z0-9_-]*[ \t]+` + value),
		keywords: []string{"key", "token", "secret", "pass"},
		check:    randomValue,
	},
}

// markerPrefix begins every marker. No rule's secret can hold one: tokens
// are made of characters that exclude the marker's space and brackets, and
// the checks of what may hold them (quoted values, URL passwords) refuse a
// marker. So a redacted text redacts to itself.
const markerPrefix = "[redacted "

func marker(kind string) string { return markerPrefix + kind + "]" }

// entropy is the Shannon entropy of s's bytes, in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// randomToken checks a provider-prefixed token: its prefix already makes it
// one, so it is refused only when it is a placeholder of repeated letters
// ("ghp_xxxx…").
func randomToken(s string) bool {
	return !strings.Contains(s, markerPrefix) && entropy(s) >= 3.0
}

// slackToken: Slack's tokens hold numeric ids; "xoxb-your-token-here"
// does not.
func slackToken(s string) bool { return randomToken(s) && hasDigit(s) }

// entropyFloor is the least entropy a random value of n characters shows,
// drawn from letters and digits: a short string cannot show many distinct
// characters, so the floor rises with length (read off simulated random
// strings: nearly every one of 36 or more symbols clears it). Words and
// identifiers often clear it too, hence madeOfWords.
func entropyFloor(n int) float64 {
	return min(4.5, 3.0+0.6*math.Log2(float64(n)/16))
}

// randomValue checks a value of unknown origin: at least 16 characters
// mixing letters and digits, not a placeholder, path, URL or UUID, not
// made of words, and with the entropy of random text (hexadecimal, whose
// alphabet is small, from 32 characters on with a lower floor).
func randomValue(v string) bool {
	n := len(v)
	if n < 16 || placeholder(v) || uuidShaped(v) {
		return false
	}
	letters, digits, hex := false, false, true
	for i := 0; i < n; i++ {
		c := v[i]
		switch {
		case '0' <= c && c <= '9':
			digits = true
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letters = true
		}
		if !isHex(c) {
			hex = false
		}
	}
	if !letters || !digits {
		return false
	}
	if hex {
		return n >= 32 && entropy(v) >= 3.0
	}
	return !madeOfWords(v) && entropy(v) >= entropyFloor(n)
}

// placeholder: a reference or a hole to be filled in (${X}, $X, <x>, {{x}},
// %s, [redacted …]), a URL, or a path.
func placeholder(v string) bool {
	if v == "" || strings.Contains(v, markerPrefix) || strings.Contains(v, "://") {
		return true
	}
	switch v[0] {
	case '$', '<', '{', '%', '[', '(':
		return true
	}
	for _, p := range []string{"/", "~/", "./", "../"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func hasLetter(s string) bool {
	return strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

// uuidShaped: 8-4-4-4-12 hexadecimal digits. A UUID names a thing; it is
// not a credential often enough to hide every one.
func uuidShaped(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if v[i] != '-' {
				return false
			}
		default:
			if !isHex(v[i]) {
				return false
			}
		}
	}
	return true
}

// madeOfWords: every piece between punctuation is made of words and
// numbers the way names are: a word, a number, a word and a number, a
// number and a word ("prod-db-password-v2", "arn:aws:kms:us-east-1:…",
// "TokenCountPerRequest1", "NewFloat64Schema"). Random text mixes letters
// and digits, and cases, inside its pieces, so it seldom passes for words
// (TestRandomIsSeldomWords says how seldom).
func madeOfWords(v string) bool {
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && isAlnum(v[i]) {
			continue
		}
		if !namePiece(v[start:i]) {
			return false
		}
		start = i + 1
	}
	return true
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// namePiece: camel-case words, each with a number after it or not
// ("Float64", "Schema"), or a number and then one word ("3rd").
func namePiece(p string) bool {
	start := 0
	for i := 1; i <= len(p); i++ {
		// A new word begins where a capital and a small letter follow a digit.
		if i == len(p) || i+1 < len(p) && isDigit(p[i-1]) && 'A' <= p[i] && p[i] <= 'Z' && 'a' <= p[i+1] && p[i+1] <= 'z' {
			if !wordAndNumber(p[start:i]) {
				return false
			}
			start = i
		}
	}
	return true
}

// wordAndNumber: letters then digits, or digits then letters, where the
// letters are one case or words in camel case (no small letter alone
// between capitals).
func wordAndNumber(p string) bool {
	digitsFirst := len(p) - len(strings.TrimLeft(p, "0123456789"))
	var letters string
	if digitsFirst > 0 {
		letters = p[digitsFirst:]
		if hasDigit(letters) {
			return false
		}
	} else {
		letters = strings.TrimRight(p, "0123456789")
		if hasDigit(letters) {
			return false
		}
	}
	if strings.ToLower(letters) == letters || strings.ToUpper(letters) == letters {
		return true
	}
	run := 0
	for i := 0; i < len(letters); i++ {
		if c := letters[i]; 'a' <= c && c <= 'z' {
			run++
			continue
		}
		if run == 1 {
			return false
		}
		run = 0
	}
	return run != 1
}

// keyBody: a key block holds key material, not just the header line an
// explanation quotes.
func keyBody(block string) bool {
	body := strings.TrimPrefix(block, "-----BEGIN ")
	if i := strings.Index(body, "-----"); i >= 0 {
		body = body[i+len("-----"):]
	}
	if i := strings.Index(body, "-----END "); i >= 0 {
		body = body[:i]
	}
	n := 0
	for i := 0; i < len(body); i++ {
		if isAlnum(body[i]) || body[i] == '+' || body[i] == '/' {
			n++
		}
	}
	return n >= 32
}

// jwtHeader: the first part decodes to a JSON object that names an
// algorithm, as every JWT header does.
func jwtHeader(tok string) bool {
	head, _, _ := strings.Cut(tok, ".")
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return false
	}
	var h struct {
		Alg any `json:"alg"`
	}
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	alg, ok := h.Alg.(string)
	return ok && alg != ""
}

// urlPassword: any password but a hole to fill in (${X}, %s, ****).
func urlPassword(p string) bool {
	if placeholder(p) && !strings.HasPrefix(p, "%") || p == "%s" || p == "%v" {
		return false
	}
	return !allSame(p)
}

// allSame: "****", "xxxx".
func allSame(s string) bool {
	if len(s) < 2 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] != s[0] {
			return false
		}
	}
	return true
}

// bearerValue: an opaque token mixes letters and digits at random; "Bearer
// YOUR_TOKEN" and "Bearer token123" do not.
func bearerValue(v string) bool {
	return hasLetter(v) && hasDigit(v) && !madeOfWords(v) && entropy(v) >= 2.5
}

// basicCredentials: base64 of "user:password".
func basicCredentials(v string) bool {
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "=")); err != nil {
			return false
		}
	}
	s := string(raw)
	if !utf8.ValidString(s) || !strings.Contains(s, ":") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
