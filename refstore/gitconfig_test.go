package refstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// gitGet is what `git config --get key` says in dir, and whether it found
// the key.
func gitGet(t *testing.T, dir, key string) (string, bool) {
	t.Helper()
	cmd := exec.Command("git", "config", "--get", key)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	return strings.TrimSuffix(string(out), "\n"), true
}

// sameAsGit opens a Store in dir and holds Config's answer for each key to
// git config's.
func sameAsGit(t *testing.T, dir string, keys ...string) {
	t.Helper()
	st, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got, err := st.Config(context.Background(), keys...)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		want, found := gitGet(t, dir, k)
		v, ok := got[strings.ToLower(k)]
		if ok != found || v != want {
			t.Errorf("%s: Config = %q (set %v), git config = %q (set %v)", k, v, ok, want, found)
		}
	}
}

// The cases where a reader of its own disagreed with git: each setting is
// read by the Store and by `git config --get`, which must agree.
func TestConfigAgreesWithGit(t *testing.T) {
	home := gittest.Isolate(t)
	t.Run("escapes, tabs, NUL and newlines in values", func(t *testing.T) {
		repo := gittest.Init(t)
		gittest.WriteFile(t, repo, ".git/config", []byte("[core]\n\trepositoryformatversion = 0\n\tbare = false\n"+
			"[x]\n\ttab = a\tb\n\ttabs = \"q\\tr\"  s\t\n\tnl = \"one\\ntwo\"\n\tnul = c\x00d\n\tflag\n\tEmpty =\n"+
			"[x \"Sub.Sec\"]\n\tKey = v\n"))
		sameAsGit(t, repo, "x.tab", "x.tabs", "x.nl", "x.nul", "x.flag", "x.empty", "X.Sub.Sec.key", "x.missing")
	})
	t.Run("include through a symlinked directory", func(t *testing.T) {
		repo := gittest.Init(t)
		real := t.TempDir()
		gittest.WriteFile(t, real, "conf/inner", []byte("[include]\n\tpath = ../sibling\n"))
		// Relative to the file's real place, as the kernel resolves "..".
		gittest.WriteFile(t, real, "sibling", []byte("[x]\n\tvia = real\n"))
		links := t.TempDir()
		os.Symlink(filepath.Join(real, "conf"), filepath.Join(links, "conf"))
		gittest.WriteFile(t, links, "sibling", []byte("[x]\n\tvia = lexical\n"))
		gittest.Run(t, repo, "config", "include.path", filepath.Join(links, "conf", "inner"))
		sameAsGit(t, repo, "x.via")
	})
	t.Run("includeIf gitdir:~/ with a symlinked HOME", func(t *testing.T) {
		realHome := t.TempDir()
		os.WriteFile(filepath.Join(realHome, ".gitconfig"), []byte("[user]\n\tname = Test Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
		link := filepath.Join(t.TempDir(), "home")
		os.Symlink(realHome, link)
		t.Setenv("HOME", link)
		defer t.Setenv("HOME", home)
		repo := filepath.Join(realHome, "work", "r")
		gittest.Run(t, "", "init", "-q", repo)
		gittest.WriteFile(t, realHome, "extra", []byte("[x]\n\thome = matched\n"))
		gittest.Run(t, "", "config", "--global", "includeIf.gitdir:~/work/.path", filepath.Join(realHome, "extra"))
		sameAsGit(t, repo, "x.home")
	})
	t.Run("onbranch with HEAD on a symbolic branch ref", func(t *testing.T) {
		repo := gittest.Init(t)
		gittest.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "one")
		gittest.Run(t, repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
		gittest.Run(t, repo, "symbolic-ref", "HEAD", "refs/heads/alias")
		gittest.WriteFile(t, repo, ".git/on-alias", []byte("[x]\n\tbranch = alias\n"))
		gittest.WriteFile(t, repo, ".git/on-main", []byte("[x]\n\tbranch = main\n"))
		gittest.Run(t, repo, "config", "includeIf.onbranch:alias.path", "on-alias")
		gittest.Run(t, repo, "config", "includeIf.onbranch:main.path", "on-main")
		sameAsGit(t, repo, "x.branch")
		st, err := Open(context.Background(), repo, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		h, err := st.Head(context.Background())
		if err != nil {
			t.Fatalf("Head with HEAD on a symbolic branch ref: %v", err)
		}
		if want := gittest.Run(t, repo, "rev-parse", "HEAD"); h.Commit != want {
			t.Errorf("Head = %+v, git says %s", h, want)
		}
	})
	t.Run("command line and environment", func(t *testing.T) {
		repo := gittest.Init(t)
		gittest.Run(t, repo, "config", "x.env", "file")
		t.Setenv("GIT_CONFIG_COUNT", "1")
		t.Setenv("GIT_CONFIG_KEY_0", "x.env")
		t.Setenv("GIT_CONFIG_VALUE_0", "from env")
		sameAsGit(t, repo, "x.env")
	})
}

// The Store's own configuration writes are seen by its next lookup.
func TestConfigSeesOwnWrites(t *testing.T) {
	gittest.Isolate(t)
	repo := gittest.Init(t)
	ctx := context.Background()
	st, err := Open(ctx, repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, _ := st.Config(ctx, "x.y"); len(v) != 0 {
		t.Fatalf("x.y = %v before it was set", v)
	}
	if err := st.SetConfig(ctx, "x.y", "1"); err != nil {
		t.Fatal(err)
	}
	if err := st.AddConfig(ctx, "x.z", "a"); err != nil {
		t.Fatal(err)
	}
	if err := st.AddConfig(ctx, "x.z", "b"); err != nil {
		t.Fatal(err)
	}
	v, _ := st.Config(ctx, "x.y")
	zs, _ := st.ConfigValues(ctx, "x.z")
	if v["x.y"] != "1" || strings.Join(zs, ",") != "a,b" {
		t.Errorf("after writing: x.y = %q, x.z = %q", v["x.y"], zs)
	}
}

// Gemini CLI's shell points GIT_CONFIG_GLOBAL at /dev/null: git there sees
// no user.email of ~/.gitconfig, PersonConfig still does (and the
// includeIf in it), while Config answers as git does; a GIT_CONFIG_GLOBAL
// naming a file is that file for both.
func TestPersonConfigSeesThroughANullGlobal(t *testing.T) {
	home := gittest.Isolate(t)
	repo := gittest.Init(t)
	gittest.WriteFile(t, home, "work.gitconfig", []byte("[user]\n\temail = work@example.com\n"))
	gittest.Run(t, "", "config", "--global", "includeIf.gitdir:"+filepath.Dir(repo)+"/.path", filepath.Join(home, "work.gitconfig"))
	ctx := context.Background()
	person := func(t *testing.T) (map[string]string, map[string]string) {
		t.Helper()
		st, err := Open(ctx, repo, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		c, err := st.Config(ctx, "user.email", "user.name")
		if err != nil {
			t.Fatal(err)
		}
		p, err := st.PersonConfig(ctx, "user.email", "user.name")
		if err != nil {
			t.Fatal(err)
		}
		return c, p
	}
	c, p := person(t)
	if c["user.email"] != "work@example.com" || p["user.email"] != "work@example.com" {
		t.Errorf("with the user's file: Config %v, PersonConfig %v; want work@example.com from both", c, p)
	}

	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	if v, found := gitGet(t, repo, "user.email"); found {
		t.Fatalf("git config user.email = %q with GIT_CONFIG_GLOBAL=%s: the premise is gone", v, os.DevNull)
	}
	c, p = person(t)
	if _, ok := c["user.email"]; ok {
		t.Errorf("Config = %v with a null global, want no user.email, as git says", c)
	}
	if p["user.email"] != "work@example.com" || p["user.name"] != "Test Dev" {
		t.Errorf("PersonConfig = %v with a null global, want the user's own file's", p)
	}

	other := filepath.Join(t.TempDir(), "other.gitconfig")
	gittest.WriteFile(t, filepath.Dir(other), "other.gitconfig", []byte("[user]\n\temail = other@example.com\n"))
	t.Setenv("GIT_CONFIG_GLOBAL", other)
	c, p = person(t)
	if c["user.email"] != "other@example.com" || p["user.email"] != "other@example.com" {
		t.Errorf("GIT_CONFIG_GLOBAL naming a file: Config %v, PersonConfig %v; want other@example.com from both", c, p)
	}
}
