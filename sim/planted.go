package sim

import (
	"context"

	"github.com/git-handoff/git-handoff/internal/simdefect"
)

// plantedTries is how many seeds Planted runs (cfg's and the ones after
// it) before the corpus: one seed's run may never reach a defect's site.
const plantedTries = 4

// Planted searches for defect d (needs the simdefects tag): it runs cfg's
// seed and the next ones, each twice, without and with d planted, and
// reports whether a run with the defect shows a kind of violation the
// same run without it does not, after how many steps in all, and which.
// The baseline makes it honest while the simulation still finds
// violations of its own under faults. Then it runs the corpus of runs once
// failed (each clean without a defect: TestRegressions) with d planted.
func Planted(ctx context.Context, cfg Config, d simdefect.Defect) (found bool, step int, kind string) {
	n := 0
	for try := 0; try < plantedTries; try++ {
		c := cfg
		c.Seed = cfg.Seed + uint64(try)
		steps := Generate(c)
		c.Defect = ""
		base := Run(ctx, c, steps)
		known := map[string]bool{}
		for _, v := range base.Violations {
			known[v.Kind] = true
		}
		c.Defect = d
		rep := Run(ctx, c, steps)
		for _, v := range rep.Violations {
			if !known[v.Kind] {
				at := v.Step + 1
				if v.Step < 0 {
					at = rep.Steps
				}
				return true, n + at, v.Kind
			}
		}
		n += rep.Steps
	}
	for _, c := range Corpus {
		ccfg := c.Config()
		ccfg.Defect = d
		crep := Run(ctx, ccfg, c.steps)
		n += crep.Steps
		if len(crep.Violations) > 0 {
			return true, n, crep.Violations[0].Kind + ", corpus: " + c.name
		}
	}
	return false, n, ""
}
