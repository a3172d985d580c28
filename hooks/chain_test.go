package hooks_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/hooks"
)

// userHook records its arguments and stdin next to itself, then exits with
// the status in the file <hook>.status if there is one.
const userHook = `#!/bin/sh
echo "$@" >"$0.args"
cat >"$0.stdin"
[ -f "$0.status" ] && exit $(cat "$0.status")
exit 0
`

func TestUserHookStillRunsWithSameArgsAndStdin(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	remote := filepath.Join(t.TempDir(), "remote.git")
	e.git(".", "init", "-q", "--bare", remote)
	e.git(dir, "remote", "add", "origin", remote)
	hookDir := filepath.Join(dir, ".git", "hooks")
	for _, name := range hooks.Names() {
		writeFile(t, filepath.Join(hookDir, name), userHook, 0o750)
	}
	// Bound first, so that Install chains prepare-commit-msg too.
	e.bind(dir, "s1")
	rep := e.install(dir)
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings for .git/hooks: %q", rep.Warnings)
	}
	for _, h := range rep.Hooks {
		if h.Action != hooks.Chained {
			t.Errorf("%s: %s, want chained", h.Name, h.Action)
		}
	}
	chained := func(name string) string { return filepath.Join(hookDir, name+".handoff-chained") }

	e.git(dir, "commit", "-q", "--allow-empty", "-m", "x")
	if got := readFile(t, chained("prepare-commit-msg")+".args"); got != ".git/COMMIT_EDITMSG message\n" {
		t.Errorf("user prepare-commit-msg args = %q", got)
	}
	if !strings.Contains(e.headMessage(dir), "Handoff-Session: s1") {
		t.Errorf("no trailers with a chained user hook")
	}

	e.git(dir, "push", "-q", "origin", "main")
	head := strings.TrimSpace(e.git(dir, "rev-parse", "HEAD"))
	wantStdin := "refs/heads/main " + head + " refs/heads/main " + strings.Repeat("0", len(head)) + "\n" // SHA-1 or SHA-256
	if got := readFile(t, chained("pre-push")+".stdin"); got != wantStdin {
		t.Errorf("user pre-push stdin = %q, want %q", got, wantStdin)
	}
	if got := readFile(t, chained("pre-push")+".args"); got != "origin "+remote+"\n" {
		t.Errorf("user pre-push args = %q", got)
	}
	// Our part ran too and pushed the session record.
	if _, _, err := e.run(remote, "rev-parse", "--verify", "-q", "refs/ao/sessions/s1"); err != nil {
		t.Errorf("session record not pushed alongside the user's push")
	}

	e.git(dir, "checkout", "-q", "-b", "other")
	if got := readFile(t, chained("post-checkout")+".args"); !strings.HasSuffix(got, " 1\n") {
		t.Errorf("user post-checkout args = %q", got)
	}
}

func TestUserHookVerdictIsHonoured(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	for _, name := range hooks.Names() {
		writeFile(t, filepath.Join(hookDir, name), userHook, 0o755)
	}
	e.install(dir)
	e.bind(dir, "s1")
	for _, name := range hooks.Names() {
		writeFile(t, filepath.Join(hookDir, name+".handoff-chained.status"), "3\n", 0o644)
	}
	head := e.git(dir, "rev-parse", "HEAD")
	if _, _, err := e.run(dir, "commit", "-q", "--allow-empty", "-m", "x"); err == nil {
		t.Errorf("commit went through although the user's prepare-commit-msg exited 3")
	}
	if e.git(dir, "rev-parse", "HEAD") != head {
		t.Errorf("HEAD moved")
	}

	remote := filepath.Join(t.TempDir(), "remote.git")
	e.git(".", "init", "-q", "--bare", remote)
	if _, _, err := e.run(dir, "push", "-q", remote, "main"); err == nil {
		t.Errorf("push went through although the user's pre-push exited 3")
	}
	if _, _, err := e.run(remote, "rev-parse", "--verify", "-q", "refs/ao/sessions/s1"); err == nil {
		t.Errorf("records pushed although the user's pre-push rejected the push")
	}

	// post-checkout cannot stop a checkout, but its status is the command's.
	_, _, err := e.run(dir, "checkout", "-q", "-b", "other")
	if err == nil {
		t.Errorf("checkout exited 0 although the user's post-checkout exited 3")
	}
}

func TestUninstallRestoresUserHooksExactly(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	pcm := filepath.Join(hookDir, "prepare-commit-msg")
	writeFile(t, pcm, userHook, 0o741)
	// A symlinked hook, as some hook managers install, stays a symlink.
	target := filepath.Join(t.TempDir(), "managed-pre-push")
	writeFile(t, target, userHook, 0o755)
	if err := os.Symlink(target, filepath.Join(hookDir, "pre-push")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, hookDir)

	// Bound, so that prepare-commit-msg is chained (arm_test.go covers the
	// unbound case).
	e.bind(dir, "s1")
	e.install(dir)
	e.install(dir)
	rep, err := hooks.Uninstall(e.ctx(), dir)
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]hooks.Action{}
	for _, h := range rep.Hooks {
		actions[h.Name] = h.Action
	}
	want := map[string]hooks.Action{"prepare-commit-msg": hooks.Restored, "pre-push": hooks.Restored, "post-checkout": hooks.Removed}
	for k, v := range want {
		if actions[k] != v {
			t.Errorf("%s: %s, want %s", k, actions[k], v)
		}
	}
	if after := snapshot(t, hookDir); after != before {
		t.Errorf("hooks directory after uninstall:\n%s\nwant:\n%s", after, before)
	}
	rep, err = hooks.Uninstall(e.ctx(), dir)
	if err != nil || rep.Changed() {
		t.Errorf("second uninstall changed something: %+v %v", rep, err)
	}
}

func TestInstallIsIdempotent(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	writeFile(t, filepath.Join(dir, ".git", "hooks", "pre-push"), userHook, 0o755)
	if rep := e.install(dir); !rep.Changed() {
		t.Fatalf("first install changed nothing")
	}
	before := snapshot(t, filepath.Join(dir, ".git", "hooks"))
	rep := e.install(dir)
	if rep.Changed() {
		t.Errorf("second install changed something: %+v", rep.Hooks)
	}
	for _, h := range rep.Hooks {
		want := hooks.Unchanged
		if h.Name == hooks.PrepareCommitMsg {
			want = hooks.Idle // nothing is bound
		}
		if h.Action != want {
			t.Errorf("%s: %s, want %s", h.Name, h.Action, want)
		}
	}
	if after := snapshot(t, filepath.Join(dir, ".git", "hooks")); after != before {
		t.Errorf("second install touched the directory")
	}
}

func TestInstallRefusesToOverwriteAChainedHook(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	writeFile(t, filepath.Join(hookDir, "pre-push"), "#!/bin/sh\necho one\n", 0o755)
	e.install(dir)
	// The user replaces our shim with a new hook of their own.
	writeFile(t, filepath.Join(hookDir, "pre-push"), "#!/bin/sh\necho two\n", 0o755)
	rep, err := hooks.Install(e.ctx(), dir, hooks.Options{Form: hooks.FormFiles})
	if err == nil {
		t.Fatalf("install overwrote a chained hook silently")
	}
	if got := readFile(t, filepath.Join(hookDir, "pre-push")); got != "#!/bin/sh\necho two\n" {
		t.Errorf("user's new hook changed: %q", got)
	}
	if rep.Hooks[2].Action != hooks.Skipped || rep.Hooks[0].Action != hooks.Idle {
		t.Errorf("report = %+v", rep.Hooks)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot describes every entry of dir: name, mode, symlink target or
// content.
func snapshot(t testing.TB, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, en := range entries {
		p := filepath.Join(dir, en.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(en.Name() + " " + fi.Mode().String() + " ")
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			b.WriteString("-> " + target)
		} else {
			content, _ := os.ReadFile(p)
			b.Write(content)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestNonExecutableUserHookStaysSkipped(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	// git ignores a hook without the executable bit; chained, it still is.
	writeFile(t, filepath.Join(hookDir, "prepare-commit-msg"), "#!/bin/sh\nexit 1\n", 0o644)
	e.bind(dir, "s1") // so that it is chained
	e.install(dir)
	e.git(dir, "commit", "-q", "--allow-empty", "-m", "x")
	sts, err := hooks.Check(e.ctx(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := sts[0]; !st.OK() || st.Chained == "" || st.ChainedExecutable {
		t.Errorf("status = %+v, want installed, chained, not executable", st)
	}
}
