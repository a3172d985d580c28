package teamsync

import (
	"testing"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// blobs encodes records as the writers do and keeps them for chain walks.
type blobs map[string]*version

func (bs blobs) put(t *testing.T, ref string, rec any) *version {
	t.Helper()
	data, err := refstore.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	v, err := read(kindOf(ref), ref, refstore.Entry{Ref: ref, OID: blobID(data), Type: "blob", Size: int64(len(data)), Data: data})
	if err != nil {
		t.Fatal(err)
	}
	bs[v.oid] = v
	return v
}

func caused(rev uint64, sup *version) refstore.Cause {
	return refstore.Cause{Rev: rev, Prev: oidOf(sup)}
}

func TestJoinByCause(t *testing.T) {
	bs := blobs{}
	bt := func(b baton.Baton, rev uint64, sup *version) *version {
		b.Cause = caused(rev, sup)
		return bs.put(t, mainRef, b)
	}
	const prRef = "refs/ao/prs/acme/app/7"
	const sRef = "refs/ao/sessions/s-1"
	pr := func(p prown.Record, rev uint64, sup *version) *version {
		p.Cause = caused(rev, sup)
		return bs.put(t, prRef, p)
	}
	ss := func(s session.Record, rev uint64, sup *version) *version {
		s.Cause = caused(rev, sup)
		return bs.put(t, sRef, s)
	}

	// One second for everything; ids chosen so that the old rule (createdAt,
	// then id) would keep the older baton.
	x := mkBaton("h-b", 0)
	x1 := bt(x, 1, nil)
	x2 := bt(claimed(x, "c1", 0), 2, x1)
	y3 := bt(mkBaton("h-a", 0), 3, x2)
	// A clone ten minutes behind writes after seeing x2.
	slow := bt(mkBaton("h-slow", -10), 3, x2)
	// Written without seeing each other: one rev.
	fa := bt(mkBaton("h-fa", 1), 2, x1)
	fb := bt(mkBaton("h-fb", 2), 2, x1)
	// A fork seen only through the chain: a clone wrote fa2 on top of x1
	// then fa3 on fa2, while another wrote fb (rev 2).
	fa2 := bt(mkBaton("h-fa2", 1), 2, x1)
	fa3 := bt(mkBaton("h-fa3", 1), 3, fa2)
	// Written on a stale local x1 after fetching a rev-3 copy: rev 4.
	jump := bt(mkBaton("h-jump", 1), 4, x1)
	// One baton claimed and cancelled concurrently; and a cancel written
	// after fetching (not merging) the claim, so with the higher rev.
	claimC := bt(claimed(x, "c9", 1), 2, x1)
	cancelC := bt(deleted(x, "cancelled", 1), 2, x1)
	cancelLate := bt(deleted(x, "cancelled", 1), 3, x1)
	// Records from before revs: the old rules.
	legacyNew := bt(mkBaton("h-legacy", 30), 0, nil)
	legacyOld := bt(mkBaton("h-legacy0", 20), 0, nil)

	p := mkPR(0, ">s-1")
	p1 := pr(p, 1, nil)
	pm := p
	pm.MergedAt = atp(5)
	merged2 := pr(pm, 2, p1)
	moved := mkPR(1, ">s-1", "s-1>s-2")
	moved2 := pr(moved, 2, p1)
	moved3 := pr(moved, 3, moved2)

	act := mkSession(session.StatusActive, 0)
	s1 := ss(act, 1, nil)
	rep := mkSession(session.StatusReplaced, 1)
	rep.ReplacedBy = "s-2"
	rep2 := ss(rep, 2, s1)
	busy := act
	busy.Summary = "still going"
	busy2 := ss(busy, 2, s1)
	busy3 := ss(busy, 3, busy2)
	term := mkSession(session.StatusTerminated, 1)
	term2 := ss(term, 2, s1)
	restored := ss(mkSession(session.StatusActive, 2), 3, term2)
	stale := ss(mkSession(session.StatusActive, 9), 2, s1)

	for _, tc := range []struct {
		name     string
		a, b     *version
		want     *version
		conflict bool
		look     bool // walk chains through the blobs
	}{
		{"a baton written after the claim, in the same second", x2, y3, y3, false, true},
		{"also without the blobs of the chain", x1, y3, y3, false, false},
		{"a clock ten minutes behind", x2, slow, slow, false, true},
		{"concurrent batons: the clock decides, reported", fa, fb, fb, true, true},
		{"a fork seen through the chain is reported", fa3, fb, fa3, true, true},
		{"without the chain's blobs the fork is not seen", fa3, fb, fa3, false, false},
		{"a rev jump past a fetched copy is not a fork", jump, y3, jump, false, true},
		{"concurrent claim and cancel: the claim is final", cancelC, claimC, claimC, true, true},
		{"a cancel that overrules a claim it fetched is reported", claimC, cancelLate, cancelLate, true, true},
		{"rev 0 is the oldest", legacyNew, x1, x1, false, true},
		{"between records without rev, the old rules", legacyOld, legacyNew, legacyNew, false, true},
		{"merged beats an unmerged record of one rev", moved2, merged2, merged2, true, true},
		{"merged beats a later unmerged record, reported", moved3, merged2, merged2, true, true},
		{"merged follows the record it marked", p1, merged2, merged2, false, true},
		{"a transfer follows the record it moved", p1, moved3, moved3, false, true},
		{"replaced beats a concurrent active copy with a higher rev", busy3, rep2, rep2, true, true},
		{"a restore follows the termination it undoes", term2, restored, restored, false, true},
		{"terminated beats a concurrent active copy of one rev", stale, term2, term2, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var look lookup
			if tc.look {
				look = func(oid string) (refstore.Cause, bool) {
					v, ok := bs[oid]
					if !ok {
						return refstore.Cause{}, false
					}
					return refstore.RevOf(v.data), true
				}
			}
			k := kindOf(refOf(tc.a))
			for _, swap := range []bool{false, true} {
				l, r := tc.a, tc.b
				if swap {
					l, r = r, l
				}
				d := decide(k, refOf(tc.a), l, r, look)
				if d.winner != tc.want {
					t.Errorf("swap=%v: kept %s, want %s", swap, d.winner.data, tc.want.data)
				}
				if d.conflict != tc.conflict {
					t.Errorf("swap=%v: conflict %v, want %v", swap, d.conflict, tc.conflict)
				}
			}
		})
	}
}

func refOf(v *version) string {
	switch v.rec.(type) {
	case baton.Baton:
		return mainRef
	case prown.Record:
		return "refs/ao/prs/acme/app/7"
	}
	return "refs/ao/sessions/s-1"
}
