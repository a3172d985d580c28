package refstore

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// reflogIdent is the identity of ref's newest reflog entry, as git shows
// it on either ref backend.
func reflogIdent(t *testing.T, dir, ref string) string {
	t.Helper()
	return gittest.Run(t, dir, "reflog", "show", "-1", "--format=%gn <%ge>", ref)
}

// Every reflog entry the Store writes carries the identity `git
// update-ref` writes in the same repository and environment: the Store
// asks git to write it (once an identity made in process differed, for one
// of 97 configurations). Cases: names git tidies or refuses to make an
// ident of, committer.* over user.*, $EMAIL, useConfigOnly, a name by
// includeIf onbranch, a linked worktree's own config, a Store opened in a
// subdirectory, and a Store that lives on while the configuration changes
// (a server's).
func TestReflogIdentityIsGits(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, k := range []string{"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	repo := gittest.Init(t)
	head := gittest.Run(t, repo, "rev-parse", "HEAD")
	n := 0
	// same writes one ref through st and one through git update-ref in
	// dir, and holds their reflog identities to each other.
	same := func(t *testing.T, st *Store, dir string) {
		t.Helper()
		n++
		ours, theirs := "refs/ao/test/ours-"+strconv.Itoa(n), "refs/ao/test/git-"+strconv.Itoa(n)
		if err := st.Apply(ctx, "test", Update{Ref: ours, New: head}); err != nil {
			t.Fatal(err)
		}
		gittest.Run(t, dir, "update-ref", "--create-reflog", theirs, head)
		if got, want := reflogIdent(t, dir, ours), reflogIdent(t, dir, theirs); got != want {
			t.Errorf("our reflog entry is by %q, git update-ref's by %q", got, want)
		}
	}
	open := func(t *testing.T, dir string) *Store {
		t.Helper()
		st, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	for _, c := range []struct {
		name string
		cfg  [][2]string
		env  [][2]string
	}{
		{name: "crud git tidies", cfg: [][2]string{{"user.name", " .Odd Name, "}}},
		{name: "only crud", cfg: [][2]string{{"user.name", "."}}},
		{name: "empty", cfg: [][2]string{{"user.name", ""}}},
		{name: "angle brackets", cfg: [][2]string{{"user.name", "<a> b <c>"}, {"user.email", "<x@example.com>"}}},
		{name: "non-ASCII and a quote", cfg: [][2]string{{"user.name", "Zoë \"Z\" Ünal"}}},
		{name: "committer over user", cfg: [][2]string{{"committer.name", "The Committer"}, {"committer.email", "c@example.com"}}},
		{name: "EMAIL with no user.email", cfg: [][2]string{{"user.email", ""}}, env: [][2]string{{"EMAIL", "mail@example.com"}}},
		{name: "useConfigOnly", cfg: [][2]string{{"user.useConfigOnly", "true"}}},
		{name: "environment over config", env: [][2]string{{"GIT_COMMITTER_NAME", "From Env"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, kv := range c.cfg {
				gittest.Run(t, repo, "config", kv[0], kv[1])
				k := kv[0]
				t.Cleanup(func() { gittest.Run(t, repo, "config", "--unset-all", k) })
			}
			for _, kv := range c.env {
				t.Setenv(kv[0], kv[1])
			}
			same(t, open(t, repo), repo)
		})
	}
	t.Run("includeIf onbranch", func(t *testing.T) {
		gittest.WriteFile(t, repo, ".git/on-main", []byte("[user]\n\tname = On Main\n"))
		gittest.Run(t, repo, "config", "includeIf.onbranch:main.path", "on-main")
		t.Cleanup(func() { gittest.Run(t, repo, "config", "--unset", "includeIf.onbranch:main.path") })
		same(t, open(t, repo), repo)
	})
	t.Run("subdirectory", func(t *testing.T) {
		sub := filepath.Join(repo, "a", "b")
		os.MkdirAll(sub, 0o755)
		gittest.WriteFile(t, repo, ".git/in-repo", []byte("[user]\n\tname = In Repo\n"))
		gittest.Run(t, repo, "config", "includeIf.gitdir:"+filepath.Join(repo, ".git")+".path", "in-repo")
		t.Cleanup(func() {
			gittest.Run(t, repo, "config", "--unset", "includeIf.gitdir:"+filepath.Join(repo, ".git")+".path")
		})
		same(t, open(t, sub), sub)
	})
	t.Run("linked worktree with its own config", func(t *testing.T) {
		wt := filepath.Join(t.TempDir(), "wt")
		gittest.Run(t, repo, "worktree", "add", "-q", "--detach", wt)
		gittest.Run(t, repo, "config", "extensions.worktreeConfig", "true")
		t.Cleanup(func() { gittest.Run(t, repo, "config", "--unset", "extensions.worktreeConfig") })
		gittest.Run(t, wt, "config", "--worktree", "user.name", "Worktree Name")
		same(t, open(t, wt), wt)
	})
	t.Run("a Store that lives on while the configuration changes", func(t *testing.T) {
		st := open(t, repo)
		same(t, st, repo)
		gittest.Run(t, repo, "config", "user.name", "Renamed Meanwhile")
		t.Cleanup(func() { gittest.Run(t, repo, "config", "--unset", "user.name") })
		same(t, st, repo)
	})
}
