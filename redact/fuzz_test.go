package redact

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// FuzzText: whatever the text, Text does not panic, its output redacts to
// itself, holds no secret a rule found in the input, is UTF-8 when the
// input was, and changed only where it says it found something.
func FuzzText(f *testing.F) {
	for _, tok := range tokens() {
		for _, c := range contexts {
			f.Add(c.wrap(tok.value))
		}
	}
	for _, c := range samples() {
		f.Add(c.in)
	}
	for _, s := range nearMisses() {
		f.Add(s)
	}
	for _, s := range examples() {
		f.Add(s)
	}
	f.Add("API_KEY=\xff" + strings.Repeat("a1", 12))
	f.Fuzz(func(t *testing.T, in string) {
		out, hits := Text(in)
		checkProperties(t, in, out, hits)
	})
}

// summary64K is 64 KB of what a summary of work on this project looks
// like: the project's own documentation (which speaks of tokens, keys,
// access and auth throughout), as a long agent summary would.
func summary64K(tb testing.TB) string {
	var b strings.Builder
	for _, name := range []string{"README.md", "docs"} {
		paths := []string{filepath.Join("..", name)}
		if name == "docs" {
			paths, _ = filepath.Glob(filepath.Join("..", "docs", "*.md"))
		}
		for _, p := range paths {
			if text, err := os.ReadFile(p); err == nil {
				b.Write(text)
			}
		}
	}
	if b.Len() == 0 {
		tb.Fatal("no documentation to make a summary of")
	}
	s := b.String()
	return strings.Repeat(s, 1+(64<<10)/len(s))[:64<<10]
}

// denseKeywords is 64 KB in which every line wakes generic-api-key and its
// kin several times over: the worst ordinary prose can do.
func denseKeywords() string {
	line := "The next session picks up the work where this one stopped, with its api keys and auth tokens in notes: password handling, access control.\n"
	return strings.Repeat(line, 1+(64<<10)/len(line))[:64<<10]
}

// cpuTime is the CPU time this process has used, in nanoseconds: on a
// machine others share, it moves far less than the wall clock the
// benchmark's ns/op reads.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

const batonLine = "carry on with the lexer: the tokenizer fails on nested quotes, see parse_test.go"

// BenchmarkRedact is the redaction pass of `end`: a one-line baton and a
// 64 KB summary, warm (the rules a text calls for already compiled, as
// from the second text of a process on) and cold (rules read and compiled
// anew, as the first text of a process, which `end` is). B/op of the cold
// runs is the pass's first-call memory.
func BenchmarkRedact(b *testing.B) {
	tokens := tokens()
	withSecrets := summary64K(b)[:60<<10] + "\nexport API_KEY=" + newGen(9).of(base62, 32) + "\n" + tokens[0].value + " " + tokens[6].value + "\n"
	for _, c := range []struct {
		name string
		text string
	}{
		{"baton-line", batonLine},
		{"summary-64KB", summary64K(b)},
		{"summary-64KB-with-secrets", withSecrets},
		{"dense-keywords-64KB", denseKeywords()},
		// One line of near-assignments: every keyword wakes a rule whose
		// window is the whole line.
		{"adversarial-64KB", strings.Repeat("api_key = 'Zx9", (64<<10)/14)},
	} {
		b.Run(c.name+"/warm", func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			Text(c.text)
			cpu := cpuTime()
			for b.Loop() {
				Text(c.text)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
		b.Run(c.name+"/cold", func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			src := defaultGitleaksConfig()
			cpu := cpuTime()
			for b.Loop() {
				rs, err := buildRules(src)
				if err != nil {
					b.Fatal(err)
				}
				rs.text(c.text)
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
