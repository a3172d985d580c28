package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/tmuxrt/tmuxrttest"
)

// These tests run agents under real tmux, on a socket of each test's own,
// through real git-handoff processes (TestMain puts the test binary on PATH
// under that name). The agents are stand-ins named claude and codex that
// print their argv and stay running.

type tmuxEnv struct {
	t    *testing.T
	repo string
	env  []string
	hold string // STANDIN_HOLD of the stand-ins
}

func newTmuxEnv(t *testing.T) *tmuxEnv {
	t.Helper()
	self, err := exec.LookPath("git-handoff")
	if err != nil {
		t.Skip("git-handoff is not on PATH (TestMain puts the test binary there)")
	}
	tmuxrttest.Socket(t)
	agents := tmuxrttest.Agents(t, "claude", "codex")
	// A PATH with the stand-ins and the tools, and surely no real goose:
	// the refused switch names it.
	var dirs []string
	for _, prog := range []string{"git", "tmux", "sh", "sleep", "env"} {
		p, err := exec.LookPath(prog)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	path := strings.Join(append([]string{agents, filepath.Dir(self)}, dirs...), string(os.PathListSeparator))
	t.Setenv("PATH", path)
	if _, err := exec.LookPath("goose"); err == nil {
		t.Fatal("goose is on the test's PATH")
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	hold := filepath.Join(dir, "hold")
	for _, d := range []string{home, repo, hold} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(cfg, []byte("[user]\n\tname = Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &tmuxEnv{t: t, repo: repo, hold: hold,
		env: append(refstore.CleanEnv(os.Environ()), "HOME="+home, "GIT_CONFIG_GLOBAL="+cfg, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_HANDOFF_SESSION=", "STANDIN_HOLD="+hold, "TMUX=", "TMUX_PANE=")}
	e.must("git", "init", "-q")
	e.must("git", "commit", "-q", "--allow-empty", "-m", "first")
	return e
}

func (e *tmuxEnv) run(prog string, args ...string) (string, string, int) {
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = e.repo, e.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		e.t.Fatalf("%s %v: %v", prog, args, err)
	}
	return out.String(), errb.String(), 0
}

func (e *tmuxEnv) must(prog string, args ...string) string {
	e.t.Helper()
	out, stderr, code := e.run(prog, args...)
	if code != 0 {
		e.t.Fatalf("%s %v: exit %d: %s", prog, args, code, stderr)
	}
	return out
}

func (e *tmuxEnv) handoff(args ...string) string { e.t.Helper(); return e.must("git-handoff", args...) }

func (e *tmuxEnv) json(v any, args ...string) {
	e.t.Helper()
	out := e.handoff(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		e.t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

type lsRuntime struct {
	Name       string `json:"name"`
	Socket     string `json:"socket"`
	State      string `json:"state"`
	ExitStatus *int   `json:"exitStatus"`
	Signal     int    `json:"signal"`
	PID        int    `json:"pid"`
	Pane       string `json:"pane"`
}

type lsSession struct {
	ID        string     `json:"id"`
	Harness   string     `json:"harness"`
	Status    string     `json:"status"`
	Switching *struct{}  `json:"switching"`
	Runtime   *lsRuntime `json:"runtime"`
}

func (e *tmuxEnv) ls() map[string]lsSession {
	e.t.Helper()
	var out struct{ Sessions []lsSession }
	e.json(&out, "session", "ls", "--all")
	m := map[string]lsSession{}
	for _, s := range out.Sessions {
		m[s.ID] = s
	}
	return m
}

// waitStatus waits, at most 20 seconds, until session ls --all shows id
// with status, and returns it.
func (e *tmuxEnv) waitStatus(id, status string) lsSession {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := e.ls()[id]
		if s.Status == status {
			return s
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("session %s is %q after 20s, want %q (runtime %+v)", id, s.Status, status, s.Runtime)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// launch starts session id's agent under tmux and waits until its
// stand-in has printed who it is.
func (e *tmuxEnv) launch(id, harness string) (tmuxrt.Server, string, tmuxrt.Pane) {
	e.t.Helper()
	e.handoff("start", "--session", id, "--harness", harness, "--objective", "fix the parser")
	var res struct {
		Runtime lsRuntime
		Launch  struct{ Argv []string }
	}
	e.json(&res, "session", "launch", id, "--tmux")
	if res.Runtime.Name != tmuxrt.SessionName(id) || res.Runtime.State != "live" || res.Runtime.Socket == "" {
		e.t.Fatalf("launch runtime %+v", res.Runtime)
	}
	srv := tmuxrt.Server{Path: res.Runtime.Socket}
	bin := map[string]string{"claude": "claude", "codex": "codex"}[harness]
	p, _ := tmuxrttest.Wait(e.t, srv, res.Runtime.Name, func(p tmuxrt.Pane, ok bool, s string) bool {
		return ok && !p.Dead && strings.Contains(s, "stand-in "+bin+" pid")
	})
	return srv, res.Runtime.Name, p
}

// processGone waits, bounded, until pid is no process at all (a zombie
// counts as one still).
func processGone(t *testing.T, pid int) {
	t.Helper()
	for range 400 {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		tmuxrttest.Pause()
	}
	t.Fatalf("process %d is still there", pid)
}

// A launched agent runs in its own tmux session, recorded on the session;
// a live switch validates first, stops the old agent and starts the new
// one in the same pane, and nothing reading the sessions meanwhile sees
// the session terminated. A refused switch (a program not on PATH) leaves
// the running agent alone.
func TestTmuxLaunchAndLiveSwitch(t *testing.T) {
	e := newTmuxEnv(t)
	srv, name, before := e.launch("s-live", "claude")

	s := e.ls()["s-live"]
	if s.Status != "active" || s.Runtime == nil || s.Runtime.State != "live" || s.Runtime.PID != before.PID {
		t.Fatalf("session ls: %+v (runtime %+v), want active and live with pid %d", s, s.Runtime, before.PID)
	}
	var shown lsSession
	e.json(&shown, "session", "show", "s-live")
	if shown.Status != "active" || shown.Runtime == nil || shown.Runtime.State != "live" {
		t.Fatalf("session show: %+v", shown)
	}
	if out := e.handoff("session", "attach", "s-live", "--print"); !strings.Contains(out, "attach-session -t =handoff-s-live") || !strings.Contains(out, srv.Path) {
		t.Errorf("attach --print: %s", out)
	}

	// Watch the sessions from another process, again and again, for the
	// whole switch.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var seen []string
	polls := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			out, stderr, code := e.run("git-handoff", "session", "ls", "--all", "--json")
			polls++
			if code != 0 {
				seen = append(seen, "exit "+stderr)
				continue
			}
			var res struct{ Sessions []lsSession }
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				seen = append(seen, err.Error())
				continue
			}
			found := false
			for _, s := range res.Sessions {
				if s.ID == "s-live" {
					found = true
					if s.Status != "active" {
						seen = append(seen, s.Status)
					}
				}
			}
			if !found {
				seen = append(seen, "missing")
			}
		}
	}()

	type result struct {
		out, stderr string
		code        int
	}
	done := make(chan result, 1)
	go func() {
		out, stderr, code := e.run("git-handoff", "session", "switch", "s-live", "--harness", "codex", "--stop-timeout", "1m", "--json")
		done <- result{out, stderr, code}
	}()
	// The old agent got SIGTERM and holds on: the switch is in its gap.
	termed := filepath.Join(e.hold, "claude.termed")
	for i := 0; ; i++ {
		if _, err := os.Stat(termed); err == nil {
			break
		}
		if i == 2000 {
			t.Fatal("the old agent was never sent SIGTERM")
		}
		tmuxrttest.Pause()
	}
	mid := e.ls()["s-live"]
	if mid.Status != "active" || mid.Switching == nil || mid.Harness != "claude-code" {
		t.Errorf("during the switch: %+v, want active, switching, still claude-code", mid)
	}
	if err := os.WriteFile(filepath.Join(e.hold, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := <-done
	close(stop)
	wg.Wait()
	if r.code != 0 {
		t.Fatalf("switch: exit %d: %s", r.code, r.stderr)
	}
	if len(seen) > 0 {
		t.Errorf("session ls during the switch saw %q (in %d polls)", seen, polls)
	}

	// codex prints its arguments after its name: the task among them.
	after, _ := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool {
		_, out, found := strings.Cut(s, "stand-in codex pid")
		return ok && !p.Dead && found && strings.Contains(out, "fix the parser")
	})
	if after.ID != before.ID || after.PID == before.PID {
		t.Errorf("pane after %+v, before %+v: want the same pane, another program", after, before)
	}
	processGone(t, before.PID)
	s = e.ls()["s-live"]
	if s.Status != "active" || s.Harness != "codex" || s.Switching != nil || s.Runtime.State != "live" || s.Runtime.PID != after.PID {
		t.Errorf("after the switch: %+v (runtime %+v)", s, s.Runtime)
	}

	// A switch to an agent whose program is missing is refused and the
	// running agent stays.
	_, stderr, code := e.run("git-handoff", "session", "switch", "s-live", "--harness", "goose")
	if code == 0 || !strings.Contains(stderr, `"goose" is not on PATH`) || !strings.Contains(stderr, "nothing was stopped") {
		t.Errorf("switch to goose: exit %d: %s", code, stderr)
	}
	p, ok, err := srv.Pane(t.Context(), name)
	if err != nil || !ok || p.Dead || p.PID != after.PID {
		t.Errorf("after the refused switch the pane is %+v (found %v, %v), want pid %d running", p, ok, err, after.PID)
	}
	s = e.ls()["s-live"]
	if s.Status != "active" || s.Harness != "codex" || s.Switching != nil {
		t.Errorf("after the refused switch: %+v", s)
	}
	// So is launching it again while it runs.
	if _, stderr, code := e.run("git-handoff", "session", "launch", "s-live", "--tmux"); code != exitConflict || !strings.Contains(stderr, "already runs in tmux session") {
		t.Errorf("second launch: exit %d: %s", code, stderr)
	}
}

// An agent that exited shows as exited with its signal and its session as
// terminated; a switch relaunches it with the new agent after destroying
// the lingering tmux session. Attach refuses a session without a running
// agent.
func TestTmuxTerminatedIsRelaunched(t *testing.T) {
	e := newTmuxEnv(t)
	srv, name, before := e.launch("s-dead", "claude")
	if err := syscall.Kill(-before.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool { return ok && p.Dead })
	// tmux's pane-died hook ends the session (`session exited`).
	s := e.waitStatus("s-dead", "ended")
	if s.Runtime == nil || s.Runtime.State != "exited" || s.Runtime.Signal != int(syscall.SIGKILL) {
		t.Fatalf("after the agent died: %+v (runtime %+v)", s, s.Runtime)
	}
	var shown lsSession
	e.json(&shown, "session", "show", "s-dead")
	if shown.Status != "ended" || shown.Runtime == nil || shown.Runtime.State != "exited" {
		t.Errorf("session show after the agent died: %+v (runtime %+v)", shown, shown.Runtime)
	}
	if _, stderr, code := e.run("git-handoff", "session", "attach", "s-dead"); code == 0 || !strings.Contains(stderr, "exited") || !strings.Contains(stderr, "lingers") {
		t.Errorf("attach to an exited agent: exit %d: %s", code, stderr)
	}
	e.handoff("start", "--session", "s-plain", "--harness", "claude", "--objective", "x")
	if _, stderr, code := e.run("git-handoff", "session", "attach", "s-plain"); code == 0 || !strings.Contains(stderr, "runs in no tmux session") {
		t.Errorf("attach to a session never run under tmux: exit %d: %s", code, stderr)
	}

	var res struct {
		Session lsSession
		Notices []string
	}
	e.json(&res, "session", "switch", "s-dead", "--harness", "codex")
	if !strings.Contains(strings.Join(res.Notices, "\n"), "destroyed the lingering tmux session "+name) {
		t.Errorf("notices %q do not say the lingering session was destroyed", res.Notices)
	}
	after, _ := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool {
		return ok && !p.Dead && strings.Contains(s, "stand-in codex pid")
	})
	if after.PID == before.PID {
		t.Errorf("the pane still runs pid %d", after.PID)
	}
	s = e.ls()["s-dead"]
	if s.Status != "active" || s.Harness != "codex" || s.Runtime.State != "live" {
		t.Errorf("after the relaunch: %+v (runtime %+v)", s, s.Runtime)
	}

	// Restore of a live session changes nothing; once its agent exited
	// (status 0 this time), restore relaunches the same agent.
	var restored struct{ Changed bool }
	e.json(&restored, "session", "restore", "s-dead")
	if restored.Changed {
		t.Error("restore of a live session relaunched it")
	}
	if err := os.WriteFile(filepath.Join(e.hold, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-after.PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool { return ok && p.Dead })
	if s = e.waitStatus("s-dead", "ended"); s.Runtime.ExitStatus == nil || *s.Runtime.ExitStatus != 0 {
		t.Fatalf("after codex exited: %+v (runtime %+v)", s, s.Runtime)
	}
	e.json(&restored, "session", "restore", "s-dead")
	if !restored.Changed {
		t.Error("restore of a terminated session changed nothing")
	}
	again, _ := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool {
		return ok && !p.Dead && strings.Contains(s, "stand-in codex pid")
	})
	if again.PID == after.PID {
		t.Errorf("restore left pid %d", again.PID)
	}
	if s = e.ls()["s-dead"]; s.Status != "active" || s.Harness != "codex" || s.Runtime.State != "live" {
		t.Errorf("after restore: %+v (runtime %+v)", s, s.Runtime)
	}
}

// Replacing a live session takes the terminal excerpt from its pane, and
// --stop ends the old agent once the replacement exists.
func TestTmuxReplaceCapturesThePane(t *testing.T) {
	e := newTmuxEnv(t)
	srv, name, before := e.launch("s-old", "claude")
	// The stand-in exits on SIGTERM at once.
	if err := os.WriteFile(filepath.Join(e.hold, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Package          string
		TerminalCaptured bool
		Stopped          bool
		New              lsSession
		Notices          []string
	}
	e.json(&res, "session", "replace", "s-old", "--new-id", "s-new", "--reason", "stuck", "--stop", "--stop-timeout", "30s")
	if !res.TerminalCaptured || !res.Stopped {
		t.Errorf("captured %v stopped %v (notices %q)", res.TerminalCaptured, res.Stopped, res.Notices)
	}
	if !strings.Contains(res.Package, "stand-in claude pid") || !strings.Contains(res.Package, "arg: ") {
		t.Errorf("the package lacks the pane's output:\n%s", res.Package)
	}
	processGone(t, before.PID)
	if _, ok, err := srv.Pane(t.Context(), name); err != nil || ok {
		t.Errorf("the old tmux session is still there (%v)", err)
	}
	s := e.ls()
	if s["s-old"].Status != "replaced" || s["s-new"].Status != "active" {
		t.Errorf("after replace: old %+v new %+v", s["s-old"], s["s-new"])
	}
}

// A first message longer than tmux takes in one command (here a long
// task) reaches the agent whole, through a launch file that git-handoff
// itself runs in the pane; the file is gone once the agent runs.
func TestTmuxLongFirstMessage(t *testing.T) {
	e := newTmuxEnv(t)
	task := strings.Repeat("a long task; ", 2000) + "LAST WORDS"
	e.handoff("start", "--session", "s-long", "--harness", "codex", "--objective", task)
	var res struct{ Runtime lsRuntime }
	e.json(&res, "session", "launch", "s-long", "--tmux")
	srv := tmuxrt.Server{Path: res.Runtime.Socket}
	p, _ := tmuxrttest.Wait(t, srv, res.Runtime.Name, func(p tmuxrt.Pane, ok bool, s string) bool {
		return ok && strings.Contains(s, "LAST WORDS")
	})
	if p.Dead {
		t.Fatalf("pane %+v", p)
	}
	screen, err := srv.Capture(t.Context(), res.Runtime.Name, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(screen), "a long task;"); got != 2000 {
		t.Errorf("the agent got the task %d times over, want 2000", got)
	}
	common := strings.TrimSpace(e.must("git", "rev-parse", "--git-common-dir"))
	if !filepath.IsAbs(common) {
		common = filepath.Join(e.repo, common)
	}
	if left, _ := os.ReadDir(filepath.Join(common, "handoff", "launch")); len(left) != 0 {
		t.Errorf("launch files left: %v", left)
	}
}

// session ls asks tmux once for every session with a runtime, and not at
// all when none has one. A tmux on PATH that logs its arguments before
// running the real one counts the calls.
func TestTmuxListAsksOnce(t *testing.T) {
	e := newTmuxEnv(t)
	e.handoff("start", "--session", "s-plain", "--harness", "claude", "--objective", "x")
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	wrap := t.TempDir()
	log := filepath.Join(wrap, "calls")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>" + shellQuote(log) + "\nexec " + shellQuote(real) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(wrap, "tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "PATH=") {
			e.env[i] = "PATH=" + wrap + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	calls := func() []string {
		raw, _ := os.ReadFile(log)
		os.Remove(log)
		if len(raw) == 0 {
			return nil
		}
		return strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	}
	e.ls()
	if c := calls(); len(c) != 0 {
		t.Errorf("session ls without runtimes ran tmux: %q", c)
	}
	for _, id := range []string{"s-a", "s-b", "s-c"} {
		e.launch(id, "claude")
	}
	calls()
	m := e.ls()
	for _, id := range []string{"s-a", "s-b", "s-c"} {
		if m[id].Runtime == nil || m[id].Runtime.State != "live" {
			t.Errorf("%s: %+v", id, m[id])
		}
	}
	if c := calls(); len(c) != 1 || !strings.Contains(c[0], "list-panes -a") {
		t.Errorf("session ls of three live sessions ran tmux %d times: %q", len(c), c)
	}
}

// terminate stops an agent still running under tmux first, destroys its
// tmux session, and unbinds the worktree; ls shows where sessions were.
func TestTmuxTerminateStopsTheAgent(t *testing.T) {
	e := newTmuxEnv(t)
	if err := os.WriteFile(filepath.Join(e.hold, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, name, p := e.launch("s-term", "claude")
	var res struct {
		Changed bool
		Stopped string
		Unbound string
	}
	e.json(&res, "session", "terminate", "s-term")
	// Unbound may be empty: tmux's pane-died hook can end and unbind it first.
	if !res.Changed || res.Stopped != name {
		t.Fatalf("terminate = %+v", res)
	}
	processGone(t, p.PID)
	if _, ok, err := srv.Pane(t.Context(), name); err != nil || ok {
		t.Fatalf("the tmux session %s is still there (%v)", name, err)
	}
	if s := e.ls()["s-term"]; s.Status != "terminated" {
		t.Fatalf("after terminate: %+v", s)
	}
	if out, _, code := e.run("git", "symbolic-ref", "-q", "refs/worktree/ao/session"); code == 0 {
		t.Fatalf("still bound: %s", out)
	}
	out := e.handoff("session", "ls", "--all")
	if !strings.Contains(out, "HOST") || !strings.Contains(out, "WORKTREE") || !strings.Contains(out, e.repo) || strings.Contains(out, "* another") {
		t.Fatalf("session ls:\n%s", out)
	}
}
