package agenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
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
