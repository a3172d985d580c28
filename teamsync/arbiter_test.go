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

// Pin decides once where claims go: nowhere for a clone without a remote
// (its claims are local, noted nowhere), the team's arbiter for a clone of
// one, and a choice that fails is left for Arbitrate to report.
func TestPinNamesTheRemoteThatDecides(t *testing.T) {
	tm := newTeam(t, 1)
	ctx := context.Background()
	a := tm.clones[0]
	if got, local := (Arbiter{}).Pin(ctx, a, mainRef); local || got.(Arbiter).Remote != "origin" {
		t.Fatalf("a clone of the team: Pin = %+v, local %v; want origin", got, local)
	}
	alone := filepath.Join(tm.dir, "alone")
	git(t, tm.dir, "init", "-q", alone)
	if got, local := (Arbiter{}).Pin(ctx, open(t, alone), mainRef); !local || got.(Arbiter).Remote != "" {
		t.Fatalf("a repository without a remote: Pin = %+v, local %v; want local", got, local)
	}
	other := filepath.Join(tm.dir, "other.git")
	git(t, tm.dir, "init", "-q", "--bare", other)
	tm.clone(t, "lone", other)
	git(t, a.Dir(), "remote", "add", "other", other)
	Init(ctx, a, "other") // refused: other's records name another arbiter
	if _, err := (Arbiter{}).remoteFor(ctx, a, mainRef); !errors.Is(err, ErrNoArbiter) {
		t.Fatalf("two arbiters named: remoteFor = %v, want ErrNoArbiter", err)
	}
	if got, local := (Arbiter{}).Pin(ctx, a, mainRef); local || got.(Arbiter).Remote != "" {
		t.Fatalf("a choice that fails: Pin = %+v, local %v; want it unpinned, not local", got, local)
	}
}
