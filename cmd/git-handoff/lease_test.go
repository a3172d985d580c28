package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Leases with real processes of the built binary, real git and a bare
// remote (the arbiter). Clocks are pinned per process with
// GIT_HANDOFF_NOW, so one clone's clock can be hours off the other's and
// "one TTL later" needs no sleeping.

// leaseDeadline bounds each lease test.
const leaseDeadline = 4 * time.Minute

func deadline(t *testing.T, d time.Duration) {
	t.Helper()
	timer := time.AfterFunc(d, func() { panic(fmt.Sprintf("%s: still running after %s", t.Name(), d)) })
	t.Cleanup(func() { timer.Stop() })
}

// clockAt pins git-handoff's clock to base + d.
func clockAt(base time.Time, d time.Duration) []string {
	return []string{"GIT_HANDOFF_NOW=" + base.Add(d).UTC().Format(time.RFC3339)}
}

var leaseBase = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)

// Two clones race for one key, 15 times: exactly one wins each time, and
// the loser exits 5 naming the winner; the winner's release frees it at
// once for the next round.
func TestLeaseRace(t *testing.T) {
	deadline(t, leaseDeadline)
	c := newCLI(t)
	tm := newTeam(c, "a", "b")
	for round := range 15 {
		type result struct {
			session, stderr string
			code            int
		}
		res := make([]result, 2)
		var wg sync.WaitGroup
		for i, name := range []string{"a", "b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := fmt.Sprintf("s-%s-%d", name, round)
				_, stderr, code := c.run(tm.clones[name], nil, "handoff", "lease", "take", "#7", "--session", s, "--ttl", "1h")
				res[i] = result{s, stderr, code}
			}()
		}
		wg.Wait()
		win, lose := res[0], res[1]
		if win.code != 0 {
			win, lose = lose, win
		}
		if win.code != 0 || lose.code != 5 {
			t.Fatalf("round %d: exits %d and %d\n%s\n%s", round, res[0].code, res[1].code, res[0].stderr, res[1].stderr)
		}
		if !strings.Contains(lose.stderr, "held by session "+win.session) || !strings.Contains(lose.stderr, "owner dev@example.com") || !strings.Contains(lose.stderr, "frees at") {
			t.Fatalf("round %d: the loser's message does not name the winner %s:\n%s", round, win.session, lose.stderr)
		}
		winner := "a"
		if strings.HasPrefix(win.session, "s-b") {
			winner = "b"
		}
		c.must(tm.clones[winner], "handoff", "lease", "release", "issue:7", "--session", win.session)
	}
}

// A holder that renews keeps its lease across 3 TTLs while the other
// clone's clock is 2 hours ahead and then 2 hours behind; once it stops,
// the contender takes it one TTL after first seeing its last version, by
// the contender's clock, and not a second before.
func TestLeaseExpiryUnderSkew(t *testing.T) {
	deadline(t, leaseDeadline)
	c := newCLI(t)
	tm := newTeam(c, "a", "b")
	a, b := tm.clones["a"], tm.clones["b"]
	ttl := 10 * time.Minute
	if _, stderr, code := c.run(a, clockAt(leaseBase, 0), "handoff", "lease", "take", "path:src/lexer/", "--session", "s-a", "--ttl", ttl.String()); code != 0 {
		t.Fatalf("take: %d %s", code, stderr)
	}
	// The holder renews every TTL/2 + 1 minute for 36 minutes (past 3
	// TTLs); the contender tries every 2 minutes, its clock 2 hours ahead
	// for the first half and 2 hours behind for the second.
	renewEvery := ttl/2 + time.Minute
	skew := 2 * time.Hour
	next := renewEvery
	var last time.Duration
	for t1 := time.Minute; t1 <= 37*time.Minute; t1 += 2 * time.Minute {
		for next < t1 {
			out, stderr, code := c.run(a, clockAt(leaseBase, next), "handoff", "lease", "renew", "--session", "s-a", "--json")
			var r leaseResultJSON
			if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil || len(r.Leases) != 1 || r.Leases[0].Action != "renewed" {
				t.Fatalf("renewing at %s: exit %d %v %s %s", next, code, err, out, stderr)
			}
			last, next = next, next+renewEvery
		}
		if t1 > 18*time.Minute {
			skew = -2 * time.Hour
		}
		if _, stderr, code := c.run(b, clockAt(leaseBase, skew+t1), "handoff", "lease", "take", "path:src/lexer/scan.go", "--session", "s-b"); code != 5 || !strings.Contains(stderr, "s-a") {
			t.Fatalf("the contender at %s (skew %s): exit %d %s", t1, skew, code, stderr)
		}
	}
	// Renewal not due: nothing written, nothing asked of the remote.
	out, _, _ := c.run(a, clockAt(leaseBase, last+time.Minute), "handoff", "lease", "renew", "--session", "s-a", "--json")
	var r leaseResultJSON
	if json.Unmarshal([]byte(out), &r) != nil || r.Leases[0].Action != "fresh" || r.Where != "this clone" {
		t.Fatalf("an early renewal: %s", out)
	}
	// The holder stops after its renewal at 36 minutes; the contender
	// first saw that version at 37, by its clock.
	T := skew + 37*time.Minute
	for _, d := range []time.Duration{time.Minute, ttl - time.Second} {
		if _, stderr, code := c.run(b, clockAt(leaseBase, T+d), "handoff", "lease", "take", "path:src/lexer/scan.go", "--session", "s-b"); code != 5 {
			t.Fatalf("taken %s after first seeing the last version: exit %d %s", d, code, stderr)
		}
	}
	out, stderr, code := c.run(b, clockAt(leaseBase, T+ttl), "handoff", "lease", "take", "path:src/lexer/scan.go", "--session", "s-b", "--json")
	if code != 0 {
		t.Fatalf("not taken one TTL after: exit %d %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Leases[0].Action != "taken" {
		t.Fatalf("take: %v %s", err, out)
	}
	// The old holder's lease was broken by the overlapping take: its
	// renewal says it lost it.
	if _, stderr, code := c.run(a, clockAt(leaseBase, last+ttl), "handoff", "lease", "renew", "path:src/lexer/", "--session", "s-a"); code != 5 || !strings.Contains(stderr, "broken") {
		t.Fatalf("the stopped holder renewing: exit %d %s", code, stderr)
	}
	// And the log says what happened.
	logOut := c.must(b, "handoff", "log")
	if !strings.Contains(logOut, "lease-break") || !strings.Contains(logOut, "path:src/lexer/") {
		t.Fatalf("log:\n%s", logOut)
	}
}

// Overlapping path leases are refused naming the holder; disjoint ones
// are taken; release and end free a lease at once; break frees another's,
// with its reason in the log.
func TestLeaseOverlapReleaseEnd(t *testing.T) {
	deadline(t, leaseDeadline)
	c := newCLI(t)
	tm := newTeam(c, "a", "b")
	a, b := tm.clones["a"], tm.clones["b"]
	c.must(a, "handoff", "lease", "take", "path:src/**", "--session", "s-a")
	for _, k := range []string{"path:src/lexer/scan.go", "path:*.go", "path:src"} {
		if _, stderr, code := c.run(b, nil, "handoff", "lease", "take", k, "--session", "s-b"); code != 5 || !strings.Contains(stderr, "overlaps path:src/**") || !strings.Contains(stderr, "s-a") {
			t.Fatalf("%s: exit %d %s", k, code, stderr)
		}
	}
	c.must(b, "handoff", "lease", "take", "path:docs/", "path:README.md", "--session", "s-b")
	// Release frees it at once.
	c.must(a, "handoff", "lease", "release", "path:src/**", "--session", "s-a")
	c.must(b, "handoff", "lease", "take", "path:src/a.go", "--session", "s-b")

	// A session's end releases its leases.
	out := c.must(a, "handoff", "start", "--json")
	var started struct{ Session struct{ ID string } }
	if err := json.Unmarshal([]byte(out), &started); err != nil || started.Session.ID == "" {
		t.Fatalf("start: %v %s", err, out)
	}
	c.must(a, "handoff", "lease", "take", "key:deploy", "--note", "staging")
	if _, stderr, code := c.run(b, nil, "handoff", "lease", "take", "key:deploy", "--session", "s-b"); code != 5 || !strings.Contains(stderr, started.Session.ID) {
		t.Fatalf("held by the started session: exit %d %s", code, stderr)
	}
	c.must(a, "handoff", "end")
	c.must(b, "handoff", "lease", "take", "key:deploy", "--session", "s-b")

	// Break: a person frees another's lease now.
	if _, _, code := c.run(a, nil, "handoff", "lease", "break", "key:deploy"); code != 129 {
		t.Fatalf("break without --reason: exit %d", code)
	}
	c.must(a, "handoff", "lease", "break", "key:deploy", "--reason", "its machine is gone")
	out = c.must(a, "handoff", "lease", "show", "key:deploy", "--json")
	var shown leaseJSON
	if err := json.Unmarshal([]byte(out), &shown); err != nil || shown.State != "broken" || shown.History[len(shown.History)-1].Reason != "its machine is gone" {
		t.Fatalf("show: %v %s", err, out)
	}
	if logOut := c.must(a, "handoff", "log"); !strings.Contains(logOut, "its machine is gone") {
		t.Fatalf("log:\n%s", logOut)
	}
	// List, and usage errors.
	out = c.must(b, "handoff", "lease", "list", "--json", "--session", "s-b")
	var list leaseListJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Leases) != 3 || !list.Leases[0].Mine {
		t.Fatalf("list: %v %s", err, out)
	}
	if _, _, code := c.run(b, nil, "handoff", "lease", "take", "path:../x", "--session", "s-b"); code != 129 {
		t.Fatalf("a bad key: exit %d", code)
	}
	if _, _, code := c.run(b, nil, "handoff", "lease", "show", "key:never"); code != 6 {
		t.Fatalf("show of a key never leased: exit %d", code)
	}
	// Offline: taken here and said so.
	_, stderr, code := c.run(b, nil, "handoff", "lease", "take", "key:solo", "--session", "s-b", "--offline")
	if code != 0 || !strings.Contains(stderr, "this clone only") {
		t.Fatalf("offline: exit %d %s", code, stderr)
	}
}
