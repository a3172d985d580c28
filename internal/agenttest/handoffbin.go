package agenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// startEnv is the environment the test binary started with: tests point
// HOME at temporary directories, and with it go's build cache.
var startEnv = os.Environ()

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
	buildOut  []byte
)

// HandoffBin builds git-handoff once per test binary into a directory for
// PATH, and returns that directory: the hooks an agent runs call `git
// handoff …`, as a user's would. A test binary that calls it removes the
// directory with RemoveHandoffBin from its TestMain.
func HandoffBin(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "git-handoff-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binDir = dir
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "git-handoff"), "github.com/git-handoff/git-handoff/cmd/git-handoff")
		cmd.Env = startEnv
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building git-handoff: %v\n%s", buildErr, buildOut)
	}
	return binDir
}

// RemoveHandoffBin removes what HandoffBin built, if anything.
func RemoveHandoffBin() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// WaitHandovers waits, up to a minute, until no handover is due in the
// repository at dir: an agent's end hook hands its session on in a
// detached process (`git handoff handover`), which must be done before a
// test reads what it wrote, or removes the repository under it.
func WaitHandovers(t testing.TB, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--absolute-git-dir").Output()
	if err != nil {
		return // gone already, or not a repository
	}
	notes := filepath.Join(strings.TrimSpace(string(out)), "handoff", "agent", "handover")
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if entries, err := os.ReadDir(notes); err != nil || len(entries) == 0 {
			time.Sleep(200 * time.Millisecond) // the process's last steps after the note goes
			return
		}
	}
	t.Errorf("a handover in %s was still due after a minute", dir)
}
