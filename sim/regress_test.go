package sim

import (
	"context"
	"testing"
	"time"
)

func TestRegressions(t *testing.T) {
	for _, r := range Corpus {
		t.Run(r.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var log []string
			cfg := r.Config()
			cfg.Log = func(s string) { log = append(log, s) }
			rep := Run(ctx, cfg, r.steps)
			if len(rep.Violations) > 0 {
				for _, l := range log {
					t.Log(l)
				}
				t.Fatalf("violations: %v", rep.Violations)
			}
		})
	}
}
