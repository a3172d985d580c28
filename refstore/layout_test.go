package refstore

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// TestLocateAgainstGit holds Locate's one rev-parse to git's separate
// answers for the common dir and the hooks directory in each setup.
func TestLocateAgainstGit(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	main := gittest.Init(t)
	os.MkdirAll(filepath.Join(main, "sub", "deeper"), 0o755)
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, main, "worktree", "add", "-q", "-b", "other", linked)
	os.MkdirAll(filepath.Join(linked, "in"), 0o755)
	bare := gittest.Init(t, "--bare")
	os.MkdirAll(filepath.Join(bare, "objects", "x"), 0o755)
	// A .git file pointing elsewhere, as a submodule or --separate-git-dir has.
	sep := filepath.Join(t.TempDir(), "sep")
	sepGit := filepath.Join(t.TempDir(), "sep.git")
	gittest.Run(t, "", "init", "-q", "--separate-git-dir", sepGit, sep)
	other := t.TempDir()

	type setup struct {
		name string
		dir  string
		env  map[string]string
	}
	setups := []setup{
		{"top", main, nil},
		{"subdirectory", filepath.Join(main, "sub", "deeper"), nil},
		{"linked worktree", filepath.Join(linked, "in"), nil},
		{"bare", bare, nil},
		{"inside a bare repository", filepath.Join(bare, "objects", "x"), nil},
		{"separate git dir", sep, nil},
		{"GIT_DIR", other, map[string]string{"GIT_DIR": filepath.Join(main, ".git")}},
		{"GIT_DIR relative", main, map[string]string{"GIT_DIR": ".git"}},
		{"GIT_DIR and GIT_WORK_TREE", filepath.Join(main, "sub"), map[string]string{"GIT_DIR": filepath.Join(main, ".git"), "GIT_WORK_TREE": main}},
		{"GIT_DIR of a bare repository", other, map[string]string{"GIT_DIR": bare}},
	}
	hooksPaths := []struct {
		name, global, local string
	}{
		{"default", "", ""},
		{"relative", "", ".githooks"},
		{"absolute", "", filepath.Join(other, "abs", "..", "hooks-abs") + "/"},
		{"tilde", "", "~/my-hooks"},
		{"global relative", "hooks-global", ""},
	}
	for _, hp := range hooksPaths {
		for _, cfg := range []struct{ scope, val string }{{"--global", hp.global}, {"--local", hp.local}} {
			for _, repo := range []string{main, bare} {
				if cfg.val == "" {
					cmdUnset(t, repo, cfg.scope)
				} else {
					gittest.Run(t, repo, "config", cfg.scope, "core.hooksPath", cfg.val)
				}
			}
		}
		for _, s := range setups {
			t.Run(hp.name+"/"+s.name, func(t *testing.T) {
				for k, v := range s.env {
					t.Setenv(k, v)
				}
				got, err := Locate(ctx, s.dir)
				if err != nil {
					t.Fatalf("Locate: %v", err)
				}
				if want := gittest.Run(t, s.dir, "rev-parse", "--path-format=absolute", "--git-common-dir"); got.CommonDir != filepath.Clean(want) {
					t.Errorf("CommonDir = %s, git says %s", got.CommonDir, want)
				}
				h, err := HooksDir(ctx, s.dir, got)
				if err != nil {
					t.Fatalf("HooksDir: %v", err)
				}
				wantHooks := gittest.Run(t, s.dir, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
				if h != filepath.Clean(wantHooks) {
					t.Errorf("HooksDir = %s, git says %s", h, wantHooks)
				}
			})
		}
	}

	// Inside a git dir that has a worktree, and outside any repository:
	// the same answers, through git or by the same error.
	l, err := Locate(ctx, filepath.Join(main, ".git", "refs"))
	if err != nil || l.GitDir != realPath(filepath.Join(main, ".git")) || l.WorkTree != "" {
		t.Errorf("Locate inside .git = %+v, %v", l, err)
	}
	if _, err := Locate(ctx, "/"); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("Locate outside any repository = %v, want not a git repository", err)
	}
}

// cmdUnset removes core.hooksPath at scope; absent is fine.
func cmdUnset(t *testing.T, dir, scope string) {
	t.Helper()
	cmd := exec.Command("git", "config", scope, "--unset-all", "core.hooksPath")
	cmd.Dir = dir
	cmd.Run()
}

// TestLocateWithHooksDisabled: Gemini CLI runs every shell command with
// core.hooksPath set to the empty string through GIT_CONFIG_COUNT, which
// makes git refuse `rev-parse --path-format=absolute --git-path hooks`.
// Every other answer still stands, and HooksDir says git runs no hooks.
func TestLocateWithHooksDisabled(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	main := gittest.Init(t)
	os.MkdirAll(filepath.Join(main, "sub"), 0o755)
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
	t.Setenv("GIT_CONFIG_VALUE_0", "")
	l, err := Locate(ctx, filepath.Join(main, "sub"))
	if err != nil {
		t.Fatalf("Locate: %v", err)
	}
	if l.WorkTree != realPath(main) || l.GitDir != realPath(filepath.Join(main, ".git")) {
		t.Errorf("Locate = %+v, want the worktree %s", l, main)
	}
	if _, err := HooksDir(ctx, main, l); !errors.Is(err, ErrHooksDisabled) {
		t.Errorf("HooksDir = %v, want ErrHooksDisabled", err)
	}
	// Asked afresh (a Layout found from another directory) it says the same.
	if _, err := HooksDir(ctx, main, Layout{}); !errors.Is(err, ErrHooksDisabled) {
		t.Errorf("HooksDir afresh = %v, want ErrHooksDisabled", err)
	}
}
