package hooks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/hooks"
)

// TestShimAsksGitOnReftable: in a reftable repository no ref is a file, so
// the commit shim cannot find a binding by a file test; it asks git
// symbolic-ref. The git here (2.39) has no reftable, so the shim runs
// directly on a reftable repository's layout (a reftable directory in the
// common dir, a linked worktree's git dir with its commondir file) with a
// stand-in git that answers symbolic-ref and cat-file the way a reftable
// git would.
func TestShimAsksGitOnReftable(t *testing.T) {
	e := newEnv(t)
	tmp := t.TempDir()
	common := filepath.Join(tmp, "repo", ".git")
	wtGitDir := filepath.Join(common, "worktrees", "wt")
	for _, d := range []string{filepath.Join(common, "reftable"), wtGitDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(wtGitDir, "commondir"), "../..\n", 0o644)
	bin := filepath.Join(tmp, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bin, "git"), `#!/bin/sh
case "$1 $2" in
"symbolic-ref -q") [ -n "$TEST_BOUND" ] || exit 1; echo "refs/ao/sessions/$TEST_BOUND" ;;
"cat-file blob") echo '{"schema":"session/v1","id":"x","harness":"claude-code","status":"active"}' ;;
*) exit 2 ;;
esac
`, 0o755)
	shim, err := hooks.Shim(hooks.PrepareCommitMsg, "")
	if err != nil {
		t.Fatal(err)
	}
	shimPath := filepath.Join(tmp, hooks.PrepareCommitMsg)
	writeFile(t, shimPath, shim, 0o755)

	for _, tc := range []struct {
		name, gitDir, bound, want string
	}{
		{"linked bound", wtGitDir, "rt-1", "subject\n\nHandoff-Session: rt-1\nHandoff-Agent: claude-code\n"},
		{"linked unbound", wtGitDir, "", "subject\n"},
		{"main bound", common, "rt-2", "subject\n\nHandoff-Session: rt-2\nHandoff-Agent: claude-code\n"},
		{"main unbound", common, "", "subject\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.resetLog()
			msg := filepath.Join(t.TempDir(), "COMMIT_EDITMSG")
			writeFile(t, msg, "subject\n", 0o644)
			cmd := exec.Command("sh", shimPath, msg, "message")
			cmd.Dir = filepath.Dir(common)
			for _, kv := range e.vars {
				if !strings.HasPrefix(kv, "PATH=") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, "PATH="+bin+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+"/usr/bin:/bin",
				"GIT_DIR="+tc.gitDir, "TEST_BOUND="+tc.bound)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("shim: %v\n%s", err, out)
			}
			b, err := os.ReadFile(msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("message = %q, want %q", b, tc.want)
			}
			if s := e.starts(); s != nil {
				t.Errorf("git-handoff started: %q", s)
			}
		})
	}
}
