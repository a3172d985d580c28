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
// Gemini CLI (write_file), Codex (apply_patch) and Copilot CLI (create)
// do only the two writes: each of their turns costs seconds.
//
// Codex offers apply_patch only to a model whose metadata names an
// apply_patch tool type, and gives a slug missing from its bundled catalog
// (the fake's usual "gpt-fake") metadata without one; [features]
// apply_patch_freeform does not add it either (checked with 0.171.0). So
// its run names a model that 0.171.0's catalog gives the freeform
// apply_patch: the call is a custom tool call carrying the patch, and its
// hook payload is {"tool_name":"apply_patch","tool_input":{"command":patch}}.
func TestAgentsPreToolUseRefuseLeasedWrite(t *testing.T) {
	for _, name := range []string{agenttest.Claude, agenttest.Gemini, agenttest.Codex, agenttest.Copilot} {
		t.Run(name, func(t *testing.T) {
			agenttest.Find(t, name)
			p := newProject(t, name)
			p.handoff("lease", "take", "path:src/lexer/**", "--session", "s-other", "--note", "rewriting the scanner")
			tok := tokenE2E()
			write := func(rel, text string) func(*fakemodel.Request) fakemodel.Reply {
				path := filepath.Join(p.dir, filepath.FromSlash(rel))
				var call fakemodel.ToolCall
				switch name {
				case agenttest.Claude:
					call = fakemodel.ToolCall{Name: "Write", Input: map[string]any{"file_path": path, "content": text + "\n"}}
				case agenttest.Gemini:
					call = fakemodel.ToolCall{Name: "write_file", Input: map[string]any{"file_path": path, "content": text + "\n"}}
				case agenttest.Codex:
					// A patch names files relative to the session's folder.
					call = fakemodel.ToolCall{Name: "apply_patch", Raw: "*** Begin Patch\n*** Add File: " + rel + "\n+" + text + "\n*** End Patch\n"}
				case agenttest.Copilot:
					call = fakemodel.ToolCall{Name: "create", Input: map[string]any{"path": path, "file_text": text + "\n"}}
				}
				return func(*fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Tool: &call} }
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
			switch name {
			case agenttest.Claude:
				// -p mode cannot ask: the refusal must be the hook's,
				// not a missing permission.
				run.Args = []string{"--permission-mode", "acceptEdits"}
			case agenttest.Codex:
				run.Model = codexPatchModel
			}
			res := mustRun(t, a, fake, run)
			if turns := mainTurns(fake, 0); name == agenttest.Codex && (len(turns) == 0 || !turns[0].HasTool("apply_patch")) {
				t.Fatalf("codex offered model %s no apply_patch tool: its catalog no longer names a patch tool for it\n%s", codexPatchModel, fake.Dump())
			}
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

// codexPatchModel is a slug Codex 0.171.0's bundled model catalog gives
// apply_patch_tool_type "freeform".
const codexPatchModel = "gpt-5.5"
