// Package simdefect holds the defects the deterministic simulation (package
// sim) plants, one at a time, to prove it can see: each hook site in the
// workflows asks On(its defect), which is the constant false unless the
// build has the tag simdefects (tests and `make sim-planted` only).
package simdefect

// Defect names one planted defect.
type Defect string

const (
	// ClaimSkipsCAS: a start takes its claim whatever the arbiter's
	// compare-and-swap answered (handoff/start.go).
	ClaimSkipsCAS Defect = "claim-skips-cas"
	// DismissSkipsClaimCheck: a dismissal (or cancel) tombstones a baton
	// already claimed (baton/store.go, Tombstone).
	DismissSkipsClaimCheck Defect = "dismiss-skips-claim-check"
	// NoTombstone: a cancel or dismissal reports success but writes no
	// tombstone (handoff/cancel.go, deleteDecided).
	NoTombstone Defect = "no-tombstone"
	// JoinPrefersOlder: the join keeps the version its rules rank lower
	// (teamsync/merge.go, decide).
	JoinPrefersOlder Defect = "join-prefers-older"
	// CrashedClaimNotRecovered: a start never settles the claims a
	// killed or failed start left pending (handoff/pending.go, settle).
	CrashedClaimNotRecovered Defect = "crashed-claim-not-recovered"
	// SyncDropsRemoteNewer: the join keeps the local version over the
	// remote's, newer or not (teamsync/merge.go, joinKey).
	SyncDropsRemoteNewer Defect = "sync-drops-remote-newer"
)

// All is every defect, in the order `make sim-planted` tries them.
var All = []Defect{ClaimSkipsCAS, DismissSkipsClaimCheck, NoTombstone, JoinPrefersOlder, CrashedClaimNotRecovered, SyncDropsRemoteNewer}
