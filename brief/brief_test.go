package brief

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

var now = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

func input() Input {
	var recent []refstore.Commit
	for i := 0; i < 10; i++ {
		recent = append(recent, refstore.Commit{ID: strings.Repeat("c", 40), Subject: "ünïcödé subject " + strings.Repeat("é", i), Author: "A", When: now})
	}
	return Input{
		Owner: "o", Branch: "b", Now: now,
		Baton:     &baton.Baton{ID: "h-1", Owner: "o", Branch: "b", Harness: "codex", NextSteps: []string{"first\nsecond line"}, FailedApproaches: []string{"f"}, CreatedAt: now.Add(-3 * time.Hour), Head: strings.Repeat("a", 40)},
		Objective: &baton.Objective{Text: "the objective", SetAt: now},
		Recent:    recent,
	}
}

func TestRenderOrderAndContent(t *testing.T) {
	text, fits := Render(input(), DefaultMaxBytes)
	if !fits {
		t.Fatal("does not fit")
	}
	h, o, r := strings.Index(text, "## 🤝 Active Session Handoff"), strings.Index(text, "## Objective"), strings.Index(text, "## Recent commits")
	if h != 0 || o < h || r < o {
		t.Fatalf("sections out of order (%d %d %d):\n%s", h, o, r, text)
	}
	for _, want := range []string{"1. first\n   second line", "with codex", "3 h ago", "No commits since", "do not retry"} {
		if !strings.Contains(text, want) {
			t.Errorf("brief lacks %q:\n%s", want, text)
		}
	}
}

func TestRenderTrimsWholeLinesFromTheBottom(t *testing.T) {
	full, _ := Render(input(), 1<<20)
	for max := 0; max <= len(full); max += 7 {
		text, fits := Render(input(), max)
		if fits && len(text) > max {
			t.Fatalf("max %d: %d bytes", max, len(text))
		}
		if !utf8.ValidString(text) {
			t.Fatalf("max %d: cut mid-character", max)
		}
		if fits && !strings.Contains(text, "first") {
			t.Fatalf("max %d: the baton was trimmed", max)
		}
		if fits && !strings.Contains(text, "the objective") {
			t.Fatalf("max %d: the objective was trimmed", max)
		}
		if !fits {
			continue
		}
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if !strings.Contains(full, line) {
				t.Fatalf("max %d: line %q is not a whole line of the full brief", max, line)
			}
		}
	}
}

func TestRenderWithoutRoomForTheBaton(t *testing.T) {
	text, fits := Render(input(), 150)
	if fits || strings.Contains(text, "first") || !strings.Contains(text, "git handoff show") {
		t.Fatalf("fits=%v:\n%s", fits, text)
	}
}

// A replacement's package over a tiny budget with no baton waiting used to
// dereference the missing baton (issue 9, defect 7).
func TestRenderPackageOverBudgetWithoutBaton(t *testing.T) {
	in := input()
	in.Baton = nil
	in.Package = "## 🔁 Handoff package: you replace session a1\n\n" + strings.Repeat("detail line\n", 20)
	for _, max := range []int{0, 1, 100, len(in.Package) - 1} {
		text, fits := Render(in, max)
		if fits {
			t.Errorf("max %d: a %d-byte package reported as fitting", max, len(in.Package))
		}
		if !strings.HasPrefix(text, "## 🔁 Handoff package") {
			t.Errorf("max %d: the package was trimmed:\n%s", max, text)
		}
		if strings.Contains(text, "baton") {
			t.Errorf("max %d: mentions a baton that does not exist:\n%s", max, text)
		}
	}
}

func TestProgressIsQuotedAndTrimmable(t *testing.T) {
	in := Input{Owner: "o", Branch: "b", Progress: "Half done.\nThe keyword table is next."}
	text, _ := Render(in, DefaultMaxBytes)
	if !strings.Contains(text, "## Where this session stands") || !strings.Contains(text, "> Half done.\n> The keyword table is next.") {
		t.Fatalf("brief:\n%s", text)
	}
	small, fits := Render(in, 80)
	if !fits || strings.Contains(small, "Where this session stands") {
		t.Fatalf("a progress section that does not fit was kept: %q", small)
	}
}
