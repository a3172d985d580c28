package brief

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var updateLeases = flag.Bool("update-leases", false, "rewrite testdata/leases.md from this build's output")

func leases() []Lease {
	return []Lease{
		{Key: "path:src/lexer/**", Session: "s-ann1", Owner: "ann@example.com", Agent: "codex", Note: "rewriting the scanner", FreesAt: now.Add(25*time.Minute + 30*time.Second)},
		{Key: "issue:42", Session: "s-bob2", Owner: "bob@example.com", FreesAt: now.Add(2*time.Hour + 5*time.Minute)},
		{Key: "key:release", Session: "s-cat3", Owner: "cat@example.com", Agent: "claude-code", Expired: true},
		{Key: "pr:17", Session: "s-me", Owner: "o", Mine: true, FreesAt: now.Add(29 * time.Minute)},
		{Key: "path:docs/**", Session: "s-me", Owner: "o", Mine: true},
	}
}

// The brief's lease section, whole: others first with who and when each
// frees, then the session's own.
func TestLeaseSectionGolden(t *testing.T) {
	in := Input{Owner: "o", Branch: "b", Now: now, Leases: leases()}
	got, _ := Render(in, DefaultMaxBytes)
	path := filepath.Join("testdata", "leases.md")
	if *updateLeases {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("brief with leases differs from %s (go test -run %s -update-leases rewrites it):\n%s", path, t.Name(), got)
	}
}

func TestNoLeasesNoSection(t *testing.T) {
	text, _ := Render(input(), DefaultMaxBytes)
	if strings.Contains(text, "Leases") {
		t.Fatalf("a brief without leases has a lease section:\n%s", text)
	}
	in := input()
	in.Leases = []Lease{{Key: "pr:17", Session: "s-me", Mine: true}}
	text, _ = Render(in, DefaultMaxBytes)
	if !strings.Contains(text, "## Leases") || strings.Contains(text, "other sessions") {
		t.Fatalf("only the session's own lease: want its list alone:\n%s", text)
	}
}

// A long list is cut to maxLeaseLines with a pointer to the rest, and
// trimming to a small budget never leaves a heading without a lease.
func TestLeaseSectionBounded(t *testing.T) {
	var ls []Lease
	for i := range 25 {
		ls = append(ls, Lease{Key: "issue:" + strings.Repeat("1", i+1), Session: "s-x", FreesAt: now.Add(time.Minute)})
	}
	text, _ := Render(Input{Owner: "o", Branch: "b", Now: now, Leases: ls}, DefaultMaxBytes)
	if n := strings.Count(text, "- `issue:"); n != maxLeaseLines {
		t.Fatalf("%d leases listed, want %d:\n%s", n, maxLeaseLines, text)
	}
	if !strings.Contains(text, "and 15 more (`git handoff lease list`)") {
		t.Fatalf("no pointer to the rest:\n%s", text)
	}
	full, _ := Render(Input{Owner: "o", Branch: "b", Now: now, Leases: leases()}, 1<<20)
	for max := 0; max <= len(full); max++ {
		text, _ := Render(Input{Owner: "o", Branch: "b", Now: now, Leases: leases()}, max)
		for _, h := range []string{"Held by other sessions", "Yours ("} {
			if i := strings.Index(text, h); i >= 0 && !strings.Contains(text[i:], "\n- `") {
				t.Fatalf("max %d: %q without a lease under it:\n%s", max, h, text)
			}
		}
		if strings.Contains(text, "## Leases") && !strings.Contains(text, "- `") {
			t.Fatalf("max %d: heading alone:\n%s", max, text)
		}
	}
}

func TestPackageLeases(t *testing.T) {
	if got := PackageLeases(nil); got != "" {
		t.Fatalf("no leases: %q", got)
	}
	got := PackageLeases([]Lease{{Key: "pr:17", Note: "the\nfix"}, {Key: "path:src/**"}})
	for _, want := range []string{"### Leases it held (handed to you)", "- `pr:17` (the fix)\n", "- `path:src/**`\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("package section lacks %q:\n%s", want, got)
		}
	}
}

func TestUntil(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Minute: "0 s", 40 * time.Second: "40 s", 25*time.Minute + 59*time.Second: "25 min",
		2 * time.Hour: "2 h", 2*time.Hour + 5*time.Minute: "2 h 5 min", 72 * time.Hour: "3 days",
	} {
		if got := Until(now, now.Add(d)); got != want {
			t.Errorf("Until(%s) = %q, want %q", d, got, want)
		}
	}
}
