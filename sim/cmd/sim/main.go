// Command sim runs the deterministic simulation (package sim): `sim -seed N
// -steps N` prints each fault kind's count, then one summary line; a run
// with violations prints them, the seed and a shrunk step list, and exits 1.
// -planted runs it once per planted defect (built with -tags simdefects).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/git-handoff/git-handoff/internal/simdefect"
	"github.com/git-handoff/git-handoff/sim"
)

func main() {
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "the run's seed (default: from the time)")
	steps := flag.Int("steps", 10000, "steps to run")
	runs := flag.Int("runs", 1, "runs of -steps steps each, of seeds seed, seed+1, …: many short runs cover more than one long one, whose clones pile up records")
	clones := flag.Int("clones", 3, "clones of the remote")
	noFaults := flag.Bool("no-faults", false, "inject no faults")
	noCrash := flag.Bool("no-crash", false, "inject no process deaths")
	noRetire := flag.Bool("no-retire", false, "leave retirement out")
	wide := flag.Bool("wide", false, "the widened run: claim, undismiss, replace, PR claim and release, automatic handoffs; pushes twice, late, echoed")
	solo := flag.Bool("solo", false, "one clone with no remote: its syncs retire what is final there")
	cont := flag.Bool("continue", false, "add the continuation operations: continue by hand, two deciders racing, a fallback that fails to start")
	planted := flag.Bool("planted", false, "run once per planted defect (needs -tags simdefects)")
	verbose := flag.Bool("v", false, "print the op log")
	shrink := flag.Bool("shrink", true, "shrink a failing run's steps")
	kind := flag.String("kind", "", "shrink for this violation kind (default: the first found)")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after this long")
	flag.Parse()
	// The simulation allocates much and keeps little (a clone's records,
	// decoded and dropped at each step): at go's default GOGC=100 a
	// third of its CPU time went to the collector; 400 gives that back
	// for 50 MB instead of 30 (same runs: the trace hashes match). A
	// GOGC of the caller's wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	cfg := sim.Config{Seed: *seed, Steps: *steps, Clones: *clones, NoRetire: *noRetire, NoFaults: *noFaults, NoCrash: *noCrash, Wide: *wide, Continue: *cont, Solo: *solo}
	if *planted {
		if !simdefect.Built {
			fmt.Fprintln(os.Stderr, "sim: -planted needs a build with -tags simdefects")
			os.Exit(2)
		}
		missed := 0
		for _, d := range simdefect.All {
			found, at, kind := sim.Planted(ctx, cfg, d)
			if found {
				fmt.Printf("%s found after %d steps (%s)\n", d, at, kind)
			} else {
				fmt.Printf("%s missed (%d steps)\n", d, at)
				missed++
			}
		}
		if missed > 0 {
			os.Exit(1)
		}
		return
	}
	if *verbose {
		cfg.Log = func(l string) { fmt.Println(l) }
	}
	total := sim.Report{Seed: *seed, Faults: map[string]int{}}
	traces := sha256.New()
	for r := 0; r < *runs; r++ {
		cfg.Seed = *seed + uint64(r)
		list := sim.Generate(cfg)
		rep := sim.Run(ctx, cfg, list)
		if *runs > 1 {
			fmt.Println(rep.Summary())
		}
		total.Steps += rep.Steps
		total.Elapsed += rep.Elapsed
		total.Stale += rep.Stale
		total.Violations = append(total.Violations, rep.Violations...)
		for k, v := range rep.Faults {
			total.Faults[k] += v
		}
		traces.Write([]byte(rep.Trace))
		if len(rep.Violations) > 0 {
			fail(ctx, cfg, list, rep, *kind, *shrink, *wide, *noFaults)
		}
	}
	total.Trace = hex.EncodeToString(traces.Sum(nil))
	for _, l := range total.FaultLines() {
		fmt.Println(l)
	}
	fmt.Println(total.Summary())
}

// fail prints a failing run's violations, its seed and its shrunk steps,
// and exits 1.
func fail(ctx context.Context, cfg sim.Config, list []sim.Step, rep *sim.Report, kind string, shrink, wide, noFaults bool) {
	for _, l := range rep.FaultLines() {
		fmt.Println(l)
	}
	for i, v := range rep.Violations {
		if i == 10 {
			fmt.Printf("... and %d more\n", len(rep.Violations)-10)
			break
		}
		fmt.Println("violation:", v)
	}
	fmt.Println(rep.Summary())
	fmt.Printf("FAIL seed=%d steps=%d\n", cfg.Seed, cfg.Steps)
	if shrink {
		k := rep.Violations[0].Kind
		if kind != "" {
			k = kind
		}
		small, v := sim.Shrink(ctx, cfg, list, k)
		fmt.Printf("shrunk to %d steps (%s), replay: sim.Run(ctx, sim.Config{Seed: %d, Clones: %d, Wide: %v, NoFaults: %v, NoCrash: %v, Continue: %v, Solo: %v}, steps):\n", len(small), v, cfg.Seed, cfg.Clones, wide, noFaults, cfg.NoCrash, cfg.Continue, cfg.Solo)
		for _, s := range small {
			fmt.Printf("  %#v\n", s)
		}
	}
	os.Exit(1)
}
