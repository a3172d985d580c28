// Package tmuxrttest gives tests a private tmux server and stand-in coding
// agents to run in it.
package tmuxrttest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/tmuxrt"
)

// Require fails the test without tmux under CI_REQUIRE_TOOLS=1 (.ci/run
// installs Debian's tmux) and skips it elsewhere.
func Require(t testing.TB) {
	t.Helper()
	gittest.Need(t, "tmux", "apt-get install -y tmux")
}

// Socket is a socket name (tmux -L) of this test's own, whose server is
// killed when the test ends. It is set as GIT_HANDOFF_TMUX_SOCKET for the
// test, so the code under test and the processes it starts use it.
func Socket(t *testing.T) string {
	t.Helper()
	Require(t)
	// Unique per run too: -count=N runs a test again while the last
	// run's server may still be going down.
	var salt [8]byte
	rand.Read(salt[:])
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d/%s/%x", os.Getpid(), t.Name(), salt)))
	name := "gh-test-" + hex.EncodeToString(sum[:6])
	t.Setenv(tmuxrt.SocketEnv, name)
	t.Cleanup(func() {
		exec.Command("tmux", "-L", name, "kill-server").Run()
		// tmux leaves the socket file behind; it lives where tmux puts
		// every -L socket: $TMUX_TMPDIR (else /tmp), tmux-UID, the name.
		dir := os.Getenv("TMUX_TMPDIR")
		if dir == "" {
			dir = "/tmp"
		}
		os.Remove(filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), name))
	})
	return name
}

// standIn prints who it is, its pid and its arguments one a line, then
// stays running as sleep (exec keeps the pid). With STANDIN_IGNORE_TERM
// set it ignores SIGTERM, as an agent that will not stop would. With
// STANDIN_HOLD=DIR set, SIGTERM makes it create DIR/<name>.termed and exit
// only once DIR/release exists: a test can look at the world while an
// agent is being stopped.
const standIn = `#!/bin/sh
echo "stand-in %[1]s pid $$"
for a in "$@"; do printf 'arg: %%s\n' "$a"; done
if [ -n "$STANDIN_IGNORE_TERM" ]; then trap '' TERM; fi
if [ -n "$STANDIN_HOLD" ]; then
	trap 'touch "$STANDIN_HOLD/%[1]s.termed"; while [ ! -e "$STANDIN_HOLD/release" ]; do sleep 0.05; done; exit 0' TERM
	sleep 1000 &
	while :; do wait; done
fi
exec sleep 1000
`

// Agents writes stand-in programs with the given names (claude, codex…)
// into a new directory and puts it first on PATH for the test.
func Agents(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(fmt.Sprintf(standIn, n)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return dir
}

// broken is a stand-in agent that cannot start: it says so and exits 1,
// as a CLI missing its credentials or a dependency does.
const broken = `#!/bin/sh
echo "stand-in %[1]s cannot start"
exit 1
`

// Broken writes stand-in agents that exit at once with status 1, with
// the given names, into a new directory, and returns it (for PATH).
func Broken(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(fmt.Sprintf(broken, n)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Wait polls the pane of session name until ok says yes, for at most a
// bounded number of tries (a bound, not a timing claim), and returns the
// last pane and capture seen.
func Wait(t *testing.T, srv tmuxrt.Server, name string, ok func(p tmuxrt.Pane, found bool, screen string) bool) (tmuxrt.Pane, string) {
	t.Helper()
	ctx := context.Background()
	var p tmuxrt.Pane
	var found bool
	var screen string
	for range 400 {
		var err error
		p, found, err = srv.Pane(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		screen = ""
		if found {
			if b, err := srv.Capture(ctx, name, 200); err == nil {
				screen = string(b)
			}
		}
		if ok(p, found, screen) {
			return p, screen
		}
		Pause()
	}
	t.Fatalf("tmux session %s never reached the state waited for; last pane %+v (found %v), screen:\n%s", name, p, found, screen)
	return p, screen
}

// Pause is the wait between two looks in a bounded poll.
func Pause() { time.Sleep(50 * time.Millisecond) }
