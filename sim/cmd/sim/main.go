// Command sim runs the deterministic simulation (package sim): `sim -seed N
// -steps N` prints each fault kind's count, then one summary line; a run
// with violations prints them, the seed and a shrunk step list, and exits 1.
// -planted runs it once per planted defect (built with -tags simdefects).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/git-handoff/git-handoff/internal/simdefect"
	"github.com/git-handoff/git-handoff/sim"
)

func main() {
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "the run's seed (default: from the time)")
	steps := flag.Int("steps", 10000, "steps to run")
	clones := flag.Int("clones", 3, "clones of the remote")
	noFaults := flag.Bool("no-faults", false, "inject no faults")
	noCrash := flag.Bool("no-crash", false, "inject no process deaths")
	noRetire := flag.Bool("no-retire", false, "leave retirement out")
	wide := flag.Bool("wide", false, "the widened run: claim, undismiss, replace, PR claim and release, automatic handoffs; pushes twice, late, echoed")
	planted := flag.Bool("planted", false, "run once per planted defect (needs -tags simdefects)")
	verbose := flag.Bool("v", false, "print the op log")
	shrink := flag.Bool("shrink", true, "shrink a failing run's steps")
	kind := flag.String("kind", "", "shrink for this violation kind (default: the first found)")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after this long")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	cfg := sim.Config{Seed: *seed, Steps: *steps, Clones: *clones, NoRetire: *noRetire, NoFaults: *noFaults, NoCrash: *noCrash, Wide: *wide}
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
	list := sim.Generate(cfg)
	rep := sim.Run(ctx, cfg, list)
	for _, l := range rep.FaultLines() {
		fmt.Println(l)
	}
	if len(rep.Violations) > 0 {
		for i, v := range rep.Violations {
			if i == 10 {
				fmt.Printf("... and %d more\n", len(rep.Violations)-10)
				break
			}
			fmt.Println("violation:", v)
		}
	}
	fmt.Println(rep.Summary())
	if len(rep.Violations) == 0 {
		return
	}
	fmt.Printf("FAIL seed=%d steps=%d\n", *seed, *steps)
	if *shrink {
		k := rep.Violations[0].Kind
		if *kind != "" {
			k = *kind
		}
		small, v := sim.Shrink(ctx, cfg, list, k)
		fmt.Printf("shrunk to %d steps (%s), replay: sim.Run(ctx, sim.Config{Seed: %d, Clones: %d, Wide: %v, NoFaults: %v}, steps):\n", len(small), v, *seed, *clones, *wide, *noFaults)
		for _, s := range small {
			fmt.Printf("  %#v\n", s)
		}
	}
	os.Exit(1)
}
