// Command soak is the "Figures" benchmark of git-handoff's promise that a
// baton is never lost and never delivered twice: real `git handoff`
// processes on four clones of one bare remote (whose pre-receive hook
// stalls and refuses pushes at random), with the status page and the MCP
// server as writers too, contending on the same batons while `git gc`,
// `git gc --prune=now` and `git pack-refs --all` run alongside, and then
// random `kill -9` trials. It prints one line of figures for each part,
// every figure with goal 0:
//
//	soak: ops=1234 lost=0 twice=0 dismissed-and-delivered=0 false-notices=0 false-lost-claims=0 unkept=0 unclear=0
//	soak-state: fsck-failures=0 locks-left=0 dangling-refs=0 unanswerable-sessions=0
//	kill: trials=200 interrupted=150 fsck-failures=0 next-command-failures=0 locks-left=0 dangling-refs=0 lost=0 twice=0 dismissed-and-delivered=0 false-notices=0 false-lost-claims=0 unclear=0
//
// What each figure counts is defined on Account (account.go). With
// -strict it exits 1 when any figure is not zero.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

type config struct {
	bin      string
	duration time.Duration
	procs    int
	kills    int
	maxDelay time.Duration
	seed     uint64
	details  int
	keep     bool
	noMaint  bool
	clones   int           // clones of the remote (at least 2)
	stall    time.Duration // the remote's pre-receive hook sleeps up to this (0: no hook)
	refuse   int           // and refuses this percentage of pushes
	web      bool          // a status page (git handoff serve) dismissing batons
	mcp      bool          // an MCP server (git handoff mcp) starting sessions and cancelling
	prune    bool          // git gc --prune=now among the maintenance (on the remote too)
	retire   bool          // sync --retire among the operations
	// retention is git config handoff.retention in every clone ("": git
	// handoff's default, a week): how long a dismissed baton can be
	// undone before it retires. Every other final record retires at the
	// first sync that sees it, whatever this says.
	retention string
	skew      int    // hours ahead of the real clock for one clone's commands (0: none)
	format    string // the repositories' formats (newHarness)
	server    bool   // the remote's receive-pack outlives a group kill (newHarness)
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "./bin/git-handoff", "the git-handoff binary under test")
	flag.DurationVar(&c.duration, "duration", 60*time.Second, "how long the soak runs")
	flag.IntVar(&c.procs, "procs", 8, "worker processes in the soak")
	flag.IntVar(&c.kills, "kill", 200, "kill -9 trials (0: none)")
	flag.DurationVar(&c.maxDelay, "max-delay", 120*time.Millisecond, "longest delay before a kill (each kind is killed within its usual run time, up to this)")
	flag.Uint64Var(&c.seed, "seed", 0, "random seed (0: from the clock); timing is never reproducible, the choices are")
	flag.IntVar(&c.details, "details", 10, "detail lines printed per figure")
	flag.BoolVar(&c.noMaint, "no-gc", false, "run the soak without git gc and pack-refs alongside")
	flag.IntVar(&c.clones, "clones", 4, "clones of the one remote (at least 2)")
	flag.DurationVar(&c.stall, "stall", 2*time.Second, "the remote's pre-receive hook holds each push a random time up to this (0: no hook)")
	flag.IntVar(&c.refuse, "refuse", 10, "percentage of pushes the remote's pre-receive hook refuses (exit 1)")
	flag.BoolVar(&c.web, "web", true, "run the status page (git handoff serve) as a writer: DELETE /api/handoffs/{id}")
	flag.BoolVar(&c.mcp, "mcp", true, "run an MCP server (git handoff mcp) as a writer: session_start, cancel_handoff")
	flag.BoolVar(&c.prune, "prune", true, "git gc --prune=now alongside (with -no-gc: none)")
	flag.BoolVar(&c.retire, "retire", true, "`sync --retire` among the soak's operations (half of the syncs)")
	flag.StringVar(&c.retention, "retention", "1s", "git config handoff.retention in every clone: the undo window of a dismissed baton (\"\": unset, a week)")
	flag.IntVar(&c.skew, "skew", 0, "one clone's (a's) git-handoff commands run with the clock this many `hours` ahead (GIT_HANDOFF_NOW)")
	flag.StringVar(&c.format, "format", "", "the repositories' formats: \"\" (git's default), reftable, sha256 or reftable-sha256 (git 2.45 or later)")
	_, setsid := exec.LookPath("setsid")
	flag.BoolVar(&c.server, "server", setsid == nil, "the remote's receive-pack runs in a session of its own (setsid), so a group kill is the client's crash alone, as with a real server (default: when setsid is on PATH)")
	flag.BoolVar(&c.keep, "keep", false, "keep the scratch repositories and ledgers (always kept when a figure is not zero)")
	strict := flag.Bool("strict", false, "exit 1 when any figure is not zero")
	again := flag.String("account", "", "only account again for a kept scratch `DIR`: its ledger and repositories, every detail")
	flag.Parse()
	if *again != "" {
		if err := reaccount(context.Background(), *again, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		return
	}
	if c.seed == 0 {
		c.seed = uint64(time.Now().UnixNano())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bad, err := run(ctx, c, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	if *strict && bad {
		os.Exit(1)
	}
}

// run runs the soak, then the kill trials, printing the figures; bad
// reports whether any figure is not zero.
func run(ctx context.Context, c config, w io.Writer) (bad bool, err error) {
	if c.clones < 2 {
		c.clones = 2
	}
	switch c.format {
	case "", "reftable", "sha256", "reftable-sha256":
	default:
		return true, fmt.Errorf("-format %q: want reftable, sha256 or reftable-sha256", c.format)
	}
	fmt.Fprintf(w, "soak: binary %s, %v, %d workers, %d clones, %d kill trials, hook stall<=%v refuse=%d%%, web=%v mcp=%v prune=%v retire=%v retention=%q skew=%dh format=%q server=%v, seed %d\n",
		c.bin, c.duration, c.procs, c.clones, c.kills, c.stall, c.refuse, c.web, c.mcp, c.prune, c.retire, c.retention, c.skew, c.format, c.server, c.seed)
	if c.duration > 0 {
		b, err := soak(ctx, c, w)
		if err != nil {
			return true, err
		}
		bad = bad || b
	}
	if c.kills > 0 {
		b, err := killTrials(ctx, c, w)
		if err != nil {
			return true, err
		}
		bad = bad || b
	}
	return bad, nil
}

// keys are the owner+branch pairs every worker picks from: few enough
// that workers keep meeting on the same batons.
// The clones' own identity on main is among them: the MCP server and a
// session started without --owner act for it.
var keys = [][2]string{{"alice", "main"}, {"alice", "topic"}, {"bob", "main"}, {"bob", "topic"}, {"soak@example.com", "main"}}

func soak(ctx context.Context, c config, w io.Writer) (bool, error) {
	h, err := newHarness(ctx, c.bin, "soak", c.clones, c.format, c.server)
	if err != nil {
		return true, err
	}
	defer h.close()
	if c.retention != "" {
		// Final records retire at the first sync that sees them, and with
		// 1s dismissed batons too: syncs race the other clones' work on
		// them.
		for _, name := range h.names {
			if r := h.git(ctx, h.clones[name], "config", "handoff.retention", c.retention); r.exit != 0 {
				return true, fmt.Errorf("git config handoff.retention in %s: %s", name, r.stderr)
			}
		}
	}
	if c.skew != 0 {
		h.skew, h.skewClone = time.Duration(c.skew)*time.Hour, h.names[0]
	}
	if c.stall > 0 || c.refuse > 0 {
		if err := h.hook(c.stall, c.refuse); err != nil {
			return true, err
		}
	}
	deadline := time.Now().Add(c.duration)
	stopMaint := make(chan struct{})
	var maintWG, workWG sync.WaitGroup
	var maintMu sync.Mutex
	maint := map[string]int{}
	var maintFail []string
	maintDirs := h.dirs()
	if c.prune {
		// The remote is where the arbiter's history lives: gc --prune=now
		// there too.
		maintDirs = append(maintDirs, h.remote)
	}
	for _, dir := range maintDirs {
		if c.noMaint {
			break
		}
		maintWG.Add(1)
		go func(dir string) {
			defer maintWG.Done()
			for i := 0; ; i++ {
				select {
				case <-stopMaint:
					return
				case <-ctx.Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
				args := []string{"pack-refs", "--all"}
				kind := "pack-refs"
				switch {
				case c.prune && i%4 == 3:
					args, kind = []string{"gc", "--quiet", "--prune=now"}, "gc-prune-now"
				case i%2 == 1:
					args, kind = []string{"gc", "--quiet"}, "gc"
				}
				if dir == h.remote {
					kind = "remote-" + kind
				}
				r := h.git(ctx, dir, args...)
				if kind == "gc-prune-now" {
					// In the ledger: a record lost to git's race of
					// gc --prune=now with a writer names the prune that
					// overlapped it (Account).
					h.record(Op{Kind: kind, Clone: h.nameOf(dir), Start: r.start, Finish: r.finish, Exit: r.exit})
				}
				maintMu.Lock()
				maint[kind]++
				if r.exit != 0 {
					maintFail = append(maintFail, fmt.Sprintf("git %s in %s: exit %d: %s", args[0], dir, r.exit, firstLines(r.stderr, 2)))
				}
				maintMu.Unlock()
			}
		}(dir)
	}
	for i := 0; i < c.procs; i++ {
		workWG.Add(1)
		go func(wk int) {
			defer workWG.Done()
			worker(ctx, h, rand.New(rand.NewPCG(c.seed, uint64(wk))), wk, deadline, c.retire)
		}(i)
	}
	var writerFail []string
	var writerMu sync.Mutex
	writerErr := func(err error) {
		if err != nil {
			writerMu.Lock()
			writerFail = append(writerFail, "writer: "+err.Error())
			writerMu.Unlock()
		}
	}
	if c.web {
		workWG.Add(1)
		go func() {
			defer workWG.Done()
			writerErr(webWriter(ctx, h, rand.New(rand.NewPCG(c.seed, 0x776562)), h.names[2%len(h.names)], deadline))
		}()
	}
	if c.mcp {
		workWG.Add(1)
		go func() {
			defer workWG.Done()
			writerErr(mcpWriter(ctx, h, rand.New(rand.NewPCG(c.seed, 0x6d6370)), h.names[len(h.names)-1], deadline))
		}()
	}
	workWG.Wait()
	close(stopMaint)
	maintWG.Wait()
	if ctx.Err() != nil {
		return true, ctx.Err()
	}

	// The remote stops stalling and refusing: the final syncs must join
	// everything.
	h.hook(0, 0)
	crossEnds := crossEnd(ctx, h)
	finalSyncs := settle(ctx, h)
	var fsckFail []string
	for _, d := range append(h.dirs(), h.remote) {
		if f := h.fsck(ctx, d); f != "" {
			fsckFail = append(fsckFail, f)
		}
	}
	locks := h.locks()
	seen, err := h.observe(ctx)
	if err != nil {
		return true, err
	}
	seen = append(seen, h.dangling(ctx)...)
	ops := h.snapshot()
	f := Account(ops, seen)
	unanswered := unanswerable(ctx, h, ops)

	kinds := map[string]int{}
	for _, op := range ops {
		kinds[op.Kind]++
	}
	var kl []string
	for _, k := range []string{"end", "claim", "start", "cancel", "dismiss", "list", "sync", "retire", "web-dismiss", "mcp-start", "mcp-cancel"} {
		kl = append(kl, fmt.Sprintf("%s=%d", k, kinds[k]))
	}
	won, delivered := 0, 0
	for _, op := range ops {
		if op.Won {
			won++
			delivered += len(op.Delivered)
		}
	}
	refused := 0
	for _, op := range ops {
		if strings.Contains(op.Stderr, refusedMark) || strings.Contains(op.Stderr, "pre-receive hook declined") {
			refused++
		}
	}
	fmt.Fprintf(w, "soak-ops: %s claims-won=%d gc=%d gc-prune-now=%d pack-refs=%d remote-gc-prune-now=%d maint-failures=%d writer-failures=%d told-refused=%d cross-ends=%d final-syncs=%s\n",
		strings.Join(kl, " "), won, maint["gc"], maint["gc-prune-now"], maint["pack-refs"], maint["remote-gc-prune-now"], len(maintFail), len(writerFail), refused, crossEnds, finalSyncs)
	fmt.Fprintf(w, "soak: ops=%d lost=%d twice=%d dismissed-and-delivered=%d false-notices=%d false-lost-claims=%d unkept=%d unclear=%d (reported-conflicts=%d, prune-raced=%d)\n",
		commands(ops), f.Lost, f.Twice, f.DismissedDelivered, f.FalseNotices, f.FalseLost, f.Unkept, f.Unclear, f.Conflicts, f.PruneRaced)
	fmt.Fprintf(w, "soak-state: fsck-failures=%d locks-left=%d dangling-refs=%d unanswerable-sessions=%d\n", len(fsckFail), len(locks), f.Dangling, len(unanswered))
	printTakenTwice(w, c.details, h.receivedDir())
	printDetails(w, c.details, append(f.Details, unanswered...), fsckFail, locks, maintFail, writerFail)
	bad := f.Lost+f.Twice+f.DismissedDelivered+f.FalseNotices+f.Dangling+f.FalseLost+f.Unkept+f.Unclear+len(fsckFail)+len(locks)+len(unanswered) > 0
	finish(w, h, c.keep || bad)
	return bad, nil
}

// unanswerable asks every clone, once the final syncs are done, for every
// session a start reported starting (`git handoff session show ID
// --json`): live or retired to the archive anywhere, each must be found
// from every clone (issue 36). It returns one line per miss.
func unanswerable(ctx context.Context, h *harness, ops []Op) []string {
	seen := map[string]bool{}
	var ids []string
	for _, op := range ops {
		if (op.Kind == "start" || op.Kind == "mcp-start") && op.Exit == 0 && !op.Killed && op.Session != "" && !seen[op.Session] {
			seen[op.Session] = true
			ids = append(ids, op.Session)
		}
	}
	sort.Strings(ids)
	var (
		out []string
		mu  sync.Mutex
		wg  sync.WaitGroup
	)
	for _, name := range h.names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, id := range ids {
				r := h.exec(ctx, h.clones[name], 0, "", false, h.bin, "session", "show", id, "--json")
				if r.exit != 0 {
					mu.Lock()
					out = append(out, fmt.Sprintf("unanswerable: session %s, from clone %s: %s", id, name, tell(r.stderr, 2)))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	sort.Strings(out)
	return out
}

// worker is one loop of real git-handoff processes on random clones and
// keys until the deadline.
// With retire, half the syncs are `sync --retire` (kind retire).
func worker(ctx context.Context, h *harness, rng *rand.Rand, wk int, deadline time.Time, retire bool) {
	started := map[[2]string]string{} // a session this worker started, by key, for its end
	for time.Now().Before(deadline) && ctx.Err() == nil {
		clone := h.names[rng.IntN(len(h.names))]
		k := keys[rng.IntN(len(keys))]
		who := []string{"--owner", k[0], "--branch", k[1]}
		op := Op{Clone: clone, Owner: k[0], Branch: k[1]}
		switch p := rng.IntN(100); {
		case p < 30:
			op.Kind, op.Marker = "end", h.marker()
			sess := started[k]
			delete(started, k)
			if sess == "" {
				sess = "e-" + strings.TrimPrefix(op.Marker, "soak.")
			}
			op.Args = append(append([]string{"end", "--session", sess}, who...), "--next", op.Marker, "--json")
		case p < 50:
			op.Kind, op.Session = "claim", "c-"+strings.TrimPrefix(h.marker(), "soak.")
			op.Args = append(append([]string{"claim", "--session", op.Session}, who...), "--json")
		case p < 65:
			op.Kind, op.Session = "start", "s-"+strings.TrimPrefix(h.marker(), "soak.")
			op.Args = append(append([]string{"start", "--session", op.Session}, who...), "--json")
		case p < 72:
			op.Kind = "cancel"
			op.Args = append(append([]string{"cancel"}, who...), "--json")
		case p < 78:
			id := h.recentBaton(rng)
			if id == "" {
				continue
			}
			op.Kind, op.Owner, op.Branch, op.BatonID = "dismiss", "", "", id
			op.Args = []string{"dismiss", id, "--json"}
		case p < 86:
			op.Kind, op.Owner, op.Branch = "list", "", ""
			op.Args = []string{"list", "--all", "--json"}
		case retire && p >= 93:
			op.Kind, op.Owner, op.Branch = "retire", "", ""
			op.Args = []string{"sync", "--retire", "--json"}
		default:
			op.Kind, op.Owner, op.Branch = "sync", "", ""
			op.Args = []string{"sync", "--json"}
		}
		op = h.handoff(ctx, op, 0, false)
		if op.Kind == "start" && op.Exit == 0 {
			started[k] = op.Session
		}
	}
}

// crossEnd ends, on the next clone, the session each clone's worktree is
// bound to, and claims the baton it leaves there (ledger kinds sync, end
// and claim, judged as the others), so that the final syncs bring each
// clone its own session's end from elsewhere, final and retired: the
// binding must go with it. (A session started on b and ended on c retired
// at b's next sync and left b's refs/worktree/ao/session naming a ref that
// was gone: git fsck failed there, and dangling-refs counts it.) It
// returns how many sessions it ended and whose baton it claimed.
func crossEnd(ctx context.Context, h *harness) int {
	n := 0
	for i, name := range h.names {
		b := h.git(ctx, h.clones[name], "symbolic-ref", "-q", "refs/worktree/ao/session")
		if b.exit != 0 {
			continue
		}
		v := h.git(ctx, h.clones[name], "cat-file", "-p", strings.TrimSpace(b.stdout))
		var rec struct{ ID, Owner, Branch, Status string }
		if v.exit != 0 || json.Unmarshal([]byte(v.stdout), &rec) != nil || rec.Status != "active" {
			continue
		}
		other := h.names[(i+1)%len(h.names)]
		for _, c := range []string{name, other} {
			h.handoff(ctx, Op{Kind: "sync", Clone: c, Args: []string{"sync", "--json"}}, 0, false)
		}
		who := []string{"--owner", rec.Owner, "--branch", rec.Branch}
		end := Op{Kind: "end", Clone: other, Owner: rec.Owner, Branch: rec.Branch, Marker: h.marker()}
		end.Args = append(append([]string{"end", "--session", rec.ID}, who...), "--next", end.Marker, "--json")
		if end = h.handoff(ctx, end, 0, false); end.Exit != 0 {
			continue
		}
		claim := Op{Kind: "claim", Clone: other, Owner: rec.Owner, Branch: rec.Branch, Session: "c-" + strings.TrimPrefix(h.marker(), "soak.")}
		claim.Args = append(append([]string{"claim", "--session", claim.Session}, who...), "--json")
		if claim = h.handoff(ctx, claim, 0, false); claim.Exit == 0 {
			n++
		}
	}
	return n
}

// settle syncs every clone, then every one but the last again, so that
// all clones and the remote hold the join of everything; it returns the
// exit codes.
func settle(ctx context.Context, h *harness) string {
	var codes []string
	order := append(append([]string(nil), h.names...), h.names[:len(h.names)-1]...)
	for _, clone := range order {
		op := h.handoff(ctx, Op{Kind: "sync", Clone: clone, Args: []string{"sync", "--json"}}, 0, false)
		codes = append(codes, fmt.Sprint(op.Exit))
	}
	return strings.Join(codes, ",")
}

// printTakenTwice says how many times the remote took two pushes leased
// on one version of a baton ref (leasesTakenTwice), and the first n.
func printTakenTwice(w io.Writer, n int, received string) {
	twice := leasesTakenTwice(received)
	fmt.Fprintf(w, "soak-remote: leases-taken-twice=%d (shown, not judged: the remote's answer, not git-handoff's)\n", len(twice))
	for i, t := range twice {
		if i == n {
			fmt.Fprintf(w, "  (%d more: %s/chain)\n", len(twice)-n, received)
			break
		}
		fmt.Fprintf(w, "  taken-twice: %s\n", t)
	}
}

func printDetails(w io.Writer, n int, lists ...[]string) {
	for _, l := range lists {
		byKind := map[string]int{}
		for _, d := range l {
			kind, _, _ := strings.Cut(d, ":")
			if byKind[kind] < n {
				fmt.Fprintf(w, "  %s\n", d)
			}
			byKind[kind]++
		}
		var more []string
		for k, c := range byKind {
			if c > n {
				more = append(more, fmt.Sprintf("%d more %s", c-n, k))
			}
		}
		sort.Strings(more)
		if len(more) > 0 {
			fmt.Fprintf(w, "  (%s: see the ledger)\n", strings.Join(more, ", "))
		}
	}
}

func finish(w io.Writer, h *harness, keep bool) {
	if keep {
		fmt.Fprintf(w, "  kept %s (ledger.jsonl: one line per command)\n", h.dir)
		return
	}
	os.RemoveAll(h.dir)
}

// reaccount reads a kept run's ledger and repositories and prints its
// figures with every detail.
func reaccount(ctx context.Context, dir string, w io.Writer) error {
	h := &harness{dir: dir, remote: filepath.Join(dir, "remote.git"), clones: map[string]string{}}
	for _, c := range cloneNames(26) {
		if _, err := os.Stat(filepath.Join(dir, c, ".git")); err == nil {
			h.names = append(h.names, c)
			h.clones[c] = filepath.Join(dir, c)
		}
	}
	h.env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+filepath.Join(dir, "gitconfig"), "GIT_CONFIG_NOSYSTEM=1")
	b, err := os.ReadFile(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		return err
	}
	var ops []Op
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var op Op
		if err := json.Unmarshal([]byte(l), &op); err != nil {
			return fmt.Errorf("reading the ledger: %w", err)
		}
		ops = append(ops, op)
	}
	seen, err := h.observe(ctx)
	if err != nil {
		return err
	}
	seen = append(seen, h.dangling(ctx)...)
	f := Account(ops, seen)
	fmt.Fprintf(w, "account: ops=%d lost=%d twice=%d dismissed-and-delivered=%d false-notices=%d dangling-refs=%d false-lost-claims=%d unkept=%d unclear=%d (reported-conflicts=%d, prune-raced=%d)\n",
		commands(ops), f.Lost, f.Twice, f.DismissedDelivered, f.FalseNotices, f.Dangling, f.FalseLost, f.Unkept, f.Unclear, f.Conflicts, f.PruneRaced)
	for _, d := range f.Details {
		fmt.Fprintf(w, "  %s\n", d)
	}
	printTakenTwice(w, 1<<30, h.receivedDir())
	return nil
}
