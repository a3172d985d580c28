package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// atMin is the environment of a command run m minutes after leaseBase.
func atMin(m int) []string { return clockAt(leaseBase, time.Duration(m)*time.Minute) }

// mustAtIn runs git in dir with env's clock, failing the test unless it
// exits 0, and returns its output.
func mustAtIn(t *testing.T, c *procs, dir string) func(env []string, args ...string) string {
	return func(env []string, args ...string) string {
		t.Helper()
		out, stderr, code := c.run(dir, env, args...)
		if code != 0 {
			t.Fatalf("git %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		return out
	}
}

// The agent's end-of-turn hook renews the session's leases at the arbiter
// once half their time to live has passed, and writes nothing before.
func TestStopHookRenewsLeases(t *testing.T) {
	deadline(t, leaseDeadline)
	c := newCLI(t)
	tm := newTeam(c, "a")
	a := tm.clones["a"]
	mustAt := mustAtIn(t, c, a)
	remoteLease := func() string {
		return strings.TrimSpace(c.must(tm.remote, "for-each-ref", "--format=%(objectname)", "refs/ao/leases/"))
	}
	mustAt(atMin(0), "handoff", "start", "--session", "s-a", "--harness", "claude-code")
	mustAt(atMin(0), "handoff", "lease", "take", "issue:9", "--ttl", "10m")
	taken := remoteLease()
	if taken == "" {
		t.Fatal("the arbiter holds no lease")
	}
	_, stderr, _ := c.run(a, atMin(4), "handoff", "hook", "agent", "claude-code", "stop")
	if got := remoteLease(); got != taken {
		t.Fatalf("renewed before half its TTL (%s -> %s); hook said %s", taken, got, stderr)
	}
	_, stderr, _ = c.run(a, atMin(6), "handoff", "hook", "agent", "claude-code", "stop")
	if got := remoteLease(); got == taken || strings.Contains(stderr, "not renewed") {
		t.Fatalf("not renewed at the arbiter past half its TTL; hook said %s", stderr)
	}
	out := mustAt(atMin(6), "handoff", "lease", "show", "issue:9", "--json")
	if !strings.Contains(out, `"renewedAt": "2030-01-01T12:06:00Z"`) && !strings.Contains(out, `"renewedAt":"2030-01-01T12:06:00Z"`) {
		t.Fatalf("renewedAt is not the hook's time:\n%s", out)
	}
}

// The agent's pre-tool hook renews the calling session's leases once half
// their time to live has passed, so that one turn longer than the TTL keeps
// them; it writes nothing before, never renews another session's lease, and
// its renewal changes nothing in its answer.
func TestPreToolHookRenewsLeases(t *testing.T) {
	deadline(t, leaseDeadline)
	c := newCLI(t)
	tm := newTeam(c, "a")
	a := tm.clones["a"]
	mustAt := mustAtIn(t, c, a)
	at := func(dir, ref string) string {
		return strings.TrimSpace(c.must(dir, "for-each-ref", "--format=%(objectname)", ref))
	}
	mustAt(atMin(0), "handoff", "start", "--session", "s-a", "--harness", "claude-code")
	mustAt(atMin(0), "handoff", "lease", "take", "issue:9", "--ttl", "10m")
	// Another session's lease, taken in this clone, due by the same clock.
	mustAt(atMin(0), "handoff", "lease", "take", "path:src/**", "--ttl", "10m", "--session", "s-b")
	const mine, theirs = "refs/ao/leases/issue/", "refs/ao/leases/path/"
	taken, other := at(tm.remote, mine), at(a, theirs)
	if taken == "" || other == "" || at(tm.remote, theirs) != other {
		t.Fatalf("leases not at the arbiter: %q %q", taken, other)
	}
	write := func(min int, file string) (string, string) {
		t.Helper()
		in := `{"session_id":"0b9c5a3e-1111-4222-8333-444455556666","cwd":` + strconv.Quote(a) +
			`,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":` + strconv.Quote(filepath.Join(a, file)) + `,"content":"x"}}`
		cmd := exec.Command("git", "handoff", "hook", "agent", "claude-code", "pre-tool-use")
		cmd.Dir, cmd.Env, cmd.Stdin = a, append(os.Environ(), atMin(min)...), strings.NewReader(in)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("pre-tool hook: %v\n%s", err, errb.String())
		}
		return out.String(), errb.String()
	}

	if out, stderr := write(4, "docs/a.md"); out != "" || at(tm.remote, mine) != taken || at(a, mine) != taken {
		t.Fatalf("before half the TTL: answered %q, lease %s -> %s here, %s at the arbiter; hook said %s", out, taken, at(a, mine), at(tm.remote, mine), stderr)
	}
	// Past half the TTL: a write the guard refuses renews all the same,
	// and the refusal stands.
	out, stderr := write(6, "src/x.go")
	if !strings.Contains(out, `"deny"`) || !strings.Contains(out, "src/x.go is leased to") {
		t.Fatalf("a write under another session's lease was answered %q (%s)", out, stderr)
	}
	renewed := at(tm.remote, mine)
	if renewed == taken || at(a, mine) != renewed || stderr != "" {
		t.Fatalf("not renewed at the arbiter past half its TTL (%s -> %s here, %s there); hook said %s", taken, at(a, mine), renewed, stderr)
	}
	if got := mustAt(atMin(6), "handoff", "lease", "show", "issue:9", "--json"); !regexp.MustCompile(`"renewedAt": ?"2030-01-01T12:06:00Z"`).MatchString(got) {
		t.Fatalf("renewedAt is not the hook's time:\n%s", got)
	}
	if at(a, theirs) != other || at(tm.remote, theirs) != other {
		t.Fatalf("session s-b's lease was written by s-a's hook")
	}
	// Renewed once: the next writes find nothing due.
	if out, stderr := write(7, "docs/a.md"); out != "" || at(tm.remote, mine) != renewed {
		t.Fatalf("renewed again a minute later: %q %s", out, stderr)
	}
	// A renewal that fails (the arbiter is gone) refuses nothing and says
	// why on stderr.
	if err := os.Rename(tm.remote, tm.remote+".gone"); err != nil {
		t.Fatal(err)
	}
	out, stderr = write(12, "docs/a.md")
	if out != "" || !strings.Contains(stderr, "renewing this session's leases") {
		t.Fatalf("a failed renewal: answered %q, said %q", out, stderr)
	}
}
