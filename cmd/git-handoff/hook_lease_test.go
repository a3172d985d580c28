package main

import (
	"strings"
	"testing"
	"time"
)

// The agent's end-of-turn hook renews the session's leases at the arbiter
// once half their time to live has passed, and writes nothing before.
func TestStopHookRenewsLeases(t *testing.T) {
	deadline(t, leaseDeadline)
	c := newCLI(t)
	tm := newTeam(c, "a")
	a := tm.clones["a"]
	atMin := func(m int) []string { return clockAt(leaseBase, time.Duration(m)*time.Minute) }
	mustAt := func(env []string, args ...string) string {
		t.Helper()
		out, stderr, code := c.run(a, env, args...)
		if code != 0 {
			t.Fatalf("git %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		return out
	}
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
