package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/view"
)

// Claims won at the remote and never recorded here: the local write fails,
// or the process dies, between the push that wins and the local ref write.
// Real processes of the built binary, a bare remote, and git's own
// reference-transaction hook to make the local write fail (or to kill the
// claimer at that moment).

const batonRef = "refs/ao/handoffs/private/dev@example.com/main"

// refuseLocalBatonWrites aborts every transaction of the clone that moves
// a local baton ref (tracking refs under refs/ao/remotes/ go through).
const refuseLocalBatonWrites = `#!/bin/sh
[ "$1" = prepared ] || exit 0
if grep -q ' refs/ao/handoffs/'; then exit 1; fi
exit 0
`

// killClaimer kills git-handoff itself (the parent of the git update-ref
// running this hook) at the moment it writes a local baton ref, and aborts
// that write.
const killClaimer = `#!/bin/sh
[ "$1" = prepared ] || exit 0
if grep -q ' refs/ao/handoffs/'; then
	kill -9 "$(awk '{print $4}' /proc/$PPID/stat)"
	exit 1
fi
exit 0
`

type procs struct {
	t   *testing.T
	env []string
}

func newCLI(t *testing.T) *procs {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n"), 0o644)
	for k, v := range map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, ".gitconfig"), "GIT_TERMINAL_PROMPT": "0", "GIT_HANDOFF_SESSION": "", "GIT_HANDOFF_NOW": ""} {
		t.Setenv(k, v)
	}
	return &procs{t: t}
}

// run runs git in dir with extra environment, returning stdout, stderr and
// the exit code (-1 for a process killed by a signal).
func (c *procs) run(dir string, env []string, args ...string) (string, string, int) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (c *procs) must(dir string, args ...string) string {
	c.t.Helper()
	out, stderr, code := c.run(dir, nil, args...)
	if code != 0 {
		c.t.Fatalf("git %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return out
}

// at pins git-handoff's clock, so that a second run makes another claimed
// blob than the first.
func at(min int) []string {
	return []string{fmt.Sprintf("GIT_HANDOFF_NOW=2030-01-01T12:%02d:00Z", min)}
}

func hook(t *testing.T, clone, script string) {
	t.Helper()
	p := filepath.Join(clone, ".git", "hooks", "reference-transaction")
	if script == "" {
		os.Remove(p)
		return
	}
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// remoteBaton is the baton the bare remote holds.
func remoteBaton(c *procs, remote string) (b struct {
	ID               string
	NextSteps        []string
	Claimed          bool
	ClaimedBySession string
}) {
	c.t.Helper()
	if err := json.Unmarshal([]byte(c.must(remote, "cat-file", "-p", batonRef)), &b); err != nil {
		c.t.Fatal(err)
	}
	return b
}

func pendingNotes(t *testing.T, clone string) []string {
	ents, _ := os.ReadDir(filepath.Join(clone, ".git", "handoff", "pending"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// oneClone is a bare remote and a clone set up by init, holding a baton
// written and synced there.
func oneClone(c *procs) (remote, clone string) {
	dir := c.t.TempDir()
	remote, clone = filepath.Join(dir, "remote.git"), filepath.Join(dir, "a")
	c.must(dir, "init", "-q", "--bare", remote)
	c.must(dir, "clone", "-q", remote, clone)
	c.must(clone, "commit", "-q", "--allow-empty", "-m", "first")
	c.must(clone, "push", "-q", "origin", "main")
	c.must(clone, "handoff", "init", "--no-hooks")
	if _, stderr, code := c.run(clone, at(0), "handoff", "end", "--next", "the step to hand on"); code != 0 {
		c.t.Fatalf("end: %s", stderr)
	}
	c.must(clone, "handoff", "sync")
	return remote, clone
}

type claimOut struct {
	Handoff struct {
		ID               string
		NextSteps        []string
		ClaimedBySession string
	}
}

// TestClaimWonAtRemoteIsDeliveredOnRerun: the push of a claim wins, the
// local write fails; the same session claiming again gets the notes (exit
// 0), not "already claimed by" itself.
func TestClaimWonAtRemoteIsDeliveredOnRerun(t *testing.T) {
	c := newCLI(t)
	remote, clone := oneClone(c)
	hook(t, clone, refuseLocalBatonWrites)
	if _, stderr, code := c.run(clone, at(1), "handoff", "claim", "--session", "c1"); code == 0 {
		t.Fatalf("claim recorded locally despite the hook: %s", stderr)
	}
	if b := remoteBaton(c, remote); !b.Claimed || b.ClaimedBySession != "c1" {
		t.Fatalf("the remote should hold c1's claim: %+v", b)
	}
	hook(t, clone, "")
	out, stderr, code := c.run(clone, at(2), "handoff", "claim", "--json", "--session", "c1")
	if code != 0 {
		t.Fatalf("claim again: exit %d: %s", code, stderr)
	}
	var got claimOut
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Handoff.ClaimedBySession != "c1" || len(got.Handoff.NextSteps) != 1 || got.Handoff.NextSteps[0] != "the step to hand on" {
		t.Fatalf("claim again printed %s (%v)", out, err)
	}
	if local := c.must(clone, "rev-parse", batonRef); strings.TrimSpace(local) != strings.TrimSpace(c.must(remote, "rev-parse", batonRef)) {
		t.Errorf("the local baton ref is not the remote's claimed version")
	}
	if n := pendingNotes(t, clone); len(n) != 0 {
		t.Errorf("pending notes left: %v", n)
	}
	// A third claim by someone else is told who has it.
	if _, stderr, code := c.run(clone, at(3), "handoff", "claim", "--session", "c2"); code != exitConflict || !strings.Contains(stderr, "claimed by session c1") {
		t.Errorf("another session's claim: exit %d: %s", code, stderr)
	}
}

// TestStartWonAtRemoteIsDeliveredOnRerun: as above, for start.
func TestStartWonAtRemoteIsDeliveredOnRerun(t *testing.T) {
	c := newCLI(t)
	remote, clone := oneClone(c)
	hook(t, clone, refuseLocalBatonWrites)
	if _, stderr, code := c.run(clone, at(1), "handoff", "start", "--session", "s1"); code == 0 {
		t.Fatalf("start recorded the claim despite the hook: %s", stderr)
	}
	if b := remoteBaton(c, remote); b.ClaimedBySession != "s1" {
		t.Fatalf("the remote should hold s1's claim: %+v", b)
	}
	hook(t, clone, "")
	out, stderr, code := c.run(clone, at(2), "handoff", "start", "--json", "--session", "s1")
	var got view.Start
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("start again: exit %d: %s%s", code, out, stderr)
	}
	if !got.Claimed || got.Handoff == nil || got.Handoff.ClaimedBySession != "s1" || !strings.Contains(got.Brief, "the step to hand on") {
		t.Fatalf("start again did not deliver the baton: %s", out)
	}
	if n := pendingNotes(t, clone); len(n) != 0 {
		t.Errorf("pending notes left: %v", n)
	}
}

// TestCrashedClaimIsDeliveredOnceToTheNextSession: start is killed (kill
// -9) between the push that wins and the local write. The next start, with
// a new session id, gets the baton and is told who won it; the one after
// that does not get it again, nor does a claim.
func TestCrashedClaimIsDeliveredOnceToTheNextSession(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find the process to kill")
	}
	c := newCLI(t)
	remote, clone := oneClone(c)
	c.must(clone, "config", "core.sharedRepository", "group")
	hook(t, clone, killClaimer)
	if _, stderr, code := c.run(clone, at(1), "handoff", "start", "--session", "x1"); code == 0 {
		t.Fatalf("start was not killed: %s", stderr)
	}
	hook(t, clone, "")
	// The note the killed start left is group-writable, as the repository
	// is shared with a group.
	notes := pendingNotes(t, clone)
	if len(notes) != 1 {
		t.Fatalf("pending notes after the crash: %v", notes)
	}
	if fi, err := os.Stat(filepath.Join(clone, ".git", "handoff", "pending", notes[0])); err != nil || fi.Mode().Perm()&0o020 == 0 {
		t.Errorf("the note is not group-writable: %v %v", fi.Mode(), err)
	}
	if b := remoteBaton(c, remote); b.ClaimedBySession != "x1" {
		t.Fatalf("the remote should hold x1's claim: %+v", b)
	}
	var got view.Start
	out, stderr, code := c.run(clone, at(2), "handoff", "start", "--json", "--session", "n1")
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("start after the crash: exit %d: %s%s", code, out, stderr)
	}
	if !got.Claimed || got.Handoff == nil || !strings.Contains(got.Brief, "the step to hand on") {
		t.Fatalf("start after the crash did not deliver the baton won by x1: %s", out)
	}
	if !strings.Contains(strings.Join(got.Notices, "\n"), "won by session x1") {
		t.Errorf("no notice names the crashed session: %q", got.Notices)
	}
	out, stderr, code = c.run(clone, at(3), "handoff", "start", "--json", "--session", "n2")
	got = view.Start{}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("second start: exit %d: %s%s", code, out, stderr)
	}
	if got.Claimed || got.Handoff != nil || strings.Contains(got.Brief, "the step to hand on") {
		t.Fatalf("the baton was delivered twice: %s", out)
	}
	if _, stderr, code := c.run(clone, at(4), "handoff", "claim", "--session", "n3"); code == 0 {
		t.Fatalf("a claim after delivery got the baton again: %s", stderr)
	}
	if n := pendingNotes(t, clone); len(n) != 0 {
		t.Errorf("pending notes left: %v", n)
	}
}

// killAfterRecord kills git-handoff once a transaction that moves a local
// baton ref has committed: the claim is recorded here, and never answered.
const killAfterRecord = `#!/bin/sh
[ "$1" = committed ] || exit 0
if grep -q ' refs/ao/handoffs/'; then
	kill -9 "$(awk '{print $4}' /proc/$PPID/stat)"
fi
exit 0
`

// TestCrashedClaimIsNotTakenOverByASessionWithNoRecord: a start is killed
// between the push that wins and the local write, then a claim for a
// session with no record is killed once it recorded what it decided. Had
// it taken the start's claim over, nothing would say it holds the baton
// (the claimed version names the killed start's session, and the session
// has no record to keep a copy): the claim run again is told someone else
// has it, the next start finds nothing to settle, and the baton reaches
// nobody (the simulation's seed 614 of the widened run). Between the claim
// run again and the next start, the baton is delivered exactly once.
func TestCrashedClaimIsNotTakenOverByASessionWithNoRecord(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find the process to kill")
	}
	c := newCLI(t)
	remote, clone := oneClone(c)
	hook(t, clone, killClaimer)
	if _, stderr, code := c.run(clone, at(1), "handoff", "start", "--session", "x1"); code == 0 {
		t.Fatalf("start was not killed: %s", stderr)
	}
	if b := remoteBaton(c, remote); b.ClaimedBySession != "x1" {
		t.Fatalf("the remote should hold x1's claim: %+v", b)
	}
	hook(t, clone, killAfterRecord)
	c.run(clone, at(2), "handoff", "claim", "--session", "n1") // killed or refused: either way unanswered
	hook(t, clone, "")
	var delivered []string
	out, stderr, code := c.run(clone, at(3), "handoff", "claim", "--json", "--session", "n1")
	var claimed claimOut
	if code == 0 && json.Unmarshal([]byte(out), &claimed) == nil && len(claimed.Handoff.NextSteps) == 1 && claimed.Handoff.NextSteps[0] == "the step to hand on" {
		delivered = append(delivered, "claim n1")
	} else if code != exitConflict {
		t.Fatalf("claim run again: exit %d: %s%s", code, out, stderr)
	}
	out, stderr, code = c.run(clone, at(4), "handoff", "start", "--json", "--session", "n2")
	var started view.Start
	if code != 0 || json.Unmarshal([]byte(out), &started) != nil {
		t.Fatalf("start: exit %d: %s%s", code, out, stderr)
	}
	if started.Claimed && strings.Contains(started.Brief, "the step to hand on") {
		delivered = append(delivered, "start n2")
	}
	if len(delivered) != 1 {
		t.Fatalf("the baton won by the killed start was delivered to %v, want exactly one", delivered)
	}
	if n := pendingNotes(t, clone); len(n) != 0 {
		t.Errorf("pending notes left: %v", n)
	}
}

// TestEndAfterARetiredCrashedClaimReachesATeammate: a start is killed
// after its claim landed at the remote; a teammate's start is told the
// baton is claimed and keeps the claimed copy; a sync here retires the
// claim, an end here writes a new baton at the emptied ref, and a sync
// pushes it. The next start here delivers the crashed start's baton, and
// the teammate's next start receives the new one (soak 5034 on git 2.55:
// the new baton, counted from nothing, looked concurrent with the claim,
// and the teammate's stale claimed copy won the join by its rev).
func TestEndAfterARetiredCrashedClaimReachesATeammate(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find the process to kill")
	}
	c := newCLI(t)
	remote, a := oneClone(c)
	b := filepath.Join(filepath.Dir(a), "b")
	c.must(filepath.Dir(a), "clone", "-q", remote, b)
	c.must(b, "handoff", "init", "--no-hooks")
	c.must(b, "handoff", "sync")
	hook(t, a, killClaimer)
	if _, stderr, code := c.run(a, at(1), "handoff", "start", "--session", "x1"); code == 0 {
		t.Fatalf("start was not killed: %s", stderr)
	}
	hook(t, a, "")
	if r := remoteBaton(c, remote); r.ClaimedBySession != "x1" {
		t.Fatalf("the remote should hold x1's claim: %+v", r)
	}
	start := func(dir string, min int, id string) view.Start {
		t.Helper()
		var got view.Start
		out, stderr, code := c.run(dir, at(min), "handoff", "start", "--json", "--session", id)
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("start %s: exit %d: %s%s", id, code, out, stderr)
		}
		return got
	}
	if got := start(b, 2, "b1"); got.Claimed {
		t.Fatalf("the teammate's start claimed the baton x1 won: %+v", got)
	}
	c.must(a, "handoff", "sync")
	if _, _, code := c.run(a, nil, "rev-parse", "-q", "--verify", batonRef); code == 0 {
		t.Fatalf("the sync kept the claimed baton here: the case needs it retired")
	}
	if _, stderr, code := c.run(a, at(4), "handoff", "end", "--session", "e2", "--next", "the newer step"); code != 0 {
		t.Fatalf("end: exit %d: %s", code, stderr)
	}
	c.must(a, "handoff", "sync")
	if got := start(a, 6, "n1"); !got.Claimed || !strings.Contains(got.Brief, "the step to hand on") || !strings.Contains(strings.Join(got.Notices, "\n"), "won by session x1") {
		t.Fatalf("the next start here did not deliver the baton x1 won: %+v", got)
	}
	if got := start(b, 8, "b2"); !got.Claimed || !strings.Contains(got.Brief, "the newer step") {
		t.Fatalf("the teammate's next start did not receive the newer baton: claimed=%v brief=%q notices=%q", got.Claimed, got.Brief, got.Notices)
	}
	if got := start(a, 9, "n2"); got.Claimed || strings.Contains(got.Brief, "the newer step") {
		t.Fatalf("the newer baton was delivered twice: %+v", got)
	}
}

// TestTwoRemotesOneArbiter: a clone with origin (a fork) and upstream (the
// team's repository) and a teammate with only upstream, the baton known on
// both remotes; 8 real processes, 4 in each clone, claim it at once:
// exactly one wins. A clone that only has the fork refuses to claim.
func TestTwoRemotesOneArbiter(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	team, fork := filepath.Join(dir, "team.git"), filepath.Join(dir, "fork.git")
	c.must(dir, "init", "-q", "--bare", team)
	c.must(dir, "init", "-q", "--bare", fork)
	// The teammate: only upstream.
	mate := filepath.Join(dir, "mate")
	c.must(dir, "clone", "-q", "-o", "upstream", team, mate)
	c.must(mate, "commit", "-q", "--allow-empty", "-m", "first")
	c.must(mate, "push", "-q", "upstream", "main")
	c.must(mate, "handoff", "init", "--no-hooks", "--remote", "upstream")
	// The other: origin is the fork, upstream the team's (spelled as a URL).
	me := filepath.Join(dir, "me")
	c.must(dir, "clone", "-q", "-o", "upstream", "file://"+team, me)
	c.must(me, "remote", "add", "origin", fork)
	c.must(me, "push", "-q", "origin", "main")
	c.must(me, "handoff", "init", "--no-hooks") // origin, the default
	c.must(me, "handoff", "init", "--no-hooks", "--remote", "upstream")
	if got, _, _ := c.run(me, nil, "config", "handoff.arbiter"); strings.TrimSpace(got) != "upstream" {
		t.Errorf("handoff.arbiter = %q, want upstream", got)
	}
	if _, stderr, code := c.run(mate, at(0), "handoff", "end", "--next", "one baton"); code != 0 {
		t.Fatal(stderr)
	}
	c.must(mate, "handoff", "sync", "upstream")
	c.must(me, "handoff", "sync", "upstream")
	c.must(me, "handoff", "sync", "origin")
	c.must(fork, "rev-parse", batonRef) // the fork knows the baton too

	type result struct {
		who            string
		code           int
		stdout, stderr string
	}
	results := make([]result, 8)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range results {
		clone, who := me, fmt.Sprintf("me-%d", i)
		if i%2 == 1 {
			clone, who = mate, fmt.Sprintf("mate-%d", i)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			out, errs, code := c.run(clone, at(1), "handoff", "claim", "--session", who)
			results[i] = result{who, code, out, errs}
		}(i)
	}
	close(start)
	wg.Wait()
	var winners []string
	for _, r := range results {
		if r.code == 0 {
			winners = append(winners, r.who)
		} else if r.code != exitConflict {
			t.Errorf("%s exited %d: %s", r.who, r.code, r.stderr)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("%d winners %v: %+v", len(winners), winners, results)
	}
	if b := remoteBaton(c, team); b.ClaimedBySession != winners[0] {
		t.Errorf("the team's remote says %s won, the claimers say %s", b.ClaimedBySession, winners[0])
	}

	// Only the fork: init says where claims are decided, claim refuses.
	solo := filepath.Join(dir, "solo")
	c.must(dir, "clone", "-q", fork, solo)
	if _, stderr, code := c.run(solo, nil, "handoff", "init", "--no-hooks"); code == 0 || !strings.Contains(stderr, "no remote of this clone points there") {
		t.Errorf("init with only the fork: exit %d: %s", code, stderr)
	}
	if _, stderr, code := c.run(solo, at(2), "handoff", "end", "--next", "solo step"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := c.run(solo, at(3), "handoff", "claim", "--session", "solo-1"); code == 0 || !strings.Contains(stderr, "no arbiter") || !strings.Contains(stderr, "hint:") {
		t.Errorf("claim with only the fork: exit %d: %s", code, stderr)
	}
}
