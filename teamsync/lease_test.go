package teamsync

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
)

// The join laws (laws_test.go) hold for leases too: versions of one key
// taken, renewed, released, broken and taken over by several clones,
// online and offline.
func init() {
	simKinds["lease"] = simKind{
		ref: lease.Prefix + "issue/42",
		first: func(r *rand.Rand, now time.Time, n int) any {
			s := fmt.Sprintf("s-%d", n)
			return &lease.Record{Schema: lease.Schema, Key: "issue:42", State: lease.StateHeld, Session: s, TTLText: "30m0s",
				TakenAt: now, RenewedAt: now, Offline: r.Intn(3) == 0, History: []lease.Event{{At: now, Action: "take", Session: s}}}
		},
		next: func(r *rand.Rand, cur any, now time.Time, n int) any {
			l := *cur.(*lease.Record)
			l.RenewedAt, l.Offline = now, r.Intn(4) == 0
			switch r.Intn(5) {
			case 0:
				l.State = lease.StateReleased
			case 1:
				l.State = lease.StateBroken
			case 2: // renewed
			default:
				l.State, l.Session, l.TakenAt = lease.StateHeld, fmt.Sprintf("s-%d", n), now
			}
			l.History = append(append([]lease.Event{}, l.History...), lease.Event{At: now, Action: l.State, Session: l.Session})
			if len(l.History) > 20 {
				l.History = l.History[len(l.History)-20:]
			}
			return &l
		},
		final: func(any) bool { return false },
		cause: func(rec any) *refstore.Cause { return &rec.(*lease.Record).Cause },
	}
}
