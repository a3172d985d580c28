package redact

import (
	"strings"
	"testing"
)

// FuzzText: whatever the text, Text's output redacts to itself, holds
// nothing a rule finds, is UTF-8 when the input was, and has one new
// marker per hit.
func FuzzText(f *testing.F) {
	for _, c := range samples() {
		f.Add(c.in)
	}
	for _, s := range nearMisses() {
		f.Add(s)
	}
	f.Add("API_KEY=\xff" + strings.Repeat("a1", 12))
	f.Fuzz(func(t *testing.T, in string) {
		out, hits := Text(in)
		checkProperties(t, in, out, hits)
	})
}

// BenchmarkText reports throughput on ten megabytes of near-misses (every
// line wakes some rule and none redacts), the same on one line, ordinary
// prose (no keyword anywhere) and lines that are all secrets.
func BenchmarkText(b *testing.B) {
	var secrets strings.Builder
	for secrets.Len() < 10<<20 {
		for _, c := range samples() {
			secrets.WriteString(c.in + "\n")
		}
	}
	prose := strings.Repeat("The next session picks up the work where this one stopped, with its notes.\n", (10<<20)/76)
	for _, c := range []struct{ name, in string }{
		{"near-misses", nearMissText(10 << 20)},
		{"near-misses-one-line", strings.ReplaceAll(nearMissText(10<<20), "\n", " ")},
		{"prose", prose},
		{"secrets", secrets.String()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				Text(c.in)
			}
		})
	}
}
