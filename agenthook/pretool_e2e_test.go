package agenthook_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/fakemodel"
)

// The released agents, with the hooks `init --agent` installs, asked by
// the model to write a file under a path lease another session holds, in
// one conversation each: that write is refused by the pre-tool hook (the
// file is not made, and the model's next request carries the reason as
// the tool's result), and a free file is written. Claude Code (Write) also
// takes a lease of its own from its shell first and writes under it.
// Gemini CLI (write_file) does only the two writes: each of its turns
// costs seconds. Codex 0.171.0 offers the scripted model no apply_patch
// tool (only exec_command), so its hook is checked on its payload shape
// alone (pretool_test.go).
func TestAgentsPreToolUseRefuseLeasedWrite(t *testing.T) {
	for _, name := range []string{agenttest.Claude, agenttest.Gemini} {
		t.Run(name, func(t *testing.T) {
			agenttest.Find(t, name)
			p := newProject(t, name)
			p.handoff("lease", "take", "path:src/lexer/**", "--session", "s-other", "--note", "rewriting the scanner")
			tok := tokenE2E()
			write := func(rel, text string) func(*fakemodel.Request) fakemodel.Reply {
				path := filepath.Join(p.dir, filepath.FromSlash(rel))
				tool := "Write"
				if name == agenttest.Gemini {
					tool = "write_file"
				}
				return func(*fakemodel.Request) fakemodel.Reply {
					return fakemodel.Reply{Tool: &fakemodel.ToolCall{Name: tool, Input: map[string]any{"file_path": path, "content": text + "\n"}}}
				}
			}
			steps := []func(*fakemodel.Request) fakemodel.Reply{write("src/lexer/scan.go", "LEASED-"+tok), write("free.go", "FREE-"+tok)}
			written := map[string]string{"free.go": "FREE-" + tok}
			own := name == agenttest.Claude
			if own {
				take := func(r *fakemodel.Request) fakemodel.Reply {
					rep, _ := r.Shell("git handoff lease take path:mine/")
					return rep
				}
				steps = append([]func(*fakemodel.Request) fakemodel.Reply{take}, append(steps, write("mine/own.go", "OWN-"+tok))...)
				written["mine/own.go"] = "OWN-" + tok
			}
			leasedStep := 0
			if own {
				leasedStep = 1
			}
			fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
				switch n := len(r.ToolResults); {
				case !r.OffersShell():
					return fakemodel.Say("a title")
				case n < len(steps):
					return steps[n](r)
				}
				return fakemodel.Say("done " + tok)
			})
			a := p.agentFor(name, fake)
			t0 := time.Now()
			run := agenttest.Run{Dir: p.dir, Prompt: "edit the scanner"}
			if name == agenttest.Claude {
				// -p mode cannot ask: the refusal must be the hook's,
				// not a missing permission.
				run.Args = []string{"--permission-mode", "acceptEdits"}
			}
			res := mustRun(t, a, fake, run)
			t.Logf("%s ran %v, %d requests", name, time.Since(t0).Round(time.Millisecond), len(fake.Requests()))

			if _, err := os.Stat(filepath.Join(p.dir, "src", "lexer", "scan.go")); err == nil {
				t.Errorf("the leased file was written\n%s", fake.Dump())
			}
			reason := "src/lexer/scan.go is leased to session s-other of dev@example.com until "
			var result string
			for _, r := range fake.Requests() {
				if len(r.ToolResults) > leasedStep {
					result = r.ToolResults[leasedStep]
					break
				}
			}
			if !strings.Contains(result, reason) || !strings.Contains(result, "(path:src/lexer/**: rewriting the scanner); take another task or ask") {
				t.Errorf("the leased write's tool result is %q, want the hook's reason %q…\n%s", result, reason, fake.Dump())
			}
			for file, want := range written {
				if b, err := os.ReadFile(filepath.Join(p.dir, filepath.FromSlash(file))); err != nil || strings.TrimSpace(string(b)) != want {
					t.Errorf("%s: %q, %v; want it written\n%s", file, b, err, fake.Dump())
				}
			}
			if !own {
				return
			}
			// The lease taken from the agent's shell is its session's.
			var list struct {
				Leases []struct {
					Key     string `json:"key"`
					State   string `json:"state"`
					Session string `json:"session"`
				} `json:"leases"`
			}
			p.decode(p.handoff("lease", "list", "--json"), &list)
			s := p.sessionOf(name, res.SessionID)
			var holders []string
			for _, l := range list.Leases {
				if l.Key == "path:mine/" && l.State == "held" {
					holders = append(holders, l.Session)
				}
			}
			if len(holders) != 1 || holders[0] != s.ID {
				t.Errorf("path:mine/ held by %q, want the agent's session %s: %+v", holders, s.ID, list)
			}
		})
	}
}
