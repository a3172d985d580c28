package hooks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/hooks"
)

func states(t *testing.T, e *env, dir string) map[string]hooks.Status {
	t.Helper()
	sts, err := hooks.Check(e.ctx(), dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]hooks.Status{}
	for _, s := range sts {
		m[s.Name] = s
	}
	return m
}

func TestCheckReportsEachState(t *testing.T) {
	e := newEnv(t)
	dir := e.newRepo()
	hookDir := filepath.Join(dir, ".git", "hooks")
	for name, st := range states(t, e, dir) {
		if st.State != hooks.StateMissing {
			t.Errorf("before install %s: %s", name, st.State)
		}
	}
	writeFile(t, filepath.Join(hookDir, "pre-push"), "#!/bin/sh\n", 0o755)
	if st := states(t, e, dir)["pre-push"]; st.State != hooks.StateForeign {
		t.Errorf("user's own hook: %s, want foreign", st.State)
	}
	e.bind(dir, "s1") // so that prepare-commit-msg is installed too
	e.install(dir)
	for name, st := range states(t, e, dir) {
		if !st.OK() {
			t.Errorf("after install %s: %s", name, st.State)
		}
	}
	if st := states(t, e, dir)["pre-push"]; st.Chained != filepath.Join(hookDir, "pre-push.handoff-chained") || !st.ChainedExecutable {
		t.Errorf("pre-push chained = %q executable %v", st.Chained, st.ChainedExecutable)
	}

	if err := os.Chmod(filepath.Join(hookDir, "post-checkout"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(readFile(t, filepath.Join(hookDir, "prepare-commit-msg")),
		"shim v"+strconv.Itoa(hooks.ShimVersion)+":", "shim v0:", 1)
	writeFile(t, filepath.Join(hookDir, "prepare-commit-msg"), old, 0o755)
	got := states(t, e, dir)
	if got["post-checkout"].State != hooks.StateNotExecutable {
		t.Errorf("chmod -x shim: %s", got["post-checkout"].State)
	}
	if got["prepare-commit-msg"].State != hooks.StateStale {
		t.Errorf("old shim: %s", got["prepare-commit-msg"].State)
	}

	rep := e.install(dir)
	for _, h := range rep.Hooks {
		want := hooks.Updated
		if h.Name == "pre-push" {
			want = hooks.Unchanged
		}
		if h.Action != want {
			t.Errorf("repair %s: %s, want %s", h.Name, h.Action, want)
		}
	}
	for name, st := range states(t, e, dir) {
		if !st.OK() {
			t.Errorf("after repair %s: %s", name, st.State)
		}
	}
}

func TestShimsAreValidShell(t *testing.T) {
	for _, name := range hooks.Names() {
		for _, cmd := range []string{"", "'/opt/my tools/git-handoff'"} {
			text, err := hooks.Shim(name, cmd)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("sh", "-n", "-c", text).CombinedOutput()
			if err != nil {
				t.Errorf("%s shim does not parse: %v\n%s", name, err, out)
			}
		}
	}
	if _, err := hooks.Shim("pre-commit", ""); err == nil {
		t.Errorf("Shim accepted a hook we do not install")
	}
}
