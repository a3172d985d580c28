package tmuxrt_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/tmuxrt"
	"github.com/git-handoff/git-handoff/tmuxrt/tmuxrttest"
)

func TestSessionName(t *testing.T) {
	seen := map[string]string{}
	for _, id := range []string{"s-abc", "s.abc", "s:abc", "s abc", "s/abc", "s_abc", "ü", strings.Repeat("x", 200)} {
		n := tmuxrt.SessionName(id)
		for _, r := range n {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				t.Errorf("SessionName(%q) = %q holds %q", id, n, r)
			}
		}
		if len(n) > 90 {
			t.Errorf("SessionName(%q) is %d bytes long", id, len(n))
		}
		if other, dup := seen[n]; dup {
			t.Errorf("SessionName(%q) = SessionName(%q) = %q", id, other, n)
		}
		seen[n] = id
	}
	if got := tmuxrt.SessionName("s-abc"); got != "handoff-s-abc" {
		t.Errorf("a plain id became %q", got)
	}
}

// The program runs with its arguments as given (no shell reads them), in
// its directory with its environment; its exit leaves the pane, with the
// status; Kill removes the session.
func TestStartExitCaptureKill(t *testing.T) {
	srv := tmuxrt.Server{Name: tmuxrttest.Socket(t)}
	ctx := context.Background()
	dir := t.TempDir()
	path, err := srv.Start(ctx, "one", tmuxrt.Spec{
		Dir: dir, Env: []string{"GIT_HANDOFF_SESSION=s-1"},
		Argv: []string{"sh", "-c", `pwd; echo "env=$GIT_HANDOFF_SESSION"; printf '\033[31mred\033[0m %s\n' "$1"; read line; exit 7`, "sh", "$(touch pwned); 'q' *"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, "/"+os.Getenv(tmuxrt.SocketEnv)) {
		t.Errorf("socket path %q does not end in the -L name", path)
	}
	_, screen := tmuxrttest.Wait(t, srv, "one", func(p tmuxrt.Pane, ok bool, s string) bool { return ok && strings.Contains(s, "red") })
	for _, want := range []string{dir, "env=s-1", "red $(touch pwned); 'q' *"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "\x1b") {
		t.Errorf("capture kept escape sequences: %q", screen)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("an argument was run by a shell")
	}
	// By its recorded path the same server answers.
	byPath := tmuxrt.Server{Path: path}
	p, ok, err := byPath.Pane(ctx, "one")
	if err != nil || !ok || p.State() != tmuxrt.StateLive || p.PID <= 1 {
		t.Fatalf("pane %+v found %v err %v, want live with a pid", p, ok, err)
	}
	if _, err := byPath.Capture(ctx, "one", 10); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Run(ctx, "send-keys", "-t", "=one:", "go", "Enter"); err != nil {
		t.Fatal(err)
	}
	p, screen = tmuxrttest.Wait(t, srv, "one", func(p tmuxrt.Pane, ok bool, s string) bool { return ok && p.Dead })
	if p.State() != tmuxrt.StateExited || p.ExitStatus != 7 {
		t.Errorf("pane %+v, want exited with status 7", p)
	}
	if strings.Contains(screen, "Pane is dead") {
		t.Errorf("capture kept tmux's own line:\n%s", screen)
	}
	if err := srv.Kill(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Kill(ctx, "one"); err != nil {
		t.Errorf("killing a session that is gone: %v", err)
	}
	panes, err := srv.Panes(ctx)
	if err != nil || len(panes) != 0 {
		t.Errorf("panes after kill: %v, %v", panes, err)
	}
}

// Stop asks with SIGTERM and the pane stays for a respawn; a program that
// ignores SIGTERM is killed after the grace period; Respawn runs the next
// program in the same pane.
func TestStopAndRespawnKeepThePane(t *testing.T) {
	srv := tmuxrt.Server{Name: tmuxrttest.Socket(t)}
	tmuxrttest.Agents(t, "claude", "codex")
	ctx := context.Background()
	for _, stubborn := range []bool{false, true} {
		name := "polite"
		var env []string
		if stubborn {
			name, env = "stubborn", []string{"STANDIN_IGNORE_TERM=1"}
		}
		if _, err := srv.Start(ctx, name, tmuxrt.Spec{Dir: t.TempDir(), Env: env, Argv: []string{"claude", "--resume", "x y"}}); err != nil {
			t.Fatal(err)
		}
		before, _ := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool { return ok && strings.Contains(s, "arg: x y") })
		if err := srv.Stop(ctx, name, 300*time.Millisecond); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p, found, err := srv.Pane(ctx, name)
		if err != nil || !found || !p.Dead || p.ID != before.ID {
			t.Fatalf("%s: after stop pane %+v found %v err %v, want the same pane, dead", name, p, found, err)
		}
		if err := srv.Respawn(ctx, name, tmuxrt.Spec{Dir: t.TempDir(), Argv: []string{"codex", "--", "go on"}}); err != nil {
			t.Fatal(err)
		}
		// The stand-in prints its name, then its arguments: wait for both
		// (Wait fails the test when they never come).
		after, _ := tmuxrttest.Wait(t, srv, name, func(p tmuxrt.Pane, ok bool, s string) bool {
			return ok && strings.Contains(s, "stand-in codex") && strings.Contains(s, "arg: go on")
		})
		if after.ID != before.ID || after.Dead || after.PID == before.PID {
			t.Errorf("%s: respawned pane %+v, was %+v: want the same pane, live, another pid", name, after, before)
		}
	}
}

// No server on the socket is no panes; TMUX_TMPDIR decides where the
// default-named socket lives.
func TestNoServerAndTMUXTMPDIR(t *testing.T) {
	tmuxrttest.Require(t)
	ctx := context.Background()
	panes, err := tmuxrt.Server{Name: "gh-test-never-started"}.Panes(ctx)
	if err != nil || len(panes) != 0 {
		t.Fatalf("panes %v err %v", panes, err)
	}
	panes, err = tmuxrt.Server{Path: filepath.Join(t.TempDir(), "nothing")}.Panes(ctx)
	if err != nil || len(panes) != 0 {
		t.Fatalf("panes %v err %v", panes, err)
	}
	tmp, err := os.MkdirTemp("", "ghtx")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Setenv("TMUX_TMPDIR", tmp)
	srv := tmuxrt.Server{Name: "iso"}
	defer srv.Kill(ctx, "x")
	path, err := srv.Start(ctx, "x", tmuxrt.Spec{Argv: []string{"sleep", "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, tmp+"/") {
		t.Errorf("socket %s is not under TMUX_TMPDIR %s", path, tmp)
	}
}

// TestMain lets the test binary be the launcher of launch files.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "-tmuxrt-launch" {
		err := tmuxrt.ExecLaunchFile(os.Args[2])
		println(err.Error())
		os.Exit(111)
	}
	os.Exit(m.Run())
}

// A command longer than tmux takes (a whole brief as first message) runs
// through a launch file, which is gone once the program runs; without a
// launcher it is refused.
func TestLongCommandThroughLaunchFile(t *testing.T) {
	srv := tmuxrt.Server{Name: tmuxrttest.Socket(t)}
	ctx := context.Background()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("brief line, ", 4000) + "THE END"
	dir := t.TempDir()
	sp := tmuxrt.Spec{
		Dir: t.TempDir(), Env: []string{"GIT_HANDOFF_SESSION=s-long"},
		Argv: []string{"sh", "-c", `echo "len=${#1} env=$GIT_HANDOFF_SESSION"; echo "$1" | tail -c 8; exec sleep 1000`, "sh", long},
	}
	if _, err := srv.Start(ctx, "long", sp); err == nil || !strings.Contains(err.Error(), "too long for tmux") {
		t.Fatalf("without a launcher: %v", err)
	}
	sp.Launcher, sp.LaunchDir = []string{self, "-tmuxrt-launch"}, dir
	if _, err := srv.Start(ctx, "long", sp); err != nil {
		t.Fatal(err)
	}
	p, screen := tmuxrttest.Wait(t, srv, "long", func(p tmuxrt.Pane, ok bool, s string) bool { return ok && strings.Contains(s, "THE END") })
	if p.Dead || !strings.Contains(screen, "len=48007 env=s-long") {
		t.Errorf("pane %+v:\n%s", p, screen)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("launch files left: %v", left)
	}
	// The same for a respawn.
	sp.Argv[len(sp.Argv)-1] = long + " AGAIN"
	if err := srv.Respawn(ctx, "long", sp); err != nil {
		t.Fatal(err)
	}
	after, _ := tmuxrttest.Wait(t, srv, "long", func(p tmuxrt.Pane, ok bool, s string) bool { return ok && strings.Contains(s, "D AGAIN") })
	if after.ID != p.ID || after.PID == p.PID {
		t.Errorf("respawned %+v, was %+v", after, p)
	}
}
