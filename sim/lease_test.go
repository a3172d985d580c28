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

// The remote's gc lost the object of a renewed lease; a sync deleted the
// ref it could not heal and marked it lost; another clone then took the
// key afresh over a holding the arbiter could no longer show (seed 6035,
// shrunk). A create at the board first asks for the lost marks.
func TestLeaseNotCreatedOverLostObject(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	steps := []Step{
		{Clone: 0, Op: OpLeaseTake, Arg: 0x9557ae7a, Faults: 0x67df9d6a0437d306},
		{Clone: 2, Op: OpSync, Arg: 0xc15a79a4, Faults: 0x4fbc10c3b6a21320},
		{Clone: 0, Op: OpSync, Arg: 0x886669b3, Faults: 0x4b0ef4b5dad8a933},
		{Clone: 2, Op: OpStart, Arg: 0x2f8eab97, Faults: 0xb026cff37a83cd5a},
		{Clone: 2, Op: OpStart, Arg: 0xa0b8a203, Faults: 0xee7fe16868f1edba},
		{Clone: 0, Op: OpSync, Arg: 0x4518b657, Faults: 0xb1c806968a2d4f86},
		{Clone: 1, Op: OpSync, Arg: 0xb0aeae27, Faults: 0x16f6fcc4dae90113},
		{Clone: 1, Op: OpLeaseTake, Arg: 0x25ec67e6, Faults: 0x3c4e4b0b93d83c21},
		{Clone: 2, Op: OpStart, Arg: 0xbe9d4bc9, Faults: 0x9478d1d4875f9b1a},
		{Clone: 0, Op: OpStart, Arg: 0x57a8d571, Faults: 0x6e7d82a5874d70ab},
		{Clone: 2, Op: OpEnd, Arg: 0xed0d8a44, Faults: 0x8b3517fe636dfa78},
		{Clone: 0, Op: OpDismiss, Arg: 0xe74274a3, Faults: 0x5c8c49f62dabb08},
		{Clone: 0, Op: OpSync, Arg: 0xa2cccd4b, Faults: 0x7d8b260e9ba3bba6},
		{Clone: 0, Op: OpLeaseRenew, Arg: 0xf91c521, Faults: 0x38688e65efc4f376},
		{Clone: 1, Op: OpSync, Arg: 0xf8ccc6a3, Faults: 0x94f80d555477364d},
		{Clone: 2, Op: OpLeaseTake, Arg: 0xeeb129bd, Faults: 0x68e958d0c9364a14},
	}
	rep := Run(ctx, Config{Seed: 6035, Clones: 3}, steps)
	if ctx.Err() != nil {
		t.Fatal("deadline passed")
	}
	for _, v := range rep.Violations {
		t.Error(v)
	}
	if rep.Faults["remote_gc_lost_object"] == 0 {
		t.Fatalf("the run no longer loses an object at the remote: %v", rep.Faults)
	}
}
