package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/lease"
)

// lease writes a path lease record held by session at its ref.
func (e *env) lease(dir, key, session, state string) {
	e.t.Helper()
	k, err := lease.ParseKey(key)
	if err != nil {
		e.t.Fatal(err)
	}
	ref, err := k.Ref()
	if err != nil {
		e.t.Fatal(err)
	}
	blob := strings.TrimSpace(e.gitIn(dir, `{"key":"`+k.String()+`","state":"`+state+`","session":"`+session+`","owner":"ann@example.com","agent":"codex"}`, "hash-object", "-w", "--stdin"))
	e.git(dir, "update-ref", ref, blob)
}

func (e *env) stage(dir string, files ...string) {
	e.t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f+"\n"), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	e.git(dir, append([]string{"add", "--"}, files...)...)
}

// A commit touching another session's path lease goes through, with a
// warning naming the files, the holder and the lease; the trailers are
// there as ever. One touching nothing leased, or only the committing
// session's own lease, says nothing.
func TestCommitWarnsOfLeasedPaths(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		e.bind(dir, "s1")
		e.lease(dir, "path:src/lexer/**", "s-ann", "held")
		e.lease(dir, "path:docs/", "s1", "held")
		e.lease(dir, "path:old/", "s-gone", "released")

		e.stage(dir, "src/lexer/scan.go", "src/lexer/token.go", "README.md")
		_, stderr, err := e.run(dir, "commit", "-q", "-m", "lexer work")
		if err != nil {
			t.Fatalf("the commit failed: %v\n%s", err, stderr)
		}
		want := "warning: git-handoff: this commit touches src/lexer/scan.go, src/lexer/token.go, leased to codex session s-ann of ann@example.com (path:src/lexer/**)"
		if !strings.Contains(stderr, want) || strings.Count(stderr, "warning:") != 1 {
			t.Fatalf("stderr = %q, want one warning %q", stderr, want)
		}
		if got := e.headMessage(dir); got != "lexer work\n\nHandoff-Session: s1\nHandoff-Agent: test-agent\n\n" {
			t.Fatalf("message = %q", got)
		}

		// Its own lease, a released one and a free file: no warning.
		e.stage(dir, "docs/a.md", "old/b.txt", "main.go")
		if _, stderr, err := e.run(dir, "commit", "-q", "-m", "docs"); err != nil || stderr != "" {
			t.Fatalf("commit of unleased files: %v, stderr %q", err, stderr)
		}

		// A deletion and `commit -a` (a temporary index) are checked too.
		e.git(dir, "rm", "-q", "src/lexer/token.go")
		if _, stderr, _ := e.run(dir, "commit", "-q", "-m", "rm"); !strings.Contains(stderr, "touches src/lexer/token.go,") {
			t.Fatalf("a deletion under the lease: stderr %q", stderr)
		}
		if err := os.WriteFile(filepath.Join(dir, "src/lexer/scan.go"), []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, _ := e.run(dir, "commit", "-q", "-a", "-m", "all"); !strings.Contains(stderr, "touches src/lexer/scan.go,") {
			t.Fatalf("commit -a under the lease: stderr %q", stderr)
		}
	})
}

// An unbound commit (the hook armed by handoff.commitHook=always) is
// checked too: every holder is another session. Without any path lease
// ref it still never starts git-handoff.
func TestUnboundCommitWarnsOnlyWhenLeased(t *testing.T) {
	eachForm(t, func(t *testing.T, e *env) {
		dir := e.newRepo()
		e.install(dir)
		e.git(dir, "config", "handoff.commitHook", "always")
		e.refresh(dir)
		e.git(dir, "pack-refs", "--all")
		e.resetLog()
		e.stage(dir, "src/a.go")
		e.git(dir, "commit", "-q", "-m", "free")
		if s := e.starts(); s != nil {
			t.Fatalf("git-handoff started with nothing leased: %q", s)
		}
		// What packed-refs holds is remembered until it changes.
		if gittest.RefFormat(t, dir) != "reftable" {
			if got := readFile(t, filepath.Join(dir, ".git", "handoff-hook-leased")); got != "0\n" {
				t.Fatalf("handoff-hook-leased = %q, want 0", got)
			}
		}
		e.lease(dir, "path:*.go", "s-ann", "held")
		e.stage(dir, "src/b.go")
		_, stderr, err := e.run(dir, "commit", "-q", "-m", "leased")
		if err != nil || !strings.Contains(stderr, "touches src/b.go, leased to codex session s-ann") {
			t.Fatalf("unbound commit under a lease: %v, stderr %q", err, stderr)
		}
		if got := e.headMessage(dir); got != "leased\n\n" {
			t.Fatalf("message = %q, want no trailers", got)
		}
		// Packed, the lease ref is found as well.
		e.git(dir, "pack-refs", "--all")
		e.stage(dir, "src/c.go")
		if _, stderr, _ := e.run(dir, "commit", "-q", "-m", "packed"); !strings.Contains(stderr, "touches src/c.go, leased to") {
			t.Fatalf("unbound commit under a packed lease ref: stderr %q", stderr)
		}
	})
}
