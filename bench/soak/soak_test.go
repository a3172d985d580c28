package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// binary builds git-handoff once for the tests of this package.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds git-handoff and runs real git: not with -short")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "git-handoff-soak-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "git-handoff")
		out, err := exec.Command("go", "build", "-o", builtBin, "../../cmd/git-handoff").CombinedOutput()
		if err != nil {
			buildErr = err
			builtBin = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building git-handoff: %v: %s", buildErr, builtBin)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" && buildErr == nil {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// TestObserveRealRepositories checks the accounting against what git
// really holds: a baton written by the real end and then deleted behind
// the tool's back everywhere is lost; one claimed at the remote by a
// session told it lost is a false-lost claim.
func TestObserveRealRepositories(t *testing.T) {
	ctx := context.Background()
	h, err := newHarness(ctx, binary(t), "test", 2, "", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.close(); os.RemoveAll(h.dir) })
	figures := func() Figures {
		t.Helper()
		seen, err := h.observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return Account(h.snapshot(), seen)
	}
	who := []string{"--owner", "alice", "--branch", "main"}
	m := h.marker()
	e := h.handoff(ctx, Op{Kind: "end", Clone: "a", Owner: "alice", Branch: "main", Marker: m,
		Args: append(append([]string{"end", "--session", "e1"}, who...), "--next", m, "--json")}, 0, false)
	if e.Exit != 0 || e.Unclear != "" {
		t.Fatalf("end: %+v", e)
	}
	h.handoff(ctx, Op{Kind: "sync", Clone: "a", Args: []string{"sync", "--json"}}, 0, false)
	if f := figures(); f.Lost+f.Twice+f.FalseLost+f.Unclear != 0 {
		t.Fatalf("a waiting baton: %+v", f)
	}

	ref := "refs/ao/handoffs/private/alice/main"
	for _, dir := range []string{h.clones["a"], h.remote} {
		if r := h.git(ctx, dir, "update-ref", "-d", ref); r.exit != 0 {
			t.Fatalf("deleting %s in %s: %s", ref, dir, r.stderr)
		}
	}
	if f := figures(); f.Lost != 1 {
		t.Fatalf("a baton deleted everywhere: lost=%d, want 1 (%v)", f.Lost, f.Details)
	}

	// The remote takes a claimed version of it, by a session that was
	// told exit 5.
	claimed := `{"schema":"handoff/v1","id":"h-x","owner":"alice","branch":"main","nextSteps":["` + m + `"],"claimed":true,"claimedBySession":"c9"}`
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = h.remote, h.env, strings.NewReader(claimed)
	id, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if r := h.git(ctx, h.remote, "update-ref", ref, strings.TrimSpace(string(id))); r.exit != 0 {
		t.Fatal(r.stderr)
	}
	h.record(Op{Kind: "claim", Clone: "b", Owner: "alice", Branch: "main", Session: "c9", Exit: 5})
	if f := figures(); f.Lost != 1 || f.FalseLost != 1 {
		t.Fatalf("claimed at the remote by a session told lost: lost=%d false-lost=%d, want 1 1 (%v)", f.Lost, f.FalseLost, f.Details)
	}
}

// TestSoakSmoke runs the whole harness briefly: it must run operations
// and trials and print every figure line (what the figures are on this
// code is the benchmark's business, not this test's).
func TestSoakSmoke(t *testing.T) {
	bin := binary(t)
	var out bytes.Buffer
	_, err := run(context.Background(), config{bin: bin, duration: 5 * time.Second, procs: 4, kills: 5,
		maxDelay: 30 * time.Millisecond, seed: 1, details: 3, clones: 4, stall: 500 * time.Millisecond, refuse: 10,
		web: true, mcp: true, prune: true}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	text := out.String()
	for _, re := range []string{
		`(?m)^soak: ops=(\d+) lost=\d+ twice=\d+ dismissed-and-delivered=\d+ false-notices=\d+ false-lost-claims=\d+ unkept=\d+ unclear=\d+ \(reported-conflicts=\d+, prune-raced=\d+\)$`,
		`(?m)^soak-state: fsck-failures=\d+ locks-left=\d+ dangling-refs=\d+ unanswerable-sessions=\d+$`,
		`(?m)^kill: trials=(5) interrupted=\d+ fsck-failures=\d+ next-command-failures=\d+ locks-left=\d+ dangling-refs=\d+ lost=\d+ twice=\d+ dismissed-and-delivered=\d+ false-notices=\d+ false-lost-claims=\d+ unclear=\d+( \(reported-conflicts=\d+\))?$`,
		`(?m)^soak-ops: .*web-dismiss=\d+ mcp-start=(\d+) mcp-cancel=\d+ `,
	} {
		m := regexp.MustCompile(re).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no line matching %s in:\n%s", re, text)
		}
		if len(m) > 1 {
			if n, _ := strconv.Atoi(m[1]); n == 0 {
				t.Errorf("%s: zero operations:\n%s", re, text)
			}
		}
	}
	// Kept scratch directories are for people; the test cleans up.
	for _, l := range regexp.MustCompile(`kept (\S+)`).FindAllStringSubmatch(text, -1) {
		os.RemoveAll(l[1])
	}
	t.Log(text)
}

// TestObserveRetiredHistory is the shape of seed 11's false notice: a
// claim the remote accepted, replaced by the next end, whose ref then
// retired. Retiring deletes the ref and, with it, its reflog in every
// repository, and gc --prune=now removes the claimed blob, which no ref
// reaches any more. The claim must still be seen: in the remote's log of
// what it accepted, and as the earlier version the archived record names.
func TestObserveRetiredHistory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h, err := newHarness(ctx, binary(t), "test", 2, "", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.close(); os.RemoveAll(h.dir) })
	who := []string{"--owner", "alice", "--branch", "topic"}
	run := func(clone, kind string, args ...string) Op {
		t.Helper()
		op := h.handoff(ctx, Op{Kind: kind, Clone: clone, Owner: "alice", Branch: "topic", Args: append(args, "--json")}, 0, false)
		if op.Exit != 0 || op.Unclear != "" {
			t.Fatalf("%s on %s: %+v", kind, clone, op)
		}
		return op
	}
	m1, m2 := h.marker(), h.marker()
	first := h.handoff(ctx, Op{Kind: "end", Clone: "a", Owner: "alice", Branch: "topic", Marker: m1,
		Args: append(append([]string{"end", "--session", "e1"}, who...), "--next", m1, "--json")}, 0, false)
	if first.Exit != 0 || first.BatonID == "" {
		t.Fatalf("end: %+v", first)
	}
	run("a", "sync", "sync")
	if op := run("a", "claim", append([]string{"claim", "--session", "c22"}, who...)...); !op.Won {
		t.Fatalf("claim: not won: %+v", op)
	}
	run("b", "sync", "sync")
	if op := h.handoff(ctx, Op{Kind: "end", Clone: "b", Owner: "alice", Branch: "topic", Marker: m2,
		Args: append(append([]string{"end", "--session", "e2"}, who...), "--next", m2, "--json")}, 0, false); op.Exit != 0 {
		t.Fatalf("end on b: %+v", op)
	}
	run("b", "cancel", append([]string{"cancel"}, who...)...)
	run("b", "sync", "sync")
	run("a", "sync", "sync") // a's tip moves on too: no clone holds the claimed version
	// Only now may records retire: the claimed version was replaced
	// before any sync could retire it.
	for _, c := range h.names {
		if r := h.git(ctx, h.clones[c], "config", "handoff.retention", "1s"); r.exit != 0 {
			t.Fatal(r.stderr)
		}
	}
	time.Sleep(1100 * time.Millisecond) // older than the retention of 1s
	run("b", "retire", "sync", "--retire")
	run("a", "retire", "sync", "--retire")
	ref := "refs/ao/handoffs/private/alice/topic"
	for _, dir := range append(h.dirs(), h.remote) {
		if r := h.git(ctx, dir, "rev-parse", "-q", "--verify", ref); r.exit == 0 {
			t.Fatalf("%s still holds %s: the baton did not retire", dir, ref)
		}
		if r := h.git(ctx, dir, "gc", "-q", "--prune=now"); r.exit != 0 {
			t.Fatalf("git gc in %s: %s", dir, r.stderr)
		}
	}

	seen, err := h.observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var remote, prev bool
	for _, s := range seen {
		if s.ID == first.BatonID && s.Claimed && s.ClaimedBy == "c22" {
			remote = remote || s.Where == "remote-reflog"
			prev = prev || s.History && strings.HasSuffix(s.Where, "-prev")
		}
	}
	if !remote {
		t.Errorf("the claim by c22 of %s is not in the remote's history: %+v", first.BatonID, seen)
	}
	// The archived tombstone names the claimed version it replaced only
	// where gc kept that blob; that is not asked of git here.
	t.Logf("claim found as an earlier version of a record: %v", prev)
	h.record(Op{Kind: "claim", Clone: "a", Owner: "alice", Branch: "topic", Session: "c43", Exit: 5,
		Notices: []string{"claiming the baton: baton " + first.BatonID + " was already claimed by session c22 at 2026-12-06T07:12:21Z",
			"baton " + first.BatonID + " was won by session c22, which stopped before receiving it: delivered to session s6 instead"}})
	if f := Account(h.snapshot(), seen); f.FalseNotices+f.Lost+f.Twice+f.FalseLost+f.Unclear != 0 {
		t.Errorf("figures: %+v\n%s", f, strings.Join(f.Details, "\n"))
	}
}
