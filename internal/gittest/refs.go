package gittest

import (
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The helpers below ask git about refs and reflogs in a way that answers
// on every ref backend: the files backend (reflogs under logs/, a
// `<ref>.lock` beside each loose ref) and reftable (every ref and reflog in
// the tables under reftable/) alike. Tests must not read the files
// backend's layout themselves: `make test-git FORMAT=reftable` runs them
// where it does not exist.

// RefFormat asks git which ref backend the repository at dir uses:
// "files" or "reftable". A repository without extensions.refStorage uses
// the files backend, the only one git < 2.45 knows.
func RefFormat(t testing.TB, dir string) string {
	t.Helper()
	return strings.ToLower(Run(t, dir, "config", "--default", "files", "--get", "extensions.refStorage"))
}

// ReflogOIDs asks git for the ids ref's reflog entries moved it to, oldest
// first (the same entries, in the same order, as ReflogMessages), or nil
// when ref has no reflog. It resolves `<ref>@{N}` (N=0 the newest) until
// git says the log has no more: `git reflog` and `git log -g` print nothing
// for our refs, which point at blobs, not commits. It takes no lock.
func ReflogOIDs(t testing.TB, dir, ref string) []string {
	t.Helper()
	if !ReflogExists(t, dir, ref) {
		return nil
	}
	var ids []string
	for n := 0; ; n++ {
		at := ref + "@{" + strconv.Itoa(n) + "}"
		cmd := exec.Command("git", "rev-parse", "--verify", at)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			// "fatal: log for '<ref>' only has N entries", on every git
			// since reflogs have had @{N}.
			if n > 0 && strings.Contains(stderr, "only has") {
				break
			}
			t.Fatalf("git rev-parse --verify %s: %v\n%s", at, err, stderr)
		}
		ids = append(ids, strings.TrimSpace(string(out)))
	}
	slices.Reverse(ids)
	return ids
}

// ReflogMessages asks git for the messages of ref's reflog entries, oldest
// first, or nil when ref has no reflog. `git reflog expire --dry-run
// --verbose` that expires nothing prints "keep <message>" for every entry
// (git >= 2.39, both backends). It takes the lock a writer of ref would
// take (`<ref>.lock`, or reftable's tables.list.lock) for a moment, and
// fails the test if that lock is held: ask it when no writer runs.
func ReflogMessages(t testing.TB, dir, ref string) []string {
	t.Helper()
	if !ReflogExists(t, dir, ref) {
		return nil
	}
	out := Run(t, dir, "reflog", "expire", "--dry-run", "--verbose", "--expire=never", "--expire-unreachable=never", ref)
	var msgs []string
	for _, l := range strings.Split(out, "\n") {
		if l == "" {
			continue
		}
		m, ok := strings.CutPrefix(l, "keep ")
		if !ok && l != "keep" {
			t.Fatalf("git reflog expire --dry-run --verbose %s: unexpected line %q in\n%s", ref, l, out)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// ReflogExists asks git whether ref has a reflog.
func ReflogExists(t testing.TB, dir, ref string) bool {
	t.Helper()
	cmd := exec.Command("git", "reflog", "exists", ref)
	cmd.Dir = dir
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return false
	}
	if err != nil {
		t.Fatalf("git reflog exists %s: %v", ref, err)
	}
	return true
}

// RefLock is the lock file git takes to write the shared ref ref in the
// repository at dir, on its backend: `<ref>.lock` in the files backend,
// reftable's tables.list.lock, which guards every ref at once, in reftable.
// A test that leaves it in place plays a git killed while it wrote.
func RefLock(t testing.TB, dir, ref string) string {
	t.Helper()
	common := CommonDir(t, dir)
	if RefFormat(t, dir) == "reftable" {
		return filepath.Join(common, "reftable", "tables.list.lock")
	}
	return filepath.Join(common, filepath.FromSlash(ref)+".lock")
}

// RefLocks lists the ref backend's lock files that are in the repository
// at dir (its common dir and, for a linked worktree, its own git dir) now:
// in the files backend every `*.lock` under refs/ and logs/ and
// packed-refs.lock and HEAD.lock, in reftable every `*.lock` in reftable/.
// No git command lists them; a test checking that nothing is left in the
// way of the next writer asks this instead of walking one backend's layout.
func RefLocks(t testing.TB, dir string) []string {
	t.Helper()
	reftable := RefFormat(t, dir) == "reftable"
	var found []string
	dirs := []string{CommonDir(t, dir)}
	if g := Run(t, dir, "rev-parse", "--path-format=absolute", "--git-dir"); g != dirs[0] {
		dirs = append(dirs, g)
	}
	for _, g := range dirs {
		roots := []string{"refs", "logs", "packed-refs.lock", "HEAD.lock"}
		if reftable {
			roots = []string{"reftable"}
		}
		for _, root := range roots {
			filepath.WalkDir(filepath.Join(g, root), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
					found = append(found, p)
				}
				return nil
			})
		}
	}
	return found
}

// CommonDir asks git for the absolute path of the repository's common dir
// (the .git directory every worktree of it shares).
func CommonDir(t testing.TB, dir string) string {
	t.Helper()
	return Run(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
}
