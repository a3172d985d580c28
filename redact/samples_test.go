package redact

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

// The samples are built at run time from pieces and random characters, so
// the repository holds no string a secret scanner would flag (push
// protection among them), and every run sees the same ones (a fixed seed).

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	base62 = upper + lower + digits
	b64url = base62 + "-_"
	b64std = base62 + "+/"
	hexLow = "0123456789abcdef"
)

type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, 25))} }

// of returns n characters drawn from alphabet, with at least one digit
// and one letter where the alphabet has both, as real tokens nearly
// always do.
func (g *gen) of(alphabet string, n int) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[g.r.IntN(len(alphabet))]
		}
		s := string(b)
		if !strings.ContainsAny(alphabet, digits) || !strings.ContainsAny(alphabet, upper+lower) ||
			hasDigit(s) && hasLetter(s) && !madeOfWords(s) {
			return s
		}
	}
}

func b64u(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// pemBlock is a private key block of label with lines of base64.
func (g *gen) pemBlock(label string, lines int, eol string) string {
	var b strings.Builder
	b.WriteString("-----BEGIN " + label + "-----" + eol)
	for range lines {
		b.WriteString(g.of(b64std, 64) + eol)
	}
	b.WriteString(g.of(b64std, 20) + "==" + eol)
	b.WriteString("-----END " + label + "-----")
	return b.String()
}

// tokens are well-formed credentials of the providers the issue names,
// and more, each with the rule that must find it.
type token struct{ rule, value string }

func tokens() []token {
	g := newGen(1)
	return []token{
		{"digitalocean-pat", "do" + "p_v1_" + g.of(hexLow, 64)},
		{"digitalocean-access-token", "do" + "o_v1_" + g.of(hexLow, 64)},
		{"digitalocean-refresh-token", "do" + "r_v1_" + g.of(hexLow, 64)},
		{"shopify-access-token", "shp" + "at_" + g.of(hexLow, 32)},
		{"shopify-shared-secret", "shp" + "ss_" + g.of(hexLow, 32)},
		{"sendgrid-api-token", "S" + "G." + g.of(b64url, 22) + "." + g.of(b64url, 43)},
		{"twilio-api-key", "S" + "K" + g.of(hexLow, 32)},
		{"npm-access-token", "np" + "m_" + g.of(base62, 36)},
		{"gcp-api-key", "AI" + "za" + g.of(b64url, 35)},
		{"pypi-upload-token", "py" + "pi-AgEIcHlwaS5vcmc" + g.of(b64url, 70)},
		{"huggingface-access-token", "h" + "f_" + g.of(upper+lower, 34)},
		{"github-pat", "gh" + "p_" + g.of(base62, 36)},
		{"github-fine-grained-pat", "github" + "_pat_" + g.of(base62, 22) + "_" + g.of(base62, 59)},
		{"gitlab-pat", "gl" + "pat-" + g.of(b64url, 20)},
		{"aws-access-token", "AK" + "IA" + g.of("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)},
		{"anthropic-api-key", "sk-" + "ant-api03-" + g.of(b64url, 93) + "AA"},
		{"openai-api-key", "sk-" + "proj-" + g.of(b64url, 74) + "T3Blbk" + "FJ" + g.of(b64url, 74)},
		{"slack-bot-token", "xo" + "xb-" + g.of(digits, 12) + "-" + g.of(digits, 13) + "-" + g.of(base62, 24)},
		{"stripe-access-token", "sk" + "_live_" + g.of(base62, 24)},
		{"jwt", b64u(`{"alg":"HS256","typ":"JWT"}`) + "." + b64u(`{"sub":"1234567890","name":"Ada Lovelace","iat":1516239022}`) + "." + g.of(base62, 43)},
	}
}

// contexts are the places a token is pasted into a note: each puts it in
// a line of text, with what follows it.
var contexts = []struct {
	name string
	wrap func(string) string
}{
	{"bare", func(t string) string { return t }},
	{"sentence", func(t string) string { return "the key " + t + " is in the vault" }},
	{"end of a sentence", func(t string) string { return "rotate " + t + "." }},
	{"in a list", func(t string) string { return "(" + t + ", and the old one)" }},
	{"env", func(t string) string { return "export SERVICE_CREDENTIAL=" + t }},
	{"json", func(t string) string { return `{"value": "` + t + `"}` }},
	{"yaml", func(t string) string { return "auth:\n  value: '" + t + "'\n  region: eu" }},
	{"terminal", func(t string) string { return "$ env | grep X\nX=" + t + "\n$ " }},
}

// sample is one text holding secrets, what Text must make of it, and the
// hits it must report.
type sample struct {
	name string
	in   string
	want string
	hits []Hit
}

func hit(kind string) []Hit { return []Hit{{Kind: kind, Count: 1}} }

func m(kind string) string { return marker(kind) }

// samples are what gitleaks' generic rule and ours must find, as they must
// redact them.
func samples() []sample {
	g := newGen(3)
	value := g.of(base62, 32)
	symbols := g.of(base62+"!#%*+-.=?@^_|~", 24)
	pw := g.of(base62, 12) + "%21" + g.of(base62, 4)
	bearer := g.of(b64url, 40)
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + g.of(base62, 14)))
	return []sample{
		{"password assigned", `password = "` + value + `"`, `password = "` + m("generic-api-key") + `"`, hit("generic-api-key")},
		{"api_key in yaml", "api_key: " + value, "api_key: " + m("generic-api-key"), hit("generic-api-key")},
		{"env", "API_KEY=" + value, "API_KEY=" + m("generic-api-key"), hit("generic-api-key")},
		{"shell export, symbols", `export DB_PASSWORD="` + symbols + `"`, `export DB_PASSWORD="` + m("secret-assignment") + `"`, hit("secret-assignment")},
		{"toml, symbols, single quotes", "passphrase = '" + symbols + "'", "passphrase = '" + m("secret-assignment") + "'", hit("secret-assignment")},
		{"json", `{"client_secret": "` + value + `", "region": "eu"}`, `{"client_secret": "` + m("generic-api-key") + `", "region": "eu"}`, hit("generic-api-key")},
		{"flag with =", "deploy --token=" + value + " --yes", "deploy --token=" + m("generic-api-key") + " --yes", hit("generic-api-key")},
		{"go", `secretKey := "` + value + `"`, `secretKey := "` + m("generic-api-key") + `"`, hit("generic-api-key")},
		{"assigned, then repeated bare", "TOKEN=" + value + "\nthen curl with " + value, "TOKEN=" + m("generic-api-key") + "\nthen curl with " + m("generic-api-key"), []Hit{{"generic-api-key", 2}}},

		{"flag with a space", "login --api-key " + value + " --yes", "login --api-key " + m("secret-flag") + " --yes", hit("secret-flag")},
		{"url password", "DATABASE_URL=postgres://app:" + pw + "@db.internal:5432/app", "DATABASE_URL=postgres://app:" + m("url-password") + "@db.internal:5432/app", hit("url-password")},
		{"url password, short", "amqp://guest:guest@localhost:5672/", "amqp://guest:" + m("url-password") + "@localhost:5672/", hit("url-password")},
		{"bearer", "Authorization: Bearer " + bearer, "Authorization: Bearer " + m("authorization-header"), hit("authorization-header")},
		{"basic", "Proxy-Authorization: Basic " + basic, "Proxy-Authorization: Basic " + m("authorization-header"), hit("authorization-header")},

		{"pem rsa", "key:\n" + g.pemBlock("RSA PRIVATE KEY", 6, "\n") + "\nnext", "key:\n" + m("private-key") + "\nnext", hit("private-key")},
		{"pem cut short", "tail of the log:\n" + strings.Split(g.pemBlock("EC PRIVATE KEY", 3, "\n"), "-----END")[0][:150], "tail of the log:\n" + m("private-key"), hit("private-key")},
		{"pem cut short in json", `{"out":"-----BEGIN RSA PRIVATE KEY-----\n` + g.of(b64std, 64) + `\n` + g.of(b64std, 30) + `\n"}`, `{"out":"` + m("private-key") + `\n"}`, hit("private-key")},
		{"openssh in json", `{"text":"` + g.pemBlock("OPENSSH PRIVATE KEY", 4, `\n`) + `\n"}`, `{"text":"` + m("private-key") + `\n"}`, hit("private-key")},
	}
}

// nearMisses look like secrets to a careless rule and must pass through.
func nearMisses() []string {
	g := newGen(2)
	commit := g.of(hexLow, 40)
	return []string{
		"",
		"plain text, nothing to see",
		"skeleton key, sketch, skip-worktree, task-runner, sk-learn",
		"ask the desk about the risk of the task",
		"ghp_ alone, gho_, github_pat_ and glpat- without a body",
		"ghp_short123",
		"AKIA1234 AKIAIOSFODNN7EXA",
		"aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
		"xoxb-your-token-here, xoxp-",
		"npm_config_registry=https://registry.example/",
		"hf_hub_download(repo_id)",
		"https://example.com:8080/path?q=a:b and ssh://git@example.com/repo.git",
		"postgres://app:${DB_PASSWORD}@db/app and https://user:****@host and https://user:@host",
		"git@github.com:owner/repo.git",
		"Authorization: Bearer $TOKEN",
		"Authorization: Bearer YOUR_ACCESS_TOKEN",
		"-----BEGIN PUBLIC KEY-----\n" + g.of(b64std, 64) + "\n" + g.of(b64std, 20) + "\n-----END PUBLIC KEY-----",
		"a key file begins with -----BEGIN OPENSSH PRIVATE KEY----- and that is all",
		"API_KEY=changeme",
		"TOKEN_COUNT=12",
		"password: <your password>",
		"SECRET=${SECRET}",
		"export API_TOKEN=$API_TOKEN",
		"secretKey := os.Getenv(\"SECRET_KEY\")",
		"max_tokens: 4096",
		"key_id: " + "550e8400-e29b-41d4-a716-446655440000",
		"commit " + commit + "\nMerge: " + commit[:7] + " " + g.of(hexLow, 7),
		"HEAD=" + commit,
		"--token-limit 4096 --keyring default --password-file ./pw.txt",
		"a monkey, a keyboard and a token of thanks: nothing here",
		"The API returns a token; the key is rotated by the access service every day.",
		m("github-pat") + " " + m("private-key") + " " + m("generic-api-key"),
		"api_key = " + m("generic-api-key") + ", password: '" + m("generic-api-key") + "'",
	}
}

// examples are the published examples gitleaks' allowlists let through,
// and so do we (see the package comment).
func examples() []string {
	return []string{
		"AK" + "IAIOSFODNN7" + "EXAMPLE",
		"aws_access_key_id = AK" + "IAIOSFODNN7" + "EXAMPLE",
		"export GITHUB_TOKEN=gh" + "p_" + lower + digits,
	}
}
