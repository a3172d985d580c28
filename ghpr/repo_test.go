package ghpr_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
)

func TestParseRemoteURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"git@github.com:octo/hello.git", "github.com/octo/hello"},
		{"git@github.com:octo/hello", "github.com/octo/hello"},
		{"github.com:octo/hello.git/", "github.com/octo/hello"},
		{"ssh://git@github.com:22/octo/hello.git", "github.com/octo/hello"},
		{"ssh://git@ssh.github.com:443/octo/hello.git", "github.com/octo/hello"},
		{"git+ssh://git@github.com/octo/hello.git", "github.com/octo/hello"},
		{"ssh+git://git@github.com/octo/hello", "github.com/octo/hello"},
		{"https://github.com/octo/hello", "github.com/octo/hello"},
		{"https://github.com/octo/hello/", "github.com/octo/hello"},
		{"https://github.com/octo/hello.git", "github.com/octo/hello"},
		{"https://user:ghp_secret@www.github.com/octo/hello", "github.com/octo/hello"},
		{"https://GitHub.com/Octo/Hello.git", "github.com/Octo/Hello"},
		{"http://ghe.corp.example:8080/team/tool.git", "ghe.corp.example/team/tool"},
		{"git://github.com/octo/hello.git", "github.com/octo/hello"},
		{"git@ghe.corp.example:team/tool.git\n", "ghe.corp.example/team/tool"},
	} {
		r, err := ghpr.ParseRemoteURL(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := r.Host + "/" + r.Owner + "/" + r.Name; got != tc.want {
			t.Errorf("%q = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{
		"/srv/git/hello.git", "../hello", "file:///srv/hello.git", "https://github.com/octo",
		"https://github.com/a/b/c", "https://user:ghp_secret@github.com/only",
	} {
		_, err := ghpr.ParseRemoteURL(bad)
		if err == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.Contains(err.Error(), "ghp_secret") {
			t.Errorf("%q: error leaks the password: %v", bad, err)
		}
	}
}

func TestParseRepoAndString(t *testing.T) {
	for in, want := range map[string]string{
		"octo/hello":                "octo/hello",
		"ghe.corp.example/t/tool":   "ghe.corp.example/t/tool",
		"https://github.com/o/r":    "o/r",
		"git@ghe.corp.example:t/x":  "ghe.corp.example/t/x",
		"www.github.com/octo/hello": "octo/hello",
	} {
		r, err := ghpr.ParseRepo(in, "")
		if err != nil || r.String() != want {
			t.Errorf("%q = %v %v, want %s", in, r, err, want)
		}
	}
	if r, _ := ghpr.ParseRepo("o/r", "ghe.corp.example"); r.Host != "ghe.corp.example" {
		t.Errorf("GH_HOST not applied: %v", r)
	}
	for _, bad := range []string{"octo", "a/b/c/d", "/r", "o//r"} {
		if _, err := ghpr.ParseRepo(bad, ""); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParsePRRef(t *testing.T) {
	for in, want := range map[string]int{"123": 123, "#123": 123, " 9 ": 9,
		"https://github.com/o/r/pull/123": 123, "https://github.com/o/r/pull/123/files": 123, "https://github.com/o/r/pull/5#issuecomment-1": 5} {
		r, n, err := ghpr.ParsePRRef(in)
		if err != nil || n != want {
			t.Errorf("%q = %d %v", in, n, err)
		}
		if strings.HasPrefix(in, "https") && r.String() != "o/r" {
			t.Errorf("%q repo = %v", in, r)
		}
	}
	for _, bad := range []string{"", "0", "#-1", "abc", "https://github.com/o/r/issues/1", "https://github.com/o/r/pull/x", "ftp://github.com/o/r/pull/1"} {
		if _, _, err := ghpr.ParsePRRef(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// gitRepo makes a repository with its own HOME, so no user configuration
// leaks in.
func gitRepo(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	return dir
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestDetectRepo(t *testing.T) {
	dir := gitRepo(t)
	ctx := context.Background()
	none := func(string) string { return "" }
	if _, err := ghpr.DetectRepo(ctx, dir, "", none); !errors.Is(err, ghpr.ErrNoRemote) {
		t.Errorf("no remote: %v", err)
	}
	// insteadOf is applied by `git remote get-url`.
	git(t, dir, "config", "url.git@ghe.corp.example:.insteadOf", "corp:")
	git(t, dir, "remote", "add", "origin", "corp:team/tool.git")
	git(t, dir, "remote", "add", "upstream", "https://github.com/octo/hello")
	r, err := ghpr.DetectRepo(ctx, dir, "", none)
	if err != nil || r.String() != "ghe.corp.example/team/tool" {
		t.Errorf("origin = %v %v", r, err)
	}
	r, err = ghpr.DetectRepo(ctx, dir, "upstream", none)
	if err != nil || r.String() != "octo/hello" || r.Host != "github.com" {
		t.Errorf("upstream = %v %v", r, err)
	}
	env := map[string]string{"GH_REPO": "other/thing", "GH_HOST": "ghe.corp.example"}
	r, err = ghpr.DetectRepo(ctx, dir, "", func(k string) string { return env[k] })
	if err != nil || r.String() != "ghe.corp.example/other/thing" {
		t.Errorf("GH_REPO = %v %v", r, err)
	}
	git(t, dir, "remote", "add", "local", "/srv/git/x.git")
	if _, err := ghpr.DetectRepo(ctx, dir, "local", none); err == nil || !strings.Contains(err.Error(), "local path") {
		t.Errorf("local: %v", err)
	}
}

func TestFindTokenEnvOrder(t *testing.T) {
	ctx := context.Background()
	noHelpers := ghpr.TokenOptions{NoGH: true, NoGit: true}
	for _, tc := range []struct {
		host string
		env  map[string]string
		want string
	}{
		{"github.com", map[string]string{"GH_TOKEN": "a", "GITHUB_TOKEN": "b", "GH_ENTERPRISE_TOKEN": "c"}, "a GH_TOKEN"},
		{"github.com", map[string]string{"GITHUB_TOKEN": "b", "GH_ENTERPRISE_TOKEN": "c"}, "b GITHUB_TOKEN"},
		{"acme.ghe.com", map[string]string{"GITHUB_TOKEN": "b", "GH_ENTERPRISE_TOKEN": "c"}, "b GITHUB_TOKEN"},
		{"ghe.corp.example", map[string]string{"GH_TOKEN": "a", "GH_ENTERPRISE_TOKEN": "c", "GITHUB_ENTERPRISE_TOKEN": "d"}, "c GH_ENTERPRISE_TOKEN"},
		{"ghe.corp.example", map[string]string{"GH_TOKEN": "a", "GITHUB_ENTERPRISE_TOKEN": "d"}, "d GITHUB_ENTERPRISE_TOKEN"},
	} {
		o := noHelpers
		o.Getenv = func(k string) string { return tc.env[k] }
		tok, src, err := ghpr.FindToken(ctx, tc.host, o)
		if err != nil || tok+" "+src != tc.want {
			t.Errorf("%s %v: %q %q %v", tc.host, tc.env, tok, src, err)
		}
	}
	o := noHelpers
	o.Getenv = func(k string) string { return map[string]string{"GH_TOKEN": "a"}[k] }
	if _, _, err := ghpr.FindToken(ctx, "ghe.corp.example", o); !errors.Is(err, ghpr.ErrNoToken) {
		t.Errorf("GH_TOKEN used for Enterprise: %v", err)
	}
}

func TestFindTokenFromGH(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\n[ \"$1 $2 $3 $4\" = \"auth token --hostname ghe.corp.example\" ] || exit 1\necho gho_fromgh\n"
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "PATH" {
			return bin
		}
		return ""
	}
	tok, src, err := ghpr.FindToken(context.Background(), "ghe.corp.example", ghpr.TokenOptions{Getenv: getenv, NoGit: true})
	if err != nil || tok != "gho_fromgh" || src != ghpr.SourceGHCLI {
		t.Errorf("%q %q %v", tok, src, err)
	}
	// gh failing (not logged in for that host) means no token from it.
	if _, _, err := ghpr.FindToken(context.Background(), "github.com", ghpr.TokenOptions{Getenv: getenv, NoGit: true}); !errors.Is(err, ghpr.ErrNoToken) {
		t.Errorf("failing gh: %v", err)
	}
}

func TestFindTokenFromGitCredential(t *testing.T) {
	dir := gitRepo(t)
	ctx := context.Background()
	none := func(string) string { return "" }
	// A helper configured through the environment, as GIT_CONFIG_COUNT allows.
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "credential.helper")
	t.Setenv("GIT_CONFIG_VALUE_0", `!f() { test "$1" = get || exit 0; while read l; do [ -z "$l" ] && break; case "$l" in host=ghe.corp.example) ok=1;; esac; done; [ -n "$ok" ] && echo username=x-access-token && echo password=ghs_fromhelper; exit 0; }; f`)
	tok, src, err := ghpr.FindToken(ctx, "ghe.corp.example", ghpr.TokenOptions{Getenv: none, Dir: dir, NoGH: true})
	if err != nil || tok != "ghs_fromhelper" || src != ghpr.SourceGitCredential {
		t.Errorf("%q %q %v", tok, src, err)
	}
	// No helper answers for this host: git must not prompt, and an empty
	// answer is no token.
	start := time.Now()
	if _, _, err := ghpr.FindToken(ctx, "github.com", ghpr.TokenOptions{Getenv: none, Dir: dir, NoGH: true}); !errors.Is(err, ghpr.ErrNoToken) {
		t.Errorf("no credential: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	// A helper that hangs is cut off by the timeout.
	t.Setenv("GIT_CONFIG_VALUE_0", "!sleep 3")
	start = time.Now()
	if _, _, err := ghpr.FindToken(ctx, "github.com", ghpr.TokenOptions{Getenv: none, Dir: dir, NoGH: true, Timeout: 300 * time.Millisecond}); !errors.Is(err, ghpr.ErrNoToken) {
		t.Errorf("hanging helper: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timeout not applied: %v", d)
	}
}

// TestConnect goes the whole way a command does: remote → repository,
// environment → token and endpoints, then a call.
func TestConnect(t *testing.T) {
	st := baseState()
	st.PRs[0].Draft = true
	s := ghprtest.NewServer(t, ghprtest.WithState(st))
	dir := gitRepo(t)
	git(t, dir, "remote", "add", "origin", "git@github.com:octo-org/hello-world.git")
	env := map[string]string{"GH_TOKEN": token, "GITHUB_API_URL": s.URL}
	c, source, err := ghpr.Connect(context.Background(), dir, "", func(k string) string { return env[k] })
	if err != nil || source != "GH_TOKEN" || !c.HasToken() || c.Repo().String() != "octo-org/hello-world" {
		t.Fatalf("%v %q %v", err, source, c)
	}
	p, err := c.PR(context.Background(), 7)
	if err != nil || !p.Draft {
		t.Fatalf("%v %+v", err, p)
	}
	login, err := c.Login(context.Background())
	if err != nil || login != "agent-bot" {
		t.Errorf("login %q %v", login, err)
	}
}
