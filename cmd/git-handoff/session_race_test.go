package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/lineage"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// TestSessionReplaceRace runs 8 real processes replacing the same session,
// round after round: exactly one succeeds each time, every other one exits
// 5 naming the winner, no loser's session exists, and the lineage graph
// stays sound.
func TestSessionReplaceRace(t *testing.T) {
	if _, err := exec.LookPath("git-handoff"); err != nil {
		t.Skip("git-handoff is not on PATH (TestMain puts the test binary there)")
	}
	const racers = 8
	// Each round is 8 processes on a 2-core machine: about a second.
	rounds := 8
	if testing.Short() {
		rounds = 2
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = Racer\n\temail = racer@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(refstore.CleanEnv(os.Environ()), "HOME="+home, "GIT_CONFIG_GLOBAL="+cfg, "GIT_CONFIG_NOSYSTEM=1", "GIT_HANDOFF_SESSION=")
	git := func(args ...string) (string, string, int) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return out.String(), errb.String(), code
	}
	must := func(args ...string) {
		if _, stderr, code := git(args...); code != 0 {
			t.Fatalf("git %v: exit %d: %s", args, code, stderr)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	must("init", "-q")
	must("commit", "-q", "--allow-empty", "-m", "first")

	for r := range rounds {
		old := fmt.Sprintf("old-%d", r)
		must("handoff", "start", "--session", old, "--harness", "codex", "--objective", "race")
		type result struct {
			code   int
			stderr string
		}
		results := make([]result, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, stderr, code := git("handoff", "session", "replace", old, "--new-id", fmt.Sprintf("new-%d-%d", r, i), "--reason", "stuck")
				results[i] = result{code, stderr}
			}()
		}
		wg.Wait()
		winner := -1
		for i, res := range results {
			if res.code == 0 {
				if winner >= 0 {
					t.Fatalf("round %d: racers %d and %d both replaced %s", r, winner, i, old)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody replaced %s: %+v", r, old, results)
		}
		want := fmt.Sprintf("new-%d-%d", r, winner)
		for i, res := range results {
			if i == winner {
				continue
			}
			if res.code != exitConflict {
				t.Errorf("round %d: racer %d exited %d, want %d: %s", r, i, res.code, exitConflict, res.stderr)
			}
			if !strings.Contains(res.stderr, fmt.Sprintf("already replaced by %q", want)) {
				t.Errorf("round %d: racer %d does not name the winner %s: %s", r, i, want, res.stderr)
			}
			if _, _, code := git("rev-parse", "-q", "--verify", fmt.Sprintf("refs/ao/sessions/new-%d-%d", r, i)); code == 0 {
				t.Errorf("round %d: loser %d's session exists", r, i)
			}
		}
		out, _, _ := git("cat-file", "-p", "refs/ao/sessions/"+old)
		if !strings.Contains(out, fmt.Sprintf(`"replacedBy":%q`, want)) {
			t.Errorf("round %d: %s does not name %s as its successor: %s", r, old, want, out)
		}
	}

	st, err := refstore.Open(context.Background(), repo, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stored, warns, err := session.List(context.Background(), st)
	if err != nil || len(warns) > 0 {
		t.Fatalf("listing sessions: %v %v", err, warns)
	}
	if len(stored) != 2*rounds {
		t.Errorf("%d sessions, want %d", len(stored), 2*rounds)
	}
	if err := lineage.NewGraph(session.Nodes(session.Records(stored))).Validate(); err != nil {
		t.Errorf("lineage graph: %v", err)
	}
}
