package mcpserver

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/view"
)

// refsOf lists every ref of the repository at dir with what it names.
func refsOf(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "for-each-ref", "--format=%(objectname) %(refname)").Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestSessionContinue: session_continue has the command's effect. Its
// preview returns the brief and writes no ref; the continuation records
// the new agent, claims its automatic handoff for the session and names
// the one command that starts it (no tmux here); continuing in the agent
// it runs now is refused.
func TestSessionContinue(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t)
	st := ok[view.Start](t, cs, "session_start", map[string]any{"harness": "claude-code", "session": "s-cont"})
	if st.Session.ID != "s-cont" {
		t.Fatalf("session_start made %q", st.Session.ID)
	}
	before := refsOf(t, f.dir)
	pre := ok[continueOut](t, cs, "session_continue", map[string]any{"in": "codex", "session": "s-cont", "preview": true})
	if after := refsOf(t, f.dir); after != before {
		t.Fatalf("the preview changed refs:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if !strings.Contains(pre.Brief, "You take over from another agent: continued by hand from claude-code") || pre.To != "codex" || pre.Command != "" {
		t.Fatalf("preview = %+v", pre)
	}
	got := ok[continueOut](t, cs, "session_continue", map[string]any{"in": "codex", "session": "s-cont"})
	if got.Command != "git handoff session launch s-cont --exec" {
		t.Fatalf("continue = %+v, want it recorded with the command that starts it", got)
	}
	if !strings.Contains(refsOf(t, f.dir), "refs/ao/handoffs/") {
		t.Errorf("no automatic handoff was written for the continuation:\n%s", refsOf(t, f.dir))
	}
	if got.Brief != pre.Brief {
		t.Errorf("the brief given differs from the preview's:\n%s\n---\n%s", got.Brief, pre.Brief)
	}
	contains(t, "continuing in the agent it runs", failed(t, cs, "session_continue", map[string]any{"in": "codex", "session": "s-cont"}), "runs codex already")
	contains(t, "an unknown agent", failed(t, cs, "session_continue", map[string]any{"in": "no-such-agent", "session": "s-cont"}), "no-such-agent")
}
