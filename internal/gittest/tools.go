package gittest

import (
	"os/exec"
	"testing"
)

// Missing ends t for want of what (a program, a file), saying how to
// install it where install is not "": a failure where RequireTools (CI
// installs every tool the tests need), a skip elsewhere.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	how := ""
	if install != "" {
		how = " (" + install + ")"
	}
	if RequireTools() {
		t.Fatalf("%s is not installed, and CI_REQUIRE_TOOLS=1 requires it%s", what, how)
	}
	t.Skipf("%s is not installed%s; CI_REQUIRE_TOOLS=1 makes this a failure", what, how)
}

// Need is the path of prog on PATH; without it, Missing.
func Need(t testing.TB, prog, install string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		Missing(t, prog, install)
	}
	return p
}
