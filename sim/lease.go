package sim

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

// Leases in the simulation: each clone has one lease session ("ls-c<i>")
// that takes, renews and releases keys at the arbiter, a person at a clone
// breaks a lease now and then, and a clone looks at the leases (its first
// sightings drive expiry). The holders' belief is what the lease package
// lets a holder believe (lease.Fresh: less than its TTL since it wrote the
// version, by its own clock); the invariant, after every step, is that no
// two sessions believe they hold overlapping keys.

// leaseTTL is about the time between two lease operations of one clone
// (a step is 7 simulated minutes): holders renew in time about as often
// as not, so both takeovers and refusals are common.
const leaseTTL = 3 * time.Hour

// leaseKeys are the keys the run leases: two exact ones and paths that
// overlap each other in several ways.
var leaseKeys = []string{"issue:1", "key:deploy", "path:src/**", "path:src/a.go", "path:*.go", "path:docs/", "path:src/lexer"}

func leaseSession(clone int) string { return fmt.Sprintf("ls-c%d", clone) }

// leaseLedger is what each lease session was told it holds: the version
// each successful take, renewal or handover returned, by key.
type leaseLedger struct {
	held map[int]map[string]lease.Stored
	// broken are the versions a person broke: their holder is taken for
	// dead as to them, so a renewal answered from its own clone ("fresh",
	// nothing asked of the remote) that returns one is no belief (found by
	// the simulation, seed 1796570373: a broken holder counted as holding
	// again, beside the session that took the key after the break).
	broken map[string]bool
}

func newLeaseLedger() leaseLedger {
	return leaseLedger{held: map[int]map[string]lease.Stored{}, broken: map[string]bool{}}
}

func (l leaseLedger) hold(clone int, outs []lease.Outcome) {
	if l.held[clone] == nil {
		l.held[clone] = map[string]lease.Stored{}
	}
	for _, o := range outs {
		if o.Lease.Held() && o.Lease.Session == leaseSession(clone) && !l.broken[o.Lease.OID] {
			l.held[clone][o.Key.String()] = o.Lease
		}
	}
}

func (l leaseLedger) drop(clone int, key string) { delete(l.held[clone], key) }

// breakAll drops every belief in key, its versions broken for good.
func (l leaseLedger) breakAll(key string) {
	for clone, held := range l.held {
		if v, ok := held[key]; ok {
			l.broken[v.OID] = true
		}
		l.drop(clone, key)
	}
}

func pickKeys(arg uint32) []lease.Key {
	k1, _ := lease.ParseKey(leaseKeys[int(arg)%len(leaseKeys)])
	if arg&0x100 == 0 {
		return []lease.Key{k1}
	}
	k2, _ := lease.ParseKey(leaseKeys[int(arg>>9)%len(leaseKeys)])
	if k2 == k1 {
		return []lease.Key{k1}
	}
	return []lease.Key{k1, k2}
}

// callLease runs one lease operation.
func (w *world) callLease(ctx context.Context, c *faulty, s Step, clock handoff.Clock) string {
	var b lease.Board
	var err error
	if w.cfg.Solo {
		b, err = teamsync.LeaseBoard(ctx, c, false) // as the commands choose it: this clone's own
	} else {
		b, err = teamsync.LeaseBoardAt(c, remote)
	}
	if err != nil {
		return "error " + short(err)
	}
	me := leaseSession(s.Clone)
	lc := lease.Clock(clock)
	keys := pickKeys(s.Arg)
	var res lease.Result
	switch s.Op {
	case OpLeaseTake:
		res, err = lease.Take(ctx, c, b, lease.TakeOptions{Keys: keys, Holder: lease.Holder{Session: me, Owner: owner, Agent: "sim"}, TTL: leaseTTL}, lc)
		if err == nil {
			w.leases.hold(s.Clone, res.Leases)
		}
	case OpLeaseRenew:
		res, err = lease.Renew(ctx, c, b, me, nil, lc)
		if err == nil {
			w.leases.hold(s.Clone, res.Leases)
		}
	case OpLeaseRelease:
		// The session stops believing before it asks: a release that
		// fails leaves it not believing, which is safe.
		for _, k := range keys {
			w.leases.drop(s.Clone, k.String())
		}
		res, err = lease.Release(ctx, c, b, me, keys, "done", lc)
	case OpLeaseBreak:
		// A person breaks a lease because its holder is gone: whoever
		// holds the key is taken for dead as to it from the moment the
		// person decides, whether or not the break is heard to land (a
		// real person breaks only a dead holder's lease).
		w.leases.breakAll(keys[0].String())
		res, err = lease.Break(ctx, c, b, keys[0], "sim person", "holder gone", lc)
	case OpLeaseExpire:
		var snap lease.Snapshot
		if snap, err = b.Snapshot(ctx); err == nil {
			var vs []lease.View
			vs, err = lease.Views(ctx, c.Local(), snap, me, false, clock())
			expired := 0
			for _, v := range vs {
				if v.Expired {
					expired++
				}
			}
			if err == nil {
				return fmt.Sprintf("looked held=%d expired=%d", len(vs), expired)
			}
		}
	}
	var nh *lease.NotHolderError
	if errors.As(err, &nh) {
		w.leases.drop(s.Clone, nh.Key.String()) // told it lost it
	}
	var held *lease.HeldError
	if errors.As(err, &held) {
		return "held " + held.Key.String() + " by " + held.By.Session
	}
	if err != nil {
		return "error " + short(err)
	}
	var parts []string
	for _, o := range res.Leases {
		parts = append(parts, o.Key.String()+"="+o.Action)
	}
	return "ok " + strings.Join(parts, " ")
}

// checkLeases: no two lease sessions believe they hold overlapping keys.
func (w *world) checkLeases(i int) {
	type belief struct {
		clone int
		key   lease.Key
		l     lease.Stored
	}
	var bs []belief
	for clone, held := range w.leases.held {
		// The clone's clock now: its readings during the step were a
		// millisecond apart from the step's time (world.clock).
		now := w.now.Add(w.skew[clone]).Add(time.Second)
		for k, l := range held {
			if lease.Fresh(w.clones[clone].Local(), l, now) {
				bs = append(bs, belief{clone, l.ParsedKey(), l})
			} else {
				delete(held, k) // it stopped believing; it renews or takes again
			}
		}
	}
	sort.Slice(bs, func(a, b int) bool {
		if bs[a].clone != bs[b].clone {
			return bs[a].clone < bs[b].clone
		}
		return bs[a].key.String() < bs[b].key.String()
	})
	for x := range bs {
		for y := x + 1; y < len(bs); y++ {
			a, b := bs[x], bs[y]
			if a.clone == b.clone || !overlaps(a.key, b.key) {
				continue
			}
			w.violate(i, "two-lease-holders", fmt.Sprintf("%s (version %.8s) and %s (version %.8s) both believe they hold %s / %s",
				leaseSession(a.clone), a.l.OID, leaseSession(b.clone), b.l.OID, a.key, b.key))
		}
	}
}

func overlaps(a, b lease.Key) bool {
	if a == b {
		return true
	}
	if a.Kind != lease.KindPath || b.Kind != lease.KindPath {
		return false
	}
	pa, err1 := lease.Compile(a.Value)
	pb, err2 := lease.Compile(b.Value)
	return err1 == nil && err2 == nil && lease.Overlap(pa, pb)
}

// leasesRetired checks, after the final rounds (the first of which
// retires), that live refs are live work for leases too: no lease ref,
// in any clone (its own or its copies of the remote's) or at the remote,
// holds a released or broken version, so the refs under refs/ao/leases/
// are bounded by the keys held; and that no board's reading (the guard
// as a take reads it) counts a retired key as a path lease held.
func (w *world) leasesRetired(ctx context.Context) {
	stores := []refstore.Records{w.origin}
	names := []string{"remote"}
	for i, c := range w.clones {
		stores = append(stores, c)
		names = append(names, fmt.Sprintf("c%d", i))
	}
	for i, st := range stores {
		ids, _ := st.RefIDs(ctx, refstore.Root)
		for _, id := range ids {
			ref, ok := leaseRefOf(id.Ref)
			if !ok {
				continue
			}
			e, err := st.ReadObject(ctx, id.OID)
			if err != nil {
				continue // a lost object: the convergence check speaks of it
			}
			e.Ref = ref
			l, err := lease.Decode(e)
			if err == nil && !l.Held() {
				w.violate(-1, "lease-not-retired", fmt.Sprintf("%s: %s holds %s, %s by %s, after the retiring round", names[i], id.Ref, l.Key, l.State, l.Session))
			}
		}
		s, err := lease.ReadBoard(ctx, st, lease.Prefix, lease.GuardRef, refstore.ArchivePrefix)
		if err != nil {
			continue
		}
		for k := range s.Paths {
			pk, _ := lease.ParseKey(k)
			ref, _ := pk.Ref()
			if l, ok := s.Leases[ref]; !ok || !l.Held() {
				w.violate(-1, "lease-guard-retired", fmt.Sprintf("%s: the lease guard counts %s, whose lease is %s", names[i], k, map[bool]string{true: l.State, false: "retired"}[ok]))
			}
		}
	}
}

// leaseRefOf maps a lease ref, or a copy of one fetched from a remote
// (refs/ao/remotes/<remote>/leases/...), to the lease ref it is of.
func leaseRefOf(ref string) (string, bool) {
	if strings.HasPrefix(ref, lease.Prefix) {
		return ref, true
	}
	rest, ok := strings.CutPrefix(ref, refstore.RemotesPrefix)
	if !ok {
		return "", false
	}
	_, rest, ok = strings.Cut(rest, "/")
	leases := strings.TrimPrefix(lease.Prefix, refstore.Root)
	if !ok || !strings.HasPrefix(rest, leases) {
		return "", false
	}
	return lease.Prefix + strings.TrimPrefix(rest, leases), true
}
