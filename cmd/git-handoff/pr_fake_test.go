package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
)

// startFakeGitHub gives a script that carries a github.json (a
// ghprtest.State) its own fake GitHub, seeded from it, for the length of the
// script; github-enterprise.json does the same with GitHub Enterprise
// Server's layout (REST under /api/v3/, GraphQL at /api/graphql). The script
// sees GITHUB_API_URL (GraphQL is derived from it, as the command does for
// Actions and Enterprise) and $WORK/gh.url, which `fakegithub state|fault|seed
// $WORK/gh.url` take. Requests the fake finds unlike GitHub's fail the test.
// The token (GH_TOKEN and friends) is left to each script.
func startFakeGitHub(env *testscript.Env) error {
	var opts []ghprtest.Option
	seed := filepath.Join(env.WorkDir, "github.json")
	if _, err := os.Stat(seed); err != nil {
		seed = filepath.Join(env.WorkDir, "github-enterprise.json")
		if _, err := os.Stat(seed); err != nil {
			return nil
		}
		opts = append(opts, ghprtest.Enterprise())
	}
	st, err := ghprtest.LoadState(seed)
	if err != nil {
		return err
	}
	s, err := ghprtest.Start(append(opts, ghprtest.WithState(st))...)
	if err != nil {
		return err
	}
	env.Defer(func() {
		s.Close()
		if tb, ok := env.T().(testing.TB); ok {
			s.Verify(tb)
		}
	})
	env.Setenv("GITHUB_API_URL", s.URL)
	return os.WriteFile(filepath.Join(env.WorkDir, "gh.url"), []byte(s.URL), 0o644)
}
