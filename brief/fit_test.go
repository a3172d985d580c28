package brief

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFit(t *testing.T) {
	short := "## Baton\n\n1. do it\n"
	if out, cut := Fit(short, 100, "/x.md"); out != short || cut {
		t.Fatalf("a text under the cap changed: %q, %v", out, cut)
	}
	long := "## Baton\n\n" + strings.Repeat("1. ünïcode step, the baton first\n", 400)
	for _, max := range []int{10000, 2000, 300, 50, 1} {
		out, cut := Fit(long, max, "/repo/.git/handoff/agent/brief/s-1.md")
		if !cut {
			t.Fatalf("max %d: not cut", max)
		}
		if n := utf8.RuneCountInString(out); n > max {
			t.Fatalf("max %d: %d characters", max, n)
		}
		if !utf8.ValidString(out) {
			t.Fatalf("max %d: a character was split", max)
		}
		if max >= 300 {
			if !strings.HasPrefix(out, "## Baton") || !strings.Contains(out, "/repo/.git/handoff/agent/brief/s-1.md") {
				t.Fatalf("max %d: the head or the pointer is missing:\n%s", max, out)
			}
			body := out[:strings.Index(out, "\n\n**This brief was cut")]
			if !strings.HasSuffix(body, "first") {
				t.Fatalf("max %d: cut inside a line: %q", max, body[len(body)-20:])
			}
		}
	}
}
