package sim

import (
	"context"
	"testing"
)

func TestScratch(t *testing.T) {
	steps := []Step{
		{Clone: 1, Op: 0x0, Arg: 0xeca96af5, Faults: 0x1b980c5657e18ccb},
		{Clone: 1, Op: 0x1, Arg: 0xe9794f4e, Faults: 0x9d5a29eff9a9153f},
		{Clone: 0, Op: 0x0, Arg: 0x4b7256ba, Faults: 0x63eba19d658523d7},
		{Clone: 0, Op: 0x1, Arg: 0xe8a58a91, Faults: 0xd0b99b625f9fe1c0},
	}
	rep := Run(context.Background(), Config{Seed: 2, NoRetire: true, Log: func(s string) { t.Log(s) }}, steps)
	t.Log(rep.Summary(), rep.FaultLines())
}
