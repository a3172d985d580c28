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
	h, err := newHarness(ctx, binary(t), "test", 2)
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
		`(?m)^soak: ops=(\d+) lost=\d+ twice=\d+ dismissed-and-delivered=\d+ false-notices=\d+ false-lost-claims=\d+ unclear=\d+( \(reported-conflicts=\d+\))?$`,
		`(?m)^soak-state: fsck-failures=\d+ locks-left=\d+ dangling-refs=\d+$`,
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
