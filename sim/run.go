package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/teamsync"
)

// ledger is what the workflow calls reported.
type ledger struct {
	written    map[string]string // baton id -> who wrote it ("c1@12")
	seen       map[string]bool   // baton ids seen in any store's records
	delivered  map[string]string // baton id -> the session a start delivered it to
	deleted    map[string]string // baton id -> "cancelled"/"dismissed" and where
	superseded map[string]string // baton id -> how (an end replaced it; a join dropped it)
	claimedBy  map[string]string // baton id -> the session a record showed it claimed by (a prev, the archive)
	tombed     map[string]bool   // baton ids a record showed deleted (a prev, the archive)
	// claimTold: a start that returned (no crash) without delivering the
	// baton its session then holds a claim of: session -> baton id it
	// was told about.
	toldNot map[string]string
	crashed map[string]bool // sessions whose start died
	parsed  map[string]bool // blob ids already read for seen, in clones and ("origin "+id) at the remote
	// liveAt: the short id (refstore.BackIDLen) of each waiting version
	// read -> its baton id; backBy: each short id a version's back names
	// -> that version's baton id. A waiting version another baton's
	// record names in its back was replaced by a write that saw it (an
	// end over a fetched copy, End's supersededThere), which the record
	// keeps when End died before saying so.
	liveAt map[string]string
	backBy map[string]string
	// recordedClaims: baton id -> the session a claim recorded it for in
	// its clone (the transaction "handoff: claimed <id> by <session>"
	// committed), whatever became of the command after.
	recordedClaims map[string]string
	// arbiterTombs: baton id -> the tombstones of it the remote held. The
	// arbiter took that deletion, whatever the command that pushed it
	// said or whether it lived to say anything: a version delivered
	// later must have been written after each of them (an undismissal,
	// whose prev is the tombstone), else the baton was both deleted and
	// delivered.
	arbiterTombs map[string][]string
	// replacedByEnd: baton ids an End that returned said it superseded,
	// which its transaction archived: a version of each must be in the
	// remote's archive at the end (superseded-unarchived), or its
	// content lives only in a reflog that its ref's retirement takes.
	replacedByEnd map[string]string
}

// noteRecordedClaim notes the claim a committed transaction with message
// msg recorded, if it is one.
func (l *ledger) noteRecordedClaim(msg string) {
	rest, ok := strings.CutPrefix(msg, "handoff: claimed ")
	if !ok {
		return
	}
	if id, sid, ok := strings.Cut(rest, " by "); ok {
		l.recordedClaims[id] = sid
	}
}

func newLedger() *ledger {
	return &ledger{
		written: map[string]string{}, seen: map[string]bool{}, delivered: map[string]string{},
		deleted: map[string]string{}, superseded: map[string]string{}, toldNot: map[string]string{}, claimedBy: map[string]string{}, tombed: map[string]bool{},
		crashed: map[string]bool{}, parsed: map[string]bool{}, liveAt: map[string]string{}, backBy: map[string]string{},
		recordedClaims: map[string]string{}, arbiterTombs: map[string][]string{}, replacedByEnd: map[string]string{},
	}
}

// ids lists every baton id the ledger knows, sorted.
func (l *ledger) ids() []string {
	set := map[string]bool{}
	for id := range l.written {
		set[id] = true
	}
	for id := range l.seen {
		set[id] = true
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// clock is clone i's fake clock: the step's time, skewed, a millisecond
// later at each reading.
func (w *world) clock(i int) handoff.Clock {
	t := w.now.Add(w.skew[i])
	return func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
}

func (w *world) runStep(ctx context.Context, i int, s Step) {
	w.faults.begin(s.Faults)
	c := newFaulty(w.clones[s.Clone], w.faults)
	who := fmt.Sprintf("c%d@%d", s.Clone, i)
	out := w.call(ctx, c, s, who)
	if w.faults.died != "" {
		out += " CRASH " + w.faults.died
	}
	w.rep.Outcomes[s.Op.String()+":"+outcomeKind(out)]++
	w.log.add(fmt.Sprintf("%d %s %s", i, s, out))
}

func outcomeKind(out string) string {
	f := strings.Fields(out)
	if len(f) == 0 {
		return "?"
	}
	if strings.Contains(out, "CRASH") {
		return f[0] + "+crash"
	}
	return f[0]
}

// call runs one workflow call, recovering the panic of a process that
// died (its memory is lost: nothing of what it was doing is reported).
func (w *world) call(ctx context.Context, c *faulty, s Step, who string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crash); ok {
				switch s.Op {
				case OpStart:
					w.led.crashed[sessionOf(s.Clone, w.step)] = true
				case OpReplace:
					// The replacement session, which claims what waits
					// for it as a start does (seed 1796571013).
					w.led.crashed[replacementOf(s.Clone, w.step)] = true
				}
				if w.claimer != "" {
					w.led.crashed[w.claimer] = true
				}
				out = "died"
				return
			}
			w.violate(w.step, "panic", fmt.Sprintf("%s: %v\n%s", s, r, debug.Stack()))
			out = "panicked"
		}
	}()
	clock := w.clock(s.Clone)
	arb := w.arbiter()
	w.claimer = ""
	switch s.Op {
	case OpEnd:
		res, err := handoff.End(ctx, c, handoff.EndOptions{Owner: owner, Branch: branch, Harness: "sim", Next: []string{"carry on from " + who}}, clock)
		if err != nil {
			return "error " + short(err)
		}
		if res.Left {
			w.led.written[res.Handoff.ID] = who
		}
		for _, b := range res.Superseded {
			w.led.superseded[b.ID] = "replaced by " + res.Handoff.ID + " at " + who
			w.led.replacedByEnd[b.ID] = res.Handoff.ID + " at " + who
		}
		return "wrote " + res.Handoff.ID
	case OpStart:
		sid := sessionOf(s.Clone, w.step)
		faultsBefore := w.rep.FaultTotal()
		res, err := handoff.Start(ctx, c, handoff.StartOptions{Session: sid, Harness: "sim", Owner: owner, Branch: branch, Arbiter: arb}, clock)
		w.conflicts(c, res.Conflicts, who)
		if err != nil {
			w.led.toldNot[sid] = ""
			return "error " + short(err)
		}
		w.wl.sessions[s.Clone] = append(w.wl.sessions[s.Clone], sid)
		if res.Claimed && res.Handoff != nil {
			id := res.Handoff.ID
			w.deliver(c, *res.Handoff, sid, who)
			return "claimed " + id + " " + sid
		}
		w.led.toldNot[sid] = ""
		if res.Handoff != nil {
			w.led.toldNot[sid] = res.Handoff.ID
			return "unclaimed " + res.Handoff.ID + " " + sid
		}
		if w.rep.FaultTotal() == faultsBefore {
			// A start a fault hit (a merge it could not write, a fetch
			// that failed) goes on from what its clone holds, and says
			// so: the baton waits for the next one.
			w.passedOver(ctx, c, sid, who)
		}
		return "nothing " + sid
	case OpCancel:
		res, err := handoff.Cancel(ctx, c, handoff.CancelOptions{Owner: owner, Branch: branch, Arbiter: arb}, clock)
		w.conflicts(c, res.Conflicts, who)
		var nre *handoff.NotRecordedError
		if errors.As(err, &nre) {
			w.deleted(nre.ID, "cancelled (not recorded) at "+who)
		}
		if err != nil {
			return "error " + short(err)
		}
		if res.Cancelled == nil {
			return "nothing"
		}
		w.deleted(res.Cancelled.ID, "cancelled at "+who)
		return "cancelled " + res.Cancelled.ID
	case OpDismiss:
		ids := w.led.ids()
		if w.cfg.Wide && s.Arg%4 != 3 {
			if here := w.waitingIn(ctx, c); len(here) > 0 {
				ids = here // a baton waiting here: one to undismiss later
			}
		}
		if len(ids) == 0 {
			return "nothing"
		}
		id := ids[int(s.Arg)%len(ids)]
		res, err := handoff.Dismiss(ctx, c, handoff.DismissOptions{ID: id, Arbiter: arb}, clock)
		w.conflicts(c, res.Conflicts, who)
		var nre *handoff.NotRecordedError
		if errors.As(err, &nre) {
			w.deleted(nre.ID, "dismissed (not recorded) at "+who)
		}
		if err != nil {
			return "error " + id + " " + short(err)
		}
		w.deleted(res.Dismissed.ID, "dismissed at "+who)
		return "dismissed " + res.Dismissed.ID
	case OpSync, OpRetire:
		opts := teamsync.Options{Remote: remote, Now: clock()}
		if s.Op == OpRetire && !w.cfg.NoRetire {
			opts.Retire, opts.Retention = true, w.cfg.Retention
		}
		if w.cfg.Solo {
			return w.retireHere(ctx, c, opts, who)
		}
		res, err := teamsync.Sync(ctx, c, opts)
		w.conflicts(c, res.Conflicts, who)
		if err != nil {
			return "error " + short(err)
		}
		if w.cfg.Wide {
			w.prSynced(ctx, s.Clone)
		}
		return fmt.Sprintf("synced local=%d pushed=%d conflicts=%d retired=%d", len(res.Local), len(res.Pushed), len(res.Conflicts), res.Retired)
	case OpLeaseTake, OpLeaseRenew, OpLeaseRelease, OpLeaseBreak, OpLeaseExpire:
		return w.callLease(ctx, c, s, clock)
	case OpContinue, OpContinueRace, OpContinueFail:
		return w.callContinue(ctx, c, s, who, clock)
	}
	return w.callWide(ctx, c, s, who, clock, arb)
}

// arbiter decides claims: the remote, or with no remote (Config.Solo) the
// clone itself, as the commands ask it.
func (w *world) arbiter() teamsync.Arbiter {
	if w.cfg.Solo {
		return teamsync.Arbiter{}
	}
	return teamsync.Arbiter{Remote: remote}
}

// retireHere is a sync of a clone with no remote (Config.Solo): what is
// final retires there. The retention is the run's for the retire steps and
// the final round, a week otherwise, as the commands' own.
func (w *world) retireHere(ctx context.Context, c *faulty, opts teamsync.Options, who string) string {
	if opts.Retention == 0 {
		opts.Retention = teamsync.DefaultRetention
	}
	res, err := teamsync.RetireHere(ctx, c, opts)
	w.conflicts(c, res.Conflicts, who)
	if err != nil {
		if w.step == -1 {
			w.violate(-1, "final-sync-failed", fmt.Sprintf("%s: %v", who, err))
		}
		return "error " + short(err)
	}
	return fmt.Sprintf("retired-here local=%d retired=%d", len(res.Local), res.Retired)
}

func sessionOf(clone, step int) string { return fmt.Sprintf("s-c%d-%d", clone, step) }

// replacementOf is the session a replace at clone and step starts.
func replacementOf(clone, step int) string { return fmt.Sprintf("r-c%d-%d", clone, step) }

func (w *world) deleted(id, how string) {
	if s, ok := w.led.delivered[id]; ok {
		w.violate(w.step, "deleted-and-delivered", fmt.Sprintf("baton %s delivered to %s, then %s", id, s, how))
	}
	if _, ok := w.led.deleted[id]; !ok {
		w.led.deleted[id] = how
	}
	if strings.HasPrefix(how, "dismissed") {
		w.wl.dismissals = append(w.wl.dismissals, id)
	}
}

// conflicts notes the batons a join dropped for another baton: reported,
// so accounted for.
func (w *world) conflicts(c *faulty, cs []handoff.Conflict, who string) {
	for _, cf := range cs {
		if !strings.HasPrefix(cf.Ref, refstore.HandoffsPrefix) {
			continue
		}
		kept, err1 := readBaton(c.Clone, cf.Kept)
		dropped, err2 := readBaton(c.Clone, cf.Dropped)
		if err1 != nil || err2 != nil || kept.ID == dropped.ID {
			continue
		}
		if _, ok := w.led.superseded[dropped.ID]; !ok {
			w.led.superseded[dropped.ID] = "dropped by a join for " + kept.ID + " at " + who
		}
	}
}

func readBaton(st refstore.Records, oid string) (baton.Baton, error) {
	e, err := st.ReadObject(context.Background(), oid)
	if err != nil {
		return baton.Baton{}, err
	}
	return baton.DecodeVersion(e)
}

// batons reads the batons under refs/ao/handoffs/ of a store.
func batons(ctx context.Context, st refstore.Records) map[string]baton.Baton {
	out := map[string]baton.Baton{}
	ids, err := st.RefIDs(ctx, refstore.HandoffsPrefix)
	if err != nil {
		return out
	}
	for _, id := range ids {
		b, err := readBaton(st, id.OID)
		if err == nil {
			out[id.Ref] = b
		}
	}
	return out
}

// checkStep checks the invariants after a step: the ones on the ledger
// are checked as it is written; here, what the stores hold.
func (w *world) checkStep(ctx context.Context, i int) {
	w.checkLeases(i)
	if w.cfg.Wide {
		w.checkPRLeases(ctx, i)
	}
	stores := []refstore.Records{w.origin}
	for _, c := range w.clones {
		stores = append(stores, c)
	}
	for _, st := range stores {
		ids, _ := st.RefIDs(ctx, refstore.Root)
		for _, id := range ids {
			if !strings.HasPrefix(id.Ref, refstore.HandoffsPrefix) && !(strings.HasPrefix(id.Ref, refstore.RemotesPrefix) && strings.Contains(id.Ref, "/handoffs/")) {
				continue
			}
			// Read once where clones hold it and once at the remote: what
			// the remote took (a tombstone, below) counts from there,
			// also for a version a clone held first (seed 1262 of the
			// widened lane with continuations: a dismissal that died
			// before its push, recorded by the next sync's settling and
			// pushed by the one after, then written over at the remote,
			// was taken for a baton lost).
			key := id.OID
			if st == refstore.Records(w.origin) {
				key = "origin " + id.OID
			}
			if w.led.parsed[key] {
				continue
			}
			w.led.parsed[key] = true
			b, err := readBaton(st, id.OID)
			if err != nil {
				continue
			}
			w.noteContinuation(b)
			w.led.seen[b.ID] = true
			if b.Live() {
				w.led.liveAt[id.OID[:refstore.BackIDLen]] = b.ID
			}
			for _, short := range b.Back {
				w.led.backBy[short] = b.ID
			}
			// A new baton written over a waiting one replaced it (what
			// End reports as Superseded, also when End then failed or
			// died): read from the version's prev.
			if b.Prev != "" {
				if p, err := readBaton(st, b.Prev); err == nil && p.ID != b.ID && p.Live() {
					if _, ok := w.led.superseded[p.ID]; !ok {
						w.led.superseded[p.ID] = "replaced by " + b.ID + " (its record's prev)"
					}
				} else if err == nil && p.Claimed {
					w.led.claimedBy[p.ID] = p.ClaimedBySession
				} else if err == nil && p.Deleted != nil {
					w.led.tombed[p.ID] = true
				}
			}
			// A tombstone the remote took is the team's word that the
			// baton was deleted, also when the command that wrote it
			// died before saying so and a newer baton then took the ref
			// (a tombstone is no work to keep: the join drops it for
			// any baton written after, with no conflict; seed
			// 1796570082).
			if b.Deleted != nil && st == refstore.Records(w.origin) {
				w.led.tombed[b.ID] = true
				w.led.arbiterTombs[b.ID] = append(w.led.arbiterTombs[b.ID], id.OID)
			}
			// A baton the remote holds deleted after it was delivered,
			// or claimed after a deletion was reported.
			if b.Deleted != nil {
				if s, ok := w.led.delivered[b.ID]; ok && w.led.deleted[b.ID] == "" {
					w.violate(i, "deleted-and-delivered", fmt.Sprintf("baton %s delivered to %s is %s in %s", b.ID, s, b.Deleted.Reason, id.Ref))
					w.led.deleted[b.ID] = "found deleted"
				}
			}
		}
	}
}

// settlePending runs a start in each clone that holds a pending claim (a
// claim won at the arbiter that its start could not record, and told so:
// "start again to receive it"): the next command for that owner and
// branch settles it, here after the retirement of the final round, the
// hardest time to, and after the round that follows it.
func (w *world) settlePending(ctx context.Context, round int) {
	for i, c := range w.clones {
		if names, _ := c.Local().List("pending"); len(names) > 0 {
			w.step = 1<<20 + round*len(w.clones) + i // a session id no step of the run made
			w.runStep(ctx, w.step, Step{Clone: i, Op: OpStart})
		}
	}
	w.step = -1
}

// finish runs the final rounds without faults and checks that the clones
// converge and that every baton is accounted for.
func (w *world) finish(ctx context.Context) {
	w.faults.begin(0)
	w.deliverLate(ctx, -1)
	w.faults.off = true
	w.step = -1
	// The first round retires as of the latest clock (what a retirement
	// at the remote took out of the live refs leaves every clone too),
	// then three plain rounds: the pending claims settled after the first
	// two reach every clone by the last.
	latest := w.now
	for i := range w.clones {
		if t := w.now.Add(w.skew[i]); t.After(latest) {
			latest = t
		}
	}
	for round := 0; round < 4; round++ {
		for i, c := range w.clones {
			f := newFaulty(c, w.faults)
			opts := teamsync.Options{Remote: remote, Now: w.clock(i)()}
			if round == 0 && !w.cfg.NoRetire {
				opts.Retire, opts.Retention, opts.Now = true, w.cfg.Retention, latest
			}
			if w.cfg.Solo {
				w.log.add(fmt.Sprintf("final c%d %s", i, w.retireHere(ctx, f, opts, fmt.Sprintf("c%d@final", i))))
				continue
			}
			res, err := teamsync.Sync(ctx, f, opts)
			if err == nil && w.cfg.Wide {
				w.prSynced(ctx, i)
			}
			w.conflicts(f, res.Conflicts, fmt.Sprintf("c%d@final", i))
			w.log.add(fmt.Sprintf("final c%d sync %s local=%d pushed=%d conflicts=%d warnings=%q", i, short(err), len(res.Local), len(res.Pushed), len(res.Conflicts), res.Warnings))
			if err != nil && round == 3 {
				w.violate(-1, "final-sync-failed", fmt.Sprintf("c%d: %v", i, err))
			}
		}
		// Again after the next round: a claim that could not be settled
		// while the remote had lost a month of its archive settles once a
		// teammate's sync has pushed the month back (lost.go).
		if round < 2 {
			w.settlePending(ctx, round)
		}
	}
	w.checkStep(ctx, -1)
	if w.cfg.Wide {
		w.finishWide(ctx)
	}
	// Convergence: every clone's records are the remote's.
	want := recordIDs(ctx, w.origin)
	archived := archivedBlobs(ctx, w.origin)
	for i, c := range w.clones {
		got := recordIDs(ctx, c)
		// A record the remote's archive holds (that version, or another
		// of its key), still live here: nothing is lost, but the clone did
		// not converge. Counted apart
		// (Report.Stale), not a violation.
		refs := make([]string, 0, len(got))
		for ref := range got {
			refs = append(refs, ref)
		}
		sort.Strings(refs)
		for _, ref := range refs {
			id := got[ref]
			if _, ok := want[ref]; !ok && (archived[id] || archived[strings.TrimPrefix(ref, refstore.Root)]) {
				w.rep.Stale++
				w.log.add(fmt.Sprintf("stale c%d %s %s", i, ref, id))
				delete(got, ref)
			}
		}
		if d := diffIDs(want, got); d != "" {
			w.violate(-1, "not-converged", fmt.Sprintf("c%d differs from the remote: %s", i, d))
		}
	}
	if !w.cfg.NoRetire {
		w.leasesRetired(ctx)
	}
	// Accounting: every baton delivered, deleted, superseded (reported),
	// or waiting where all can see it.
	final := map[string]baton.Baton{}
	for _, b := range batons(ctx, w.origin) {
		final[b.ID] = b
	}
	var lines []string
	for ref, id := range want {
		lines = append(lines, ref+" "+id)
	}
	sort.Strings(lines)
	for _, l := range lines {
		w.log.add("remote " + l)
	}
	// A version a join dropped for a concurrent one is reported in the
	// clone's conflict notes (`git handoff log`), even when the sync that
	// dropped it failed afterwards and its result never reached anyone.
	for i, c := range w.clones {
		notes, _ := refstore.ConflictNotes(c.Local())
		for _, n := range notes {
			w.log.add(fmt.Sprintf("conflict noted in c%d: %s kept %.8s dropped %.8s", i, n.Ref, n.Kept, n.Dropped))
			b, err := readBaton(c, n.Dropped)
			// A baton ref, or its copy from the remote (a claim or
			// deletion decided there over a baton it replaced).
			isBaton := strings.HasPrefix(n.Ref, refstore.HandoffsPrefix) || strings.Contains(n.Ref, "/handoffs/")
			if err != nil || !isBaton {
				continue
			}
			if k, err := readBaton(c, n.Kept); err == nil && k.ID == b.ID {
				continue // the same baton, moved on: not a replacement
			}
			if _, ok := w.led.superseded[b.ID]; !ok {
				w.led.superseded[b.ID] = fmt.Sprintf("dropped by a join, noted in c%d's conflict log", i)
			}
		}
	}
	archivedIDs := map[string]string{} // baton id -> the state archived
	for oid := range archived {
		if b, err := readBaton(w.origin, oid); err == nil {
			if b.Claimed {
				w.led.claimedBy[b.ID] = b.ClaimedBySession
			}
			state := "waiting"
			switch {
			case b.Claimed:
				state = "claimed by " + b.ClaimedBySession
			case b.Deleted != nil:
				state = b.Deleted.Reason
				w.led.tombed[b.ID] = true
			}
			archivedIDs[b.ID] = state
		}
	}
	// A baton delivered is answerable at the end: live at the remote or
	// in its archive, whatever replaced it at its ref before a sync
	// retired it (an end here, a baton written elsewhere after seeing it).
	for _, id := range slices.Sorted(maps.Keys(w.led.delivered)) {
		if _, ok := archivedIDs[id]; !ok {
			if _, live := final[id]; !live {
				w.violate(-1, "delivered-unarchived", fmt.Sprintf("baton %s, delivered to %s, is neither live at the remote nor in its archive: nothing keeps its record", id, w.led.delivered[id]))
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(w.led.replacedByEnd)) {
		if _, ok := archivedIDs[id]; !ok {
			w.violate(-1, "superseded-unarchived", fmt.Sprintf("baton %s, superseded by %s, is in no version in the remote's archive: once its ref retires, nothing keeps what it said", id, w.led.replacedByEnd[id]))
		}
	}
	for _, short := range slices.Sorted(maps.Keys(w.led.backBy)) {
		by := w.led.backBy[short]
		if id, ok := w.led.liveAt[short]; ok && id != by {
			if _, ok := w.led.superseded[id]; !ok {
				w.led.superseded[id] = "replaced by " + by + " (its record's back)"
			}
		}
	}
	stranded := w.strandedClaims(ctx)
	for _, id := range w.led.ids() {
		b, live := final[id]
		_, del := w.led.deleted[id]
		s, dlv := w.led.delivered[id]
		_, sup := w.led.superseded[id]
		switch {
		case live && b.Live():
			if del {
				w.violate(-1, "deleted-yet-waiting", fmt.Sprintf("baton %s was %s, yet waits at the remote", id, w.led.deleted[id]))
			}
		case live && b.Claimed:
			if !dlv {
				who := b.ClaimedBySession
				why := "nobody was told"
				if w.led.crashed[who] && w.recorded(ctx, who) {
					// Its start died after recording the claim, before it
					// could say so: the session holds it (what a relaunch
					// or the agent's hooks offer again), nobody else can
					// take it. A claim never recorded is the next start's
					// to deliver (settlePending), and a violation if not.
					w.rep.Faults["stranded_after_crash"]++
					continue
				}
				if t, ok := w.led.toldNot[who]; ok {
					why = fmt.Sprintf("session %s was told it was not claimed (its start named %q)", who, t)
				}
				w.violate(-1, "claimed-not-delivered", fmt.Sprintf("baton %s is claimed by %s at the remote, delivered to nobody: %s", id, who, why))
			} else if del {
				w.violate(-1, "deleted-and-delivered", fmt.Sprintf("baton %s delivered to %s and %s", id, s, w.led.deleted[id]))
			}
		case live && b.Deleted != nil:
			if dlv && !del {
				w.violate(-1, "deleted-and-delivered", fmt.Sprintf("baton %s delivered to %s is %s at the remote", id, s, b.Deleted.Reason))
			}
		case dlv || del || sup:
		case w.led.tombed[id]:
			// Cancelled or dismissed by a command whose answer never
			// came (it died after the arbiter took the tombstone), then
			// retired or replaced: the team saw it deleted, as it was.
		case w.led.claimedBy[id] != "" && w.led.crashed[w.led.claimedBy[id]] && w.recorded(ctx, w.led.claimedBy[id]):
			// Claimed and recorded by a start that died before saying
			// so, then retired or replaced by a newer baton: as
			// stranded as when it is live.
			w.rep.Faults["stranded_after_crash"]++
		case stranded[id] != "":
			// Delivered, in place of a start that died after its claim,
			// to a start that recorded it and died too: the same.
			w.rep.Faults["stranded_after_crash"]++
		case w.led.claimedBy[id] != "" && w.led.crashed[w.led.claimedBy[id]] && w.led.recordedClaims[id] == w.led.claimedBy[id]:
			// Claimed and recorded in its clone by a claim that died
			// before answering, for a session with no record of its own:
			// the baton's claimed version is the record, as a start's
			// session record is above, and a claim run again takes a
			// newer baton waiting, as it must after a claim that did
			// answer (the widened simulation's seed 20026 with
			// continuations).
			w.rep.Faults["stranded_after_crash"]++
		case w.led.claimedBy[id] != "" && w.led.crashed[w.led.claimedBy[id]] && w.claimsAgain(ctx, w.led.claimedBy[id], id):
			// Claimed by a claim that died before saying so, for a
			// session with no record to hold it, then retired: the claim
			// run again delivers it from the archive.
			w.rep.Faults["stranded_after_crash"]++
		default:
			where := "not in the remote's archive either"
			if state, ok := archivedIDs[id]; ok {
				where = "its remote archive holds it, " + state
			}
			w.violate(-1, "lost", fmt.Sprintf("baton %s (written by %s) is neither delivered, deleted, replaced nor waiting: %s", id, w.led.written[id], where))
		}
	}
}

// strandedClaims maps each baton a session whose start died has in its
// record (at the remote or in a clone, live or archived) to that session.
func (w *world) strandedClaims(ctx context.Context) map[string]string {
	out := map[string]string{}
	for sid := range w.led.crashed {
		for _, st := range append([]refstore.Records{w.origin}, w.recordsOfClones()...) {
			s, err := session.Find(ctx, st, sid)
			if err != nil || len(s.ClaimedHandoff) == 0 {
				continue
			}
			var b struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(s.ClaimedHandoff, &b) == nil && b.ID != "" {
				out[b.ID] = sid
				break
			}
		}
	}
	return out
}

func (w *world) recordsOfClones() []refstore.Records {
	out := make([]refstore.Records, len(w.clones))
	for i, c := range w.clones {
		out[i] = c
	}
	return out
}

// claimsAgain reports whether a claim by session sid, run again on its
// clone, delivers baton id: what its agent does when the claim died
// before answering. Not where a baton waits there, which the claim would
// take instead (a violation then stays one).
func (w *world) claimsAgain(ctx context.Context, sid, id string) bool {
	var clone, step int
	if _, err := fmt.Sscanf(sid, "s-c%d-%d", &clone, &step); err != nil || clone < 0 || clone >= len(w.clones) {
		return false
	}
	c := w.clones[clone]
	ref, _ := refstore.HandoffRef(false, owner, branch)
	if b, err := baton.Read(ctx, c, ref); err == nil && b.Live() {
		return false
	}
	res, err := handoff.Claim(ctx, c, handoff.ClaimOptions{Session: sid, Owner: owner, Branch: branch, Arbiter: w.arbiter()}, w.clock(clone))
	return err == nil && res.Handoff.ID == id
}

// recorded reports whether session id's record is at the remote or in a
// clone: its start recorded its claim (the session and the claim are one
// transaction).
func (w *world) recorded(ctx context.Context, id string) bool {
	// Find: the session may have ended and retired since.
	if _, err := session.Find(ctx, w.origin, id); err == nil {
		return true
	}
	for _, c := range w.clones {
		if _, err := session.Find(ctx, c, id); err == nil {
			return true
		}
	}
	return false
}

// recordIDs lists a store's records (the kinds sync carries and the
// archive), ref -> blob id.
func recordIDs(ctx context.Context, st refstore.Records) map[string]string {
	out := map[string]string{}
	for _, p := range append(append([]string(nil), refstore.Kinds...), refstore.ArchivePrefix) {
		ids, _ := st.RefIDs(ctx, p)
		for _, id := range ids {
			out[id.Ref] = id.OID
		}
	}
	return out
}

func diffIDs(want, got map[string]string) string {
	var d []string
	for r, id := range want {
		if got[r] != id {
			d = append(d, fmt.Sprintf("%s: remote %.8s here %.8s", r, id, got[r]))
		}
	}
	for r, id := range got {
		if _, ok := want[r]; !ok {
			d = append(d, fmt.Sprintf("%s: remote none here %.8s", r, id))
		}
	}
	sort.Strings(d)
	if len(d) > 4 {
		d = append(d[:4], fmt.Sprintf("and %d more", len(d)-4))
	}
	return strings.Join(d, "; ")
}

// archivedBlobs lists the blobs the archive's months of st hold.
func archivedBlobs(ctx context.Context, st *memstore.Store) map[string]bool {
	out := map[string]bool{}
	ids, _ := st.RefIDs(ctx, refstore.ArchivePrefix)
	for _, id := range ids {
		es, _ := st.ListTree(ctx, id.OID, "")
		for _, e := range es {
			out[e.OID], out[e.Path] = true, true
		}
	}
	return out
}

// passedOver checks a start that received nothing, no fault hit: when the
// remote holds a baton waiting at the start's ref and the start fetched
// that very version, the join here kept instead a copy of another baton
// that the remote's archive holds (claimed, cancelled or dismissed, and
// retired there), a copy that is stale whatever its cause says (teamsync
// settleArchived). The next session was then not given the baton waiting
// for it (found by the soak on git 2.55: a start killed after its claim
// landed, a sync that retired the claim, an end written afresh after it;
// a teammate's start still holding the claimed copy delivered nothing,
// and an automatic handoff there replaced the waiting baton).
func (w *world) passedOver(ctx context.Context, c *faulty, sid, who string) {
	ref, err := refstore.HandoffRef(false, owner, branch)
	if err != nil {
		return
	}
	there, err := w.origin.Get(ctx, ref)
	if err != nil {
		return
	}
	waiting, err := baton.DecodeVersion(there)
	if err != nil || !waiting.Live() {
		return
	}
	tr, err := refstore.RemoteRef(remote, ref)
	if err != nil {
		return
	}
	if seen, err := c.Clone.Get(ctx, tr); err != nil || seen.OID != there.OID {
		return // the start did not fetch it
	}
	here, err := c.Clone.Get(ctx, ref)
	if err != nil {
		return
	}
	kept, err := baton.DecodeVersion(here)
	if err != nil || kept.ID == waiting.ID || kept.Live() {
		return
	}
	// A waiting baton this clone's archive or the remote's holds was
	// decided already: a late push of it (the first of a deletion's two,
	// leased on the ref being absent) landed once a retirement emptied
	// the ref, which the join drops as stale (teamsync dropStale) and a
	// claim refuses, and no start is to deliver (seed 1360 of the
	// widened lane with continuations: a dismissal told its baton lost
	// a tie-break here to a claimed one, which a teammate then retired).
	if wp, err := archive.BatonPath(waiting.ID); err == nil {
		for _, st := range []archive.Store{c.Clone, w.origin} {
			if _, _, err := archive.Find(ctx, st, wp); err == nil {
				return
			}
		}
	}
	p, err := archive.BatonPath(kept.ID)
	if err != nil {
		return
	}
	if _, _, err := archive.Find(ctx, w.origin, p); err != nil {
		return // not retired at the remote: a concurrent version, reported
	}
	w.violate(w.step, "passed-over", fmt.Sprintf("start %s (%s) received nothing while baton %s waited at the remote and was fetched: the join here kept a copy of baton %s, which the remote retired", sid, who, waiting.ID, kept.ID))
}
