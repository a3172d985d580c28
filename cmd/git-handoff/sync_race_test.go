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
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

// TestClaimRaceThroughRemote: two clones claim the same baton at the same
// moment through a bare remote, as real `git handoff claim` processes, 30
// times: exactly one wins every round, the other exits 5 naming the
// winner, and the remote holds the winner's claim. (It ran 100 rounds, 80 s
// of make test. The interleavings a round can take are few, two pushes
// with leases at one remote; the claim's workflow under every interleaving
// and fault is the simulation's (sim, make sim), whose remote decides
// claims by compare-and-swap as git's does, held to git by memstore's
// TestRemoteIsGits.)
func TestClaimRaceThroughRemote(t *testing.T) {
	if testing.Short() {
		t.Skip("30 rounds of real processes")
	}
	const rounds = 30
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n"), 0o644)
	for k, v := range map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"), "GIT_TERMINAL_PROMPT": "0", "GIT_HANDOFF_SESSION": ""} {
		t.Setenv(k, v)
	}
	run := func(dir string, args ...string) (string, string, int) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	must := func(dir string, args ...string) {
		t.Helper()
		if _, stderr, code := run(dir, args...); code != 0 {
			t.Fatalf("git %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	remote := filepath.Join(dir, "remote.git")
	must(dir, "init", "-q", "--bare", remote)
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	must(dir, "clone", "-q", remote, a)
	must(a, "commit", "-q", "--allow-empty", "-m", "first")
	must(a, "push", "-q", "origin", "main")
	must(dir, "clone", "-q", remote, b)
	must(dir, "clone", "-q", remote, c)
	for _, d := range []string{a, b, c} {
		must(d, "handoff", "init", "--no-hooks")
	}
	// One baton per round, on its own branch, written in process.
	ctx := context.Background()
	st, err := refstore.Open(ctx, a, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := func() time.Time { return time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC) }
	for i := 0; i < rounds; i++ {
		if _, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "team", Branch: fmt.Sprintf("b-%d", i), Next: []string{"step"}}, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := teamsync.Sync(ctx, st, teamsync.Options{Remote: "origin", Now: now()}); err != nil {
		t.Fatal(err)
	}
	must(b, "handoff", "sync")
	must(c, "handoff", "sync")

	start := time.Now()
	for i := 0; i < rounds; i++ {
		branch := fmt.Sprintf("b-%d", i)
		type outcome struct {
			code   int
			stderr string
		}
		var wg sync.WaitGroup
		res := make([]outcome, 2)
		for j, d := range []string{b, c} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, stderr, code := run(d, "handoff", "claim", "--owner", "team", "--branch", branch, "--session", fmt.Sprintf("s%d-%d", j, i))
				res[j] = outcome{code, stderr}
			}()
		}
		wg.Wait()
		winners := 0
		for j, r := range res {
			switch r.code {
			case 0:
				winners++
			case exitConflict:
				if !strings.Contains(r.stderr, fmt.Sprintf("already claimed by session s%d-%d", 1-j, i)) {
					t.Errorf("round %d: loser not told who won: %s", i, r.stderr)
				}
			default:
				t.Fatalf("round %d: clone %d exit %d: %s", i, j, r.code, r.stderr)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d winners: %+v", i, winners, res)
		}
		ref := "refs/ao/handoffs/private/team/" + branch
		out, _, _ := run(remote, "cat-file", "-p", ref)
		winner := 0
		if res[1].code == 0 {
			winner = 1
		}
		if !strings.Contains(out, fmt.Sprintf(`"claimedBySession":"s%d-%d"`, winner, i)) {
			t.Fatalf("round %d: remote holds %s", i, out)
		}
	}
	t.Logf("%d contested rounds in %v", rounds, time.Since(start))
}
