package redact

import (
	"encoding/base64"
	"math"
	"strings"
	"unicode/utf8"
)

// Our own rules, for what gitleaks' rules do not find and the texts
// git-handoff writes hold: a person's notes, an agent's summary, a
// terminal's last screens. Each runs after gitleaks' and names its
// markers with its own id.
//
//   - private-key: a key block cut short, with no END line (a terminal
//     excerpt or a transcript's tail ends where it ends), or with its
//     newlines written as JSON escapes. gitleaks' private-key rule needs
//     the END line.
//   - url-password: the password of scheme://user:password@host, only the
//     password. gitleaks has a rule for Sidekiq's URLs alone.
//   - authorization-header: an Authorization (or Proxy-Authorization)
//     Bearer, Token or Basic value anywhere, as an HTTP log, a fetch() call
//     or an httpie line writes it. gitleaks finds it only inside a curl
//     command.
//   - secret-assignment: a value with a symbol in it (!#$%*+/:?@^|~)
//     assigned to a secret's name, PASSWORD="…" say: generic-api-key takes
//     values of letters, digits and _ . = - alone, and a password often
//     has more.
//   - secret-flag: a command line's --api-key VALUE, the flag and its value
//     apart (two dashes). gitleaks' generic-api-key wants an assignment (=, :, =>), so
//     it finds --api-key=VALUE but not this.
//
// The last two look for generic-api-key's words in a name, and its
// allowlists apply to them too (buildRules).
func ourRules() []*rule {
	return []*rule{
		{
			id: "private-key", rank: rankBlock,
			// A block whose END is missing still ends where its base64
			// lines do; its last, partial line goes too.
			source: `-----BEGIN ` + pemLabel + `-----` +
				`(?:(?:[ \t]*` + nl + `)+` +
				`(?:[ \t]*[A-Za-z][A-Za-z0-9-]*: [^\r\n\\]*(?:[ \t]*` + nl + `)+)*` +
				`(?:[ \t]*` + b64 + `+(?:[ \t]*` + nl + `)+)*` +
				`(?:[ \t]*-----END ` + pemLabel + `-----|[ \t]*` + b64 + `*))?`,
			keywords: []string{"-----begin "},
			check:    keyBody,
			trimEnd:  true,
		},
		{
			id: "url-password", rank: rankGeneric,
			source:   "://[^\\s:/?#@\"'<>\\\\`]*:([^\\s/?#@\"'<>\\\\`]+)@",
			keywords: []string{"://"},
			check:    urlPassword,
		},
		{
			id: "authorization-header", rank: rankGeneric,
			source: `(?i:authorization)` + quote + `[ \t]*[:=][ \t]*` + quote +
				`(?i:bearer|token)[ \t]+([A-Za-z0-9._~+/=-]{8,})`,
			keywords: []string{"authorization"},
			check:    bearerValue,
		},
		{
			id: "authorization-header", rank: rankGeneric,
			source: `(?i:authorization)` + quote + `[ \t]*[:=][ \t]*` + quote +
				`(?i:basic)[ \t]+([A-Za-z0-9+/]{4,}={0,2})`,
			keywords: []string{"authorization"},
			check:    basicCredentials,
		},
		{
			// NAME=value, NAME: value, "name": "value", --name=value;
			// only a value that holds a symbol, which generic-api-key
			// does not take.
			id: "secret-assignment", rank: rankGeneric,
			source: flagWords + `[A-Za-z0-9_.-]{0,50}` + quote +
				`[ \t]*(?::=|=>|=|:)[ \t]*` + value,
			keywords: genericWords,
			check:    func(v string) bool { return hasSymbol(v) && randomValue(v) },
		},
		{
			// Double-dash flags: "--" is the keyword, rarer in prose than
			// the words, and a flag of one dash (-p VALUE) is not looked for.
			id: "secret-flag", rank: rankGeneric,
			source:   `(?m)(?:^|[ \t])--(?:[A-Za-z][A-Za-z0-9_-]{0,48})?` + flagWords + `[A-Za-z0-9_-]{0,50}[ \t]+` + value,
			keywords: []string{"--"},
			check:    randomValue,
		},
	}
}

// Pieces of the patterns above. A secret never holds a backslash or a
// quote, so a value inside JSON-escaped text ends where its escaped quote
// begins.
const (
	// A newline, also as JSON writes it inside a string, once or twice escaped.
	nl = `(?:\r?\n|\\r\\n|\\n|\\\\r\\\\n|\\\\n)`
	// base64 characters of a PEM body.
	b64 = `[A-Za-z0-9+/=]`
	// A key block's label: RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … PRIVATE KEY.
	pemLabel = `[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?`
	// Words a secret's name holds, in any case: generic-api-key's, and
	// passphrase.
	flagWords = `(?i:access|auth|api|credential|creds|key|passw(?:or)?d|passphrase|secret|token)`
	// An optional quote, plain or escaped, around a name or before a value.
	quote = `(?:\\*["'])?`
	// A value: double-quoted (to its closing quote), single-quoted, or bare
	// (to the first space, quote, bracket, comma, semicolon or ampersand).
	value = `(?:\\*"([^"\\\r\n]+)|'([^'\\\r\n]+)|([A-Za-z0-9!#$%*+\-./:=?@^_|~]+))`
)

// genericWords are flagWords as keywords.
var genericWords = []string{"access", "api", "auth", "key", "credential", "creds", "passwd", "password", "passphrase", "secret", "token"}

// hasSymbol: v holds a character other than a letter, a digit, _ . = or -
// (what generic-api-key's values are made of).
func hasSymbol(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '_' && c != '.' && c != '=' && c != '-' {
			return true
		}
	}
	return false
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

// markerPrefix begins every marker. No rule's secret can hold one: tokens
// are made of characters that exclude the marker's space and brackets, and
// the checks of what may hold them (quoted values, URL passwords) refuse a
// marker. So a redacted text redacts to itself.
const markerPrefix = "[redacted "

func marker(kind string) string { return markerPrefix + kind + "]" }

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
		return n >= 32 && shannonEntropy(v) >= 3.0
	}
	return !madeOfWords(v) && shannonEntropy(v) >= entropyFloor(n)
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
	return hasLetter(v) && hasDigit(v) && !madeOfWords(v) && shannonEntropy(v) >= 2.5
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
