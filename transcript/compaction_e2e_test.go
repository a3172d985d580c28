package transcript_test

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/transcript"
)

// Claude Code's and Codex's PreCompact hooks carry no summary: the
// transcript at that moment must give the last reply, and after the
// compaction its summary is not taken for one.
func TestCompaction(t *testing.T) {
	for _, agent := range []string{agenttest.Claude, agenttest.Codex} {
		t.Run(agent, func(t *testing.T) {
			gittest.Isolate(t)
			repo := gittest.Init(t)
			hooks := t.TempDir()
			tok := randomToken()
			reply, final, sum := "Looked first.\nBEFORE-"+tok, "Done after.\nAFTER-"+tok, "SUMMARY-"+tok
			pre := hookScript(t, hooks, "precompact", `path=$(printf '%s' "$input" | sed -n 's/.*"transcript_path" *: *"\([^"]*\)".*/\1/p')
cp "$path" '`+filepath.Join(hooks, "at-precompact.jsonl")+`'`)
			var compacting, asked atomic.Bool
			fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
				switch {
				case agent == agenttest.Claude && compacting.Load():
					return fakemodel.Say(sum)
				case agent == agenttest.Claude && r.OffersShell() && len(r.ToolResults) == 0:
					// Claude Code compacts nothing shorter.
					rep, _ := r.Shell("echo one")
					return rep
				case agent == agenttest.Claude:
					return fakemodel.Say(reply)
				case !r.OffersShell():
					return fakemodel.Say(sum) // Codex's summary request
				case !asked.Swap(true):
					// Codex compacts by tokens: a large prompt reported
					// now makes it compact before the next request (once:
					// the history after it holds no tool result).
					rep, _ := r.Shell("echo one")
					rep.Text, rep.InputTokens = reply, 200000
					return rep
				}
				return fakemodel.Say(final)
			})
			a := agenttest.New(t, agent, fake)
			writeHooks(t, a, repo, map[string]string{"PreCompact": pre})
			run := agenttest.Run{Dir: repo, Prompt: "PROMPT-" + tok, Timeout: 2 * time.Minute}
			if agent == agenttest.Codex {
				run.Args = []string{"-c", "model_auto_compact_token_limit=50000"}
			}
			res := a.Run(run)
			if res.Code != 0 {
				t.Fatalf("%s\nrequests:\n%s", res, fake.Dump())
			}
			if agent == agenttest.Claude {
				compacting.Store(true)
				res = a.Run(agenttest.Run{Dir: repo, Prompt: "/compact", Resume: res.SessionID, Timeout: 2 * time.Minute})
				if res.Code != 0 {
					t.Fatalf("/compact: %s\nrequests:\n%s", res, fake.Dump())
				}
			}
			ins := hookInputs(t, hooks, "precompact")
			if len(ins) != 1 {
				t.Fatalf("PreCompact ran %d times, want 1\nrequests:\n%s", len(ins), fake.Dump())
			}
			if got, err := transcript.LastReply(agent, filepath.Join(hooks, "at-precompact.jsonl")); err != nil || got != reply {
				t.Errorf("LastReply at PreCompact = %q, %v; want %q", got, err, reply)
			}
			path := transcriptPath(ins[0])
			want := final
			if agent == agenttest.Claude {
				want = reply // /compact answers nothing itself
			}
			if got, err := transcript.LastReply(agent, path); err != nil || got != want {
				t.Errorf("LastReply after compaction = %q, %v; want %q", got, err, want)
			}
			ex, err := transcript.Excerpt(agent, path, 8192)
			if err != nil || !strings.Contains(ex, "summary: ") || !strings.Contains(ex, sum) {
				t.Errorf("Excerpt after compaction (want its summary as one) = %v\n%s", err, ex)
			}
			t.Logf("excerpt:\n%s", ex)
		})
	}
}
