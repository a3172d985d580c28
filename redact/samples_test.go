package redact

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

// The samples are built at run time from pieces and random characters, so
// the repository holds no string a secret scanner would flag, and every run
// sees the same ones (a fixed seed).

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
// always do (a sample that happened to lack one would test the checks'
// edges, not the rule).
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

// sample is one text holding secrets, what Text must make of it, and the
// hits it must report.
type sample struct {
	name string
	in   string
	want string
	hits []Hit
}

func hit(kind string) []Hit { return []Hit{{Kind: kind, Count: 1}} }

// samples has at least one real-looking sample for every rule in the table
// (TestEveryRuleHasASample holds it to that).
func samples() []sample {
	g := newGen(1)
	gh := "gh" + "p_" + g.of(base62, 36)
	pat := "github" + "_pat_" + g.of(base62, 22) + "_" + g.of(base62, 59)
	gl := "gl" + "pat-" + g.of(b64url, 20)
	akid := "AK" + "IA" + g.of("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
	awsSecret := g.of(b64std, 40)
	google := "AI" + "za" + g.of(b64url, 35)
	ant := "sk-" + "ant-api03-" + g.of(b64url, 93) + "AA"
	oai := "sk-" + "proj-" + g.of(b64url, 156)
	oaiLegacy := "sk-" + g.of(base62, 20) + "T3Blbk" + "FJ" + g.of(base62, 20)
	slack := "xo" + "xb-" + g.of(digits, 12) + "-" + g.of(digits, 13) + "-" + g.of(base62, 24)
	hookPath := "T" + g.of(upper+digits, 10) + "/B" + g.of(upper+digits, 10) + "/" + g.of(base62, 24)
	stripe := "sk" + "_live_" + g.of(base62, 24)
	stripeR := "rk" + "_live_" + g.of(base62, 99)
	npm := "np" + "m_" + g.of(base62, 36)
	pypi := "py" + "pi-AgEIcHlwaS5vcmc" + g.of(b64url, 120)
	hf := "h" + "f_" + g.of(upper+lower, 34)
	jwt := b64u(`{"alg":"HS256","typ":"JWT"}`) + "." + b64u(`{"sub":"1234567890","name":"Ada","iat":1516239022}`) + "." + g.of(b64url, 43)
	pw := g.of(base62, 12) + "%21" + g.of(base62, 4)
	bearer := g.of(b64url, 40)
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + g.of(base62, 14)))
	value := g.of(base62, 32)
	symbols := g.of(base62+"!#%*+-.=?@^_|~", 24)
	hex := g.of(hexLow, 64)

	return []sample{
		{"pem rsa", "key:\n" + g.pemBlock("RSA PRIVATE KEY", 6, "\n") + "\nnext", "key:\n" + m("private-key") + "\nnext", hit("private-key")},
		{"pem pkcs8 crlf", g.pemBlock("PRIVATE KEY", 3, "\r\n") + "\r\n", m("private-key") + "\r\n", hit("private-key")},
		{"openssh in json", `{"text":"` + g.pemBlock("OPENSSH PRIVATE KEY", 4, `\n`) + `\n"}`, `{"text":"` + m("private-key") + `\n"}`, hit("private-key")},
		{"pem encrypted", "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC," + g.of(upper+digits, 32) + "\n\n" + g.of(b64std, 64) + "\n" + g.of(b64std, 64) + "\n-----END RSA PRIVATE KEY-----", m("private-key"), hit("private-key")},
		{"pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n" + g.of(b64std, 64) + "\n" + g.of(b64std, 64) + "\n=" + g.of(b64std, 4) + "\n-----END PGP PRIVATE KEY BLOCK-----\n", m("private-key") + "\n", hit("private-key")},
		{"pem cut short at the end", "tail of the log:\n" + strings.Split(g.pemBlock("EC PRIVATE KEY", 3, "\n"), "-----END")[0][:150], "tail of the log:\n" + m("private-key"), hit("private-key")},
		{"pem cut short before prose", strings.Split(g.pemBlock("EC PRIVATE KEY", 3, "\n"), "-----END")[0] + "\nNext steps: rotate it", m("private-key") + " steps: rotate it", hit("private-key")},
		{"pem cut short, its newline kept", "-----BEGIN RSA PRIVATE KEY-----\n" + g.of(b64std, 64) + "\n" + g.of(b64std, 64) + "\n", m("private-key") + "\n", hit("private-key")},
		{"pem cut short in json", `{"out":"-----BEGIN RSA PRIVATE KEY-----\n` + g.of(b64std, 64) + `\n` + g.of(b64std, 30) + `\n"}`, `{"out":"` + m("private-key") + `\n"}`, hit("private-key")},
		{"pem indented in yaml", "tls:\n  key: |\n    -----BEGIN EC PRIVATE KEY-----\n    " + g.of(b64std, 64) + "\n    " + g.of(b64std, 40) + "\n    -----END EC PRIVATE KEY-----\n  cert: x", "tls:\n  key: |\n    " + m("private-key") + "\n  cert: x", hit("private-key")},

		{"github classic", "export GITHUB_TOKEN=" + gh, "export GITHUB_TOKEN=" + m("github-token"), hit("github-token")},
		{"github in a sentence", "use " + gh + ", then push", "use " + m("github-token") + ", then push", hit("github-token")},
		{"github fine-grained", "token: " + pat, "token: " + m("github-token"), hit("github-token")},
		{"github oauth, user, server, refresh", "gh" + "o_" + g.of(base62, 36) + " gh" + "u_" + g.of(base62, 36) + " gh" + "s_" + g.of(base62, 36) + " gh" + "r_" + g.of(base62, 36), strings.Repeat(m("github-token")+" ", 3) + m("github-token"), []Hit{{"github-token", 4}}},
		{"github in a url", "https://x-access-token:" + gh + "@github.com/o/r.git", "https://x-access-token:" + m("github-token") + "@github.com/o/r.git", hit("github-token")},

		{"tokens in a transcript line", `{"type":"tool_result","content":"$ env\nGH=` + gh + `\n` + gh + `\t` + google + `\nAuthorization: Bearer ` + bearer + `\n"}`, `{"type":"tool_result","content":"$ env\nGH=` + m("github-token") + `\n` + m("github-token") + `\t` + m("google-api-key") + `\nAuthorization: Bearer ` + m("authorization-header") + `\n"}`, []Hit{{"github-token", 2}, {"google-api-key", 1}, {"authorization-header", 1}}},
		{"gitlab", "GITLAB_TOKEN='" + gl + "'", "GITLAB_TOKEN='" + m("gitlab-token") + "'", hit("gitlab-token")},
		{"gitlab at a sentence's end", "it was " + gl + ".", "it was " + m("gitlab-token") + ".", hit("gitlab-token")},

		{"aws key id", "aws_access_key_id = " + akid, "aws_access_key_id = " + m("aws-access-key-id"), hit("aws-access-key-id")},
		{"aws secret", "aws_secret_access_key = " + awsSecret, "aws_secret_access_key = " + m("aws-secret-access-key"), hit("aws-secret-access-key")},
		{"aws secret in json", `{"AccessKeyId": "` + akid + `", "SecretAccessKey": "` + awsSecret + `"}`, `{"AccessKeyId": "` + m("aws-access-key-id") + `", "SecretAccessKey": "` + m("aws-secret-access-key") + `"}`, []Hit{{"aws-access-key-id", 1}, {"aws-secret-access-key", 1}}},

		{"google", "maps key " + google + " here", "maps key " + m("google-api-key") + " here", hit("google-api-key")},
		{"google twice, one separator", google + "," + google, m("google-api-key") + "," + m("google-api-key"), []Hit{{"google-api-key", 2}}},

		{"anthropic", "ANTHROPIC_API_KEY=" + ant, "ANTHROPIC_API_KEY=" + m("anthropic-api-key"), hit("anthropic-api-key")},
		{"openai project", "OPENAI_API_KEY=\"" + oai + "\"", "OPENAI_API_KEY=\"" + m("openai-api-key") + "\"", hit("openai-api-key")},
		{"openai legacy", "key " + oaiLegacy, "key " + m("openai-api-key"), hit("openai-api-key")},

		{"slack token", "SLACK_BOT_TOKEN=" + slack, "SLACK_BOT_TOKEN=" + m("slack-token"), hit("slack-token")},
		{"slack webhook", "curl -X POST https://hooks.slack.com/services/" + hookPath + " -d @msg.json", "curl -X POST https://hooks.slack.com/services/" + m("slack-webhook") + " -d @msg.json", hit("slack-webhook")},

		{"stripe", "Stripe.api_key = '" + stripe + "'", "Stripe.api_key = '" + m("stripe-key") + "'", hit("stripe-key")},
		{"stripe restricted", stripeR, m("stripe-key"), hit("stripe-key")},

		{"npm", "//registry.example/:_authToken=" + npm, "//registry.example/:_authToken=" + m("npm-token"), hit("npm-token")},
		{"pypi", "password = " + pypi, "password = " + m("pypi-token"), hit("pypi-token")},
		{"hugging face", "HF_TOKEN=" + hf, "HF_TOKEN=" + m("huggingface-token"), hit("huggingface-token")},

		{"jwt", "cookie session=" + jwt + "; Path=/", "cookie session=" + m("jwt") + "; Path=/", hit("jwt")},
		{"jwt as bearer", "Authorization: Bearer " + jwt, "Authorization: Bearer " + m("jwt"), hit("jwt")},

		{"url password", "DATABASE_URL=postgres://app:" + pw + "@db.internal:5432/app", "DATABASE_URL=postgres://app:" + m("url-password") + "@db.internal:5432/app", hit("url-password")},
		{"url password, no user", "redis://:" + pw + "@cache:6379/0", "redis://:" + m("url-password") + "@cache:6379/0", hit("url-password")},
		{"url password, one character", "ftp://bob:7@files.example/", "ftp://bob:" + m("url-password") + "@files.example/", hit("url-password")},
		{"url password, short", "amqp://guest:guest@localhost:5672/", "amqp://guest:" + m("url-password") + "@localhost:5672/", hit("url-password")},

		{"bearer", "curl -H 'Authorization: Bearer " + bearer + "' https://api.example.com", "curl -H 'Authorization: Bearer " + m("authorization-header") + "' https://api.example.com", hit("authorization-header")},
		{"bearer in json", `{"headers":{"authorization":"token ` + bearer + `"}}`, `{"headers":{"authorization":"token ` + m("authorization-header") + `"}}`, hit("authorization-header")},
		{"basic", "Proxy-Authorization: Basic " + basic, "Proxy-Authorization: Basic " + m("authorization-header"), hit("authorization-header")},

		{"env", "API_KEY=" + value, "API_KEY=" + m("secret-assignment"), hit("secret-assignment")},
		{"shell export, quoted", `export DB_PASSWORD="` + symbols + `"`, `export DB_PASSWORD="` + m("secret-assignment") + `"`, hit("secret-assignment")},
		{"yaml", "auth:\n  client_secret: " + value + "\n  client_id: web", "auth:\n  client_secret: " + m("secret-assignment") + "\n  client_id: web", hit("secret-assignment")},
		{"json", `{"apiKey": "` + value + `", "region": "eu"}`, `{"apiKey": "` + m("secret-assignment") + `", "region": "eu"}`, hit("secret-assignment")},
		{"json escaped in json", `{"line":"{\"refresh_token\": \"` + value + `\"}"}`, `{"line":"{\"refresh_token\": \"` + m("secret-assignment") + `\"}"}`, hit("secret-assignment")},
		{"flag with =", "deploy --token=" + value + " --yes", "deploy --token=" + m("secret-assignment") + " --yes", hit("secret-assignment")},
		{"flag with a space", "login --api-key " + value + " --yes", "login --api-key " + m("secret-assignment") + " --yes", hit("secret-assignment")},
		{"go", `secretKey := "` + value + `"`, `secretKey := "` + m("secret-assignment") + `"`, hit("secret-assignment")},
		{"hex", "SECRET_KEY_BASE=" + hex, "SECRET_KEY_BASE=" + m("secret-assignment"), hit("secret-assignment")},
		{"toml, single quotes", "passphrase = '" + symbols + "'", "passphrase = '" + m("secret-assignment") + "'", hit("secret-assignment")},

		{"several kinds, table order", "TOKEN=" + value + "\n" + gh + "\n" + gh, "TOKEN=" + m("secret-assignment") + "\n" + m("github-token") + "\n" + m("github-token"), []Hit{{"github-token", 2}, {"secret-assignment", 1}}},
		{"utf-8 around", "clé « API_KEY=" + value + " » ✓", "clé « API_KEY=" + m("secret-assignment") + " » ✓", hit("secret-assignment")},
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
		"sk-learn-is-a-great-library-v2",
		"sk-1234",
		"ghp_ alone, gho_, github_pat_ and glpat- without a body",
		"ghp_" + strings.Repeat("x", 36),
		"ghp_short123",
		"glpat-" + strings.Repeat("x", 20),
		"AKIA" + strings.Repeat("X", 16),
		"AKIA1234 AKIAIOSFODNN7EXA",
		"aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
		"aws_secret_access_key = " + strings.Repeat("A", 40),
		"AIza" + g.of(base62, 20),
		"sk-ant-" + strings.Repeat("x", 40),
		"xoxb-your-token-here, xoxp-",
		"https://hooks.slack.com/services/ and https://hooks.slack.com/services/T000/B000/XXXX",
		"sk_live_ and sk_live_" + strings.Repeat("x", 24),
		"npm_config_registry=https://registry.example/ npm_" + strings.Repeat("x", 36),
		"pypi-package and pypi-AgE",
		"hf_hub_download(repo_id) hf_" + strings.Repeat("x", 34),
		b64u(`{"typ":"JWT","kid":"k1"}`) + "." + b64u(`{"sub":"1234567890"}`) + "." + g.of(b64url, 43),
		"eyJ" + g.of(b64url, 20),
		"https://example.com:8080/path?q=a:b and ssh://git@example.com/repo.git",
		"postgres://app:${DB_PASSWORD}@db/app and https://user:****@host and https://user:@host",
		"git@github.com:owner/repo.git",
		"Authorization: Bearer $TOKEN",
		"Authorization: Bearer YOUR_ACCESS_TOKEN",
		"Authorization: Bearer token123",
		"Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("no colon in here")),
		"-----BEGIN PUBLIC KEY-----\n" + g.of(b64std, 64) + "\n" + g.of(b64std, 20) + "\n-----END PUBLIC KEY-----",
		"-----BEGIN CERTIFICATE-----\n" + g.of(b64std, 64) + "\n-----END CERTIFICATE-----",
		"a key file begins with -----BEGIN OPENSSH PRIVATE KEY----- and that is all",
		"-----BEGIN RSA PRIVATE KEY-----\nyour key goes here\n-----END RSA PRIVATE KEY-----",
		"API_KEY=changeme",
		"TOKEN_COUNT=12",
		"password: <your password>",
		"SECRET=${SECRET}",
		"export API_TOKEN=$API_TOKEN",
		"KMS_KEY_ID=arn:aws:kms:us-east-1:123456789012:key/abcd",
		"SECRET_NAME=prod-db-password-v2",
		"placeholder: EXAMPLE_KEY_PLACEHOLDER1, tokens: TokenCountPerRequest1",
		"api_key: EXAMPLE_KEY_PLACEHOLDER1",
		"max_tokens: 4096",
		`"key1": NewFloat64Schema().NewRef(),`,
		"tokenizer: bert-base-uncased-v1-2024",
		"KEY_FILE=/home/alice/.ssh/id_ed25519 and SSH_KEY=~/.ssh/id_rsa",
		"TOKEN_URL=https://auth.example.com/oauth/token",
		`"password": "correct horse battery staple"`,
		"secretKey := os.Getenv(\"SECRET_KEY\")",
		"keyFunc: func(t *jwt.Token)",
		"key_id: " + "550e8400-e29b-41d4-a716-446655440000",
		"request 550e8400-e29b-41d4-a716-446655440000 failed",
		"commit " + commit + "\nMerge: " + commit[:7] + " " + g.of(hexLow, 7),
		"head " + commit + " of " + g.of(hexLow, 64),
		"HEAD=" + commit,
		"object_id: " + g.of(hexLow, 24),
		base64.StdEncoding.EncodeToString([]byte("This is an ordinary sentence, written in base64 for a test.")),
		"--token-limit 4096 --keyring default --password-file ./pw.txt",
		"a monkey, a keyboard and a token of thanks: nothing here",
		m("github-token") + " " + m("private-key"),
	}
}

func m(kind string) string { return marker(kind) }
