package hooks_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// The two forms on real gits. Debian 12's git (2.39) reads no hooks from
// config; git 2.54 and later do. gittest.Gits names the gits: the first on
// PATH and, in CI, the newest git (gittest.NewestGitEnv). A test that needs
// a git with config hooks and finds none skips, and fails under
// CI_REQUIRE_TOOLS=1.

// gitRow is one git the tests run on.
type gitRow struct {
	git     string // the binary
	version string // "git version 2.39.5"
	// config: the version is 2.54 or later, so git runs hooks from config.
	// Read from the version, not from hooks.ConfigHooksSupported, which the
	// tests hold against it.
	config bool
}

func (r gitRow) name() string {
	return strings.ReplaceAll(strings.TrimPrefix(r.version, "git version "), " ", "_")
}

func gitRows(t testing.TB) []gitRow {
	t.Helper()
	gits, err := gittest.Gits()
	if err != nil {
		t.Fatal(err)
	}
	var rows []gitRow
	for _, g := range gits {
		out, err := exec.Command(g, "version").Output()
		if err != nil {
			t.Fatalf("%s version: %v", g, err)
		}
		v := strings.TrimSpace(string(out))
		var major, minor int
		if _, err := fmt.Sscanf(strings.TrimPrefix(v, "git version "), "%d.%d", &major, &minor); err != nil {
			t.Fatalf("%s: cannot read %q: %v", g, v, err)
		}
		rows = append(rows, gitRow{git: g, version: v, config: major > 2 || major == 2 && minor >= 54})
	}
	return rows
}

// rowWith returns the first row whose git runs hooks from config (config)
// or does not; when there is none it skips the test, or fails it under
// CI_REQUIRE_TOOLS=1.
func rowWith(t testing.TB, config bool) gitRow {
	t.Helper()
	for _, r := range gitRows(t) {
		if r.config == config {
			return r
		}
	}
	what := "no git that runs hooks from config (2.54 or later): name one in " + gittest.NewestGitEnv + " (scripts/newest-git.sh builds one)"
	if !config {
		what = "no git older than 2.54 first on PATH or in " + gittest.NewestGitEnv
	}
	// A row of the git matrix (make test-git) runs one git on purpose;
	// make test runs both, and there a missing one fails under CI.
	if row, inMatrix, _ := gittest.MatrixRow(); inMatrix {
		t.Skipf("%s: the matrix row of %s runs that git alone", what, row.Git)
	}
	if gittest.RequireTools() {
		t.Fatalf("%s, and CI_REQUIRE_TOOLS=1 requires it", what)
	}
	t.Skip(what)
	return gitRow{}
}

// onGit puts row's git first on PATH, for this process (the library runs
// git from PATH) and for the git commands e runs, if e is not nil.
func onGit(t testing.TB, e *env, row gitRow) {
	t.Helper()
	path := filepath.Dir(row.git) + string(os.PathListSeparator) + os.Getenv("PATH")
	t.Setenv("PATH", path)
	if e != nil {
		for i, kv := range e.vars {
			if strings.HasPrefix(kv, "PATH=") {
				e.vars[i] = "PATH=" + binDir + string(os.PathListSeparator) + path
			}
		}
	}
}

// eachForm runs f with hook files on the first git, and with hooks from
// config on a git that runs them (skipped, or failed in CI, without one).
func eachForm(t *testing.T, f func(t *testing.T, e *env)) {
	t.Run("files", func(t *testing.T) {
		e := newEnv(t)
		e.form = hooks.FormFiles
		f(t, e)
	})
	t.Run("config", func(t *testing.T) {
		row := rowWith(t, true)
		onGit(t, nil, row)
		e := newEnv(t)
		e.form = hooks.FormConfig
		f(t, e)
	})
}

// armed reports whether prepare-commit-msg is armed in dir's repository in
// e's form: our current shim at its name, or, in config, its event set
// and the shim our config hook reads there (always both or neither).
func (e *env) armed(dir string) bool {
	e.t.Helper()
	common := strings.TrimSpace(e.git(dir, "rev-parse", "--path-format=absolute", "--git-common-dir"))
	if e.form == hooks.FormConfig {
		out, _, _ := e.run(dir, "config", "--local", "--get-all", "hook.git-handoff-prepare-commit-msg.event")
		_, err := os.Stat(filepath.Join(common, "handoff", "hooks", hooks.PrepareCommitMsg))
		if event, shim := out == "prepare-commit-msg\n", err == nil; event != shim {
			e.t.Fatalf("prepare-commit-msg: event set %v (%q) but shim there %v: they move together", event, out, shim)
		}
		return err == nil
	}
	b, err := os.ReadFile(filepath.Join(common, "hooks", hooks.PrepareCommitMsg))
	shim, _ := hooks.Shim(hooks.PrepareCommitMsg, "")
	return err == nil && string(b) == shim
}

// wantUnboundCommit commits in dir and fails unless the message is left
// as given and no git-handoff started (when: the case, for the message).
func (e *env) wantUnboundCommit(dir, when string) {
	e.t.Helper()
	e.resetLog()
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "unbound")
	if got := e.headMessage(dir); got != "unbound\n\n" {
		e.t.Errorf("unbound commit = %q", got)
	}
	if s := e.starts(); s != nil {
		e.t.Errorf("git-handoff started %s: %q", when, s)
	}
}

// wantUnarmedOrSticky checks prepare-commit-msg once nothing is bound any
// more: disarmed in config form; in hook files still armed (they are never
// disarmed, see stickyDetail in arm.go), and either way an unbound commit
// starts no git-handoff and gets no trailer.
func (e *env) wantUnarmedOrSticky(dir, when string) {
	e.t.Helper()
	e.wantArmed(dir, e.form != hooks.FormConfig)
	e.wantUnboundCommit(dir, when)
}

func (e *env) wantArmed(dir string, armed bool) {
	e.t.Helper()
	if got := e.armed(dir); got != armed {
		e.t.Fatalf("prepare-commit-msg armed (%s): %v, want %v", e.form, got, armed)
	}
}

// configHooks returns our config hooks' settings in dir's repository, as
// git config lists them; "" when there are none.
func (e *env) configHooks(dir string) string {
	out, _, _ := e.run(dir, "config", "--local", "--get-regexp", `^hook\.git-handoff-`)
	return out
}

// userLogHook appends its name and arguments to the file next to the hooks
// directory named "ran", and passes pre-push's stdin on to "<name>.stdin".
const userLogHook = `#!/bin/sh
echo "$(basename "$0") $*" >>"$(dirname "$0")/../ran"
case $(basename "$0") in pre-push*) cat >"$(dirname "$0")/../pre-push.stdin" ;; esac
exit 0
`

// TestFormsOnEachGit: on each git, Install picks the form that git runs
// (config from 2.54, hook files before), and in either form an unbound
// commit starts no git-handoff, a bound one gets the session trailers, the
// user's own hooks still run with their arguments and stdin, check reports
// the form, and uninstall leaves the hooks directory as it was. In config
// form the hooks directory is never touched at all.
func TestFormsOnEachGit(t *testing.T) {
	rows := gitRows(t)
	// Each git there is, then: without one that runs hooks from config, the
	// test is skipped (failed in CI) after the others ran.
	defer rowWith(t, true)
	for _, row := range rows {
		t.Run(row.name(), func(t *testing.T) {
			e := newEnv(t)
			onGit(t, e, row)
			e.form = hooks.FormAuto
			dir := e.newRepo()
			if got, err := hooks.ConfigHooksSupported(e.ctx(), dir); err != nil || got != row.config {
				t.Fatalf("ConfigHooksSupported = %v, %v; %s says %v", got, err, row.version, row.config)
			}
			want := hooks.FormFiles
			if row.config {
				want = hooks.FormConfig
				e.form = hooks.FormConfig // for e.armed
			}
			remote := filepath.Join(t.TempDir(), "remote.git")
			e.git(".", "init", "-q", "--bare", remote)
			e.git(dir, "remote", "add", "origin", remote)
			hookDir := filepath.Join(dir, ".git", "hooks")
			for _, name := range hooks.Names() {
				writeFile(t, filepath.Join(hookDir, name), userLogHook, 0o750)
			}
			ran := filepath.Join(dir, ".git", "ran")
			before := snapshot(t, hookDir)

			rep, err := hooks.Install(e.ctx(), dir, hooks.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Form != want {
				t.Fatalf("installed as %q, want %q", rep.Form, want)
			}
			for _, h := range rep.Hooks {
				if h.Form != want {
					t.Errorf("%s installed as %q, want %q", h.Name, h.Form, want)
				}
			}
			if row.config {
				if got := snapshot(t, hookDir); got != before {
					t.Errorf("config form changed the hooks directory")
				}
				for _, name := range []string{hooks.PostCheckout, hooks.PrePush} {
					if !strings.Contains(e.configHooks(dir), "hook.git-handoff-"+name+".event "+name+"\n") {
						t.Errorf("no config hook for %s in\n%s", name, e.configHooks(dir))
					}
				}
				// Idle: git has no hook of ours to run on a commit.
				if out, _, _ := e.run(dir, "hook", "list", "prepare-commit-msg"); strings.Contains(out, "git-handoff") {
					t.Errorf("git hook list prepare-commit-msg while idle: %q", out)
				}
			}
			e.wantArmed(dir, false)

			// Unbound: the user's hook runs alone, nothing of ours starts.
			e.wantUnboundCommit(dir, "for an unbound commit")
			if got := readFile(t, ran); got != "prepare-commit-msg .git/COMMIT_EDITMSG message\n" {
				t.Errorf("user hooks ran: %q", got)
			}
			os.Remove(ran)
			for name, st := range states(t, e, dir) {
				if !st.OK() || st.Form != want {
					t.Errorf("check %s: %s in %q (%s), want ok in %q", name, st.State, st.Form, st.Note, want)
				}
			}

			// Bound: trailers, and the user's hook still runs.
			e.bind(dir, "s1")
			e.wantArmed(dir, true)
			e.git(dir, "commit", "-q", "--allow-empty", "-m", "bound")
			if got := e.headMessage(dir); got != "bound\n\nHandoff-Session: s1\nHandoff-Agent: test-agent\n\n" {
				t.Errorf("bound commit = %q", got)
			}
			userPCM := "prepare-commit-msg"
			if !row.config {
				userPCM += ".handoff-chained" // chained behind our shim
			}
			if got := readFile(t, ran); got != userPCM+" .git/COMMIT_EDITMSG message\n" {
				t.Errorf("user hooks ran: %q", got)
			}
			os.Remove(ran)

			// pre-push: the user's hook has its arguments and the whole ref
			// list; ours pushed the session record.
			e.git(dir, "push", "-q", "origin", "main")
			head := strings.TrimSpace(e.git(dir, "rev-parse", "HEAD"))
			if got, want := readFile(t, filepath.Join(dir, ".git", "pre-push.stdin")),
				"refs/heads/main "+head+" refs/heads/main "+strings.Repeat("0", len(head))+"\n"; got != want {
				t.Errorf("user pre-push stdin = %q, want %q", got, want)
			}
			if _, _, err := e.run(remote, "rev-parse", "--verify", "-q", "refs/ao/sessions/s1"); err != nil {
				t.Errorf("session record not pushed")
			}
			e.git(dir, "checkout", "-q", "-b", "other")
			lines := strings.Split(strings.TrimSpace(readFile(t, ran)), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "pre-push") || !strings.HasPrefix(lines[1], "post-checkout") || !strings.HasSuffix(lines[1], " 1") {
				t.Errorf("user hooks ran: %q", lines)
			}

			e.unbind(dir)
			e.wantArmed(dir, !row.config) // hook files stay armed
			e.resetLog()
			e.git(dir, "commit", "-q", "--allow-empty", "-m", "unbound again")
			if s := e.starts(); s != nil {
				t.Errorf("git-handoff started after unbinding: %q", s)
			}

			rep, err = hooks.Uninstall(e.ctx(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Form != want {
				t.Errorf("uninstall found %q, want %q", rep.Form, want)
			}
			if got := e.configHooks(dir); got != "" {
				t.Errorf("config hooks left after uninstall:\n%s", got)
			}
			if _, err := os.Stat(filepath.Join(dir, ".git", "handoff", "hooks")); err == nil {
				t.Errorf("config shims left after uninstall")
			}
			after := snapshot(t, hookDir)
			if after != before {
				t.Errorf("hooks directory after uninstall differs from before install:\n%v\n%v", after, before)
			}
			for name, st := range states(t, e, dir) {
				if st.State != hooks.StateForeign {
					t.Errorf("check after uninstall %s: %s, want foreign (the user's own)", name, st.State)
				}
			}
		})
	}
}

// TestMigration: on a git that runs hooks from config, hook files of an
// earlier install keep working and stay (Install says how to move them);
// --hooks=config moves them, putting the user's hooks back; --hooks=files
// moves them back. Every commit gets its trailers once and runs the user's
// hook once.
func TestMigration(t *testing.T) {
	row := rowWith(t, true)
	e := newEnv(t)
	onGit(t, e, row)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	for _, name := range hooks.Names() {
		writeFile(t, filepath.Join(hookDir, name), userLogHook, 0o750)
	}
	before := snapshot(t, hookDir)
	ran := filepath.Join(dir, ".git", "ran")
	commit := func(msg string) {
		t.Helper()
		os.Remove(ran)
		e.git(dir, "commit", "-q", "--allow-empty", "-m", msg)
		if got, want := e.headMessage(dir), msg+"\n\nHandoff-Session: s1\nHandoff-Agent: test-agent\n\n"; got != want {
			t.Errorf("commit = %q, want %q", got, want)
		}
		if n := strings.Count(readFile(t, ran), "prepare-commit-msg"); n != 1 {
			t.Errorf("the user's prepare-commit-msg ran %d times", n)
		}
	}
	e.bind(dir, "s1")
	install := func(form hooks.Form) hooks.Report {
		t.Helper()
		rep, err := hooks.Install(e.ctx(), dir, hooks.Options{Form: form})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	install(hooks.FormFiles)
	commit("files")

	rep := install(hooks.FormAuto)
	if rep.Form != hooks.FormFiles || rep.Changed() {
		t.Errorf("auto over hook files: %q, changed %v; want files kept", rep.Form, rep.Changed())
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "--hooks=config") {
		t.Errorf("auto over hook files: warnings %q, want how to move them", rep.Warnings)
	}

	rep = install(hooks.FormConfig)
	for _, h := range rep.Hooks {
		if h.Action != hooks.Migrated || !strings.Contains(h.Detail, "your hook is back") {
			t.Errorf("to config: %s %s (%s), want migrated", h.Name, h.Action, h.Detail)
		}
	}
	if got := snapshot(t, hookDir); got != before {
		t.Errorf("the user's hooks are not back as they were")
	}
	commit("config")
	if rep := install(hooks.FormAuto); rep.Changed() || rep.Form != hooks.FormConfig {
		t.Errorf("auto over config hooks: %q, changed %v", rep.Form, rep.Changed())
	}

	rep = install(hooks.FormFiles)
	for _, h := range rep.Hooks {
		if h.Action != hooks.Migrated || !strings.Contains(h.Detail, "from config hook git-handoff-"+h.Name) {
			t.Errorf("to files: %s %s (%s), want migrated", h.Name, h.Action, h.Detail)
		}
	}
	if got := e.configHooks(dir); got != "" {
		t.Errorf("config hooks left:\n%s", got)
	}
	commit("files again")
	for name, st := range states(t, e, dir) {
		if !st.OK() || st.Form != hooks.FormFiles {
			t.Errorf("check %s: %s in %q (%s)", name, st.State, st.Form, st.Note)
		}
	}
}

// TestConfigHooksUnderAnOlderGit: config hooks left by a newer git are not
// run by an older one. Check says so, --hooks=config refuses, and Install
// puts hook files in their place.
func TestConfigHooksUnderAnOlderGit(t *testing.T) {
	newer, older := rowWith(t, true), rowWith(t, false)
	e := newEnv(t)
	onGit(t, e, newer)
	dir := e.newRepo()
	if rep, err := hooks.Install(e.ctx(), dir, hooks.Options{}); err != nil || rep.Form != hooks.FormConfig {
		t.Fatalf("install with %s: %q, %v", newer.version, rep.Form, err)
	}
	e.bind(dir, "s1")

	onGit(t, e, older)
	for name, st := range states(t, e, dir) {
		if st.State != hooks.StateIgnored || !strings.Contains(st.Note, older.version) {
			t.Errorf("check with %s: %s %s (%s), want ignored naming the git", older.version, name, st.State, st.Note)
		}
	}
	if _, err := hooks.Install(e.ctx(), dir, hooks.Options{Form: hooks.FormConfig}); !errors.Is(err, hooks.ErrNoConfigHooks) {
		t.Errorf("install --hooks=config with %s: %v, want ErrNoConfigHooks", older.version, err)
	}
	rep, err := hooks.Install(e.ctx(), dir, hooks.Options{})
	if err != nil || rep.Form != hooks.FormFiles {
		t.Fatalf("install with %s: %q, %v", older.version, rep.Form, err)
	}
	for _, h := range rep.Hooks {
		if h.Action != hooks.Migrated {
			t.Errorf("%s: %s, want migrated", h.Name, h.Action)
		}
	}
	e.form = hooks.FormFiles
	e.wantArmed(dir, true)
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "older")
	if got := e.headMessage(dir); !strings.Contains(got, "Handoff-Session: s1\n") {
		t.Errorf("commit with %s = %q, want trailers", older.version, got)
	}
}

// TestEmptyHooksPath: core.hooksPath set to the empty string (Gemini CLI
// sets it for every shell command) stops hook files, and git 2.54 and
// later still run hooks from config. Hook files: a clear error from
// install and check. Config: installed, and a bound commit still gets its
// trailers.
func TestEmptyHooksPath(t *testing.T) {
	for _, row := range gitRows(t) {
		t.Run(row.name(), func(t *testing.T) {
			e := newEnv(t)
			onGit(t, e, row)
			dir := e.newRepo()
			noHooks := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="}
			for _, kv := range noHooks {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			e = e.with(noHooks...)
			_, ferr := hooks.Install(e.ctx(), dir, hooks.Options{Form: hooks.FormFiles})
			if !errors.Is(ferr, refstore.ErrHooksDisabled) {
				t.Fatalf("install --hooks=files: %v, want ErrHooksDisabled", ferr)
			}
			if row.config != strings.Contains(ferr.Error(), "--hooks=config") {
				t.Errorf("install --hooks=files: %v; config hooks are an answer: %v", ferr, row.config)
			}
			rep, err := hooks.Install(e.ctx(), dir, hooks.Options{})
			if !row.config {
				if !errors.Is(err, refstore.ErrHooksDisabled) {
					t.Errorf("install: %v, want ErrHooksDisabled", err)
				}
				if _, err := hooks.Check(e.ctx(), dir); !errors.Is(err, refstore.ErrHooksDisabled) {
					t.Errorf("check: %v, want ErrHooksDisabled", err)
				}
				return
			}
			if err != nil || rep.Form != hooks.FormConfig {
				t.Fatalf("install: %q, %v; want config", rep.Form, err)
			}
			if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "core.hooksPath") {
				t.Errorf("warnings = %q", rep.Warnings)
			}
			e.form = hooks.FormConfig
			e.bind(dir, "s1")
			e.git(dir, "commit", "-q", "--allow-empty", "-m", "no hook files")
			if got := e.headMessage(dir); !strings.Contains(got, "Handoff-Session: s1\n") {
				t.Errorf("commit = %q, want trailers", got)
			}
			for name, st := range states(t, e, dir) {
				if !st.OK() {
					t.Errorf("check %s: %s (%s)", name, st.State, st.Note)
				}
			}
		})
	}
}

// TestConfigCheckStates: Check tells a config hook git does not run
// (disabled), one whose shim or program is missing (broken), one from
// elsewhere (stale) and one that is a hook file too (duplicate); Install
// repairs each.
func TestConfigCheckStates(t *testing.T) {
	row := rowWith(t, true)
	e := newEnv(t)
	onGit(t, e, row)
	e.form = hooks.FormConfig
	dir := e.newRepo()
	e.bind(dir, "s1")
	e.install(dir)
	check := func(name string, want hooks.State, note string) {
		t.Helper()
		st := states(t, e, dir)[name]
		if st.State != want || !strings.Contains(st.Note, note) {
			t.Errorf("%s: %s (%s), want %s (%s)", name, st.State, st.Note, want, note)
		}
	}
	repair := func() {
		t.Helper()
		rep := e.install(dir)
		if !rep.Changed() {
			t.Errorf("install repaired nothing")
		}
		for name, st := range states(t, e, dir) {
			if st.State != hooks.StateInstalled {
				t.Errorf("after repair %s: %s (%s)", name, st.State, st.Note)
			}
		}
	}
	for _, name := range hooks.Names() {
		check(name, hooks.StateInstalled, "")
	}

	e.git(dir, "config", "hook.git-handoff-pre-push.enabled", "false")
	check(hooks.PrePush, hooks.StateIgnored, "disabled")
	e.git(dir, "config", "--unset", "hook.git-handoff-pre-push.enabled")
	e.git(dir, "config", "hook.pre-push.enabled", "false") // every pre-push hook
	check(hooks.PrePush, hooks.StateIgnored, "hook.pre-push.enabled")
	e.git(dir, "config", "--unset", "hook.pre-push.enabled")
	check(hooks.PrePush, hooks.StateInstalled, "")

	os.Remove(filepath.Join(dir, ".git", "handoff", "hooks", hooks.PostCheckout))
	check(hooks.PostCheckout, hooks.StateBroken, "missing")
	repair()

	e.git(dir, "config", "hook.git-handoff-post-checkout.command", "/nonexistent/git-handoff hook post-checkout")
	check(hooks.PostCheckout, hooks.StateBroken, "/nonexistent/git-handoff, which is missing")
	e.git(dir, "config", "hook.git-handoff-post-checkout.command", "echo hello")
	check(hooks.PostCheckout, hooks.StateStale, "not the one")
	repair()

	shim, _ := hooks.Shim(hooks.PrePush, "")
	writeFile(t, filepath.Join(dir, ".git", "hooks", hooks.PrePush), shim, 0o755)
	check(hooks.PrePush, hooks.StateDuplicate, "git runs both")
	repair()
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", hooks.PrePush)); err == nil {
		t.Errorf("install left the hook file beside the config hook")
	}

	// An older shim, as an earlier git-handoff wrote it.
	p := filepath.Join(dir, ".git", "handoff", "hooks", hooks.PrepareCommitMsg)
	old := strings.Replace(readFile(t, p), "shim v"+strconv.Itoa(hooks.ShimVersion)+":", "shim v0:", 1)
	writeFile(t, p, old, 0o644)
	check(hooks.PrepareCommitMsg, hooks.StateStale, "another version")
	repair()
}

// TestConfigHooksAreNotTiedToAPath: the config hooks name no path, so a
// repository that is moved, and each of its worktrees, still runs them.
func TestConfigHooksAreNotTiedToAPath(t *testing.T) {
	row := rowWith(t, true)
	e := newEnv(t)
	onGit(t, e, row)
	e.form = hooks.FormConfig
	dir := e.newRepo()
	e.install(dir)
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	e.bind(moved, "s1")
	e.git(moved, "commit", "-q", "--allow-empty", "-m", "moved")
	if got := e.headMessage(moved); !strings.Contains(got, "Handoff-Session: s1\n") {
		t.Errorf("commit in the moved repository = %q, want trailers", got)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	e.git(moved, "worktree", "add", "-q", "-b", "wt", wt)
	e.bind(wt, "s2")
	e.git(wt, "commit", "-q", "--allow-empty", "-m", "worktree")
	if got := e.headMessage(wt); !strings.Contains(got, "Handoff-Session: s2\n") {
		t.Errorf("commit in a linked worktree = %q, want trailers", got)
	}
	sub := filepath.Join(wt, "a", "b")
	os.MkdirAll(sub, 0o755)
	e.git(sub, "commit", "-q", "--allow-empty", "-m", "from below")
	if got := e.headMessage(wt); !strings.Contains(got, "Handoff-Session: s2\n") {
		t.Errorf("commit from a subdirectory = %q, want trailers", got)
	}
}
