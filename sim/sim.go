// Package sim is a deterministic simulation of a team handing work over
// through batons: several in-memory clones (memstore) of one in-memory
// remote, the real workflow functions (handoff.End, Start with the remote
// as arbiter, Cancel, Dismiss; teamsync.Sync, with retirement now and
// then) chosen at random from a seed, faults injected at the interface
// calls (a call fails; the process dies before or after it; the remote is
// unreachable, stalls, or applies a call and loses the answer; the
// remote's gc, racing a push, loses an object the push just brought, as
// git's gc --prune=now can: memstore.Store.LoseObject), clocks fake and
// skewed. Invariants are checked after every step against a ledger of what
// each workflow call reported, and at the end after a fault-free final
// sync of every clone. One seed gives one run exactly: the trace digest
// says so.
//
// Config.Wide (sim -wide) widens the run: wide.go. Not covered: gc
// dropping what no ref reaches at a clone (the soak's `git gc
// --prune=now` in every clone); a clone's objects are never lost here.
package sim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
	"github.com/git-handoff/git-handoff/internal/simdefect"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

// Op is a workflow operation one step runs.
type Op uint8

const (
	OpEnd Op = iota
	OpStart
	OpCancel
	OpDismiss
	OpSync
	OpRetire
	// The widened run's operations (Config.Wide): after the first six, so
	// the narrow run's steps keep their values.
	OpClaim
	OpUndismiss
	OpReplace
	OpPRClaim
	OpPRRelease
	OpAutoEnd
	// The lease operations (lease.go): in the narrow run and the wide.
	OpLeaseTake
	OpLeaseRenew
	OpLeaseRelease
	OpLeaseBreak
	OpLeaseExpire
	// Continuation (continue.go), with Config.Continue: after the rest,
	// so that every earlier op keeps its value.
	OpContinue
	OpContinueRace
	OpContinueFail
	// A session's agent switched, and an ended session restored in
	// place (the widened run's): after the rest, so that every earlier op
	// keeps its value.
	OpSwitch
	OpRestore
	numOps
)

var opNames = [numOps]string{"end", "start", "cancel", "dismiss", "sync", "retire",
	"claim", "undismiss", "replace", "pr-claim", "pr-release", "auto-end",
	"lease-take", "lease-renew", "lease-release", "lease-break", "lease-expire",
	"continue", "continue-race", "continue-fail", "switch", "restore"}

func (o Op) String() string { return opNames[o] }

// opWeights are how often each operation is picked, out of their sum.
var opWeights = [numOps]int{OpEnd: 24, OpStart: 26, OpCancel: 8, OpDismiss: 10, OpSync: 26, OpRetire: 6,
	OpLeaseTake: 10, OpLeaseRenew: 8, OpLeaseRelease: 3, OpLeaseBreak: 1, OpLeaseExpire: 3}

// wideWeights are the widened run's (Config.Wide).
var wideWeights = [numOps]int{OpEnd: 20, OpStart: 20, OpCancel: 6, OpDismiss: 8, OpSync: 22, OpRetire: 5,
	OpClaim: 8, OpUndismiss: 6, OpReplace: 5, OpPRClaim: 6, OpPRRelease: 3, OpAutoEnd: 6,
	OpLeaseTake: 10, OpLeaseRenew: 8, OpLeaseRelease: 3, OpLeaseBreak: 1, OpLeaseExpire: 3,
	OpSwitch: 4, OpRestore: 3}

// Step is one step of a run: which clone does what. Arg picks among
// candidates (the baton a dismissal names); Faults seeds the faults of the
// step's calls, so a step keeps its faults when a shrink drops others.
type Step struct {
	Clone  int
	Op     Op
	Arg    uint32
	Faults uint64
}

// opConsts are the operations' names in Go, for GoString.
var opConsts = [numOps]string{"OpEnd", "OpStart", "OpCancel", "OpDismiss", "OpSync", "OpRetire",
	"OpClaim", "OpUndismiss", "OpReplace", "OpPRClaim", "OpPRRelease", "OpAutoEnd",
	"OpLeaseTake", "OpLeaseRenew", "OpLeaseRelease", "OpLeaseBreak", "OpLeaseExpire",
	"OpContinue", "OpContinueRace", "OpContinueFail", "OpSwitch", "OpRestore"}

// GoString is the step as a line of the corpus (corpus.go), so a shrunk
// run printed with %#v is pasted there as it is.
func (s Step) GoString() string {
	return fmt.Sprintf("{Clone: %d, Op: %s, Arg: %#x, Faults: %#x},", s.Clone, opConsts[s.Op], s.Arg, s.Faults)
}

func (s Step) String() string {
	return fmt.Sprintf("c%d %s arg=%d faults=%#x", s.Clone, s.Op, s.Arg, s.Faults)
}

// Config is one run's setup.
type Config struct {
	Seed   uint64
	Steps  int
	Clones int // default 3
	// FaultScale multiplies every fault's rate (1 by default; 0 is none:
	// set NoFaults).
	FaultScale float64
	NoFaults   bool
	// NoCrash injects no process deaths (the other faults stay).
	NoCrash bool
	// SkewHours skews each clone's clock by up to this many hours either
	// way (default 6; negative for none).
	SkewHours int
	// Retention is teamsync's retention for the retire operation
	// (default one hour of simulated time).
	Retention time.Duration
	// NoRetire leaves retirement out: no retire steps, no retiring final
	// round.
	NoRetire bool
	// Wide widens the run: the operations after OpRetire (an explicit
	// claim, undismiss, session replace, pull request claim and release
	// against a fake GitHub, the automatic handoff of a session that
	// worked) and the push faults (wide.go: a push delivered twice, late,
	// or echoed later).
	Wide bool
	// Continue adds the continuation operations (continue.go). Off, a
	// seed gives the steps it gave before they existed.
	Continue bool
	// Solo runs one clone with no remote (Clones is 1): its sync and
	// retire steps retire what is final there (teamsync.RetireHere),
	// decisions are its own, and the checks read the clone where they
	// read the remote.
	Solo bool
	// Defect is the planted defect (simdefect; only with the simdefects tag).
	Defect simdefect.Defect
	// StopAtFirst stops the run at the first violation.
	StopAtFirst bool
	// Log, when set, receives every line of the op log.
	Log func(string)
}

func (c *Config) defaults() {
	if c.Clones <= 0 {
		c.Clones = 3
	}
	if c.Solo {
		c.Clones = 1
	}
	if c.FaultScale == 0 {
		c.FaultScale = 1
	}
	if c.NoFaults {
		c.FaultScale = 0
	}
	if c.SkewHours == 0 {
		c.SkewHours = 6
	}
	if c.Retention == 0 {
		c.Retention = time.Hour
	}
}

// Generate makes the steps of a run from its seed.
func Generate(cfg Config) []Step {
	cfg.defaults()
	r := rand.New(rand.NewPCG(cfg.Seed, 0x5157))
	weights := opWeights
	if cfg.Wide {
		weights = wideWeights
	}
	if cfg.NoRetire {
		weights[OpRetire] = 0
	}
	if cfg.Continue {
		for op, n := range continueWeights {
			weights[op] = n
		}
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	steps := make([]Step, cfg.Steps)
	for i := range steps {
		n := r.IntN(total)
		op := Op(0)
		for ; n >= weights[op]; op++ {
			n -= weights[op]
		}
		steps[i] = Step{Clone: r.IntN(cfg.Clones), Op: op, Arg: r.Uint32(), Faults: r.Uint64()}
	}
	return steps
}

// Violation is an invariant found broken.
type Violation struct {
	Step int // the step after which it was found; -1 at the end
	Kind string
	What string
}

func (v Violation) String() string {
	at := "end"
	if v.Step >= 0 {
		at = fmt.Sprintf("step %d", v.Step)
	}
	return fmt.Sprintf("%s: %s: %s", at, v.Kind, v.What)
}

// Report is what a run did.
type Report struct {
	Seed       uint64
	Steps      int // steps run
	Faults     map[string]int
	Violations []Violation
	Trace      string // sha256 of the op log, hex
	Elapsed    time.Duration
	// Outcomes counts each operation's outcomes ("start:claimed", ...).
	Outcomes map[string]int
	// Stale counts records that the remote's archive holds and a clone
	// still holds live after the final rounds: not converged, nothing
	// lost. Reported apart from the violations.
	Stale int
}

// FaultTotal is the number of faults injected.
func (r *Report) FaultTotal() int {
	n := 0
	for _, v := range r.Faults {
		n += v
	}
	return n
}

// Summary is the one line a run ends with.
func (r *Report) Summary() string {
	sps := 0.0
	if r.Elapsed > 0 {
		sps = float64(r.Steps) / r.Elapsed.Seconds()
	}
	return fmt.Sprintf("seed=%d steps=%d faults=%d violations=%d stale=%d trace=%s steps_per_s=%.0f",
		r.Seed, r.Steps, r.FaultTotal(), len(r.Violations), r.Stale, r.Trace[:16], sps)
}

// FaultLines are the `<kind>=<n>` lines, sorted by kind.
func (r *Report) FaultLines() []string {
	var out []string
	for k, v := range r.Faults {
		out = append(out, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(out)
	return out
}

// globals the workflows take from package variables: one run at a time.
var runMu sync.Mutex

const (
	owner     = "sim"
	branch    = "main"
	remoteURL = "mem://origin"
	remote    = "origin"
)

// seededReader is an io.Reader of a PCG's bytes: baton.IDSource.
type seededReader struct{ r *rand.Rand }

func (s seededReader) Read(p []byte) (int, error) {
	for i := 0; i < len(p); i += 8 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], s.r.Uint64())
		copy(p[i:], b[:])
	}
	return len(p), nil
}

// world is one run's state.
type world struct {
	cfg    Config
	net    *memstore.Network
	origin *memstore.Store
	clones []*memstore.Clone
	skew   []time.Duration
	step   int
	now    time.Time // the simulated time of this step, before skew
	tick   time.Duration

	faults *injector
	led    *ledger
	wl     *wideLedger

	// The widened run's: the fake GitHub and its client, and the pushes
	// queued to land later.
	ghServer *ghprtest.Server
	gh       *ghpr.Client
	late     []latePush
	claimer  string // the session an explicit claim of this step is for
	leases   leaseLedger
	cl       *contLedger
	log      *sha256Log
	rep      *Report
}

// Run runs steps (from Generate, or a shrunk list) with cfg's setup.
func Run(ctx context.Context, cfg Config, steps []Step) *Report {
	cfg.defaults()
	runMu.Lock()
	defer runMu.Unlock()
	prevID, prevSleep := baton.IDSource, teamsync.Sleep
	baton.IDSource = seededReader{rand.New(rand.NewPCG(cfg.Seed, 0x1d))}
	teamsync.Sleep = func(time.Duration) {}
	simdefect.Set(cfg.Defect)
	defer func() {
		baton.IDSource, teamsync.Sleep = prevID, prevSleep
		simdefect.Set("")
	}()

	start := time.Now()
	w := &world{
		cfg:    cfg,
		now:    time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		tick:   7 * time.Minute,
		led:    newLedger(),
		leases: newLeaseLedger(),
		cl:     newContLedger(),
		wl:     newWideLedger(),
		log:    newLog(cfg.Log),
		rep:    &Report{Seed: cfg.Seed, Faults: map[string]int{}, Outcomes: map[string]int{}},
	}
	w.faults = newInjector(w)
	if cfg.Wide {
		if err := w.setupGitHub(ctx); err != nil {
			w.violate(-1, "setup", err.Error())
			w.rep.Trace = w.log.digest()
			return w.rep
		}
		defer w.ghServer.Close()
	}
	if err := w.setup(ctx); err != nil {
		w.violate(-1, "setup", err.Error())
		w.rep.Trace = w.log.digest()
		return w.rep
	}
	for i, s := range steps {
		if ctx.Err() != nil {
			break
		}
		w.step = i
		w.now = w.now.Add(w.tick)
		w.deliverLate(ctx, i)
		w.runStep(ctx, i, s)
		w.rep.Steps++
		w.checkStep(ctx, i)
		if cfg.StopAtFirst && len(w.rep.Violations) > 0 {
			break
		}
	}
	if ctx.Err() == nil && !(cfg.StopAtFirst && len(w.rep.Violations) > 0) {
		w.finish(ctx)
	}
	w.rep.Elapsed = time.Since(start)
	w.rep.Trace = w.log.digest()
	return w.rep
}

func (w *world) setup(ctx context.Context) error {
	w.net = memstore.NewNetwork()
	var err error
	if w.origin, err = w.net.NewRepository(remoteURL, ""); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(w.cfg.Seed, 0x5e7))
	for i := 0; i < w.cfg.Clones; i++ {
		var c *memstore.Clone
		if w.cfg.Solo {
			// No remote: the clone's repository stands where the
			// remote's does in every check.
			s, err := memstore.New("")
			if err == nil {
				c, err = memstore.NewClone(s, fmt.Sprintf("/mem/c%d", i), w.net)
			}
			if err != nil {
				return err
			}
			w.origin = s
		} else if c, err = w.net.NewClone(remoteURL, fmt.Sprintf("/mem/c%d", i)); err != nil {
			return err
		}
		// The writer id refstore.WriterID would draw from crypto/rand.
		if err := c.Local().Write(ctx, "writer", []byte(fmt.Sprintf("w%d", i))); err != nil {
			return err
		}
		c.Configure("user.name", "sim")
		c.Configure("user.email", "sim@example.com")
		w.clones = append(w.clones, c)
		var skew time.Duration
		if w.cfg.SkewHours > 0 && i > 0 {
			skew = time.Duration(r.IntN(2*w.cfg.SkewHours+1)-w.cfg.SkewHours) * time.Hour
		}
		w.skew = append(w.skew, skew)
	}
	w.net.SetFaults(w.faults.remote)
	return nil
}

func (w *world) violate(step int, kind, what string) {
	v := Violation{Step: step, Kind: kind, What: what}
	w.rep.Violations = append(w.rep.Violations, v)
	w.log.add("VIOLATION " + v.String())
}

// sha256Log is the op log: its digest names the run.
type sha256Log struct {
	h   interface{ Write([]byte) (int, error) }
	sum func() []byte
	out func(string)
}

func newLog(out func(string)) *sha256Log {
	h := sha256.New()
	return &sha256Log{h: h, sum: func() []byte { return h.Sum(nil) }, out: out}
}

func (l *sha256Log) add(line string) {
	l.h.Write([]byte(line))
	l.h.Write([]byte{'\n'})
	if l.out != nil {
		l.out(line)
	}
}

func (l *sha256Log) digest() string { return hex.EncodeToString(l.sum()) }

// short trims an error for the log: its first line, at most 160 bytes.
func short(err error) string {
	if err == nil {
		return "ok"
	}
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}

var _ refstore.Clone = (*faulty)(nil)
