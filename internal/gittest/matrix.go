package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Row is the row of `make test-git` a test process runs in: the git it must
// find first on PATH and the formats the repositories its git makes must
// have. The Makefile names them in GIT_HANDOFF_TEST_GIT (that git's path)
// and GIT_HANDOFF_TEST_FORMAT (files, reftable, sha256 or reftable-sha256),
// and sets
// MatrixVars to match.
type Row struct {
	Git       string // path of the git binary
	RefFormat string // "files" or "reftable"
	Hash      string // "sha1" or "sha256"
}

// MatrixRow reads the row from the environment; ok is false outside the
// matrix (a plain `make test`).
func MatrixRow() (r Row, ok bool, err error) {
	r.Git = os.Getenv("GIT_HANDOFF_TEST_GIT")
	format := os.Getenv("GIT_HANDOFF_TEST_FORMAT")
	if r.Git == "" && format == "" {
		return r, false, nil
	}
	switch format {
	case "files":
		r.RefFormat, r.Hash = "files", "sha1"
	case "reftable":
		r.RefFormat, r.Hash = "reftable", "sha1"
	case "sha256":
		r.RefFormat, r.Hash = "files", "sha256"
	case "reftable-sha256":
		r.RefFormat, r.Hash = "reftable", "sha256"
	default:
		return r, true, fmt.Errorf("GIT_HANDOFF_TEST_FORMAT=%q: want files, reftable, sha256 or reftable-sha256", format)
	}
	if r.Git == "" {
		return r, true, fmt.Errorf("GIT_HANDOFF_TEST_FORMAT is set without GIT_HANDOFF_TEST_GIT")
	}
	return r, true, nil
}

// CheckGit fails unless the git that git (a function running `git` as the
// code under test would, from PATH) starts is the row's: the same version
// and the same exec path, which tells builds of one version apart.
func (r Row) CheckGit(git func(args ...string) (string, error)) error {
	for _, arg := range []string{"--version", "--exec-path"} {
		got, err := git(arg)
		if err != nil {
			return fmt.Errorf("git %s: %v", arg, err)
		}
		out, err := execOutput(r.Git, arg)
		if err != nil {
			return fmt.Errorf("%s %s: %v", r.Git, arg, err)
		}
		if strings.TrimSpace(got) != out {
			return fmt.Errorf("git %s on PATH says %q, the row's git %s says %q", arg, strings.TrimSpace(got), r.Git, out)
		}
	}
	return nil
}

// CheckRepo fails unless the repository at dir has the row's formats, as
// git itself reports them (a repository without extensions.refStorage uses
// the files backend, the only one git < 2.45 knows).
func (r Row) CheckRepo(git func(args ...string) (string, error), dir string) error {
	hash, err := git("-C", dir, "rev-parse", "--show-object-format")
	if err != nil {
		return err
	}
	refs, err := git("-C", dir, "config", "--default", "files", "--get", "extensions.refStorage")
	if err != nil {
		return err
	}
	hash, refs = strings.TrimSpace(hash), strings.TrimSpace(refs)
	if hash != r.Hash || refs != r.RefFormat {
		return fmt.Errorf("%s: object format %s and ref format %s, the row wants %s and %s", dir, hash, refs, r.Hash, r.RefFormat)
	}
	return nil
}

// Git runs git from PATH in this process's environment, as the code under
// test does, and returns its stdout.
func Git(args ...string) (string, error) {
	return execOutput("git", args...)
}

func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return strings.TrimSpace(string(out)), err
}

// NewestGitEnv names a git binary, newer than the one first on PATH, that
// tests of what only newer gits do (hooks from config, git >= 2.54) run
// besides it: CI sets it to the git scripts/newest-git.sh builds, for
// `make test` and `make race`, where Debian's git is first on PATH.
const NewestGitEnv = "GIT_HANDOFF_TEST_NEWEST_GIT"

// Gits returns the git binaries a test that must hold on each git runs
// under, each once: the first git on PATH, then the one NewestGitEnv names.
// Run one by putting its directory first on PATH (the code under test runs
// `git` from PATH).
func Gits() ([]string, error) {
	first, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	gits := []string{first}
	if newest := os.Getenv(NewestGitEnv); newest != "" {
		if _, err := os.Stat(newest); err != nil {
			return nil, fmt.Errorf("%s: %w", NewestGitEnv, err)
		}
		if !sameFile(first, newest) {
			gits = append(gits, newest)
		}
	}
	return gits, nil
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// RequireTools reports whether a test must fail, not skip, when a tool it
// needs is missing: CI sets CI_REQUIRE_TOOLS=1.
func RequireTools() bool { return os.Getenv("CI_REQUIRE_TOOLS") == "1" }
