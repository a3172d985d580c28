package refstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// gitList is what `git config -l -z` (with args) says in dir: one line per
// entry, "name=value" or "name" for a key without a value.
func gitList(t *testing.T, dir string, args ...string) ([]string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"config", "-l", "-z"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.New(stderr.String())
	}
	var lines []string
	for _, kv := range strings.Split(string(out), "\x00") {
		if kv == "" {
			continue
		}
		k, v, has := strings.Cut(kv, "\n")
		if has {
			lines = append(lines, k+"="+v)
		} else {
			lines = append(lines, k)
		}
	}
	return lines, nil
}

func entryLines(entries []configEntry) []string {
	var lines []string
	for _, e := range entries {
		if e.noValue {
			lines = append(lines, e.name)
		} else {
			lines = append(lines, e.name+"="+e.value)
		}
	}
	return lines
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: in process\n  %s\ngit config -l\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// The syntax git accepts and how it reads it: quoting, escapes,
// continuation lines, comments, CRLF, case rules for names.
const trickyConfig = "# comment\n; another\n" +
	"[core]\n\tbare = false\n" +
	"[Handoff]\n\tOwner = \"  spaced  \" # trailing comment\n" +
	"\tflag\n" +
	"\tempty =\n" +
	"\ttabs = a\t\tb   c  \n" +
	"\tesc = \"q\\\"uote\\\\ \\t tab \\n nl\" tail\n" +
	"\tcont = one \\\n   two\n" +
	"\tsemi = \"a;b#c\" ; gone\n" +
	"\tcrlf = yes\r\n" +
	"[Remote \"Origin\"]\n\tURL = /some/where\n" +
	"[remote \"with \\\"quote\\\" and \\\\\"]\n\tx = 1\n" +
	"[Old.Style]\n\tKey = v\n" +
	"[a.b.c] k = on the header line\n" +
	"[sec-tion \"sub.dotted.name\"]\n\tk-ey = 2\n\tk-ey = 3\n"

// TestConfigAgainstGit writes tricky files at every level git reads and
// compares the in-process reading with `git config -l` entry by entry.
func TestConfigAgainstGit(t *testing.T) {
	home := gittest.Isolate(t)
	dir := gittest.Init(t)
	gitDir := filepath.Join(dir, ".git")
	// Global config with includes: ~ expansion, a path relative to the
	// including file, one that does not exist, nested includes.
	write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Test Dev\n\temail = dev@example.com\n"+
		"[include]\n\tpath = ~/inc/tilde.inc\n\tpath = missing.inc\n"+
		"[includeIf \"gitdir:"+dir+"/\"]\n\tpath = inc/abs-slash.inc\n"+
		"[includeIf \"gitdir:repo/.git\"]\n\tpath = inc/rel.inc\n"+
		"[includeIf \"gitdir:**/nothere/**\"]\n\tpath = inc/never.inc\n"+
		"[includeIf \"gitdir/i:"+strings.ToUpper(gitDir)+"\"]\n\tpath = inc/icase.inc\n"+
		"[includeIf \"gitdir:"+strings.ToUpper(gitDir)+"\"]\n\tpath = inc/never.inc\n"+
		"[includeIf \"onbranch:main\"]\n\tpath = inc/branch.inc\n"+
		"[includeIf \"onbranch:ma*\"]\n\tpath = inc/branch-glob.inc\n"+
		"[includeIf \"onbranch:other\"]\n\tpath = inc/never.inc\n"+
		"[includeIf \"unknown:thing\"]\n\tpath = inc/never.inc\n")
	write(t, filepath.Join(home, "inc", "tilde.inc"), "[t]\n\tilde = yes\n[include]\n\tpath = nested/deeper.inc\n")
	write(t, filepath.Join(home, "inc", "nested", "deeper.inc"), "[t]\n\tdeeper = relative to tilde.inc\n")
	write(t, filepath.Join(home, "inc", "abs-slash.inc"), "[t]\n\tabsSlash = 1\n")
	write(t, filepath.Join(home, "inc", "rel.inc"), "[t]\n\trel = 1\n")
	write(t, filepath.Join(home, "inc", "icase.inc"), "[t]\n\ticase = 1\n")
	write(t, filepath.Join(home, "inc", "branch.inc"), "[t]\n\tbranch = main\n")
	write(t, filepath.Join(home, "inc", "branch-glob.inc"), "[t]\n\tbranchGlob = ma*\n")
	write(t, filepath.Join(home, "inc", "never.inc"), "[t]\n\tnever = wrong\n")
	// The repository's config: the tricky syntax, and an includeIf
	// relative to the including file ("./").
	cfg, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(gitDir, "config"), string(cfg)+trickyConfig+
		"[includeIf \"gitdir:./\"]\n\tpath = local-dot.inc\n")
	write(t, filepath.Join(gitDir, "local-dot.inc"), "[t]\n\tlocalDot = 1\n")
	// The environment's variables come last: numbered, then -c.
	t.Setenv("GIT_CONFIG_COUNT", "2")
	t.Setenv("GIT_CONFIG_KEY_0", "Env.Sub.Key")
	t.Setenv("GIT_CONFIG_VALUE_0", "from count")
	t.Setenv("GIT_CONFIG_KEY_1", "handoff.owner")
	t.Setenv("GIT_CONFIG_VALUE_1", "count owner")
	t.Setenv("GIT_CONFIG_PARAMETERS", `'handoff.owner=old style' 'Param.Flag' 'new.Style'='it'\''s' 'new.bool'= 'a.b=c=d'`)

	want, err := gitList(t, dir)
	if err != nil {
		t.Fatalf("git config -l: %v", err)
	}
	entries, err := readConfig(configDirs{gitDir: gitDir, commonDir: gitDir})
	if err != nil {
		t.Fatalf("readConfig: %v", err)
	}
	sameLines(t, "main worktree", entryLines(entries), want)

	// The API callers use: last value wins, git's own answer.
	st, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	vals, err := st.Config(context.Background(), "handoff.owner", "Handoff.Flag", "remote.Origin.url", "t.never", "sec-tion.sub.dotted.name.k-ey")
	if err != nil {
		t.Fatal(err)
	}
	wantVals := map[string]string{"handoff.owner": "it", "handoff.flag": "", "remote.origin.url": "/some/where", "sec-tion.sub.dotted.name.k-ey": "3"}
	for _, kv := range want {
		if k, v, _ := strings.Cut(kv, "="); k == "handoff.owner" {
			wantVals["handoff.owner"] = v // git's last word on it
		}
	}
	if len(vals) != len(wantVals) {
		t.Errorf("Config = %q, want %q", vals, wantVals)
	}
	for k, v := range wantVals {
		if vals[k] != v {
			t.Errorf("Config[%s] = %q, want %q", k, vals[k], v)
		}
	}

	// A linked worktree on another branch, with per-worktree config.
	wt := filepath.Join(t.TempDir(), "linked")
	gittest.Run(t, dir, "worktree", "add", "-q", "-b", "other", wt)
	gittest.Run(t, dir, "config", "extensions.worktreeConfig", "true")
	gittest.Run(t, wt, "config", "--worktree", "wt.only", "linked")
	wtGitDir := strings.TrimSpace(gittest.Run(t, wt, "rev-parse", "--absolute-git-dir"))
	want, err = gitList(t, wt)
	if err != nil {
		t.Fatalf("git config -l in the worktree: %v", err)
	}
	entries, err = readConfig(configDirs{gitDir: wtGitDir, commonDir: gitDir})
	if err != nil {
		t.Fatalf("readConfig in the worktree: %v", err)
	}
	sameLines(t, "linked worktree", entryLines(entries), want)
	if !strings.Contains(strings.Join(want, "\n"), "wt.only=linked") {
		t.Errorf("git did not read config.worktree: the test set up the wrong thing")
	}

	// ConfigValues reads the repository's file alone, like --local.
	t.Setenv("GIT_CONFIG_PARAMETERS", "")
	t.Setenv("GIT_CONFIG_COUNT", "0")
	vs, err := st.ConfigValues(context.Background(), "Sec-tion.sub.dotted.name.K-ey")
	if err != nil || strings.Join(vs, ",") != "2,3" {
		t.Errorf("ConfigValues = %q, %v; want 2,3", vs, err)
	}
}

// TestConfigGlobalOrder checks the files git reads without
// GIT_CONFIG_GLOBAL: the XDG file before ~/.gitconfig, and the system file
// GIT_CONFIG_SYSTEM names unless GIT_CONFIG_NOSYSTEM.
func TestConfigGlobalOrder(t *testing.T) {
	home := gittest.Isolate(t)
	dir := gittest.Init(t)
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "0")
	sys := filepath.Join(home, "system.config")
	t.Setenv("GIT_CONFIG_SYSTEM", sys)
	write(t, sys, "[o]\n\tk = system\n\tsys = 1\n")
	write(t, filepath.Join(home, ".gitconfig"), "[o]\n\tk = home\n")
	for _, xdg := range []string{"", filepath.Join(home, "xdg")} {
		t.Setenv("XDG_CONFIG_HOME", xdg)
		base := xdg
		if base == "" {
			base = filepath.Join(home, ".config")
		}
		write(t, filepath.Join(base, "git", "config"), "[o]\n\tk = xdg "+xdg+"\n")
		want, err := gitList(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := readConfig(configDirs{gitDir: filepath.Join(dir, ".git"), commonDir: filepath.Join(dir, ".git")})
		if err != nil {
			t.Fatal(err)
		}
		sameLines(t, "XDG_CONFIG_HOME="+xdg, entryLines(entries), want)
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "true")
	want, _ := gitList(t, dir)
	entries, _ := readConfig(configDirs{gitDir: filepath.Join(dir, ".git"), commonDir: filepath.Join(dir, ".git")})
	sameLines(t, "no system", entryLines(entries), want)
}

// TestConfigFallsBackToGit: what the reader does not understand is asked
// of git, and git's errors reach the caller.
func TestConfigFallsBackToGit(t *testing.T) {
	home := gittest.Isolate(t)
	dir := gittest.Init(t)
	gitDir := filepath.Join(dir, ".git")
	gittest.Run(t, dir, "remote", "add", "origin", "https://example.com/r.git")
	write(t, filepath.Join(home, "hc.inc"), "[handoff]\n\towner = via hasconfig\n")
	gittest.Run(t, dir, "config", "--global", "includeIf.hasconfig:remote.*.url:https://example.com/**.path", filepath.Join(home, "hc.inc"))
	if _, err := readConfig(configDirs{gitDir: gitDir, commonDir: gitDir}); !errors.Is(err, errConfigUnknown) {
		t.Fatalf("readConfig with hasconfig: = %v, want errConfigUnknown", err)
	}
	st, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	vals, err := st.Config(context.Background(), "handoff.owner")
	if err != nil || vals["handoff.owner"] != "via hasconfig" {
		t.Fatalf("Config = %q, %v; want git's answer through hasconfig", vals, err)
	}
	// A line git rejects: git's error, not a guess.
	write(t, filepath.Join(home, ".gitconfig"), "[user\n")
	if _, err := st.Config(context.Background(), "handoff.owner"); err == nil || !strings.Contains(err.Error(), "bad config") {
		t.Fatalf("Config on a broken file = %v, want git's complaint", err)
	}
}

// configSeeds are syntax corner cases for the fuzz target (and, as seeds,
// for every `go test`).
var configSeeds = []string{
	trickyConfig,
	"[a]\nb\n",
	"[a]b=c",
	"[a \"x\"]\n\tb = \"unterminated\n",
	"[a]\n\tb = bad \\q escape\n",
	"[a]\n\tb = trailing backslash \\",
	"[a]\n\tb = \"\"  x  \"\"\n",
	"[a]\n\t1b = c\n",
	"b = before any section\n",
	"[]\n",
	"[a \"sub\" ]\n\tb = c\n",
	"[a \"sub\"]x = 1\n",
	"[A.B.C]\n\tD = e\n",
	"\xef\xbb\xbf[bom]\n\tk = v\n",
	"[a]\r\n\tb = c\r\n\td = \"e\r\n\"\n",
	"[a]\n\tb = c # x\n\t; comment\n\td=\"#\";e\n",
	"[a]\n\tk\t=\tv\tw\n",
	"[a \"b\\\\c\\d\"]\n\tk = v\n",
	"[a]\n\tk = \\\n\n",
	"[a]\n\tk = x\\\n",
}

// FuzzConfigParse compares the in-process parser with `git config --file`
// (includes off) on the same bytes: both accept with the same entries, or
// both reject.
func FuzzConfigParse(f *testing.F) {
	for _, s := range configSeeds {
		f.Add([]byte(s))
	}
	gittest.Isolate(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.IndexByte(data, 0) >= 0 {
			return // git reads a NUL as the end of a line's value; not worth modelling
		}
		path := filepath.Join(dir, "fuzz.config")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, gitErr := gitList(t, dir, "--no-includes", "--file", path)
		r := &configReader{getenv: os.LookupEnv}
		err := r.parse(data, path)
		switch {
		case gitErr != nil && err == nil:
			t.Fatalf("%q: git rejects it (%v), the parser read %q", data, gitErr, entryLines(r.entries))
		case gitErr == nil && err != nil:
			t.Fatalf("%q: git reads %q, the parser rejects it: %v", data, want, err)
		case gitErr == nil:
			sameLines(t, string(data), entryLines(r.entries), want)
		}
	})
}

func TestWildmatch(t *testing.T) {
	for _, c := range []struct {
		pat, text string
		fold      bool
		want      bool
	}{
		{"**/repo/.git", "/home/u/repo/.git", false, true},
		{"**/repo/.git", "repo/.git", false, true},
		{"/home/*/.git", "/home/u/.git", false, true},
		{"/home/*/.git", "/home/u/v/.git", false, false},
		{"/home/**", "/home/u/v/.git", false, true},
		{"/home/**/.git", "/home/.git", false, true},
		{"/home/a**b/.git", "/home/a/x/b/.git", false, false},
		{"ma?n", "main", false, true},
		{"ma?n", "ma/n", false, false},
		{"[a-c]x", "bx", false, true},
		{"[!a-c]x", "bx", false, false},
		{"[^a-c]x", "dx", false, true},
		{"[[:upper:]]x", "Qx", false, true},
		{"[[:upper:]]x", "qx", false, false},
		{"[A-C]x", "bx", true, true},
		{"\\*x", "*x", false, true},
		{"\\*x", "ax", false, false},
		{"/HOME/U/**", "/home/u/r/.git", true, true},
		{"feat/**", "feat/a/b", false, true},
		{"feat/*", "feat/a/b", false, false},
		{"[a", "a", false, false},
	} {
		if got := wildmatch(c.pat, c.text, c.fold); got != c.want {
			t.Errorf("wildmatch(%q, %q, fold %v) = %v, want %v", c.pat, c.text, c.fold, got, c.want)
		}
	}
}

// The configuration is read once, and again when a file it came from
// changes, appears or goes (git config writing the local file, an include
// that did not exist yet, the global file removed) or a variable it looked
// up changes.
func TestConfigCacheFollowsTheFiles(t *testing.T) {
	home := gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := t.Context()
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	get := func(key string) string {
		t.Helper()
		v, err := st.Config(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return v[key]
	}
	if got := get("user.email"); got != "dev@example.com" {
		t.Fatalf("user.email = %q", got)
	}
	gittest.Run(t, dir, "config", "user.email", "b@example.com")
	if got := get("user.email"); got != "b@example.com" {
		t.Errorf("after git config: user.email = %q", got)
	}
	inc := filepath.Join(t.TempDir(), "later.inc")
	gittest.Run(t, dir, "config", "include.path", inc)
	if got := get("handoff.owner"); got != "" {
		t.Errorf("handoff.owner = %q before the include exists", got)
	}
	if err := os.WriteFile(inc, []byte("[handoff]\n\towner = inc@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := get("handoff.owner"); got != "inc@example.com" {
		t.Errorf("after the include appeared: handoff.owner = %q", got)
	}
	gittest.Run(t, dir, "config", "--unset", "user.email")
	if err := os.Remove(filepath.Join(home, ".gitconfig")); err != nil {
		t.Fatal(err)
	}
	if got := get("user.email"); got != "" {
		t.Errorf("after both files lost it: user.email = %q", got)
	}
	// The environment it read counts as much as the files.
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "handoff.owner")
	t.Setenv("GIT_CONFIG_VALUE_0", "env@example.com")
	if got := get("handoff.owner"); got != "env@example.com" {
		t.Errorf("after GIT_CONFIG_COUNT: handoff.owner = %q", got)
	}
	t.Setenv("GIT_CONFIG_VALUE_0", "other@example.com")
	if got := get("handoff.owner"); got != "other@example.com" {
		t.Errorf("after GIT_CONFIG_VALUE_0 changed: handoff.owner = %q", got)
	}
}

// The repository's own file, read without includes for the layout and the
// store's own settings, is cached for the process too, and read again when
// git changes it: a remote added after the first look is seen.
func TestPlainConfigCacheFollowsTheFile(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	ctx := t.Context()
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	config := filepath.Join(dir, ".git", "config")
	for i, want := range []string{"", "one", "two"} {
		if want != "" {
			gittest.Run(t, dir, "config", "handoff.probe", want)
		}
		vals, err := fileValues(config, "handoff.probe")
		got := ""
		if len(vals) > 0 {
			got = vals[len(vals)-1].value
		}
		if err != nil || got != want {
			t.Errorf("step %d: handoff.probe = %q, %v; want %q", i, got, err, want)
		}
		rcs, err := st.RemoteConfigs(ctx)
		if err != nil || len(rcs) != i {
			t.Errorf("step %d: %d remotes (%v), want %d", i, len(rcs), err, i)
		}
		gittest.Run(t, dir, "remote", "add", "r"+want, "/nowhere/"+want)
	}
}

// Found leaving a baton from a repository reached through a symlink: git
// matched an includeIf "gitdir:" written through the symlink (it makes the
// ".git" it found at the top absolute from $PWD), the in-process reader
// only the real path, so the baton went to the wrong owner. Below the top,
// git too matches only the real path.
func TestConfigIncludeIfGitDirThroughASymlink(t *testing.T) {
	home := gittest.Isolate(t)
	real := gittest.Init(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	global := "[user]\n\tname = Test Dev\n\temail = home@example.com\n" +
		"[includeIf \"gitdir:" + link + "/\"]\n\tpath = work.inc\n"
	write(t, filepath.Join(home, "work.inc"), "[user]\n\temail = work@example.com\n")
	for _, c := range []struct {
		dir, want string
	}{
		{link, "work@example.com"},
		{filepath.Join(link, "sub"), "home@example.com"},
		{real, "home@example.com"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			write(t, filepath.Join(home, ".gitconfig"), global)
			cmd := exec.Command("git", "config", "user.email")
			cmd.Dir = c.dir // and PWD, which os/exec sets to Dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(out)); got != c.want {
				t.Fatalf("git says %q, want %q: the test's premise is wrong", got, c.want)
			}
			t.Chdir(c.dir)
			t.Setenv("PWD", c.dir)
			l, err := Locate(context.Background(), ".")
			if err != nil {
				t.Fatal(err)
			}
			entries, err := readConfig(l.configDirs())
			if err != nil {
				t.Fatal(err)
			}
			if got := configLookup(entries, []string{"user.email"})["user.email"]; got != c.want {
				t.Fatalf("read in process: user.email = %q, want %q as git says", got, c.want)
			}
			// The store's answer, read in process and, with a condition
			// it leaves to git (hasconfig:), through git.
			for _, extra := range []string{"", "[includeIf \"hasconfig:remote.*.url:nowhere\"]\n\tpath = never.inc\n"} {
				write(t, filepath.Join(home, ".gitconfig"), global+extra)
				st, err := Open(context.Background(), ".", Options{})
				if err != nil {
					t.Fatal(err)
				}
				vals, err := st.Config(context.Background(), "user.email")
				st.Close()
				if err != nil {
					t.Fatal(err)
				}
				if got := vals["user.email"]; got != c.want {
					t.Fatalf("Store.Config (%q added): user.email = %q, want %q as git says", extra, got, c.want)
				}
			}
		})
	}
}
