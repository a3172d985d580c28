package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
	"github.com/git-handoff/git-handoff/session"
	"github.com/git-handoff/git-handoff/teamsync"
)

// The widened run (Config.Wide): more workflows, each through the real
// function and recorded in the ledger, and faults of pushes.

// The pull requests the fake GitHub holds, open, for the PR operations.
var simPRs = []int{7, 8}

const ghToken = "sim-token"

// wideLedger is what the widened operations reported.
type wideLedger struct {
	// sessions are the sessions each clone started or made by a
	// replacement, in order: the candidates of a claim, a replacement, a
	// pull request claim or an automatic handoff there.
	sessions map[int][]string
	// restored: batons an undismiss reported waiting again (each may be
	// delivered once more); restoreUnknown: an undismiss that failed in a
	// way that leaves it unknown whether the restore landed.
	restored       map[string]string
	restoreUnknown map[string]bool
	// replaced: old session -> new, as each replacement reported it.
	replaced map[string]string
	// dismissals: the batons dismissals reported, in order.
	dismissals []string
	// prOwners: pull request -> every session a claim or a replacement
	// reported (or may have made, on an unknown outcome) its owner.
	prOwners map[int]map[string]bool
	// prUnsettled: pull requests whose last claim or release was not
	// seen to finish with its lease (an error, a death, a notice that the
	// lease was not taken): ownership and the lease pr:N may differ until
	// a claim of it finishes (checkPRLeases).
	prUnsettled map[int]bool
	// prPending: pull request -> the clones holding an ownership write of
	// it the arbiter has not seen (a release, a replacement's transfer, a
	// claim not seen to finish with its lease) until their next sync: it
	// may win the join over what the arbiter decided the lease with, so a
	// claim settles the pull request only once none is left.
	prPending map[int]map[int]bool
}

func newWideLedger() *wideLedger {
	return &wideLedger{
		sessions: map[int][]string{}, restored: map[string]string{}, restoreUnknown: map[string]bool{},
		replaced: map[string]string{}, prOwners: map[int]map[string]bool{}, prUnsettled: map[int]bool{}, prPending: map[int]map[int]bool{},
	}
}

// prWrote marks an ownership write of pull request n at clone the
// arbiter did not decide with the lease (prPending).
func (l *wideLedger) prWrote(n, clone int) {
	if l.prPending[n] == nil {
		l.prPending[n] = map[int]bool{}
	}
	l.prPending[n][clone] = true
	l.prUnsettled[n] = true
}

// prSettled: a claim at clone finished with the lease, its record at the
// arbiter with it.
func (l *wideLedger) prSettled(n, clone int) {
	delete(l.prPending[n], clone)
	if len(l.prPending[n]) == 0 {
		l.prUnsettled[n] = false
	}
}

// prSynced: after a sync of clone, its ownership writes the remote
// holds now (the same version at both: a sync may push nothing, held
// back) are no longer pending.
func (w *world) prSynced(ctx context.Context, clone int) {
	for _, n := range simPRs {
		if !w.wl.prPending[n][clone] {
			continue
		}
		ref, err := prown.Ref(w.gh.Repo().FullName(), n)
		if err != nil {
			continue
		}
		here, err1 := w.clones[clone].Get(ctx, ref)
		there, err2 := w.origin.Get(ctx, ref)
		if errors.Is(err1, refstore.ErrNotFound) && errors.Is(err2, refstore.ErrNotFound) || err1 == nil && err2 == nil && here.OID == there.OID {
			delete(w.wl.prPending[n], clone)
		}
	}
}

func (l *wideLedger) owner(n int, sid string) {
	if l.prOwners[n] == nil {
		l.prOwners[n] = map[string]bool{}
	}
	l.prOwners[n][sid] = true
}

// setupGitHub starts the fake GitHub of a widened run.
func (w *world) setupGitHub(ctx context.Context) error {
	prs := make([]ghprtest.PR, 0, len(simPRs))
	for _, n := range simPRs {
		prs = append(prs, ghprtest.PR{Number: n, Title: fmt.Sprintf("Change %d", n), Head: fmt.Sprintf("change-%d", n), HeadSHA: strings.Repeat(fmt.Sprint(n%10), 40)})
	}
	s, err := ghprtest.Start(ghprtest.WithState(ghprtest.State{Token: ghToken, Public: true, PRs: prs}))
	if err != nil {
		return err
	}
	c, err := ghpr.New(ctx, ghpr.Options{
		Repo: ghpr.Repo{Host: "github.com", Owner: "octo-org", Name: "hello-world"}, Token: ghToken,
		APIURL: s.URL, HTTPClient: s.Client(),
	})
	if err != nil {
		s.Close()
		return err
	}
	w.ghServer, w.gh = s, c
	return nil
}

func (w *world) connect(context.Context) (handoff.PRHost, error) { return w.gh, nil }

// pick is one of list by arg, "" when empty.
func pick(list []string, arg uint32) string {
	if len(list) == 0 {
		return ""
	}
	return list[int(arg)%len(list)]
}

// waitingIn lists the batons waiting in c's records, sorted.
func (w *world) waitingIn(ctx context.Context, c *faulty) []string {
	var out []string
	for _, b := range batons(ctx, c.Clone) {
		if b.Live() {
			out = append(out, b.ID)
		}
	}
	sort.Strings(out)
	return out
}

// recent is how many of a clone's latest sessions the operations acting
// as a session choose from (older ones are mostly ended, or retired).
const recent = 3

// sessionFor is a session of the clone for an operation that acts as one:
// the session bound to its worktree when arg is even and one is, else
// one it started.
func (w *world) sessionFor(c *faulty, clone int, arg uint32) string {
	if arg%4 != 3 {
		if ref, err := c.Clone.BoundSession(); err == nil && ref != "" {
			return strings.TrimPrefix(ref, refstore.SessionPrefix)
		}
	}
	list := w.wl.sessions[clone]
	if len(list) > recent {
		list = list[len(list)-recent:]
	}
	return pick(list, arg/4)
}

// deliver records that a workflow delivered baton id to session sid.
func (w *world) deliver(st refstore.Records, b baton.Stored, sid, who string) {
	id := b.ID
	if t := w.tombBefore(st, b); t != "" {
		w.violate(w.step, "deleted-and-delivered", fmt.Sprintf("baton %s was deleted at the remote (tombstone %.8s), then delivered to %s (%s) from a version written without seeing it", id, t, sid, who))
	}
	if prev, ok := w.led.delivered[id]; ok && prev != sid {
		w.violate(w.step, "delivered-twice", fmt.Sprintf("baton %s delivered to %s and again to %s (%s)", id, prev, sid, who))
	}
	if d, ok := w.led.deleted[id]; ok {
		if w.wl.restoreUnknown[id] {
			// An undismiss told of an unknown outcome restored it.
			delete(w.led.deleted, id)
			delete(w.wl.restoreUnknown, id)
			w.log.add(fmt.Sprintf("note: %s delivered after an undismiss of unknown outcome", id))
		} else {
			w.violate(w.step, "deleted-and-delivered", fmt.Sprintf("baton %s was %s, then delivered to %s (%s)", id, d, sid, who))
		}
	}
	w.led.delivered[id] = sid
}

// tombBefore is a tombstone of b's baton that the remote held and that
// b, a version delivered, was not written after: b's chain of prevs,
// followed while they are versions of that baton, does not name it. ""
// when there is none, or when a version of the chain cannot be read
// (here or at the remote): then nothing is known.
func (w *world) tombBefore(st refstore.Records, b baton.Stored) string {
	tombs := w.led.arbiterTombs[b.ID]
	if len(tombs) == 0 {
		return ""
	}
	after := map[string]bool{b.OID: true}
	v := b.Baton
	for steps := 0; v.Prev != "" && steps < 1000; steps++ {
		after[v.Prev] = true // a tombstone named here need not be read
		p, err := readBaton(st, v.Prev)
		if err != nil {
			if p, err = readBaton(w.origin, v.Prev); err != nil {
				return ""
			}
		}
		if p.ID != b.ID {
			break
		}
		v = p
	}
	for _, t := range tombs {
		if !after[t] {
			return t
		}
	}
	return ""
}

// callWide runs one of the widened operations.
// simHarnesses are the agents a switch picks among.
var simHarnesses = []string{"claude-code", "codex", "gemini"}

func (w *world) callWide(ctx context.Context, c *faulty, s Step, who string, clock handoff.Clock, arb handoff.Arbiter) string {
	switch s.Op {
	case OpClaim:
		sid := w.sessionFor(c, s.Clone, s.Arg)
		if sid == "" {
			sid = sessionOf(s.Clone, w.step)
		}
		w.claimer = sid
		res, err := handoff.Claim(ctx, c, handoff.ClaimOptions{Session: sid, Owner: owner, Branch: branch, Arbiter: arb}, clock)
		w.conflicts(c, res.Conflicts, who)
		if err != nil {
			if _, ok := w.led.toldNot[sid]; !ok {
				w.led.toldNot[sid] = ""
			}
			if errors.Is(err, refstore.ErrNotFound) {
				return "nothing " + sid
			}
			return "error " + sid + " " + short(err)
		}
		w.deliver(c, res.Handoff, sid, who)
		return "claimed " + res.Handoff.ID + " " + sid
	case OpUndismiss:
		// One of the latest two dismissals still standing.
		var ids []string
		for i := len(w.wl.dismissals) - 1; i >= 0 && len(ids) < 2; i-- {
			id := w.wl.dismissals[i]
			if how, ok := w.led.deleted[id]; ok && strings.HasPrefix(how, "dismissed") && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		id := pick(ids, s.Arg>>2)
		if id == "" {
			return "nothing"
		}
		// Mostly where it was dismissed: another clone has the tombstone
		// but not always the version it replaced (a fetch brings a
		// ref's tip only).
		var at int
		if _, err := fmt.Sscanf(w.led.deleted[id], "dismissed at c%d@", &at); err == nil && s.Arg%4 != 3 && at != s.Clone {
			c = newFaulty(w.clones[at], w.faults)
			who += fmt.Sprintf(" (at c%d)", at)
		}
		// Unknown until it returns: a process that dies in it may have
		// pushed the restore first. An earlier undismiss's unknown
		// outcome stays unknown whatever this one says: its push may
		// land later yet, or have landed already, which this one then
		// finds (a baton waiting, "not restorable").
		earlier := w.wl.restoreUnknown[id]
		w.wl.restoreUnknown[id] = true
		res, err := handoff.Undismiss(ctx, c, handoff.UndismissOptions{ID: id, Arbiter: arb}, clock)
		w.conflicts(c, res.Conflicts, who)
		if err != nil {
			// Refused for what was found, or a lost swap: not restored.
			// Anything else (an unreachable arbiter, a lost answer) may
			// have landed.
			var nr *handoff.NotRestorableError
			if errors.As(err, &nr) && !earlier {
				delete(w.wl.restoreUnknown, id)
			}
			return "error " + id + " " + short(err)
		}
		if s, ok := w.led.delivered[res.Restored.ID]; ok {
			w.violate(w.step, "undismissed-delivered", fmt.Sprintf("baton %s delivered to %s was restored to waiting at %s", res.Restored.ID, s, who))
		}
		delete(w.led.deleted, res.Restored.ID)
		delete(w.wl.restoreUnknown, res.Restored.ID)
		w.wl.restored[res.Restored.ID] = who
		return "restored " + res.Restored.ID + " " + who
	case OpReplace:
		old := w.sessionFor(c, s.Clone, s.Arg)
		if old == "" {
			return "nothing"
		}
		nid := replacementOf(s.Clone, w.step)
		claimPR := s.Arg%4 == 1
		if claimPR {
			// A transfer of the old session's pull request may land
			// whatever the answer, or a death half-way.
			for _, n := range simPRs {
				if w.wl.prOwners[n][old] {
					w.wl.owner(n, nid)
					w.wl.prWrote(n, s.Clone)
				}
			}
		}
		res, err := handoff.SessionReplace(ctx, c, handoff.SessionReplaceOptions{
			ReplaceOptions: session.ReplaceOptions{OldID: old, NewID: nid, Reason: "sim"},
			NoSnapshot:     true, ClaimPR: claimPR, Connect: w.connect, Arbiter: arb,
		}, clock)
		if err != nil {
			return "error " + old + " " + short(err)
		}
		w.wl.replaced[old] = nid
		w.wl.sessions[s.Clone] = append(w.wl.sessions[s.Clone], nid)
		out := fmt.Sprintf("replaced %s by %s", old, nid)
		if res.Carried != nil {
			id := res.Carried.ID
			if prev, ok := w.led.delivered[id]; ok && prev != old {
				w.violate(w.step, "delivered-twice", fmt.Sprintf("baton %s delivered to %s was carried from %s to %s (%s)", id, prev, old, nid, who))
			}
			w.led.delivered[id] = nid
			out += " carrying " + id
		}
		return out
	case OpSwitch, OpRestore:
		sid := w.sessionFor(c, s.Clone, s.Arg)
		if sid == "" {
			return "nothing"
		}
		// The sessions start under the harness "sim", which no launch
		// knows: a restore goes through for a session a switch gave a
		// real agent, and is refused before any write otherwise.
		opts := handoff.SessionRelaunchOptions{ID: sid, By: who, NoSnapshot: true, Prompt: "carry on from " + who}
		before, _ := session.Read(ctx, c.Clone, sid)
		var res session.RelaunchResult
		var err error
		if s.Op == OpSwitch {
			opts.Harness = simHarnesses[int(s.Arg>>8)%len(simHarnesses)]
			res, err = handoff.SessionSwitch(ctx, c, opts, clock)
		} else {
			res, err = handoff.SessionRestore(ctx, c, opts, clock)
		}
		if err != nil {
			return "error " + sid + " " + short(err)
		}
		// What the session is now, here: the agent asked for, in the
		// worktree and the line it had (a switch changes the agent, never
		// the work or the lineage).
		if after, rerr := session.Read(ctx, c.Clone, sid); rerr != nil {
			w.violate(w.step, "false-notice", fmt.Sprintf("%s of %s reported done, and the session reads %v (%s)", s.Op, sid, rerr, who))
		} else if s.Op == OpSwitch && after.Harness != opts.Harness ||
			before.ID != "" && (after.Worktree != before.Worktree || after.Supersedes != before.Supersedes || after.ReplacedBy != before.ReplacedBy) {
			w.violate(w.step, "false-notice", fmt.Sprintf("%s of %s to %q: the session reads harness %q worktree %q supersedes %q replacedBy %q, before %q %q %q (%s)",
				s.Op, sid, opts.Harness, after.Harness, after.Worktree, after.Supersedes, after.ReplacedBy, before.Worktree, before.Supersedes, before.ReplacedBy, who))
		}
		return fmt.Sprintf("%s %s to %s noop=%v", s.Op, sid, res.Session.Harness, res.NoOp)
	case OpPRClaim:
		sid := w.sessionFor(c, s.Clone, s.Arg)
		if sid == "" {
			return "nothing"
		}
		n := simPRs[int(s.Arg>>8)%len(simPRs)]
		// May own it from here on, whatever the answer: an error after
		// the swap, or a death after it (seed 12), leaves it made.
		w.wl.owner(n, sid)
		// The lease pr:N is decided at the arbiter, as the CLI's
		// prLeaseBoard finds it. Until the claim is seen to finish with
		// the lease, the two may differ (prLeaseInFlight).
		w.wl.prWrote(n, s.Clone)
		b, err := teamsync.LeaseBoardAt(c, remote)
		if err != nil {
			return "error " + short(err)
		}
		res, err := handoff.PRClaim(ctx, c, w.gh, handoff.PRClaimOptions{Number: n, Session: sid, NoComment: s.Arg%3 == 0, Leases: b}, clock)
		if err != nil {
			return fmt.Sprintf("error #%d %s %s", n, sid, short(err))
		}
		if res.Record.OwnerSession != sid {
			w.violate(w.step, "pr-claim-owner", fmt.Sprintf("a claim of #%d by %s reported success with owner %q", n, sid, res.Record.OwnerSession))
		}
		if res.Lease != nil && res.Lease.Lease.Session == sid && !leaseNoticed(res.Notices) {
			w.wl.prSettled(n, s.Clone)
		}
		return fmt.Sprintf("pr-claimed #%d %s changed=%v comment=%s lease=%s", n, sid, res.Changed, res.GitHub.Comment, leaseAction(res.Lease))
	case OpPRRelease:
		n := simPRs[int(s.Arg>>8)%len(simPRs)]
		w.wl.prWrote(n, s.Clone)
		b, err := teamsync.LeaseBoardAt(c, remote)
		if err != nil {
			return "error " + short(err)
		}
		res, err := handoff.PRRelease(ctx, c, handoff.PRReleaseOptions{Repo: w.gh.Repo().FullName(), Number: n, NoComment: s.Arg%3 == 0, Connect: w.connect, Leases: b}, clock)
		if err != nil {
			return fmt.Sprintf("error #%d %s", n, short(err))
		}
		return fmt.Sprintf("pr-released #%d previous=%s changed=%v comment=%s lease=%s", n, res.Previous, res.Changed, res.GitHub.Comment, leaseAction(res.Lease))
	case OpAutoEnd:
		sid := w.sessionFor(c, s.Clone, s.Arg)
		if sid == "" {
			return "nothing"
		}
		// The session worked: a file changed after it started (the hooks
		// measure work by the real clock). Clean again after, whatever
		// happens, so that no later session finds it changed.
		c.Clone.MarkChanged("work.go", time.Now().Add(time.Minute))
		defer c.Clone.MarkClean()
		res, err := handoff.EndSession(ctx, c, sid, session.EndAgentExit, clock)
		if err != nil {
			return "error " + sid + " " + short(err)
		}
		out := fmt.Sprintf("ended %s ended=%v", sid, res.Ended)
		if a := res.Handover.Auto; a != nil {
			w.led.written[a.ID] = who + " (auto)"
			out += " auto " + a.ID
		}
		if r := res.Handover.Reoffered; r != nil {
			// Offered again: its claim by sid is undone, so it may be
			// delivered once more.
			if w.led.delivered[r.ID] == sid {
				delete(w.led.delivered, r.ID)
			}
			out += " reoffered " + r.ID
		}
		return out
	}
	return "?"
}

// finishWide checks what the widened operations promise, after the final
// rounds: lineage consistent both ways on every clone, and every clone
// agreeing on each pull request's owner.
func (w *world) finishWide(ctx context.Context) {
	olds := make([]string, 0, len(w.wl.replaced))
	for o := range w.wl.replaced {
		olds = append(olds, o)
	}
	sort.Strings(olds)
	for i, c := range w.clones {
		for _, old := range olds {
			nid := w.wl.replaced[old]
			o, err1 := session.Find(ctx, c, old)
			n, err2 := session.Find(ctx, c, nid)
			switch {
			case err1 != nil || err2 != nil:
				w.violate(-1, "lineage", fmt.Sprintf("c%d: replacement %s -> %s: not found (%v; %v)", i, old, nid, err1, err2))
			case o.ReplacedBy != nid || n.Supersedes != old:
				w.violate(-1, "lineage", fmt.Sprintf("c%d: replacement %s -> %s reads replacedBy=%q supersedes=%q", i, old, nid, o.ReplacedBy, n.Supersedes))
			}
		}
		// Both ways, for every live session record here.
		ids, _ := c.RefIDs(ctx, refstore.SessionPrefix)
		for _, id := range ids {
			sid := strings.TrimPrefix(id.Ref, refstore.SessionPrefix)
			s, err := session.Read(ctx, c, sid)
			if err != nil {
				continue
			}
			if s.ReplacedBy != "" {
				if n, err := session.Find(ctx, c, s.ReplacedBy); err != nil || n.Supersedes != s.ID {
					w.violate(-1, "lineage", fmt.Sprintf("c%d: %s is replaced by %s, which supersedes %q (%v)", i, s.ID, s.ReplacedBy, n.Supersedes, err))
				}
			}
			if s.Supersedes != "" {
				if o, err := session.Find(ctx, c, s.Supersedes); err != nil || o.ReplacedBy != s.ID {
					w.violate(-1, "lineage", fmt.Sprintf("c%d: %s supersedes %s, which is replaced by %q (%v)", i, s.ID, s.Supersedes, o.ReplacedBy, err))
				}
			}
		}
	}
	repo := w.gh.Repo().FullName()
	for _, n := range simPRs {
		owners := make([]string, len(w.clones))
		for i, c := range w.clones {
			rec, err := prown.Read(ctx, c, repo, n)
			switch {
			case errors.Is(err, refstore.ErrNotFound):
				owners[i] = "(none)"
			case err != nil:
				owners[i] = "(error " + short(err) + ")"
			default:
				owners[i] = rec.OwnerSession
			}
		}
		w.log.add(fmt.Sprintf("final #%d owners %q", n, owners))
		for i := range owners {
			if owners[i] != owners[0] {
				w.violate(-1, "pr-owner-disagrees", fmt.Sprintf("#%d: owners by clone %q", n, owners))
				break
			}
		}
		if o := owners[0]; o != "" && o != "(none)" && !strings.HasPrefix(o, "(") && !w.wl.prOwners[n][o] {
			w.violate(-1, "pr-owner-unknown", fmt.Sprintf("#%d is owned by %s, which no claim or replacement made its owner", n, o))
		}
	}
}

// Push faults (Config.Wide): a push delivered twice (it lands, its answer
// is lost, and the same push is sent again: the caller sees the second
// answer), a late push (the caller is told the remote did not answer; the
// push lands at the remote at a later step, if its leases still hold),
// and an echo (the push lands and is answered; a copy of it arrives again
// at a later step).
const (
	FaultPushTwice = "push_twice"
	FaultPushLate  = "push_late"
	FaultPushEcho  = "push_echo"
)

var (
	ratePushTwice = 1.0 / 30
	ratePushLate  = 1.0 / 40
	ratePushEcho  = 1.0 / 40
)

// latePush is a push queued to land at the remote at step due.
type latePush struct {
	due     int
	clone   int
	kind    string
	updates []refstore.Update
	opts    refstore.PushOptions
}

// pushFault decides a push's fault: "" for none.
func (in *injector) pushFault() string {
	if in.off || !in.w.cfg.Wide || in.dead.Load() {
		return ""
	}
	s := in.w.cfg.FaultScale
	x := in.roll("push-fault")
	switch {
	case x < ratePushTwice*s:
		return FaultPushTwice
	case x < (ratePushTwice+ratePushLate)*s:
		return FaultPushLate
	case x < (ratePushTwice+ratePushLate+ratePushEcho)*s:
		return FaultPushEcho
	}
	return ""
}

// lateBy is how many steps later a late push lands (1 to 4).
func (in *injector) lateBy() int { return 1 + int(in.roll("push-late-by")*4) }

func (f *faulty) Push(ctx context.Context, remote string, updates []refstore.Update, opts refstore.PushOptions) error {
	switch f.in.pushFault() {
	case FaultPushTwice:
		return f.pushTwice(func() error { return f.Clone.Push(ctx, remote, updates, opts) })
	case FaultPushLate:
		f.in.count(FaultPushLate)
		f.in.w.queuePush(f, FaultPushLate, updates, opts)
		return &refstore.PushError{Err: fmt.Errorf("push to %s: %w", remote, memstore.ErrStalled)}
	case FaultPushEcho:
		// Only a push that landed echoes (the fault's own meaning): a
		// copy of one the remote refused (a lost lease, an object its gc
		// lost) landing later would be a push its sender was told, truly,
		// never happened (a harness defect, seed 297 of the widened run).
		err := f.Clone.Push(ctx, remote, updates, opts)
		if err == nil {
			f.in.count(FaultPushEcho)
			f.in.w.queuePush(f, FaultPushEcho, updates, opts)
		}
		return err
	}
	return f.Clone.Push(ctx, remote, updates, opts)
}

func (f *faulty) PushMatching(ctx context.Context, remote string, prefixes []string, opts refstore.PushOptions) error {
	// Only the immediate resend: what a push by pattern would send later
	// is decided at the remote then, which a queued copy cannot be.
	if f.in.pushFault() == FaultPushTwice {
		return f.pushTwice(func() error { return f.Clone.PushMatching(ctx, remote, prefixes, opts) })
	}
	return f.Clone.PushMatching(ctx, remote, prefixes, opts)
}

// pushTwice sends a push whose answer is lost after it landed, then sends
// it again: the caller gets the second answer. A first push that failed
// before the remote saw it is not sent again.
func (f *faulty) pushTwice(push func() error) error {
	f.in.loseAfter.Store(true)
	err := push()
	lost := !f.in.loseAfter.Swap(false) // consumed: the push landed and its answer was lost
	if !lost {
		return err
	}
	return push()
}

func (w *world) queuePush(f *faulty, kind string, updates []refstore.Update, opts refstore.PushOptions) {
	i := 0
	for ; i < len(w.clones) && w.clones[i] != f.Clone; i++ {
	}
	opts.Track = nil
	w.late = append(w.late, latePush{due: w.step + w.faults.lateBy(), clone: i, kind: kind,
		updates: append([]refstore.Update(nil), updates...), opts: opts})
}

// deliverLate lands the queued pushes due by step (all when step < 0), in
// the order they were sent. Each is pushed from its clone to the remote's
// URL, not its name: no refspec maps the remote's refs there, so no
// tracking ref of the clone moves (the process that sent it is gone),
// and the remote applies it under its leases as it would have then.
func (w *world) deliverLate(ctx context.Context, step int) {
	if len(w.late) == 0 {
		return
	}
	off := w.faults.off
	w.faults.begin(0) // the step before may have died: not this delivery
	w.faults.off = true
	defer func() { w.faults.off = off }()
	var keep []latePush
	for _, p := range w.late {
		if step >= 0 && p.due > step {
			keep = append(keep, p)
			continue
		}
		err := w.clones[p.clone].Push(ctx, remoteURL, p.updates, p.opts)
		refs := make([]string, len(p.updates))
		for i, u := range p.updates {
			refs[i] = fmt.Sprintf("%s %.8s<-%.8s", strings.TrimPrefix(u.Ref, refstore.Root), u.New, u.Old)
		}
		w.log.add(fmt.Sprintf("%s c%d lands %s: %s", p.kind, p.clone, strings.Join(refs, ","), short(err)))
	}
	w.late = keep
}

var _ = baton.Baton{}
