package brief

import (
	"strings"
	"testing"
	"time"
)

// A replacement's package says "you replace session …"; after an agent
// switch its title says the session goes on under another agent, and the
// rest of the package (the replaced session's story) is kept word for word.
func TestContinuedRetitlesOnlyTheTitle(t *testing.T) {
	pkg := BuildPackage(PackageInput{
		Old:   Predecessor{ID: "app-7", Harness: "claude-code", Branch: "feat", Status: "active", UpdatedAt: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)},
		NewID: "app-12", Reason: "stuck",
	})
	if !strings.HasPrefix(pkg, "## 🔁 Handoff package: you replace session app-7\n") {
		t.Fatalf("a replacement's title changed:\n%s", pkg)
	}
	got := Continued(pkg, "app-12", "app-7", "codex", "gemini")
	title, rest, _ := strings.Cut(got, "\n")
	if want := "## 🔁 Handoff package: session app-12 continues under gemini (until now codex); it replaced session app-7"; title != want {
		t.Errorf("title = %q, want %q", title, want)
	}
	if _, pkgRest, _ := strings.Cut(pkg, "\n"); rest != pkgRest {
		t.Errorf("the body changed:\n%s\nwant\n%s", rest, pkgRest)
	}
	if strings.Contains(got, "you replace") {
		t.Errorf("still says the reader replaces someone:\n%s", got)
	}

	// A second switch names the agents of that switch.
	again := Continued(got, "app-12", "app-7", "gemini", "claude-code")
	if !strings.HasPrefix(again, "## 🔁 Handoff package: session app-12 continues under claude-code (until now gemini);") {
		t.Errorf("second switch: %q", strings.SplitN(again, "\n", 2)[0])
	}
	// Not a package of ours, or none: left as it is.
	for _, other := range []string{"", "# some other text\nbody\n"} {
		if got := Continued(other, "a", "b", "x", "y"); got != other {
			t.Errorf("Continued(%q) = %q", other, got)
		}
	}
}
