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

// The released Claude Code, with the hooks `init --agent` installs, asked
// by the model to write a file under a path lease another session holds
// and then a free file, in one conversation: the first write is refused
// by the PreToolUse hook (the file is not made, and the model's next
// request carries the reason as the tool's result), the second is made.
func TestClaudePreToolUseRefusesLeasedWrite(t *testing.T) {
	agenttest.Find(t, agenttest.Claude)
	p := newProject(t, agenttest.Claude)
	p.handoff("lease", "take", "path:src/lexer/**", "--session", "s-other", "--note", "rewriting the scanner")
	tok := tokenE2E()
	leased := filepath.Join(p.dir, "src", "lexer", "scan.go")
	free := filepath.Join(p.dir, "free.go")
	write := func(path, text string) fakemodel.Reply {
		return fakemodel.Reply{Tool: &fakemodel.ToolCall{Name: "Write", Input: map[string]any{"file_path": path, "content": text + "\n"}}}
	}
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		switch {
		case !r.OffersShell():
			return fakemodel.Say("a title")
		case len(r.ToolResults) == 0:
			return write(leased, "LEASED-"+tok)
		case len(r.ToolResults) == 1:
			return write(free, "FREE-"+tok)
		}
		return fakemodel.Say("done " + tok)
	})
	a := p.agentFor(agenttest.Claude, fake)
	t0 := time.Now()
	// acceptEdits: -p mode cannot ask, and the refusal must be the hook's,
	// not a missing permission.
	mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "edit the scanner", Args: []string{"--permission-mode", "acceptEdits"}})
	t.Logf("claude ran %v, %d requests", time.Since(t0).Round(time.Millisecond), len(fake.Requests()))

	if _, err := os.Stat(leased); err == nil {
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
	if b, err := os.ReadFile(free); err != nil || strings.TrimSpace(string(b)) != "FREE-"+tok {
		t.Errorf("the free file: %q, %v; want it written\n%s", b, err, fake.Dump())
	}
}
