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
// the model to write a file under a path lease another session holds and
// then a free file, in one conversation each: the first write is refused
// by the pre-tool hook (the file is not made, and the model's next request
// carries the reason as the tool's result), the second is made. Claude
// Code writes with Write, Gemini CLI with write_file. Codex 0.171.0 offers
// the scripted model no apply_patch tool (only exec_command), so its hook
// is checked on its recorded payload shape alone (pretool_test.go).
func TestAgentsPreToolUseRefuseLeasedWrite(t *testing.T) {
	for _, name := range []string{agenttest.Claude, agenttest.Gemini} {
		t.Run(name, func(t *testing.T) {
			agenttest.Find(t, name)
			p := newProject(t, name)
			p.handoff("lease", "take", "path:src/lexer/**", "--session", "s-other", "--note", "rewriting the scanner")
			tok := tokenE2E()
			write := func(rel, text string) fakemodel.Reply {
				path := filepath.Join(p.dir, filepath.FromSlash(rel))
				if name == agenttest.Gemini {
					return fakemodel.Reply{Tool: &fakemodel.ToolCall{Name: "write_file", Input: map[string]any{"file_path": path, "content": text + "\n"}}}
				}
				return fakemodel.Reply{Tool: &fakemodel.ToolCall{Name: "Write", Input: map[string]any{"file_path": path, "content": text + "\n"}}}
			}
			fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
				switch {
				case !r.OffersShell():
					return fakemodel.Say("a title")
				case len(r.ToolResults) == 0:
					return write("src/lexer/scan.go", "LEASED-"+tok)
				case len(r.ToolResults) == 1:
					return write("free.go", "FREE-"+tok)
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
			mustRun(t, a, fake, run)
			t.Logf("%s ran %v, %d requests", name, time.Since(t0).Round(time.Millisecond), len(fake.Requests()))

			if _, err := os.Stat(filepath.Join(p.dir, "src", "lexer", "scan.go")); err == nil {
				t.Errorf("the leased file was written\n%s", fake.Dump())
			}
			reason := "src/lexer/scan.go is leased to session s-other of dev@example.com until "
			var result string
			for _, r := range fake.Requests() {
				if len(r.ToolResults) > 0 {
					result = r.ToolResults[0]
					break
				}
			}
			if !strings.Contains(result, reason) || !strings.Contains(result, "(path:src/lexer/**: rewriting the scanner); take another task or ask") {
				t.Errorf("the first tool result is %q, want the hook's reason %q…\n%s", result, reason, fake.Dump())
			}
			if b, err := os.ReadFile(filepath.Join(p.dir, "free.go")); err != nil || strings.TrimSpace(string(b)) != "FREE-"+tok {
				t.Errorf("the free file: %q, %v; want it written\n%s", b, err, fake.Dump())
			}
		})
	}
}
