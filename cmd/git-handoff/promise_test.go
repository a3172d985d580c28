package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Issue 27, "Still lost, still doubled": each reproduction as real
// processes of the built binary (TestMain puts the test binary on PATH as
// git-handoff), real git, a bare remote, and a pre-receive hook on the
// remote where the race needs a moment held open. The deadlines are ones a
// loaded 2-core machine meets; a kill goes to git-handoff's own process
// group, never only to a git wrapper.

// promiseDeadline bounds every wait of these tests: a hook that should have
// started, a command that should have finished.
const promiseDeadline = 2 * time.Minute

// team is a bare remote and clones of it, each set up by init, sharing the
// identity newCLI configured (so the same owner and branch everywhere).
type team struct {
	c      *procs
	dir    string
	remote string
	clones map[string]string
}

func newTeam(c *procs, names ...string) *team {
	c.t.Helper()
	dir := c.t.TempDir()
	tm := &team{c: c, dir: dir, remote: filepath.Join(dir, "remote.git"), clones: map[string]string{}}
	c.must(dir, "init", "-q", "--bare", tm.remote)
	for i, n := range names {
		clone := filepath.Join(dir, n)
		c.must(dir, "clone", "-q", tm.remote, clone)
		if i == 0 {
			c.must(clone, "commit", "-q", "--allow-empty", "-m", "first")
			c.must(clone, "push", "-q", "origin", "main")
		}
		tm.clones[n] = clone
	}
	for _, n := range names {
		c.must(tm.clones[n], "handoff", "init", "--no-hooks")
	}
	return tm
}

// preReceive installs script as the remote's pre-receive hook ("" removes
// it).
func (tm *team) preReceive(script string) {
	tm.c.t.Helper()
	p := filepath.Join(tm.remote, "hooks", "pre-receive")
	if script == "" {
		os.Remove(p)
		return
	}
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		tm.c.t.Fatal(err)
	}
}

// end leaves a baton in clone with next as its only step and returns its
// id.
func (tm *team) end(clone, next string, env ...string) string {
	tm.c.t.Helper()
	out, stderr, code := tm.c.run(tm.clones[clone], env, "handoff", "end", "--json", "--next", next)
	var got struct{ Handoff struct{ ID string } }
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.Handoff.ID == "" {
		tm.c.t.Fatalf("end in %s: exit %d: %s%s", clone, code, out, stderr)
	}
	return got.Handoff.ID
}

func (tm *team) sync(clones ...string) {
	tm.c.t.Helper()
	for _, n := range clones {
		tm.c.must(tm.clones[n], "handoff", "sync")
	}
}

// started is what `start --json` printed, with its exit code and stderr.
type started struct {
	Claimed bool
	Handoff *struct {
		ID               string
		NextSteps        []string
		ClaimedBySession string
	}
	Brief     string
	Notices   []string
	Conflicts json.RawMessage

	code   int
	stderr string
	raw    string
}

// delivered reports whether this start or claim handed over baton id.
func (s started) delivered(id string) bool {
	return s.Handoff != nil && s.Handoff.ID == id && (s.Claimed || s.code == 0 && s.Handoff.ClaimedBySession != "")
}

func (s started) notices() string { return strings.Join(s.Notices, "\n") + "\n" + s.stderr }

func (tm *team) start(clone string, args ...string) started {
	tm.c.t.Helper()
	out, stderr, code := tm.c.run(tm.clones[clone], nil, append([]string{"handoff", "start", "--json"}, args...)...)
	return parseStarted(tm.c.t, out, stderr, code)
}

func parseStarted(t *testing.T, out, stderr string, code int) started {
	t.Helper()
	var s started
	if strings.TrimSpace(out) != "" {
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("not JSON (exit %d): %v\n%s\n%s", code, err, out, stderr)
		}
	}
	s.code, s.stderr, s.raw = code, stderr, out
	return s
}

// bgProc is a git-handoff process running in its own process group.
type bgProc struct {
	cmd      *exec.Cmd
	out, err lockedBuffer
	done     chan struct{}
	code     int
}

// lockedBuffer is a bytes.Buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// spawn starts git-handoff itself (not through the git wrapper) in dir, in
// a process group of its own, so a kill reaches it and every git it runs.
func (c *procs) spawn(dir string, env []string, args ...string) *bgProc {
	c.t.Helper()
	bin, err := exec.LookPath("git-handoff")
	if err != nil {
		c.t.Skip("git-handoff is not on PATH (TestMain puts the test binary there)")
	}
	p := &bgProc{done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.err
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() {
		err := p.cmd.Wait()
		p.code = 0
		if err != nil {
			p.code = -1
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() >= 0 {
				p.code = ee.ExitCode()
			}
		}
		close(p.done)
	}()
	c.t.Cleanup(func() { p.kill(); <-p.done })
	return p
}

// kill sends SIGKILL to the process's whole group.
func (p *bgProc) kill() {
	if p.cmd.Process != nil {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

func (p *bgProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(promiseDeadline):
		p.kill()
		<-p.done
		t.Fatalf("%s did not finish within %s: %s%s", strings.Join(p.cmd.Args, " "), promiseDeadline, p.out.String(), p.err.String())
		return -1
	}
}

// waitFile waits for the file a hook creates when it has begun.
func waitFile(t *testing.T, path string, p *bgProc) {
	t.Helper()
	deadline := time.Now().Add(promiseDeadline)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if p != nil {
			select {
			case <-p.done:
				t.Fatalf("%s finished (exit %d) before the hook began: %s%s", strings.Join(p.cmd.Args, " "), p.code, p.out.String(), p.err.String())
			default:
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s did not appear within %s", path, promiseDeadline)
}

// stallHook is a pre-receive hook that says it began (touching flag), holds
// the push for secs seconds, then accepts (exit 0) or refuses (exit 1).
func stallHook(flag string, secs, exit int) string {
	return fmt.Sprintf("#!/bin/sh\ncat >/dev/null\n: > %q\nsleep %d\nexit %d\n", flag, secs, exit)
}

// scrubGitEnv is the hook lines that drop the environment git gives a hook
// (GIT_DIR, GIT_QUARANTINE_PATH, GIT_OBJECT_DIRECTORY…) before running git
// in another repository, keeping the test's configuration.
const scrubGitEnv = `for v in $(env | sed -n 's/^\(GIT_[A-Za-z0-9_]*\)=.*/\1/p'); do
	case $v in GIT_CONFIG_NOSYSTEM|GIT_CONFIG_GLOBAL|GIT_TERMINAL_PROMPT) ;; *) unset $v ;; esac
done
`

// remoteClaimedBy reads the baton the remote holds at ref: its id, who
// claimed it, whether it is claimed.
func remoteClaimedBy(c *procs, remote, ref string) (id, session string, claimed bool) {
	c.t.Helper()
	var b struct {
		ID               string
		Claimed          bool
		ClaimedBySession string
	}
	if err := json.Unmarshal([]byte(c.must(remote, "cat-file", "-p", ref)), &b); err != nil {
		c.t.Fatal(err)
	}
	return b.ID, b.ClaimedBySession, b.Claimed
}

// TestPromiseDeadClaimIsNotDeliveredAgain (issue 27, 1): a start killed
// while the remote holds its push, which the remote then refuses, leaves a
// note; the baton goes to another clone's session; a later start in the
// first clone must not deliver it again as "won by" the dead session, and
// gets the newer baton instead.
func TestPromiseDeadClaimIsNotDeliveredAgain(t *testing.T) {
	c := newCLI(t)
	tm := newTeam(c, "a", "b")
	x := tm.end("a", "promise-1 step X")
	tm.sync("a", "b")
	killedClaim(t, tm, "s1")

	s2 := tm.start("b", "--session", "s2")
	if s2.code != 0 || !s2.delivered(x) {
		t.Fatalf("b's start should receive X (%s): exit %d %s%s", x, s2.code, s2.raw, s2.stderr)
	}
	tm.sync("a")
	z := tm.end("a", "promise-1 step Z")
	tm.sync("a")
	s6 := tm.start("a", "--session", "s6")
	if s6.code != 0 {
		t.Fatalf("start s6: exit %d: %s%s", s6.code, s6.raw, s6.stderr)
	}
	if s6.delivered(x) || strings.Contains(s6.Brief, "promise-1 step X") {
		t.Errorf("X (%s), already received by s2, was delivered again to s6: %v", x, s6.Notices)
	}
	if strings.Contains(s6.notices(), "won by session s1") {
		t.Errorf("s6 was told X was won by s1, whose claim the remote refused: %v", s6.Notices)
	}
	if !s6.delivered(z) {
		t.Errorf("s6 should receive Z (%s), got %+v", z, s6.Handoff)
	}
}

// TestPromiseCancelAfterDeadClaim (issue 27, 1, variant): after the killed
// claim, cancel takes X back; no later start in the clone delivers it.
func TestPromiseCancelAfterDeadClaim(t *testing.T) {
	c := newCLI(t)
	tm := newTeam(c, "a", "b")
	x := tm.end("a", "promise-1 step X")
	tm.sync("a", "b")
	killedClaim(t, tm, "s1")

	out, stderr, code := c.run(tm.clones["a"], nil, "handoff", "cancel", "--json")
	var cj struct{ Cancelled bool }
	if code != 0 || json.Unmarshal([]byte(out), &cj) != nil || !cj.Cancelled {
		t.Fatalf("cancel should report X cancelled: exit %d: %s%s", code, out, stderr)
	}
	for _, s := range []string{"s7", "s8"} {
		got := tm.start("a", "--session", s)
		if got.delivered(x) || strings.Contains(got.Brief, "promise-1 step X") {
			t.Errorf("start %s delivered X (%s), which cancel reported taken back: %v", s, x, got.Notices)
		}
	}
}

// killedClaim runs `git-handoff start --session s` in clone a while the
// remote's pre-receive hook holds the push for 3 s and then refuses it,
// kills its process group during the hold, and removes the hook. The
// remote must still hold the baton unclaimed.
func killedClaim(t *testing.T, tm *team, s string) {
	t.Helper()
	flag := filepath.Join(tm.dir, "hook-began")
	tm.preReceive(stallHook(flag, 3, 1))
	p := tm.c.spawn(tm.clones["a"], nil, "start", "--session", s)
	waitFile(t, flag, p)
	p.kill()
	p.wait(t)
	tm.preReceive("")
	if _, by, claimed := remoteClaimedBy(tm.c, tm.remote, batonRef); claimed {
		t.Fatalf("the remote took the killed claim (by %s): the hook did not hold it", by)
	}
	if len(pendingNotes(t, tm.clones["a"])) == 0 {
		t.Fatalf("the killed start left no pending note: the kill came before the claim was noted")
	}
}

// TestPromiseSupersededAtArbiterIsReported (issue 27, 2): a's baton A and
// b's baton B were written without seeing each other; b claims B at the
// arbiter; a's start (or claim) learns there that B replaced A. It must say
// so as the join does (a notice with "superseded" and both ids, conflicts
// in --json, a conflict event in the log), not as "another clone claimed
// baton A first", and A's blob stays reachable.
func TestPromiseSupersededAtArbiterIsReported(t *testing.T) {
	for _, cmd := range []string{"start", "claim"} {
		t.Run(cmd, func(t *testing.T) {
			c := newCLI(t)
			tm := newTeam(c, "a", "b")
			a := tm.end("a", "A-notes")
			blobA := strings.TrimSpace(c.must(tm.clones["a"], "rev-parse", batonRef))
			b := tm.end("b", "B-notes")
			if sb := tm.start("b", "--session", "sb"); sb.code != 0 || !sb.delivered(b) {
				t.Fatalf("b's start should claim B (%s) at the arbiter: exit %d %s%s", b, sb.code, sb.raw, sb.stderr)
			}
			out, stderr, code := c.run(tm.clones["a"], nil, "handoff", cmd, "--json", "--session", "sa")
			got := parseStarted(t, out, stderr, code)
			if got.delivered(a) || got.delivered(b) {
				t.Fatalf("a's %s was given a baton: %s", cmd, out)
			}
			text := got.notices()
			if strings.Contains(text, "another clone claimed baton "+a+" first") {
				t.Errorf("A (%s) was claimed by nobody, yet a's %s says: %q", a, cmd, got.Notices)
			}
			found := false
			for _, n := range append(got.Notices, strings.Split(stderr, "\n")...) {
				if strings.Contains(n, "superseded") && strings.Contains(n, a) && strings.Contains(n, b) {
					found = true
				}
			}
			if !found {
				t.Errorf("no notice says A (%s) was superseded by B (%s): %q %s", a, b, got.Notices, stderr)
			}
			var conflicts []map[string]any
			if len(got.Conflicts) == 0 || json.Unmarshal(got.Conflicts, &conflicts) != nil || len(conflicts) == 0 {
				t.Errorf("%s --json has no conflicts: %s", cmd, out)
			} else {
				ok := false
				for _, cf := range conflicts {
					for _, k := range []string{"ref", "kept", "dropped", "keptFrom", "summary", "diff"} {
						if _, has := cf[k]; !has {
							t.Errorf("conflict without %q: %v", k, cf)
						}
					}
					if cf["dropped"] == blobA && cf["ref"] == batonRef {
						ok = true
					}
				}
				if !ok {
					t.Errorf("no conflict names A's blob %s as dropped at %s: %v", blobA, batonRef, conflicts)
				}
			}
			var log struct {
				Events []struct{ Kind, Ref string }
			}
			if err := json.Unmarshal([]byte(c.must(tm.clones["a"], "handoff", "log", "--json")), &log); err != nil {
				t.Fatal(err)
			}
			conflictEvent := false
			for _, e := range log.Events {
				if e.Kind == "conflict" && e.Ref == batonRef {
					conflictEvent = true
				}
			}
			if !conflictEvent {
				t.Errorf("log --json has no conflict event for %s: %+v", batonRef, log.Events)
			}
			if lt := c.must(tm.clones["a"], "handoff", "log"); !regexp.MustCompile(`(?m)\bconflict\b`).MatchString(lt) {
				t.Errorf("log has no conflict line:\n%s", lt)
			}
			if _, stderr, code := c.run(tm.clones["a"], nil, "cat-file", "-e", blobA); code != 0 {
				t.Errorf("A's blob %s is gone: %s", blobA, stderr)
			}
			if !inReflog(c, tm.clones["a"], batonRef, blobA) {
				t.Errorf("A's blob %s is not in the reflog of %s", blobA, batonRef)
			}
		})
	}
}

// inReflog reports whether oid is one of the values ref's reflog records
// (git reflog show lists commits only; ref@{n} resolves a blob too).
func inReflog(c *procs, dir, ref, oid string) bool {
	for n := 0; n < 100; n++ {
		out, _, code := c.run(dir, nil, "rev-parse", "--verify", "-q", fmt.Sprintf("%s@{%d}", ref, n))
		if code != 0 {
			return false
		}
		if strings.TrimSpace(out) == oid {
			return true
		}
	}
	return false
}

// TestPromiseTakenBackWhileClaimed (issue 27, 3): while a's start pushes
// its claim of X, the remote's pre-receive hook (once) takes X back in a:
// `dismiss X`, `cancel`, or the status page's DELETE /api/handoffs/X.
// Exactly one may win: X delivered and the taking back refused (exit 5,
// "already claimed by", or 409), or the taking back done (exit 0, 200)
// and X not delivered, start saying it was dismissed or cancelled.
func TestPromiseTakenBackWhileClaimed(t *testing.T) {
	if testing.Short() {
		t.Skip("12 trials of real processes, each holding a push for the taking back")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Log("no curl: the status page's DELETE is not tried")
	}
	for _, how := range []string{"dismiss", "cancel", "http-delete"} {
		t.Run(how, func(t *testing.T) {
			if how == "http-delete" {
				if _, err := exec.LookPath("curl"); err != nil {
					t.Skip("needs curl in the hook")
				}
			}
			for trial := 0; trial < 4; trial++ {
				takeBackTrial(t, how, trial)
			}
		})
	}
}

func takeBackTrial(t *testing.T, how string, trial int) {
	c := newCLI(t)
	tm := newTeam(c, "a", "b")
	x := tm.end("a", fmt.Sprintf("promise-3 step X %d", trial))
	tm.sync("a", "b")
	a := tm.clones["a"]
	var takeBack string
	switch how {
	case "dismiss":
		takeBack = "git handoff dismiss " + x
	case "cancel":
		takeBack = "git handoff cancel"
	case "http-delete":
		url, token, srv := serve(t, c, a)
		defer func() { srv.kill(); <-srv.done }()
		// The exit code the hook records: 0 for 2xx, 5 for 409, else 1.
		takeBack = fmt.Sprintf(`code=$(curl -s -o /dev/stderr -w '%%{http_code}' -X DELETE -H 'Authorization: Bearer %s' -H 'Origin: %s' '%s/api/handoffs/%s?project=a')
echo "HTTP $code"
case $code in 2*) exit 0 ;; 409) echo "already claimed (409)" >&2; exit 5 ;; *) exit 1 ;; esac`, token, url, url, x)
	}
	flag, rc := filepath.Join(tm.dir, "took-back"), filepath.Join(tm.dir, "took-back.rc")
	out, errf := filepath.Join(tm.dir, "took-back.out"), filepath.Join(tm.dir, "took-back.err")
	// The taking back runs beside the hook, which waits for it up to 10 s
	// and then lets the push go on: should it wait for the claim in
	// flight in the same clone, neither waits for the other forever.
	script := fmt.Sprintf(`#!/bin/sh
cat >/dev/null
[ -e %[1]q ] && exit 0
: > %[1]q
%[2]s
( cd %[3]q && ( %[4]s ) >%[5]q 2>%[6]q; echo $? > %[7]q.tmp; mv %[7]q.tmp %[7]q ) </dev/null >/dev/null 2>&1 &
i=0
while [ ! -e %[7]q ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
exit 0
`, flag, scrubGitEnv, a, takeBack, out, errf, rc)
	tm.preReceive(script)
	p := c.spawn(a, nil, "start", "--json", "--session", "s1")
	p.wait(t)
	tm.preReceive("")
	st := parseStarted(t, p.out.String(), p.err.String(), p.code)
	if _, err := os.Stat(flag); err != nil {
		t.Fatalf("trial %d: the remote's hook never ran (start exit %d: %s)", trial, p.code, p.err.String())
	}
	waitFile(t, rc, nil)
	rcText, err := os.ReadFile(rc)
	if err != nil {
		t.Fatalf("trial %d: the hook did not run %s (start exit %d: %s)", trial, how, p.code, p.err.String())
	}
	code := strings.TrimSpace(string(rcText))
	tout, _ := os.ReadFile(out)
	terr, _ := os.ReadFile(errf)
	delivered := st.delivered(x)
	t.Logf("trial %d: start exit %d delivered=%v; %s exit %s: %s%s", trial, st.code, delivered, how, code, tout, terr)
	switch {
	case delivered && code == "0":
		t.Errorf("trial %d: %s reported success (exit 0) and start delivered X (%s) all the same", trial, how, x)
	case delivered && code != "5":
		t.Errorf("trial %d: start delivered X; %s should have exited 5, exited %s: %s", trial, how, code, terr)
	case delivered && !strings.Contains(string(terr), "already claimed"):
		t.Errorf("trial %d: %s exited 5 without \"already claimed by\": %s", trial, how, terr)
	case !delivered && code != "0":
		t.Errorf("trial %d: neither won: start did not deliver X (exit %d: %s) and %s exited %s: %s", trial, st.code, st.raw, how, code, terr)
	case !delivered && !regexp.MustCompile(`dismissed|cancelled`).MatchString(st.notices()):
		t.Errorf("trial %d: start did not say X was %s: %q", trial, how, st.Notices)
	}
}

// serve starts `git handoff serve` on a free loopback port for clone dir,
// as project "a", with a known token, and returns its URL and token.
func serve(t *testing.T, c *procs, dir string) (url, token string, p *bgProc) {
	t.Helper()
	token = "promise-token"
	p = c.spawn(dir, nil, "serve", "--addr", "127.0.0.1:0", "--repo", "a="+dir, "--token", token)
	deadline := time.Now().Add(promiseDeadline)
	for time.Now().Before(deadline) {
		if line, _, ok := strings.Cut(p.out.String(), "\n"); ok && strings.HasPrefix(line, "http") {
			return strings.TrimRight(strings.TrimSpace(line), "/"), token, p
		}
		select {
		case <-p.done:
			t.Fatalf("serve exited %d: %s", p.code, p.err.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("serve printed no address within %s", promiseDeadline)
	return "", "", nil
}

// TestPromiseGCDuringClaim (issue 27, 4): git gc --prune=now in the clone
// while its start waits on the push of its claim. Afterwards every ref of
// ours and the worktree's binding name objects that exist, fsck is clean,
// sync and gc work, and X was delivered exactly once.
func TestPromiseGCDuringClaim(t *testing.T) {
	c := newCLI(t)
	tm := newTeam(c, "a", "b")
	a := tm.clones["a"]
	x := tm.end("a", "promise-4 step X")
	tm.sync("a")
	flag := filepath.Join(tm.dir, "hook-began")
	tm.preReceive(stallHook(flag, 3, 0))
	p := c.spawn(a, nil, "start", "--json", "--session", "s1")
	waitFile(t, flag, p)
	if _, stderr, code := c.run(a, nil, "gc", "--prune=now", "-q"); code != 0 {
		t.Fatalf("gc during the claim: %s", stderr)
	}
	p.wait(t)
	tm.preReceive("")
	s1 := parseStarted(t, p.out.String(), p.err.String(), p.code)
	if s1.code != 0 {
		t.Errorf("start during gc: exit %d: %s", s1.code, s1.stderr)
	}
	for _, d := range danglingRefs(c, a) {
		t.Errorf("after gc during the claim: %s", d)
	}
	if _, stderr, code := c.run(a, nil, "fsck", "--no-progress"); code != 0 {
		t.Errorf("git fsck in a: exit %d: %s", code, stderr)
	}
	if _, stderr, code := c.run(a, nil, "handoff", "sync"); code != 0 {
		t.Errorf("sync after: exit %d: %s", code, stderr)
	}
	if _, stderr, code := c.run(a, nil, "gc", "-q"); code != 0 {
		t.Errorf("gc after: exit %d: %s", code, stderr)
	}
	tm.sync("b")
	times := 0
	if s1.delivered(x) {
		times++
	}
	for _, s := range []struct{ clone, id string }{{"a", "s2"}, {"b", "s3"}} {
		if got := tm.start(s.clone, "--session", s.id); got.delivered(x) {
			times++
		}
	}
	if times != 1 {
		t.Errorf("X (%s) delivered %d times, want 1 (first start: exit %d %s)", x, times, s1.code, s1.raw)
	}
}

// danglingRefs lists each ref under refs/ao/, and the worktree's binding,
// that names an object the repository does not have.
func danglingRefs(c *procs, dir string) []string {
	c.t.Helper()
	var bad []string
	out, stderr, code := c.run(dir, nil, "for-each-ref", "--format=%(objectname) %(refname)", "refs/ao/")
	if code != 0 {
		return []string{"for-each-ref: " + stderr}
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		oid, ref, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		if _, _, code := c.run(dir, nil, "cat-file", "-e", oid); code != 0 {
			bad = append(bad, fmt.Sprintf("%s points at missing %s", ref, oid))
		}
	}
	target, _, code := c.run(dir, nil, "symbolic-ref", "-q", "refs/worktree/ao/session")
	if code == 0 {
		target = strings.TrimSpace(target)
		oid, _, code := c.run(dir, nil, "rev-parse", "--verify", "-q", target)
		if code != 0 {
			bad = append(bad, fmt.Sprintf("refs/worktree/ao/session names %s, which does not resolve", target))
		} else if _, _, code := c.run(dir, nil, "cat-file", "-e", strings.TrimSpace(oid)); code != 0 {
			bad = append(bad, fmt.Sprintf("refs/worktree/ao/session -> %s points at missing %s", target, strings.TrimSpace(oid)))
		}
	}
	return bad
}

// TestPromiseDanglingRecordRef (issue 27, 4, healing): a baton ref whose
// blob is gone must not make list, start or sync fail; a notice names the
// ref and says how to remove it.
func TestPromiseDanglingRecordRef(t *testing.T) {
	c := newCLI(t)
	tm := newTeam(c, "a")
	a := tm.clones["a"]
	tm.end("a", "promise-4 a real baton")
	tm.sync("a")
	ref := "refs/ao/handoffs/private/dev@example.com/dangling"
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Stdin = a, strings.NewReader(`{"schema":"handoff/v1","id":"h-dangling","owner":"dev@example.com","branch":"dangling","nextSteps":["gone"]}`)
	oidb, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	oid := strings.TrimSpace(string(oidb))
	c.must(a, "update-ref", ref, oid)
	if err := os.Remove(filepath.Join(a, ".git", "objects", oid[:2], oid[2:])); err != nil {
		t.Fatal(err)
	}
	hint := regexp.MustCompile(`(?i)update-ref -d|remove|delete`)
	told := false
	for _, args := range [][]string{{"list", "--all"}, {"start", "--session", "s1"}, {"sync"}} {
		out, stderr, code := c.run(a, nil, append([]string{"handoff"}, args...)...)
		if code != 0 {
			t.Errorf("%s with a dangling %s: exit %d: %s", args[0], ref, code, stderr)
		}
		for _, l := range strings.Split(out+"\n"+stderr, "\n") {
			if strings.Contains(l, ref) && hint.MatchString(l) {
				told = true
			}
		}
	}
	if !told {
		t.Errorf("no notice names %s and how to remove it", ref)
	}
}

// TestPromiseSkippedRecordNoticedOnce (issue 27, 5): a teammate's malformed
// record is skipped with one notice per sync, not one per place it is
// read.
func TestPromiseSkippedRecordNoticedOnce(t *testing.T) {
	c := newCLI(t)
	tm := newTeam(c, "a", "b")
	b := tm.clones["b"]
	bad := "refs/ao/handoffs/private/mate/main"
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Stdin = b, strings.NewReader("not a record")
	oidb, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	c.must(b, "update-ref", bad, strings.TrimSpace(string(oidb)))
	c.must(b, "push", "-q", "-f", "origin", bad)
	for round := 1; round <= 3; round++ {
		out, stderr, code := c.run(tm.clones["a"], nil, "handoff", "sync", "--json")
		var got struct {
			Notices  []string
			Warnings []string
		}
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("sync %d: exit %d: %s%s", round, code, out, stderr)
		}
		n := 0
		for _, s := range append(got.Notices, got.Warnings...) {
			if strings.Contains(s, "private/mate/main") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("sync --json %d names the malformed record %d times, want once: %q", round, n, got.Notices)
		}
	}
	_, stderr, _ := c.run(tm.clones["a"], nil, "handoff", "sync")
	n := 0
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "private/mate/main") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("sync names the malformed record %d times on stderr, want once:\n%s", n, stderr)
	}
}

// TestCancelWaitsForAnUnsettledClaim: a start's claim of a baton the
// remote never had (its push creates the ref there) was killed while the
// remote held the push: its note says the outcome is not known here. A
// cancel, and a dismissal, of that baton in this clone are refused until a
// start settles the claim, saying so: had the claim's push landed after a
// cancel won and a teammate's sync retired the tombstone, it would have
// found the ref absent again and delivered a cancelled baton (found by the
// simulation, seed 1796562072535163498). The next start settles the claim
// and delivers the baton.
func TestCancelWaitsForAnUnsettledClaim(t *testing.T) {
	c := newCLI(t)
	tm := newTeam(c, "a")
	a := tm.clones["a"]
	x := tm.end("a", "the step X")
	flag := filepath.Join(tm.dir, "hook-began")
	tm.preReceive(stallHook(flag, 3, 1))
	p := tm.c.spawn(a, nil, "start", "--session", "s1")
	waitFile(t, flag, p)
	p.kill()
	p.wait(t)
	tm.preReceive("")
	if len(pendingNotes(t, a)) == 0 {
		t.Fatalf("the killed start left no pending note: the kill came before the claim was noted")
	}
	for _, args := range [][]string{{"cancel"}, {"dismiss", x}} {
		_, stderr, code := c.run(a, nil, append([]string{"handoff"}, args...)...)
		if code != 5 || !strings.Contains(stderr, "not settled yet") || !strings.Contains(stderr, "s1") {
			t.Fatalf("%s with the claim unsettled: exit %d, %s; want it refused as a conflict (5), naming the claim", args[0], code, stderr)
		}
	}
	if _, _, code := c.run(tm.remote, nil, "rev-parse", "-q", "--verify", batonRef); code == 0 {
		t.Fatalf("the remote took a version of the baton while the claim was unsettled")
	}
	got := tm.start("a", "--session", "s2")
	if !got.delivered(x) {
		t.Fatalf("start after the refusals did not deliver X (%s): %+v", x, got.Notices)
	}
}

// holdFirstCreation is a pre-receive hook that holds the first push
// creating ref (its old value all zeros) until the file open appears in
// dir, saying so by creating dir/held; every other push goes through.
func holdFirstCreation(dir, ref string) string {
	return fmt.Sprintf(`#!/bin/sh
d=%q
gate=no
while read old new ref; do
	case "$old" in *[!0]*) continue ;; esac
	[ "$ref" = %q ] && mkdir "$d/first" 2>/dev/null && gate=yes
done
[ $gate = yes ] || exit 0
: > "$d/held"
i=0
while [ ! -e "$d/open" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done
exit 0
`, dir, ref)
}

// TestPromiseTwoClaimsInOneClone (found by the soak): two claims of one
// baton made side by side in the clone that wrote it, which the remote
// never held, each push a claim creating its ref there, leased on
// "absent". The first is held at the remote; without the clone's claims
// lock the second lands meanwhile; a teammate's sync then empties the ref
// (it retired the claim, or healed it away after the remote's gc lost
// its object: here, a deletion at the remote), and the first lands on the
// empty ref. The baton must be delivered once, by claim and by start (the
// second start in a worktree of its own, as agents run).
func TestPromiseTwoClaimsInOneClone(t *testing.T) {
	for _, cmd := range []string{"claim", "start"} {
		t.Run(cmd, func(t *testing.T) {
			c := newCLI(t)
			tm := newTeam(c, "a")
			a := tm.clones["a"]
			x := tm.end("a", "two-claims step X") // never synced: the remote never held it
			second := a
			if cmd == "start" {
				second = filepath.Join(tm.dir, "a-wt")
				c.must(a, "worktree", "add", "-q", "-b", "other", second)
			}
			gate := filepath.Join(tm.dir, "gate")
			if err := os.Mkdir(gate, 0o755); err != nil {
				t.Fatal(err)
			}
			tm.preReceive(holdFirstCreation(gate, batonRef))
			p1 := c.spawn(a, nil, cmd, "--json", "--session", "s1", "--branch", "main")
			waitFile(t, filepath.Join(gate, "held"), p1)
			p2 := c.spawn(second, nil, cmd, "--json", "--session", "s2", "--branch", "main")
			// Without the lock, s2's claim lands and s2 finishes in well
			// under a second; with it, s2 waits for s1.
			select {
			case <-p2.done:
			case <-time.After(5 * time.Second):
			}
			if _, _, code := c.run(tm.remote, nil, "rev-parse", "-q", "--verify", batonRef); code == 0 {
				c.must(tm.remote, "update-ref", "-d", batonRef)
			}
			if err := os.WriteFile(filepath.Join(gate, "open"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			p1.wait(t)
			p2.wait(t)
			s1 := parseStarted(t, p1.out.String(), p1.err.String(), p1.code)
			s2 := parseStarted(t, p2.out.String(), p2.err.String(), p2.code)
			times := 0
			for _, s := range []started{s1, s2} {
				if s.delivered(x) {
					times++
				}
			}
			if times != 1 || !s1.delivered(x) {
				t.Fatalf("X (%s) delivered %d times, want once, to s1:\ns1: exit %d %s%s\ns2: exit %d %s%s", x, times, s1.code, s1.raw, s1.stderr, s2.code, s2.raw, s2.stderr)
			}
			// A claim that lost says so (exit 5); a start goes on without.
			if want := map[string]int{"claim": 5, "start": 0}[cmd]; s2.code != want {
				t.Errorf("s2, which waited for s1's claim: exit %d, want %d: %s%s", s2.code, want, s2.raw, s2.stderr)
			}
		})
	}
}
