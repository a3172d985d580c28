package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// TestClaimRace starts 16 real processes claiming the same baton, round
// after round, some rounds with git pack-refs running alongside: exactly one
// claimer wins each time, and every loser exits 5 naming the winner.
func TestClaimRace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hundreds of processes")
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	const claimers, rounds = 16, 12
	for round := 0; round < rounds; round++ {
		end := exec.Command("git", "handoff", "end", "--next", fmt.Sprintf("step of round %d", round))
		end.Dir = dir
		if out, err := end.CombinedOutput(); err != nil {
			t.Fatalf("end: %v\n%s", err, out)
		}
		type result struct {
			session        string
			code           int
			stdout, stderr string
		}
		results := make([]result, claimers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < claimers; i++ {
			cmd := exec.Command("git", "handoff", "claim", "--json", "--session", fmt.Sprintf("r%d-c%d", round, i))
			cmd.Dir = dir
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					code = -1
				}
				results[i] = result{session: fmt.Sprintf("r%d-c%d", round, i), code: code, stdout: out.String(), stderr: errb.String()}
			}(i)
		}
		if round%3 == 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				exec.Command("git", "-C", dir, "pack-refs", "--all").Run()
			}()
		}
		close(start)
		wg.Wait()
		var winners []string
		for _, r := range results {
			if r.code == 0 {
				winners = append(winners, r.session)
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d winners %v\n%+v", round, len(winners), winners, results)
		}
		var won struct {
			Handoff struct{ ClaimedBySession string }
		}
		for _, r := range results {
			if r.code == 0 {
				if err := json.Unmarshal([]byte(r.stdout), &won); err != nil || won.Handoff.ClaimedBySession != winners[0] {
					t.Fatalf("round %d: winner printed %q (%v)", round, r.stdout, err)
				}
				continue
			}
			if r.code != exitConflict || !strings.Contains(r.stderr, "claimed by session "+winners[0]) {
				t.Fatalf("round %d: loser %s exited %d: %s", round, r.session, r.code, r.stderr)
			}
		}
	}
}
