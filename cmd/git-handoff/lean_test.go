package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

// buildBoth builds the lean git-handoff and git-handoff-full side by side,
// as make install puts them.
func buildBoth(t *testing.T) (lean, full string) {
	t.Helper()
	dir := t.TempDir()
	lean, full = filepath.Join(dir, "git-handoff"), filepath.Join(dir, "git-handoff-full")
	for bin, tags := range map[string]string{lean: "lean,urfave_cli_no_docs", full: "urfave_cli_no_docs"} {
		build := exec.Command("go", "build", "-tags", tags, "-o", bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the Makefile builds them
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build -tags %s: %v\n%s", tags, err, out)
		}
	}
	return lean, full
}

func runBin(t *testing.T, dir, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The lean build links nothing that talks HTTP or serves, nor the network
// stack at all: every start of the binary git runs would pay to initialise
// it.
func TestLeanBuildLinksNoHTTP(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags", "lean", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch {
		case pkg == "net", pkg == "net/http", pkg == "html/template", pkg == "crypto/tls",
			strings.HasPrefix(pkg, "github.com/google/go-github"),
			strings.HasPrefix(pkg, "github.com/modelcontextprotocol/"),
			strings.HasPrefix(pkg, "github.com/ProtonMail/"),
			strings.HasPrefix(pkg, "golang.org/x/crypto/ssh"),
			pkg == "github.com/go-git/go-git/v5",
			pkg == "github.com/git-handoff/git-handoff/ghpr",
			pkg == "github.com/git-handoff/git-handoff/webui",
			pkg == "github.com/git-handoff/git-handoff/mcpserver":
			t.Errorf("the lean build links %s", pkg)
		}
	}
}

// The lean build next to the full one, as make install puts them: built
// once for the subtests.
func TestLeanAndFull(t *testing.T) {
	lean, full := buildBoth(t)
	t.Run("hands on to full", func(t *testing.T) { testLeanHandsOnToFull(t, lean, full) })
	t.Run("brief has pull request facts", func(t *testing.T) { testLeanBriefHasPullRequestFacts(t, lean) })
}

// Both builds describe the same commands, and what the lean one hands on
// runs in the full one with its arguments, in the same directory.
func testLeanHandsOnToFull(t *testing.T, lean, full string) {
	gittest.Isolate(t)
	repo := gittest.Init(t)
	for _, args := range [][]string{{"--help"}, {"session", "--help"}, {"pr", "--help"}, {"pr", "route", "--help"}, {"serve", "--help"}, {"session", "replace", "--help"}} {
		l, lerr := runBin(t, repo, lean, args...)
		f, ferr := runBin(t, repo, full, args...)
		if l != f || (lerr == nil) != (ferr == nil) {
			t.Errorf("%q: lean and full differ:\nlean (%v):\n%s\nfull (%v):\n%s", args, lerr, l, ferr, f)
		}
	}
	// A real delegated command, with its flags: pr show of a pull request
	// nobody owns is "not found" (exit 6) in both.
	for _, bin := range []string{lean, full} {
		cmd := exec.Command(bin, "pr", "show", "7", "--json")
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GH_REPO=o/r")
		out, err := cmd.CombinedOutput()
		var code int
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != exitNotFound {
			t.Errorf("%s pr show 7: exit %d, want %d\n%s", filepath.Base(bin), code, exitNotFound, out)
		}
	}
	// Without the full build beside it or on PATH, the lean one says what
	// is missing and how to get it, and does nothing else.
	alone := filepath.Join(t.TempDir(), "git-handoff")
	data, err := os.ReadFile(lean)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(alone, "mcp")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "git-handoff-full") || !strings.Contains(string(out), "hint:") {
		t.Errorf("lean mcp without the full build: %v\n%s", err, out)
	}
}

// A brief from the lean build for a session that owns a pull request
// carries the pull request's facts, fetched by the full build from a fake
// GitHub that fails the test on a request unlike GitHub's.
func testLeanBriefHasPullRequestFacts(t *testing.T, lean string) {
	gittest.Isolate(t)
	ar, err := txtar.ParseFile("testdata/script/pr_status.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var seed string
	for _, f := range ar.Files {
		if f.Name == "github.json" {
			seed = filepath.Join(t.TempDir(), "github.json")
			os.WriteFile(seed, f.Data, 0o644)
		}
	}
	st, err := ghprtest.LoadState(seed)
	if err != nil {
		t.Fatal(err)
	}
	fake, err := ghprtest.Start(ghprtest.WithState(st))
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Verify(t)
	defer fake.Close()
	t.Setenv("GITHUB_API_URL", fake.URL)
	t.Setenv("GH_TOKEN", "t0ken-for-tests")
	repo := gittest.Init(t)
	gittest.Run(t, repo, "remote", "add", "origin", "git@github.com:octo-org/hello-world.git")
	for _, args := range [][]string{{"start", "--session", "s1", "--harness", "claude-code"}, {"pr", "claim", "7", "--no-comment"}} {
		if out, err := runBin(t, repo, lean, args...); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
	}
	out, err := runBin(t, repo, lean, "brief", "--session", "s1")
	if err != nil || !strings.Contains(out, "## Pull request #7: Fix the parser") || !strings.Contains(out, "- Review decision: CHANGES_REQUESTED") {
		t.Fatalf("lean brief: %v\n%s", err, out)
	}
	if strings.Contains(out, "could not be fetched") {
		t.Errorf("lean brief could not fetch the facts:\n%s", out)
	}
}
