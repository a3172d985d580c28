package hooks_test

import (
	"os"
	"testing"

	"github.com/git-handoff/git-handoff/hooks"
)

// TestPrintShims writes the shims to stdout when HOOKS_PRINT_SHIMS is set,
// for reading and for the docs.
func TestPrintShims(t *testing.T) {
	if os.Getenv("HOOKS_PRINT_SHIMS") == "" {
		t.Skip("set HOOKS_PRINT_SHIMS=1 to print the shims")
	}
	for _, n := range hooks.Names() {
		s, err := hooks.Shim(n, "")
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("==> " + n + "\n" + s + "\n")
	}
}
