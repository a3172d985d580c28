package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// harness owns one scratch world: a bare remote, clones of it (a, b, c…),
// the environment every process runs in, and the ledger of what was run.
type harness struct {
	bin    string // absolute path of the git-handoff binary under test
	dir    string // scratch directory
	remote string // bare repository
	clones map[string]string
	names  []string // the clones' names, in order
	env    []string
	run    string // marker prefix, unique to this run
	t0     time.Time
	// servers holds a file per receive-pack of the remote that runs, when
	// it runs as a server's would (newHarness, waitServers).
	servers string

	// skew, when not 0, puts the clock of skewClone's git-handoff
	// commands that far ahead: each one runs with GIT_HANDOFF_NOW (a
	// fixed RFC 3339 instant) set to the real time at its start plus skew.
	skew      time.Duration
	skewClone string

	mu     sync.Mutex
	ops    []Op
	seq    int
	ledger *os.File
}

// cloneNames are the names of n clones: a, b, c…
func cloneNames(n int) []string {
	if n < 2 {
		n = 2
	}
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + i))
	}
	return out
}

// newHarness sets up the remote and n clones (at least two) with real git
// and `git handoff init`, under a fresh directory in TMPDIR.
// newHarness sets up a remote and n clones of it, each set up by init.
// format is the repositories' formats: "" (git's default), "reftable",
// "sha256" or "reftable-sha256" (git 2.45 or later for either). With
// server, the remote's receive-pack runs in a session of its own (setsid),
// as a server's does on its own machine: a kill of a command's process
// group is the client's crash, which the server outlives. Without it, the
// remote's receive-pack, a child of the command's git push, dies with the
// group, as if client and server crashed together (git's locks on the
// remote are then left for its owner to remove).
func newHarness(ctx context.Context, bin, name string, n int, format string, server bool) (*harness, error) {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("the binary under test: %w", err)
	}
	dir, err := os.MkdirTemp("", "git-handoff-soak-"+name+"-")
	if err != nil {
		return nil, err
	}
	h := &harness{bin: bin, dir: dir, remote: filepath.Join(dir, "remote.git"),
		clones: map[string]string{}, names: cloneNames(n),
		run: fmt.Sprintf("soak.%06x", time.Now().UnixNano()&0xffffff), t0: time.Now()}
	for _, c := range h.names {
		h.clones[c] = filepath.Join(dir, c)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	// Inherit PATH and the like, never a session, a git dir or git config.
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "XDG_CONFIG_HOME" || k == "LC_ALL" {
			continue
		}
		h.env = append(h.env, kv)
	}
	h.env = append(h.env, "HOME="+home, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_GLOBAL="+filepath.Join(dir, "gitconfig"),
		"GIT_AUTHOR_NAME=Soak", "GIT_AUTHOR_EMAIL=soak@example.com",
		"GIT_COMMITTER_NAME=Soak", "GIT_COMMITTER_EMAIL=soak@example.com")
	if h.ledger, err = os.Create(filepath.Join(dir, "ledger.jsonl")); err != nil {
		return nil, err
	}
	a := h.clones["a"]
	steps := [][]string{
		{dir, "git", "config", "--global", "user.name", "Soak"},
		{dir, "git", "config", "--global", "user.email", "soak@example.com"},
		{dir, "git", "config", "--global", "init.defaultBranch", "main"},
		// gc runs when the harness says so, not when git feels like it.
		{dir, "git", "config", "--global", "gc.auto", "0"},
	}
	if server {
		// git runs a path remote's receive-pack through the shell, in
		// the pusher's process group: serverScript takes it out.
		script := filepath.Join(dir, "receive-pack")
		h.servers = filepath.Join(dir, "servers")
		if err := os.MkdirAll(h.servers, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(script, []byte(serverScript(h.servers)), 0o755); err != nil {
			return nil, err
		}
		steps = append(steps, []string{dir, "git", "config", "--global", "remote.origin.receivepack", script})
	}
	if strings.Contains(format, "reftable") {
		steps = append(steps, []string{dir, "git", "config", "--global", "init.defaultRefFormat", "reftable"})
	}
	if strings.Contains(format, "sha256") {
		steps = append(steps, []string{dir, "git", "config", "--global", "init.defaultObjectFormat", "sha256"})
	}
	steps = append(steps, [][]string{
		{dir, "git", "init", "-q", "--bare", h.remote},
		// The remote's reflog is the arbiter's history: every claim it
		// accepted, even one a later end has since replaced.
		{h.remote, "git", "config", "core.logAllRefUpdates", "always"},
		{dir, "git", "init", "-q", a},
		{a, "git", "commit", "-q", "--allow-empty", "-m", "soak: first commit"},
		{a, "git", "remote", "add", "origin", h.remote},
		{a, "git", "push", "-q", "origin", "main"},
		{a, h.bin, "init"},
	}...)
	for _, c := range h.names[1:] {
		steps = append(steps, []string{dir, "git", "clone", "-q", h.remote, h.clones[c]}, []string{h.clones[c], h.bin, "init"})
	}
	for _, s := range steps {
		cmd := exec.CommandContext(ctx, s[1], s[2:]...)
		cmd.Dir, cmd.Env = s[0], h.env
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("setting up (%s): %v: %s", strings.Join(s[1:], " "), err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(h.remote, "hooks", "post-receive"), []byte(receivedHook), 0o755); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *harness) close() { h.ledger.Close() }

func (h *harness) now() time.Duration { return time.Since(h.t0) }

func (h *harness) marker() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	return fmt.Sprintf("%s.%d", h.run, h.seq)
}

var markerRE = regexp.MustCompile(`soak\.[0-9a-f]{6}\.[0-9]+`)

// result is what one process did.
type result struct {
	exit           int
	killed         bool
	stdout, stderr string
	start, finish  time.Duration
}

// exec runs one command in a clone (or the remote) to completion; killAfter
// > 0 sends SIGKILL after that delay: to the whole process group when
// group is set (a crash: git's children die too), else to the process
// alone, and then waits until its orphaned children have finished too, so
// the next command sees what a user would see a moment after the crash.
// killOn, when set, kills the same way as soon as that file exists (a
// hook says it began) instead of after a delay.
func (h *harness) exec(ctx context.Context, dir string, killAfter time.Duration, killOn string, group bool, name string, args ...string) result {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, h.env
	if h.skew != 0 && name == h.bin && h.skewClone != "" && dir == h.clones[h.skewClone] {
		now := time.Now().Add(h.skew).UTC().Format(time.RFC3339Nano)
		cmd.Env = append(append([]string(nil), h.env...), "GIT_HANDOFF_NOW="+now)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r := result{start: h.now()}
	if err := cmd.Start(); err != nil {
		r.finish, r.exit, r.stderr = h.now(), -1, "starting: "+err.Error()
		return r
	}
	pid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timer <-chan time.Time
	if killAfter > 0 {
		timer = time.After(killAfter)
	}
	if killOn != "" {
		fired := make(chan time.Time, 1)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for {
				if _, err := os.Stat(killOn); err == nil {
					fired <- time.Now()
					return
				}
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		}()
		timer, killAfter = fired, time.Nanosecond
	}
	var err error
	select {
	case err = <-done:
	case <-timer:
		if group {
			syscall.Kill(-pid, syscall.SIGKILL)
		} else {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		err = <-done
		if !group {
			waitGroupGone(pid, 10*time.Second)
		}
		h.waitServers(30 * time.Second)
	case <-ctx.Done():
		syscall.Kill(-pid, syscall.SIGKILL)
		err = <-done
		errb.WriteString("\nsoak: timed out after 2 minutes\n")
	}
	r.finish = h.now()
	r.stdout, r.stderr = out.String(), errb.String()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.exit = -1
			r.killed = killAfter > 0 && ws.Signal() == syscall.SIGKILL && ctx.Err() == nil
		}
	default:
		r.exit = -1
	}
	return r
}

// serverScript is the remote's receive-pack for newHarness's server: in
// a session of its own, and named by a file in dir, <pid>, while it runs,
// so that the harness can wait for a push the client no longer waits for
// (waitServers).
func serverScript(dir string) string {
	return "#!/bin/sh\n" +
		"exec setsid sh -c 'echo $$ >\"$0/$$\"; git receive-pack \"$1\"; s=$?; rm -f \"$0/$$\"; exit $s' '" + dir + "' \"$1\"\n"
}

// waitServers waits until no receive-pack of the remote runs (with
// newHarness's server), at most timeout: after a kill, the server may
// still be finishing the push, and what it leaves is judged once it is
// done, as a user would meet it a moment later.
func (h *harness) waitServers(timeout time.Duration) {
	if h.servers == "" {
		return
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir(h.servers)
		alive := false
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err == nil && syscall.Kill(pid, 0) == nil {
				alive = true
				break
			}
			os.Remove(filepath.Join(h.servers, e.Name())) // killed some other way
		}
		if !alive {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitGroupGone waits until no process of group pgid is left (then kills
// what is left after timeout).
func waitGroupGone(pgid int, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(-pgid, syscall.SIGKILL)
			time.Sleep(10 * time.Millisecond)
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// handoff runs `git handoff ARGS` in a clone and records it in the ledger.
// op carries the kind and what the harness knows before it runs (owner,
// branch, marker, session); the outcome is filled in from the output.
func (h *harness) handoff(ctx context.Context, op Op, killAfter time.Duration, group bool) Op {
	return h.handoffKill(ctx, op, killAfter, "", group)
}

// handoffKill is handoff, killing on a delay or on a file's appearance.
func (h *harness) handoffKill(ctx context.Context, op Op, killAfter time.Duration, killOn string, group bool) Op {
	r := h.exec(ctx, h.clones[op.Clone], killAfter, killOn, group, h.bin, op.Args...)
	op.Start, op.Finish, op.Exit, op.Killed = r.start, r.finish, r.exit, r.killed
	if !op.Killed {
		op.Unclear = classify(r)
		interpret(&op, r)
		if op.Exit != 0 {
			op.Stderr = tell(r.stderr, 3)
		}
	}
	return h.record(op)
}

func (h *harness) record(op Op) Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	op.Seq = len(h.ops) + 1
	h.ops = append(h.ops, op)
	b, _ := json.Marshal(op)
	h.ledger.Write(append(b, '\n'))
	return op
}

// classify says why an outcome is unclear, or "" when it is clear: exit
// 0, 5 (conflict) or 6 (not found), a non-zero exit that says why on an
// `error:` line, no Go panic, and valid JSON on stdout when it succeeded.
func classify(r result) string {
	if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") && strings.Contains(r.stderr, "[running]") {
		return "go panic: " + firstLines(r.stderr, 2)
	}
	if strings.Contains(r.stderr, "soak: timed out") {
		return "timed out"
	}
	switch r.exit {
	case 0:
		if !json.Valid([]byte(r.stdout)) {
			return "exit 0 without valid JSON on stdout"
		}
		return ""
	case 1:
		// The remote's hook refused a push (writers.go): a fair failure
		// when the command says so.
		if hasErrorLine(r.stderr) && strings.Contains(r.stderr, refusedMark) {
			return ""
		}
		return fmt.Sprintf("exit %d: %s", r.exit, tell(r.stderr, 3))
	case 5, 6:
	default:
		return fmt.Sprintf("exit %d: %s", r.exit, tell(r.stderr, 3))
	}
	if !hasErrorLine(r.stderr) {
		return fmt.Sprintf("exit %d without an error: line: %q", r.exit, firstLines(r.stderr, 2))
	}
	return ""
}

func hasErrorLine(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "error: ") && len(strings.TrimSpace(l)) > len("error: ") {
			return true
		}
	}
	return false
}

// tell is the first n lines of a command's stderr and its first `error:`
// line when that comes later: a sync that joined several keys says a
// notice for each before the error that made it fail (seed 12's #100 was
// an unclear exit 1 whose ledger kept three notices and not why).
func tell(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) <= n {
		return strings.Join(ls, " | ")
	}
	out := ls[:n:n]
	for _, l := range ls[n:] {
		if strings.HasPrefix(l, "error: ") {
			out = append(out, "…", l)
			break
		}
	}
	return strings.Join(out, " | ")
}

func firstLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, " | ")
}

// interpret reads what a command told its caller from its --json output.
// Markers are searched anywhere in the output except the rendered brief
// and the notices (which may show a baton without handing it over), so
// the harness does not depend on the exact shape of the JSON.
func interpret(op *Op, r result) {
	var v map[string]any
	json.Unmarshal([]byte(r.stdout), &v)
	op.Notices = claimNotices(v, r.stderr)
	if r.exit != 0 || v == nil {
		return
	}
	switch op.Kind {
	case "end":
		if h, ok := v["handoff"].(map[string]any); ok {
			op.BatonID, _ = h["id"].(string)
		}
	case "dismiss":
		if c, _ := v["dismissed"].(bool); c {
			op.Cancelled = markersIn(v)
		}
	case "claim":
		op.Won, op.Delivered = true, markersIn(v)
	case "start":
		if c, _ := v["claimed"].(bool); c {
			op.Won, op.Delivered = true, markersIn(v)
		}
	case "cancel":
		if c, _ := v["cancelled"].(bool); c {
			op.Cancelled = markersIn(v)
		}
	}
}

// claimNotices are the lines of a command's notices (in its JSON) and its
// stderr that speak of a claim, each once.
func claimNotices(v map[string]any, stderr string) []string {
	var lines []string
	if ns, ok := v["notices"].([]any); ok {
		for _, n := range ns {
			if s, ok := n.(string); ok {
				lines = append(lines, s)
			}
		}
	}
	lines = append(lines, strings.Split(stderr, "\n")...)
	seen := map[string]bool{}
	var out []string
	for _, l := range lines {
		l = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(l), "notice: "), "error: ")
		if (strings.Contains(l, "claimed") || strings.Contains(l, "won by")) && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// markersIn finds the baton markers a command's JSON hands over: not in
// the brief's text, its notices or warnings, nor in the conflicts it
// reports (a conflict's diff shows the text of both versions it joined,
// delivered or not).
func markersIn(v any) []string {
	set := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "brief", "notices", "warnings", "conflicts":
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			for _, m := range markerRE.FindAllString(x, -1) {
				set[m] = true
			}
		}
	}
	walk(v)
	var out []string
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// git runs plain git in dir (no ledger).
func (h *harness) git(ctx context.Context, dir string, args ...string) result {
	return h.exec(ctx, dir, 0, "", false, "git", args...)
}

// conflictReflog starts the reflog message of a local write that settled a
// conflict (refstore.ConflictReflog; spelled out here so the harness reads
// what git shows, not the code under test).
const conflictReflog = "handoff: sync conflict"

// observe reads every baton at the tips of refs/ao/handoffs/ in both
// clones and the remote, every version the remote's reflog of those
// refs ever held, and every baton retired to an archive month (the trees
// of refs/ao/archive/<month> and of any other ref under refs/ao/ naming a
// tree, such as a clone's copy of the remote's months: paths handoffs/<id>
// and keys/<baton ref>) — with git itself, not through the code under
// test.
func (h *harness) observe(ctx context.Context) ([]Seen, error) {
	var seen []Seen
	type place struct{ name, dir, gitdir string }
	var places []place
	for _, c := range h.names {
		places = append(places, place{c, h.clones[c], filepath.Join(h.clones[c], ".git")})
	}
	places = append(places, place{"remote", h.remote, h.remote})
	for _, p := range places {
		r := h.git(ctx, p.dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/ao/handoffs/")
		if r.exit != 0 {
			return nil, fmt.Errorf("listing batons in %s: %s", p.name, r.stderr)
		}
		var ids, refs []string
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			if id, ref, ok := strings.Cut(l, " "); ok {
				ids, refs = append(ids, id), append(refs, ref)
			}
		}
		// A clone's reflog names the versions a join dropped as the
		// loser of two concurrent ones: reported (a conflict line, a log
		// event) and still reachable, which is what the design promises
		// for them.
		var dropped, history []string
		if p.name != "remote" {
			logs := filepath.Join(p.gitdir, "logs", "refs", "ao", "handoffs")
			filepath.WalkDir(logs, func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return nil
				}
				b, _ := os.ReadFile(path)
				for _, l := range strings.Split(string(b), "\n") {
					head, msg, _ := strings.Cut(l, "\t")
					f := strings.Fields(head)
					if len(f) >= 2 && strings.HasPrefix(msg, conflictReflog) && strings.Trim(f[0], "0") != "" {
						dropped = append(dropped, f[0])
					}
					if len(f) >= 2 && strings.Trim(f[1], "0") != "" {
						history = append(history, f[1])
					}
				}
				return nil
			})
			// Retiring a ref takes its reflog with it: the clone's notes
			// of conflicts, which `git handoff log` reads, keep them.
			dropped = append(dropped, notedConflicts(p.gitdir)...)
			for _, id := range dropped {
				ids, refs = append(ids, id), append(refs, "conflict:"+p.name)
			}
			for _, id := range history {
				ids, refs = append(ids, id), append(refs, "history:"+p.name)
			}
		}
		if p.name == "remote" {
			logs := filepath.Join(p.gitdir, "logs", "refs", "ao", "handoffs")
			filepath.WalkDir(logs, func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return nil
				}
				rel, _ := filepath.Rel(filepath.Join(p.gitdir, "logs"), path)
				b, _ := os.ReadFile(path)
				for _, l := range strings.Split(string(b), "\n") {
					if f := strings.Fields(l); len(f) >= 2 && strings.Trim(f[1], "0") != "" {
						ids, refs = append(ids, f[1]), append(refs, "reflog:"+rel)
					}
				}
				return nil
			})
		}
		arch, err := h.archived(ctx, p.dir)
		if err != nil {
			return nil, fmt.Errorf("reading the archive in %s: %w", p.name, err)
		}
		for _, a := range arch {
			ids, refs = append(ids, a[0]), append(refs, "archive:"+a[1])
		}
		blobs, err := h.catFile(ctx, p.dir, ids)
		if err != nil {
			return nil, fmt.Errorf("reading batons in %s: %w", p.name, err)
		}
		if p.name == "remote" {
			// What the remote accepted, kept by its post-receive hook: its
			// reflog, as it was before retirement deleted refs with theirs.
			for _, r := range readReceived(h.receivedDir()) {
				ids, refs = append(ids, r.id), append(refs, "received:"+r.ref)
				if _, ok := blobs[r.id]; !ok {
					blobs[r.id] = r.data
				}
			}
		}
		ids, refs, err = h.withPrevs(ctx, p.dir, ids, refs, blobs)
		if err != nil {
			return nil, fmt.Errorf("reading earlier versions in %s: %w", p.name, err)
		}
		for i, id := range ids {
			var rec record
			b, ok := blobs[id]
			if !ok || json.Unmarshal(b, &rec) != nil {
				continue
			}
			s := Seen{Where: p.name, Tip: !strings.HasPrefix(refs[i], "reflog:"), Ref: refs[i], ID: rec.ID,
				Claimed: rec.Claimed, ClaimedBy: rec.ClaimedBySession,
				Deleted: len(rec.Deleted) > 0 && string(rec.Deleted) != "null"}
			switch {
			case strings.HasPrefix(refs[i], "history:"):
				s.Tip, s.Where, s.History = false, p.name+"-reflog", true
			case strings.HasPrefix(refs[i], "prev:"):
				s.Tip, s.Where, s.History = false, p.name+"-prev", true
			case strings.HasPrefix(refs[i], "received:"):
				s.Tip, s.Where = false, "remote-reflog"
			case strings.HasPrefix(refs[i], "archive:"):
				s.Tip, s.Where, s.Archived = false, p.name+"-archive", true
				s.Ref = strings.TrimPrefix(refs[i], "archive:")
			case strings.HasPrefix(refs[i], "conflict:"):
				s.Tip, s.Where, s.ConflictDropped = false, p.name+"-conflict", true
				s.Claimed, s.ClaimedBy, s.Deleted = false, "", false
			case !s.Tip:
				s.Where = "remote-reflog"
			}
			if ms := markerRE.FindAllString(strings.Join(rec.NextSteps, "\n"), -1); len(ms) > 0 {
				s.Marker = ms[0]
			}
			seen = append(seen, s)
		}
	}
	return seen, nil
}

// record is what the observation reads of a baton version.
type record struct {
	ID               string          `json:"id"`
	NextSteps        []string        `json:"nextSteps"`
	Claimed          bool            `json:"claimed"`
	ClaimedBySession string          `json:"claimedBySession"`
	Deleted          json.RawMessage `json:"deleted"`
	// Prev is the blob of the version this one replaced, as its writer
	// recorded it.
	Prev string `json:"prev"`
}

// withPrevs adds to ids (and refs, "prev:<id of the later version>") the
// earlier versions the records of blobs name as replaced (their "prev"),
// and theirs, as far as dir still has the objects, reading them into
// blobs. A version a later one replaced stays named by it after the
// reflogs that held it are gone (retiring a ref deletes its reflog, in a
// clone as at the remote): it is the history `git handoff log` tells.
// These count only as History, for the notices: a writer may have
// replaced a version no other repository ever held.
func (h *harness) withPrevs(ctx context.Context, dir string, ids, refs []string, blobs map[string][]byte) ([]string, []string, error) {
	named := map[string]bool{}
	for _, id := range ids {
		named[id] = true
	}
	todo := ids
	for len(todo) > 0 {
		var next, from []string
		for _, id := range todo {
			var rec record
			if json.Unmarshal(blobs[id], &rec) != nil || !hexID(rec.Prev) || named[rec.Prev] {
				continue
			}
			named[rec.Prev] = true
			next, from = append(next, rec.Prev), append(from, id)
		}
		read, err := h.catFile(ctx, dir, next)
		if err != nil {
			return nil, nil, err
		}
		todo = todo[:0:0]
		for i, id := range next {
			if b, ok := read[id]; ok {
				blobs[id] = b
				ids, refs = append(ids, id), append(refs, "prev:"+from[i])
				todo = append(todo, id)
			}
		}
	}
	return ids, refs, nil
}

// hexID: an object name, and nothing git would read as another revision.
func hexID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// received is one version the remote accepted, as receivedHook kept it.
type received struct {
	id, ref string
	data    []byte
}

// readReceived reads receivedHook's log and the blobs it kept (none when
// the hook never ran).
func readReceived(dir string) []received {
	b, err := os.ReadFile(filepath.Join(dir, "log"))
	if err != nil {
		return nil
	}
	var out []received
	for _, l := range strings.Split(string(b), "\n") {
		id, ref, ok := strings.Cut(strings.TrimSpace(l), " ")
		if !ok || !hexID(id) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, id))
		if err != nil {
			continue
		}
		out = append(out, received{id: id, ref: ref, data: data})
	}
	return out
}

// notedConflicts are the versions a clone's notes of conflicts (the files
// `git handoff log` reads its conflict events from: handoff/conflicts, its
// older half conflicts.1, and conflicts.d/, one JSON object a line) name
// as dropped.
func notedConflicts(gitdir string) []string {
	dir := filepath.Join(gitdir, "handoff")
	files := []string{filepath.Join(dir, "conflicts"), filepath.Join(dir, "conflicts.1")}
	late, _ := filepath.Glob(filepath.Join(dir, "conflicts.d", "*"))
	var out []string
	for _, f := range append(files, late...) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			var n struct {
				Dropped string `json:"dropped"`
			}
			if json.Unmarshal([]byte(l), &n) == nil && strings.Trim(n.Dropped, "0") != "" {
				out = append(out, n.Dropped)
			}
		}
	}
	return out
}

// archived lists the baton blobs of every archive month in dir: each
// {blob id, "<ref>:<path>"}, asked of git (for-each-ref for the refs under
// refs/ao/archive/ and their copies, ls-tree -r for their handoffs/ and
// keys/). The listing reads no object: a ref elsewhere naming one the
// soak's gc --prune=now removed (a lost-object mark at the remote) must
// not stop it.
func (h *harness) archived(ctx context.Context, dir string) ([][2]string, error) {
	r := h.git(ctx, dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/ao/")
	if r.exit != 0 {
		return nil, fmt.Errorf("for-each-ref: %s", firstLines(r.stderr, 2))
	}
	var out [][2]string
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		f := strings.Fields(l)
		// A month names the commit of its tree (an older release's, the
		// tree itself): ls-tree reads either.
		if len(f) != 2 || !strings.HasPrefix(f[1], "refs/ao/archive/") && !(strings.HasPrefix(f[1], "refs/ao/remotes/") && strings.Contains(f[1], "/archive/")) {
			continue
		}
		f = []string{f[0], "", f[1]}
		// A tree missing a subtree (the soak's gc --prune=now deleted it
		// under a fetch or a write: seed 15 with -skew 960 left clone b's
		// month so) is read as far as git gets; git fsck, run in every
		// repository, reports the rest as a failure.
		ls := h.git(ctx, dir, "ls-tree", "-r", f[0], "--", "handoffs/", "keys/")
		for _, e := range strings.Split(strings.TrimSpace(ls.stdout), "\n") {
			// "<mode> blob <id>\t<path>"
			head, path, ok := strings.Cut(e, "\t")
			hf := strings.Fields(head)
			if !ok || len(hf) != 3 || hf[1] != "blob" {
				continue
			}
			out = append(out, [2]string{hf[2], f[2] + ":" + path})
		}
	}
	return out, nil
}

// catFile reads objects through one `git cat-file --batch`.
func (h *harness) catFile(ctx context.Context, dir string, ids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(ids) == 0 {
		return out, nil
	}
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir, cmd.Env = dir, h.env
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	b, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	rd := bufio.NewReader(bytes.NewReader(b))
	for {
		hdr, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		f := strings.Fields(hdr)
		if len(f) != 3 {
			continue // "<id> missing"
		}
		var n int
		fmt.Sscan(f[2], &n)
		buf := make([]byte, n+1)
		if _, err := io.ReadFull(rd, buf); err != nil {
			break
		}
		out[f[0]] = buf[:n]
	}
	return out, nil
}

// fsck runs `git fsck` in dir: clean is exit 0 with nothing said
// (dangling objects are expected: a lost compare-and-swap leaves its blob).
func (h *harness) fsck(ctx context.Context, dir string) string {
	r := h.git(ctx, dir, "fsck", "--no-dangling", "--no-progress")
	if r.exit != 0 || strings.TrimSpace(r.stdout+r.stderr) != "" {
		return fmt.Sprintf("git fsck in %s: exit %d: %s", filepath.Base(dir), r.exit, firstLines(r.stdout+r.stderr, 3))
	}
	return ""
}

// locks lists lock files left under refs/ao/ in the clones and the remote,
// under the clones' refs/worktree/ao/ (the binding's), and a
// packed-refs.lock (which blocks every deletion of a packed ref).
func (h *harness) locks() []string {
	var out []string
	var gds []string
	for _, c := range h.names {
		gds = append(gds, filepath.Join(h.clones[c], ".git"))
	}
	for _, gd := range append(gds, h.remote) {
		if _, err := os.Stat(filepath.Join(gd, "packed-refs.lock")); err == nil {
			rel, _ := filepath.Rel(h.dir, filepath.Join(gd, "packed-refs.lock"))
			out = append(out, rel)
		}
		// refs/worktree/ao/ too: a lock a killed command left on the
		// worktree's binding once failed every later bind and unbind there
		// quietly (notices only), until the binding dangled.
		for _, root := range []string{filepath.Join(gd, "refs", "ao"), filepath.Join(gd, "refs", "worktree", "ao")} {
			filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".lock") {
					rel, _ := filepath.Rel(h.dir, path)
					out = append(out, rel)
				}
				return nil
			})
		}
	}
	return out
}

// dangling lists, per clone, each ref under refs/ao/ and the worktree's
// binding (refs/worktree/ao/session, a symbolic ref) that names an object
// the clone does not have — asked of git: for-each-ref, cat-file
// --batch-check, symbolic-ref.
func (h *harness) dangling(ctx context.Context) []Seen {
	var out []Seen
	for _, c := range h.names {
		dir := h.clones[c]
		r := h.git(ctx, dir, "for-each-ref", "--format=%(objectname) %(refname)", "refs/ao/")
		var ids, refs []string
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			if id, ref, ok := strings.Cut(l, " "); ok {
				ids, refs = append(ids, id), append(refs, ref)
			}
		}
		for _, l := range strings.Split(r.stderr, "\n") {
			if _, ref, ok := strings.Cut(l, "ignoring broken ref "); ok {
				out = append(out, Seen{Where: c, Ref: strings.TrimSpace(ref) + " (broken)", Missing: true})
			}
		}
		if b := h.git(ctx, dir, "symbolic-ref", "-q", "refs/worktree/ao/session"); b.exit == 0 {
			target := strings.TrimSpace(b.stdout)
			if v := h.git(ctx, dir, "rev-parse", "-q", "--verify", target); v.exit != 0 {
				out = append(out, Seen{Where: c, Ref: "refs/worktree/ao/session -> " + target + " (no such ref)", Missing: true})
			} else {
				ids, refs = append(ids, strings.TrimSpace(v.stdout)), append(refs, "refs/worktree/ao/session -> "+target)
			}
		}
		if len(ids) == 0 {
			continue
		}
		cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch-check")
		cmd.Dir, cmd.Env = dir, h.env
		cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
		b, err := cmd.Output()
		if err != nil {
			out = append(out, Seen{Where: c, Ref: "(git cat-file --batch-check failed: " + err.Error() + ")", Missing: true})
			continue
		}
		for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if i < len(refs) && strings.HasSuffix(l, " missing") {
				out = append(out, Seen{Where: c, Ref: refs[i] + " -> " + ids[i], Missing: true})
			}
		}
	}
	return out
}

// nameOf is the name of the clone at dir, "" for none (the remote).
func (h *harness) nameOf(dir string) string {
	for name, d := range h.clones {
		if d == dir {
			return name
		}
	}
	return ""
}

func (h *harness) snapshot() []Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Op(nil), h.ops...)
}
