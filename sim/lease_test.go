package sim

import (
	"context"
	"testing"
	"time"
)

// A lease broken, then retired by a clone whose clock ran ahead, then
// taken afresh: a clone that still held the copy from before the
// retirement pushed it back over the new holder's at its next sync, and
// two sessions held src/** (seed 8 without faults, shrunk). Leases no
// longer retire (teamsync/lease.go, retiresLease).
func TestLeaseRetiredCopyNotRevived(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	steps := []Step{
		{Clone: 2, Op: OpLeaseTake, Arg: 0xb6084abb, Faults: 0xfbf66ab71e60b2ee},
		{Clone: 1, Op: OpSync, Arg: 0x21f6a71b, Faults: 0xfbd486797110f58b},
		{Clone: 2, Op: OpLeaseTake, Arg: 0xe11eefca, Faults: 0xc09928c73db89129},
		{Clone: 2, Op: OpLeaseBreak, Arg: 0x64558528, Faults: 0x34fe78cad1b107a7},
		{Clone: 0, Op: OpRetire, Arg: 0x9337dd7, Faults: 0x267cf9d02a0d5982},
		{Clone: 0, Op: OpLeaseTake, Arg: 0x8c1ca9a3, Faults: 0xcd06d0199928964e},
		{Clone: 1, Op: OpLeaseTake, Arg: 0xc11f8a12, Faults: 0x293f4ae9538d055d},
		{Clone: 2, Op: OpStart, Arg: 0x17fe09a7, Faults: 0x31abcae0a4c6080b},
		{Clone: 1, Op: OpLeaseTake, Arg: 0xd546d0ad, Faults: 0x54099ebc5d86d652},
		{Clone: 0, Op: OpDismiss, Arg: 0x588e508e, Faults: 0xeb5806e981d3aa5c},
		{Clone: 2, Op: OpEnd, Arg: 0x3eb5ea42, Faults: 0x231cc7410a90ea2b},
		{Clone: 1, Op: OpCancel, Arg: 0x235bc900, Faults: 0x550a15076f7525d3},
		{Clone: 2, Op: OpStart, Arg: 0xa271b068, Faults: 0x16fd1ec340c82f66},
		{Clone: 0, Op: OpLeaseTake, Arg: 0x2b6a36d9, Faults: 0x92787b67258151dd},
		{Clone: 1, Op: OpRetire, Arg: 0xaf2ceee7, Faults: 0xa66a57081cb33933},
		{Clone: 2, Op: OpLeaseRenew, Arg: 0x104b59fc, Faults: 0xbe188605e6e5d862},
	}
	rep := Run(ctx, Config{Seed: 8, Clones: 3, NoFaults: true}, steps)
	if ctx.Err() != nil {
		t.Fatal("deadline passed")
	}
	for _, v := range rep.Violations {
		t.Error(v)
	}
	if rep.Outcomes["lease-take:ok"] < 3 || rep.Outcomes["lease-break:ok"] != 1 {
		t.Fatalf("the run no longer takes and breaks leases as it did: %v", rep.Outcomes)
	}
}
