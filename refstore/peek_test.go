package refstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// Peek finds what git finds, or says to ask git: never another repository.
func TestPeekAgainstGit(t *testing.T) {
	gittest.Isolate(t)
	main := gittest.Init(t)
	os.MkdirAll(filepath.Join(main, "sub", "deeper"), 0o755)
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, main, "worktree", "add", "-q", "-b", "other", linked)
	os.MkdirAll(filepath.Join(linked, "in"), 0o755)
	sep := filepath.Join(t.TempDir(), "sep")
	sepGit := filepath.Join(t.TempDir(), "sep.git")
	gittest.Run(t, "", "init", "-q", "--separate-git-dir", sepGit, sep)
	// A directory reached through a symbolic link: git walks up from the
	// real path.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(main, "sub"), link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{main, filepath.Join(main, "sub", "deeper"), filepath.Join(linked, "in"), sep, link} {
		p, ok := Peek(dir)
		if !ok {
			t.Errorf("%s: Peek said to ask git", dir)
			continue
		}
		gitDir := gittest.Run(t, dir, "rev-parse", "--path-format=absolute", "--git-dir")
		common := gittest.Run(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
		if p.GitDir != realPath(gitDir) || p.CommonDir != realPath(common) {
			t.Errorf("%s: Peek = %+v, git says %s and %s", dir, p, gitDir, common)
		}
	}

	// Where git would answer otherwise, or Peek cannot be sure: ask git.
	bare := gittest.Init(t, "--bare")
	os.MkdirAll(filepath.Join(bare, "objects", "x"), 0o755)
	broken := filepath.Join(t.TempDir(), "broken")
	os.MkdirAll(filepath.Join(broken, ".git"), 0o755) // no HEAD: git walks on past it
	for name, dir := range map[string]string{
		"bare":                   bare,
		"inside a bare":          filepath.Join(bare, "objects", "x"),
		"inside a git dir":       filepath.Join(main, ".git", "refs"),
		"a .git that is not one": broken,
	} {
		if p, ok := Peek(dir); ok {
			t.Errorf("%s: Peek = %+v, want ask git", name, p)
		}
	}
	for _, k := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_REFERENCE_BACKEND"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, filepath.Join(main, ".git"))
			if p, ok := Peek(main); ok {
				t.Errorf("Peek = %+v, want ask git", p)
			}
		})
	}

	// Outside any repository: certain, and nothing is held there.
	outside := t.TempDir()
	if out, err := exec.Command("git", "-C", outside, "rev-parse", "--git-dir").CombinedOutput(); err == nil {
		t.Skipf("the temporary directory is inside a repository (%s)", out)
	}
	if p, ok := Peek(outside); !ok || p != (Peeked{}) || p.MayHold(LeasePrefix) {
		t.Errorf("outside a repository: Peek = %+v, %v", p, ok)
	}
}

// MayHold is false only when git lists no ref under the prefix: loose
// refs, refs only in packed-refs, a linked worktree sharing the common
// dir's refs; in a reftable it always says to ask git. Run in the git
// matrix's formats (a reftable row: MayHold always true).
func TestPeekMayHold(t *testing.T) {
	gittest.Isolate(t)
	main := gittest.Init(t)
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, main, "worktree", "add", "-q", "-b", "other", linked)
	checkMayHold(t, "git", main, linked)
}

// The same in a reftable repository made by the newest git, whose refs no
// file shows: Peek finds the dirs, MayHold and BoundSession say to ask.
func TestPeekReftable(t *testing.T) {
	gits, _ := filepath.Glob("/root/.cache/git-handoff/git-*/bin/git")
	newest := os.Getenv(gittest.NewestGitEnv)
	if newest == "" && len(gits) > 0 {
		newest = gits[len(gits)-1]
	}
	if newest == "" {
		t.Skip("no newer git (" + gittest.NewestGitEnv + ", or /root/.cache/git-handoff/git-*/bin/git) to make a reftable")
	}
	gittest.Isolate(t)
	t.Setenv("PATH", filepath.Dir(newest)+string(os.PathListSeparator)+os.Getenv("PATH"))
	main := filepath.Join(t.TempDir(), "repo")
	gittest.Run(t, "", "init", "-q", "-b", "main", "--ref-format=reftable", main)
	gittest.Run(t, main, "commit", "-q", "--allow-empty", "-m", "first")
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, main, "worktree", "add", "-q", "-b", "other", linked)
	if f := gittest.Run(t, main, "rev-parse", "--show-ref-format"); f != "reftable" {
		t.Fatalf("made a %s repository", f)
	}
	checkMayHold(t, newest, main, linked)
	gittest.Run(t, main, "symbolic-ref", WorktreeSession, SessionPrefix+"s-1")
	if p, ok := Peek(main); !ok {
		t.Fatal("Peek found no repository")
	} else if id, known := p.BoundSession(); known {
		t.Errorf("BoundSession in a reftable = %q, known", id)
	}
}

// checkMayHold takes a lease ref in main, then packs it, each time
// holding MayHold, from main and from linked, to what git lists.
func checkMayHold(t *testing.T, git, main, linked string) {
	t.Helper()
	const prefix = LeasePrefix + "path/"
	blob := func() string {
		cmd := exec.Command(git, "hash-object", "-w", "--stdin")
		cmd.Dir, cmd.Stdin = main, strings.NewReader(`{"schema":"lease/v1"}`)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}()
	check := func(when string) {
		t.Helper()
		listed := gittest.Run(t, main, "for-each-ref", "--format=%(refname)", prefix) != ""
		for _, dir := range []string{main, linked} {
			p, ok := Peek(dir)
			if !ok {
				t.Fatalf("%s: %s: Peek said to ask git", when, dir)
			}
			// Certain only in the files backend; a reftable is asked.
			if want := listed || !p.files; p.MayHold(prefix) != want {
				t.Errorf("%s: %s: MayHold = %v, want %v (git lists refs: %v)", when, dir, !want, want, listed)
			}
			if listed && !p.MayHold(LeasePrefix) {
				t.Errorf("%s: %s: MayHold of the parent prefix = false", when, dir)
			}
		}
	}
	check("nothing leased")
	gittest.Run(t, main, "update-ref", "refs/heads/x", "HEAD") // a ref elsewhere changes nothing
	gittest.Run(t, main, "pack-refs", "--all")
	check("other refs packed")
	gittest.Run(t, main, "update-ref", prefix+"x", blob)
	check("a loose lease ref")
	gittest.Run(t, main, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(main, ".git", "refs", "ao")); err == nil {
		// git leaves the emptied directories; without them only
		// packed-refs names the ref.
		if err := os.RemoveAll(filepath.Join(main, ".git", "refs", "ao")); err != nil {
			t.Fatal(err)
		}
	}
	check("a lease ref only in packed-refs")
	gittest.Run(t, main, "update-ref", "-d", prefix+"x")
	gittest.Run(t, main, "pack-refs", "--all")
	os.RemoveAll(filepath.Join(main, ".git", "refs", "ao"))
	check("the lease ref deleted")
}

// BoundSession reads the worktree's binding from its file, per worktree,
// as git's symbolic-ref sees it (files backend).
func TestPeekBoundSession(t *testing.T) {
	gittest.Isolate(t)
	main := gittest.Init(t)
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, main, "worktree", "add", "-q", "-b", "other", linked)
	p, ok := Peek(main)
	if !ok {
		t.Fatal("Peek said to ask git")
	}
	if !p.files {
		t.Skip("a reftable row: BoundSession is TestPeekReftable's")
	}
	bound := func(dir string) (string, bool) {
		p, ok := Peek(dir)
		if !ok {
			t.Fatalf("%s: Peek said to ask git", dir)
		}
		return p.BoundSession()
	}
	if id, known := bound(main); id != "" || !known {
		t.Errorf("unbound: %q, %v", id, known)
	}
	gittest.Run(t, main, "symbolic-ref", WorktreeSession, SessionPrefix+"s-main")
	gittest.Run(t, linked, "symbolic-ref", WorktreeSession, SessionPrefix+"s-linked")
	gittest.Run(t, main, "pack-refs", "--all")
	for dir, want := range map[string]string{main: "s-main", linked: "s-linked"} {
		if id, known := bound(dir); id != want || !known {
			t.Errorf("%s: %q, %v; want %s", dir, id, known, want)
		}
	}
	gittest.Run(t, main, "update-ref", "--no-deref", WorktreeSession, "HEAD") // a plain ref is no binding
	if id, known := bound(main); id != "" || !known {
		t.Errorf("a plain ref: %q, %v", id, known)
	}
}
