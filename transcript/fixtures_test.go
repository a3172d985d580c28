package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-handoff/git-handoff/transcript"
)

// The fixtures are real transcripts, written by the agents' CLIs in
// TestAgents -update (token FIXTURE).
var fixtureAgents = []string{"claude-code", "codex", "gemini", "copilot"}

func fixture(t testing.TB, agent string) string {
	t.Helper()
	p := filepath.Join("testdata", agent+".jsonl")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return p
}

func TestFixtures(t *testing.T) {
	for _, agent := range fixtureAgents {
		t.Run(agent, func(t *testing.T) {
			session{tok: "FIXTURE"}.check(t, agent, fixture(t, agent))
		})
	}
}

// A transcript cut anywhere inside a line (an agent writing it, a crash)
// reads as it did before that line was begun.
func TestFixturesCutShort(t *testing.T) {
	for _, agent := range fixtureAgents {
		t.Run(agent, func(t *testing.T) {
			data, err := os.ReadFile(fixture(t, agent))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			read := func(name string, b []byte) (string, string) {
				t.Helper()
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				reply, err := transcript.LastReply(agent, p)
				if err != nil {
					t.Fatalf("LastReply of %s: %v", name, err)
				}
				ex, err := transcript.Excerpt(agent, p, 4096)
				if err != nil {
					t.Fatalf("Excerpt of %s: %v", name, err)
				}
				return reply, ex
			}
			replies := map[string]bool{}
			for start := 0; start < len(data); {
				end := bytes.IndexByte(data[start:], '\n')
				if end < 0 {
					break
				}
				end += start
				wholeReply, wholeEx := read("whole", data[:start])
				cutReply, cutEx := read("cut", data[:start+(end-start)/2])
				if cutReply != wholeReply || cutEx != wholeEx {
					t.Fatalf("cut inside line at byte %d: reply %q, excerpt\n%s\nwant reply %q, excerpt\n%s", start, cutReply, cutEx, wholeReply, wholeEx)
				}
				replies[wholeReply] = true
				start = end + 1
			}
			// Each prefix's reply was one of the session's answers (or
			// none yet): the reader never took another text for one.
			s := session{tok: "FIXTURE"}
			for r := range replies {
				if r != "" && r != "Let me look." && r != s.firstReply() && r != s.lastReply() {
					t.Errorf("a prefix of the transcript gave reply %q", r)
				}
			}
			if !replies[s.firstReply()] {
				t.Errorf("no prefix of the transcript ends with the first answer as its reply: %v", replies)
			}
		})
	}
}
