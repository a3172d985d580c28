package hooks

import (
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// gitTrailers runs the interpret-trailers command addTrailers falls back to,
// with no user or system configuration.
func gitTrailers(t *testing.T, msg string, lines []string) string {
	t.Helper()
	args := []string{"interpret-trailers", "--where", "end", "--if-exists", "doNothing", "--if-missing", "add"}
	for _, l := range lines {
		args = append(args, "--trailer", l)
	}
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(msg)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git interpret-trailers: %v", err)
	}
	return string(out)
}

var ours = []string{"Handoff-Session: s-1", "Handoff-Agent: claude-code"}

// TestAppendTrailersMatchesGit holds the in-process fast path to git's own
// output on every message it accepts.
func TestAppendTrailersMatchesGit(t *testing.T) {
	msgs := []string{
		"subject\n",
		"subject\n\nbody\n",
		"subject\n\nbody line one\nbody line two\n\n\n",
		"subject\nsecond title line\n",
		"fix: the thing\n\nbody\n",
		"subject\n\nSigned-off-by: A <a@example.com>\n",
		"subject\n\nbody\n\nSigned-off-by: A <a@example.com>\nCo-authored-by: B <b@example.com>\n",
		"subject\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n\n",
		"subject\n\nbody\n\nReviewed-by:   X\n",
		"subject\n\nbody\n\nnot: a trailer block\nbecause prose\n",
		"subject\n\n- bullet one\n- bullet two\n",
		"subject\n\n* bullet: with colon\n",
		"Key: value\n",
		"\n\nKey: value\n",
		"subject\n\nsee http://example.com\n",
		"subject\n\nbody\n  \n",
		"subject\n\n# comment\n",
		"subject\n\nbody\n\nFixes: #12\n  continued\n",
		"subject\n\nbody\n\n(cherry picked from commit abc)\n",
		"subject\n\nHandoff-Session: old\nHandoff-Agent: codex\n",
		"subject\r\n\r\nbody\r\n",
	}
	// Random messages built from lines that stress paragraph and trailer
	// detection.
	parts := []string{"", "", "subject", "prose line", "Key: value", "Signed-off-by: A <a>",
		"Bad-Key:value", "k: v ", "- item", "Token : spaced", "a:b", "http://x.y", " indented"}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		var b strings.Builder
		b.WriteString("title\n")
		for n := r.Intn(6); n > 0; n-- {
			b.WriteString(parts[r.Intn(len(parts))] + "\n")
		}
		msgs = append(msgs, b.String())
	}
	fast := 0
	for _, m := range msgs {
		got, ok := appendTrailers([]byte(m), ours)
		if !ok {
			continue
		}
		fast++
		if want := gitTrailers(t, m, ours); string(got) != want {
			t.Errorf("message %q:\n got %q\nwant %q", m, got, want)
		}
	}
	if fast < len(msgs)/3 {
		t.Errorf("fast path took only %d of %d messages", fast, len(msgs))
	}
	t.Logf("fast path took %d of %d messages", fast, len(msgs))
}

func TestHasOurKey(t *testing.T) {
	for msg, want := range map[string]bool{
		"subject\n":                        false,
		"subject\n\nHandoff-Session: x\n":  true,
		"subject\n\nHandoff-Agent : x\n":   true,
		"subject\n\nHandoff-Sessions: x\n": false,
		"subject\n\n Handoff-Session: x\n": false,
	} {
		if got := hasOurKey([]byte(msg)); got != want {
			t.Errorf("hasOurKey(%q) = %v, want %v", msg, got, want)
		}
	}
}

func TestHasContent(t *testing.T) {
	for msg, want := range map[string]bool{
		"":                           false,
		"\n\n":                       false,
		"# Please enter\n#\n":        false,
		"x\n# comment\n":             true,
		"  \n\tbody\n":               true,
		scissors + "\ndiff --git\n":  false,
		"# c\n" + scissors + "\nx\n": false,
	} {
		if got := hasContent([]byte(msg)); got != want {
			t.Errorf("hasContent(%q) = %v, want %v", msg, got, want)
		}
	}
}
