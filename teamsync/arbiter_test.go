package teamsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormURLOneSpellingPerRepository(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "team.git")
	if err := os.Mkdir(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.git")
	if err := os.Symlink(bare, link); err != nil {
		t.Fatal(err)
	}
	same := [][]string{
		{"git@github.com:Org/repo.git", "ssh://git@github.com/Org/repo", "https://GitHub.com/Org/repo.git/", "github.com:Org/repo"},
		{bare, "file://" + bare, "file://" + bare + "/", "team.git", link, filepath.Join(dir, "team")},
	}
	for _, group := range same {
		want := normURL(group[0], dir)
		for _, u := range group[1:] {
			if got := normURL(u, dir); got != want {
				t.Errorf("normURL(%q) = %q, want %q (as %q)", u, got, want, group[0])
			}
		}
	}
	if normURL("git@github.com:org/one.git", dir) == normURL("git@github.com:org/two.git", dir) {
		t.Error("two repositories on one host compare equal")
	}
	if normURL("https://github.com/org/repo", dir) == normURL("https://gitlab.com/org/repo", dir) {
		t.Error("one path on two hosts compares equal")
	}
}

// TestArbiterRecordsThatDisagreeStopClaims: two remotes naming different
// arbiters is an error at claim time, not a guess.
func TestArbiterRecordsThatDisagreeStopClaims(t *testing.T) {
	tm := newTeam(t, 1)
	a := tm.clones[0]
	other := filepath.Join(tm.dir, "other.git")
	git(t, tm.dir, "init", "-q", "--bare", other)
	// other's own record names itself, written by a clone that only has it.
	lone := tm.clone(t, "lone", other)
	if got := git(t, lone.Dir(), "config", ArbiterKey); strings.TrimSpace(got) != "origin" {
		t.Fatalf("lone's arbiter: %q", got)
	}
	git(t, a.Dir(), "remote", "add", "other", other)
	if _, err := Init(context.Background(), a, "other"); !errors.Is(err, ErrNoArbiter) || !strings.Contains(err.Error(), "says claims are decided at") {
		t.Fatalf("init of a second remote with its own arbiter: %v", err)
	}
	end(t, a, 0, "next")
	if _, err := claim(a, "s-a", 1, Arbiter{}); !errors.Is(err, ErrNoArbiter) {
		t.Fatalf("claim with two arbiters named: %v", err)
	}
}
