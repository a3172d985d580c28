package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
)

// TestMain lets the test binary stand in for git-handoff: testscript puts it
// on PATH under that name, so scripts run `git handoff …` through real git.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"git-handoff": func() {
			os.Exit(run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
		},
		"fakegithub": ghprtest.Main,
	})
}

// TestScripts runs testdata/script/*.txtar: each a scenario with real git in
// a fresh repository, opening with a comment on what it covers.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Setup:               setupScript,
		RequireExplicitExec: false,
	})
}

// setupScript gives every script its own HOME and git identity, a fixed
// clock for commits, and a repository at $WORK/repo on branch main with one
// commit, where the script starts.
func setupScript(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	gitconfig := "[user]\n\tname = Test Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n[gc]\n\tauto = 0\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CONFIG_GLOBAL":   filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_DATE":     "2026-11-01T12:00:00Z",
		"GIT_COMMITTER_DATE":  "2026-11-01T12:00:00Z",
		"GIT_HANDOFF_NOW":     "2026-11-02T09:00:00Z",
		"GIT_TERMINAL_PROMPT": "0",
		"TZ":                  "UTC",
	} {
		env.Setenv(k, v)
	}
	return startFakeGitHub(env)
}
