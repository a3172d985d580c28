package sim

import (
	"context"

	"github.com/git-handoff/git-handoff/internal/simdefect"
)

// Planted runs cfg's steps twice, without and with defect d planted
// (needs the simdefects tag), and reports whether the run with the defect
// shows a kind of violation the run without it does not, after how many
// steps, and which. The baseline makes it honest while the simulation
// still finds violations of its own (see the package's report).
func Planted(ctx context.Context, cfg Config, d simdefect.Defect) (found bool, step int, kind string) {
	steps := Generate(cfg)
	cfg.Defect = ""
	base := Run(ctx, cfg, steps)
	known := map[string]bool{}
	for _, v := range base.Violations {
		known[v.Kind] = true
	}
	cfg.Defect = d
	rep := Run(ctx, cfg, steps)
	for _, v := range rep.Violations {
		if !known[v.Kind] {
			at := v.Step + 1
			if v.Step < 0 {
				at = rep.Steps
			}
			return true, at, v.Kind
		}
	}
	// Then the corpus of runs once failed, each clean without a defect
	// (TestRegressions): what the simulation has learnt to look for.
	n := rep.Steps
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
