//go:build simdefects

package sim

import (
	"context"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/simdefect"
)

// Each planted defect is found: a simulation that finds nothing when a
// defect is planted is a defect.
func TestPlantedDefectsFound(t *testing.T) {
	for _, d := range simdefect.All {
		t.Run(string(d), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			found, at, kind := Planted(ctx, Config{Seed: 1, Steps: 600}, d)
			if ctx.Err() != nil {
				t.Fatal("deadline passed")
			}
			if !found {
				t.Fatalf("%s missed in %d steps", d, at)
			}
			t.Logf("%s found after %d steps (%s)", d, at, kind)
		})
	}
}
