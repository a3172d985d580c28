package lease

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

func mustCompile(t *testing.T, p string) Pattern {
	t.Helper()
	pat, err := Compile(p)
	if err != nil {
		t.Fatalf("Compile(%q): %v", p, err)
	}
	return pat
}

func TestOverlap(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"src/**", "src/a.go", true},
		{"*.go", "cmd/main.go", true}, // * crosses / in a plain pathspec
		{"src", "src/a.go", true},     // a literal covers what is under it
		{"src", "src", true},
		{"src/", "src", true}, // both cover src/x
		{"src/", "src/x", true},
		{"src", "srcx/a.go", false},
		{"src", "sr?", true},       // the file src itself
		{"src/a.go", "sr?", false}, // a wildcard has no "under it": sr? is 3 bytes
		{"src/lexer", "src/lex*", true},
		{"src/lexer", "src/parser", false},
		{"*.go", "*.md", false},
		{"*.go", "docs/*", true}, // docs/x.go
		{"a*", "*b", true},       // ab
		{"a*c", "*b*", true},     // abc
		{"[ab]x", "[bc]x", true},
		{"[a]x", "[!a]x", false},
		{"[^a]x", "ax", false},
		{"[[:digit:]]", "5", true},
		{"[[:digit:]]", "[[:alpha:]]", false},
		{"a\\*", "a*", true},   // the file named "a*"
		{"a\\*", "ab", false},  // the escape makes * literal
		{"x?y", "x/y", true},   // ? matches "/" in a plain pathspec
		{"src/", "sr?", false}, // sr? is the file src, src/ only what is under it
		{"?", "*/*", false},    // one byte cannot be a/b
		{"*/", "a", false},     // (never compiled: refused) placeholder skipped below
		{"a/*", "*/b", true},   // a/b
		{"a/?", "*/ab", false}, // a/ab is too long for a/?; /ab alone is no path
		{"*", "anything/at/all", true},
		{"[a-c]", "b", true},
		{"[a-c]", "d", false},
		{"[]]", "]", true},
		{"[!]]", "]", false},
		{"src/**/test", "src/tes?", false}, // ** is *: src/test is too short
		{"src/**/test", "src/test", true},  // src/test/x/test
		{"src/**/test", "src/a/test", true},
	}
	for _, c := range cases {
		pa, ea := Compile(c.a)
		pb, eb := Compile(c.b)
		if ea != nil || eb != nil {
			if c.a == "*/" {
				continue
			}
			t.Fatalf("%q / %q: %v %v", c.a, c.b, ea, eb)
		}
		if got := Overlap(pa, pb); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Overlap(pb, pa); got != c.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v (swapped)", c.b, c.a, got, c.want)
		}
	}
}

// TestMatchIsGit holds Match to git's own pathspec matching: `git
// ls-files -- PATTERN` over a set of real files.
func TestMatchIsGit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	files := []string{"src", "srcx/a.go", "src2", "sr/c", "cmd/main.go", "a.go", "docs/x.md", "src_/a",
		"lex/src/a.go", "x/y", "a*", "ab", "abc", "]", "5", "b", "src/a.go", "src/lexer/scan.go", "src/test"}
	// "src" is a file above and a directory here: git cannot hold both.
	files = files[1:]
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "-A")
	patterns := []string{"src", "src/", "sr?", "src/**", "*.go", "src/lex*", "*/a.go", "[ab]*", "a\\*", "a*",
		"x?y", "src/**/test", "[[:digit:]]", "[!a-c]*", "s*c", "*c", "src/lexer", "cmd"}
	for _, p := range patterns {
		pat := mustCompile(t, p)
		out := strings.TrimSpace(git("-c", "core.quotePath=false", "ls-files", "--", p))
		var want []string
		if out != "" {
			want = strings.Split(out, "\n")
		}
		var got []string
		for _, f := range files {
			if pat.Match(f) {
				got = append(got, f)
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("pattern %q: we match %v, git matches %v", p, got, want)
		}
	}
}

// Overlap agrees with brute force: for each pair, some candidate path
// matched by both exists exactly when Overlap says so (over candidates
// rich enough for the patterns).
func TestOverlapAgreesWithWitnesses(t *testing.T) {
	pats := []string{"src", "src/", "src/*", "*.go", "a*", "*b", "?", "??", "a/?", "[ab]", "[!a]", "*/*", "a\\*", "x*y*z"}
	alphabet := []string{"a", "b", "c", "/", ".go", "src", "*", "x", "y", "z"}
	cands := joins(alphabet, 4)[1:] // not the empty path
	for _, a := range pats {
		for _, b := range pats {
			pa, pb := mustCompile(t, a), mustCompile(t, b)
			witness := ""
			for _, c := range cands {
				if validPath(c) && pa.Match(c) && pb.Match(c) {
					witness = c
					break
				}
			}
			if got := Overlap(pa, pb); got != (witness != "") && !(got && witness == "" && needsLonger(a, b)) {
				t.Errorf("Overlap(%q, %q) = %v; witness %q", a, b, got, witness)
			}
		}
	}
}

// needsLonger: pairs whose common paths are all longer than the
// candidates built (x*y*z with anything but a star needs more pieces).
func needsLonger(a, b string) bool { return a == "x*y*z" || b == "x*y*z" }

func validPath(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.HasSuffix(p, "/") && !strings.Contains(p, "//")
}

// Match answers what the product search (intersect) answers of the glob
// and the path as a literal glob, over every short path of a small
// alphabet, paths no file has ("/a", "a//b", a NUL) included.
func TestMatchAgreesWithIntersect(t *testing.T) {
	pats := []string{"src", "src/", "src/*", "*.go", "a*", "*b", "?", "??", "a/?", "[ab]", "[!a]", "*/*", "a\\*",
		"x*y*z", "*", "a*/b", "**/a", "[[:alpha:]]*", "\\?"}
	alphabet := []string{"a", "b", "/", ".go", "src", "*", "?", "x", "y", "z", "\x00"}
	cands := joins(alphabet, 4)
	for _, p := range pats {
		pat := mustCompile(t, p)
		for _, c := range cands {
			want := false
			for _, g := range pat.globs {
				want = want || intersect(g, literal(c))
			}
			if got := pat.Match(c); got != want {
				t.Errorf("%q.Match(%q) = %v, the product search says %v", p, c, got, want)
			}
		}
	}
}

// joins is every string of at most n pieces of alphabet, the empty one
// first.
func joins(alphabet []string, n int) []string {
	out := []string{""}
	for last := out; n > 0; n-- {
		var next []string
		for _, s := range last {
			for _, a := range alphabet {
				next = append(next, s+a)
			}
		}
		out, last = append(out, next...), next
	}
	return out
}
