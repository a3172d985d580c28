package sim

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
)

// Fault kinds, as counted and printed.
const (
	FaultLocalError   = "local_error"        // a local write fails
	FaultCrashBefore  = "crash_before"       // the process dies before a local write
	FaultCrashAfter   = "crash_after"        // the process dies after a local write
	FaultRemoteDown   = "remote_unreachable" // a remote call fails before the remote sees it
	FaultRemoteStall  = "remote_stall"       // a remote call gets no answer (a deadline)
	FaultRemoteLost   = "remote_lost_answer" // the remote did it; the answer is lost
	FaultCrashRemote  = "crash_after_remote" // the remote did it; the process dies before the answer
	FaultCrashBeforeR = "crash_before_remote"
	// The remote's gc raced a push that landed: a ref it moved names an
	// object the remote no longer has (teamsync/lost.go).
	FaultRemoteGC = "remote_gc_lost_object"
)

// rates, per call, of each fault (times Config.FaultScale).
var (
	rateLocalError  = 1.0 / 80
	rateCrashBefore = 1.0 / 250
	rateCrashAfter  = 1.0 / 250
	rateRemoteDown  = 1.0 / 14
	rateRemoteStall = 1.0 / 40
	rateRemoteLost  = 1.0 / 16
	rateCrashRemote = 1.0 / 60
	rateCrashBefR   = 1.0 / 120
	rateRemoteGC    = 1.0 / 50
)

// errInjected is the error of an injected failure.
var errInjected = errors.New("sim: injected failure")

// crash is the panic of a process that dies: the step runner recovers it.
type crash struct{ where string }

// injector decides the faults of one step's calls. A decision is a hash of
// the step's fault seed, the call's kind and how many calls of that kind
// came before in the step: the same whatever goroutine makes the call
// (sync asks the remote on a goroutine of its own), and the same for a
// step when a shrink drops others.
type injector struct {
	w *world

	mu     sync.Mutex
	seed   uint64
	counts map[string]uint64
	off    bool        // faults off: the final rounds
	dead   atomic.Bool // the process of this step died: every later call dies too
	// loseAfter: the next push's answer is lost after it landed (a push
	// delivered twice, wide.go).
	loseAfter atomic.Bool
	died      string
	// beforePush is what the remote's refs were as the last push began
	// (loseAtRemote).
	beforePush map[string]string
}

func newInjector(w *world) *injector { return &injector{w: w, counts: map[string]uint64{}} }

func (in *injector) begin(seed uint64) {
	in.mu.Lock()
	in.seed = seed
	clear(in.counts)
	in.mu.Unlock()
	in.dead.Store(false)
	in.died = ""
}

// roll is a uniform number in [0,1) for the next call of kind.
func (in *injector) roll(kind string) float64 {
	h := fnv.New64a()
	h.Write([]byte(kind))
	in.mu.Lock()
	n := in.counts[kind]
	in.counts[kind] = n + 1
	seed := in.seed
	in.mu.Unlock()
	x := seed ^ h.Sum64() ^ (n+1)*0x9e3779b97f4a7c15
	// splitmix64
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

func (in *injector) count(kind string) {
	in.mu.Lock()
	in.w.rep.Faults[kind]++
	in.mu.Unlock()
}

// trace shows, when the run is logged (Config.Log), each call the injector
// was asked about with its roll: what a shrunk run's reader needs to see
// which call failed. Not in the op log's digest.
func (in *injector) trace(name string, x float64) {
	if in.w.cfg.Log != nil {
		in.w.cfg.Log(fmt.Sprintf("    call %s roll=%.4f faults=%v", name, x, in.w.rep.Faults))
	}
}

func (in *injector) die(where string) {
	if in.died == "" {
		in.died = where
	}
	in.dead.Store(true)
	panic(crash{where})
}

// local decides the fault of a local write call named name: it may
// panic (the process dies before), return an error, or return after=true
// (the process is to die once the call is done).
func (in *injector) local(name string) (after bool, err error) {
	if in.dead.Load() {
		in.die(name + " (after death)")
	}
	if in.off {
		return false, nil
	}
	s := in.w.cfg.FaultScale
	x := in.roll(name)
	defer in.trace(name, x)
	if in.w.cfg.NoCrash && (x < rateCrashBefore*s || x >= (rateCrashBefore+rateLocalError)*s) {
		return false, nil
	}
	switch {
	case x < rateCrashBefore*s:
		in.count(FaultCrashBefore)
		in.die("before " + name)
	case x < (rateCrashBefore+rateLocalError)*s:
		in.count(FaultLocalError)
		return false, fmt.Errorf("%s: %w", name, errInjected)
	case x < (rateCrashBefore+rateLocalError+rateCrashAfter)*s:
		in.count(FaultCrashAfter)
		return true, nil
	}
	return false, nil
}

// remote is the network's Faults func: the remote calls' faults. A listing
// (ls-remote) may be asked on sync's own goroutine, where a panic could
// not be recovered: it only ever fails.
func (in *injector) remote(op memstore.Op) error {
	listing := op.Name == "ls-remote"
	if in.dead.Load() {
		if listing {
			return fmt.Errorf("%s: %w", op.Name, errInjected)
		}
		in.die(op.Name + " (after death)")
	}
	if in.off {
		return nil
	}
	if op.Phase == memstore.After && (op.Name == "push" || op.Name == "push-matching") && in.loseAfter.CompareAndSwap(true, false) {
		in.count(FaultPushTwice)
		return fmt.Errorf("%s: the connection to %s closed: %w", op.Name, op.URL, errInjected)
	}
	s := in.w.cfg.FaultScale
	x := in.roll(op.Name + "/" + op.Phase.String())
	defer in.trace(op.Name+"/"+op.Phase.String(), x)
	if in.w.cfg.NoCrash {
		listing = true // a listing's faults: never a death
	}
	if op.Phase == memstore.Before {
		if op.Name == "push" || op.Name == "push-matching" {
			in.mu.Lock()
			in.beforePush = refValues(in.w.origin)
			in.mu.Unlock()
		}
		switch {
		case x < rateRemoteDown*s:
			in.count(FaultRemoteDown)
			return fmt.Errorf("%s: could not reach %s: %w", op.Name, op.URL, errInjected)
		case x < (rateRemoteDown+rateRemoteStall)*s:
			in.count(FaultRemoteStall)
			return memstore.ErrStalled
		case !listing && x < (rateRemoteDown+rateRemoteStall+rateCrashBefR)*s:
			in.count(FaultCrashBeforeR)
			in.die("before remote " + op.Name)
		}
		return nil
	}
	in.mu.Lock()
	before := in.beforePush
	in.mu.Unlock()
	if (op.Name == "push" || op.Name == "push-matching") && in.roll("gc/"+op.Name) < rateRemoteGC*s {
		in.loseAtRemote(op, before)
	}
	switch {
	case x < rateRemoteLost*s:
		in.count(FaultRemoteLost)
		return fmt.Errorf("%s: the connection to %s closed: %w", op.Name, op.URL, errInjected)
	case !listing && x < (rateRemoteLost+rateCrashRemote)*s:
		in.count(FaultCrashRemote)
		in.die("after remote " + op.Name)
	}
	return nil
}

// refValues are the refs of s.
func refValues(s *memstore.Store) map[string]string {
	ids, _ := s.RefIDs(context.Background(), refstore.Root)
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		out[id.Ref] = id.OID
	}
	return out
}

// loseAtRemote drops, at the remote, the object of one ref the push op
// moved (a push names refs, a matching push prefixes of them; before is
// what the remote's refs were): what the remote's gc does when it races a
// push. An object a ref named before is safe from gc: only a push's new
// objects, not yet named when gc looked, are lost.
func (in *injector) loseAtRemote(op memstore.Op, before map[string]string) {
	ids, err := in.w.origin.RefIDs(context.Background(), refstore.Root)
	if err != nil {
		return
	}
	var hit []string
	for _, id := range ids {
		if before[id.Ref] == id.OID || slices.Contains(slices.Collect(maps.Values(before)), id.OID) {
			continue
		}
		for _, r := range op.Refs {
			if id.Ref == r || strings.HasSuffix(r, "/") && strings.HasPrefix(id.Ref, r) {
				hit = append(hit, id.OID)
				break
			}
		}
	}
	if len(hit) == 0 {
		return
	}
	in.count(FaultRemoteGC)
	lost := hit[int(in.roll("gc-which")*float64(len(hit)))%len(hit)]
	// Of a commit (an archive month), the gc may take the tree and keep
	// the commit, when no ref named that tree's commit before: every fetch
	// of it then fails without naming either (found by the soak on git
	// 2.55).
	if tree, ok := in.w.origin.Below(lost); ok && !namedBefore(in.w.origin, before, tree) {
		if x := in.roll("gc-below"); x < 0.5 {
			in.trace("gc-below "+lost+" "+tree, x)
			lost = tree
		}
	}
	in.w.origin.LoseObject(lost)
}

// namedBefore reports whether a ref of before (the remote's refs as a
// push began) named a commit of tree: a gc keeps what a ref names.
func namedBefore(origin *memstore.Store, before map[string]string, tree string) bool {
	for _, oid := range before {
		if t, ok := origin.Below(oid); ok && t == tree {
			return true
		}
	}
	return false
}

// faulty is a clone whose local writes go through the injector (its
// remote calls go through the network's Faults func, the injector's
// remote). Reads pass through.
type faulty struct {
	*memstore.Clone
	in    *injector
	local *faultyLocal
	wt    *faultyLocal
}

func newFaulty(c *memstore.Clone, in *injector) *faulty {
	return &faulty{Clone: c, in: in, local: &faultyLocal{Local: c.Local(), in: in, name: "note"}, wt: &faultyLocal{Local: c.WorktreeLocal(), in: in, name: "wtnote"}}
}

// do runs a local write under its fault.
func (f *faulty) do(name string, call func() error) error {
	after, err := f.in.local(name)
	if err != nil {
		return err
	}
	err = call()
	if after {
		f.in.die("after " + name)
	}
	return err
}

func (f *faulty) Apply(ctx context.Context, msg string, ups ...refstore.Update) error {
	return f.do("apply", func() error {
		err := f.Clone.Apply(ctx, msg, ups...)
		if err == nil {
			f.in.w.led.noteRecordedClaim(msg)
		}
		return err
	})
}

func (f *faulty) ApplyEach(ctx context.Context, msg string, ups ...refstore.Update) error {
	return f.do("apply-each", func() error { return f.Clone.ApplyEach(ctx, msg, ups...) })
}

func (f *faulty) WriteBlob(ctx context.Context, data []byte) (id string, err error) {
	err = f.do("write-blob", func() error { id, err = f.Clone.WriteBlob(ctx, data); return err })
	return id, err
}

func (f *faulty) Bind(ref string) error {
	return f.do("bind", func() error { return f.Clone.Bind(ref) })
}

func (f *faulty) Unbind(ctx context.Context) error {
	return f.do("unbind", func() error { return f.Clone.Unbind(ctx) })
}

func (f *faulty) Local() refstore.Local         { return f.local }
func (f *faulty) WorktreeLocal() refstore.Local { return f.wt }

// OpenWorktree: the simulation has one worktree per clone.
func (f *faulty) OpenWorktree(ctx context.Context, dir string) (refstore.Clone, func(), error) {
	return nil, func() {}, nil
}

// faultyLocal is a clone's notes with faults at each write.
type faultyLocal struct {
	refstore.Local
	in   *injector
	name string
}

func (l *faultyLocal) do(name string, call func() error) error {
	after, err := l.in.local(l.name + "-" + name)
	if err != nil {
		return err
	}
	err = call()
	if after {
		l.in.die("after " + l.name + "-" + name)
	}
	return err
}

func (l *faultyLocal) Write(ctx context.Context, name string, data []byte) error {
	return l.do("write", func() error { return l.Local.Write(ctx, name, data) })
}

func (l *faultyLocal) Remove(name string) error {
	return l.do("remove", func() error { return l.Local.Remove(name) })
}

func (l *faultyLocal) Rename(from, to string) error {
	return l.do("rename", func() error { return l.Local.Rename(from, to) })
}
