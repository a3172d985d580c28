package agenthook_test

import (
	"os"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/agenttest"
	"github.com/git-handoff/git-handoff/internal/fakemodel"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

// One person is one owner inside Gemini CLI's shell and outside it. The
// person's user.email is in ~/.gitconfig only; Gemini CLI runs shell
// commands with GIT_CONFIG_GLOBAL=/dev/null, which hides that file from
// git. A baton left outside is the one `git handoff show` finds from the
// agent's shell, and the baton the agent leaves there is the one found
// outside afterwards: both under the same owner.
func TestGeminiShellSameOwner(t *testing.T) {
	agenttest.Find(t, agenttest.Gemini)
	gittest.Isolate(t)
	tok := tokenE2E()
	email := "person-" + strings.ToLower(tok) + "@example.com"
	fromOutside, fromGemini := "OUTSIDE-"+tok, "INSIDE-"+tok
	// The shell command reports what git sees there, so that the test
	// knows the premise (a hidden user configuration) still holds.
	// (Gemini refuses a command with a command substitution in it.)
	shell := `echo "global=$GIT_CONFIG_GLOBAL"; git config user.email || echo email-unset; ` +
		`git handoff show && git handoff end --next "go on with ` + fromGemini + `"`
	fake := fakemodel.Start(t, func(r *fakemodel.Request) fakemodel.Reply {
		if !r.OffersShell() {
			return fakemodel.Say("a title")
		}
		if len(r.ToolResults) == 0 {
			rep, _ := r.Shell(shell)
			return rep
		}
		return fakemodel.Say("done")
	})
	p := &project{t: t, dir: gittest.Init(t), bin: agenttest.HandoffBin(t)}
	a := p.agentFor(agenttest.Gemini, fake)
	// One HOME for the agent and for the test's own commands: the
	// person's, with their identity in it and in no repository file.
	p.home = a.Home
	gittest.WriteFile(t, a.Home, ".gitconfig", []byte("[user]\n\tname = Test Dev\n\temail = "+email+"\n[init]\n\tdefaultBranch = main\n"))

	p.leave("start with " + fromOutside)
	res := mustRun(t, a, fake, agenttest.Run{Dir: p.dir, Prompt: "carry on"})

	if !fake.SawToolOutput("global="+os.DevNull) || !fake.SawToolOutput("email-unset") {
		t.Fatalf("Gemini CLI's shell no longer hides ~/.gitconfig from git (GIT_CONFIG_GLOBAL is not %s there, or git still finds user.email): this test proves nothing\n%s\nrequests:\n%s",
			os.DevNull, res, fake.Dump())
	}
	if !fake.SawToolOutput(fromOutside) {
		t.Errorf("`git handoff show` in Gemini's shell did not find the baton left outside (%s)\n%s\nrequests:\n%s", fromOutside, res, fake.Dump())
	}
	if out := p.handoff("show"); !strings.Contains(out, fromGemini) {
		t.Errorf("outside, `git handoff show` does not find the baton left in Gemini's shell (%s):\n%s\nrequests:\n%s", fromGemini, out, fake.Dump())
	}
	var all struct {
		Handoffs []struct {
			Owner     string   `json:"owner"`
			NextSteps []string `json:"nextSteps"`
		} `json:"handoffs"`
	}
	p.decode(p.handoff("list", "--all", "--json"), &all)
	if len(all.Handoffs) == 0 {
		t.Fatalf("no batons at all")
	}
	for _, b := range all.Handoffs {
		if b.Owner != email {
			t.Errorf("baton %q has owner %q, want %q", strings.Join(b.NextSteps, "; "), b.Owner, email)
		}
	}
}
