package handoff_test

import (
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// A baton names the commit it was left at. When no remote-tracking branch
// contains that commit, whoever takes the baton elsewhere cannot fetch it:
// end says to push it. Once pushed (and in a repository with no remote,
// which nobody fetches from) it says nothing.
func TestEndWarnsOfAnUnpushedHead(t *testing.T) {
	ctx := deadline(t)
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	dir := gittest.Init(t)
	remote := gittest.Init(t, "--bare")
	gittest.Run(t, dir, "remote", "add", "origin", remote)
	gittest.Run(t, dir, "push", "-q", "origin", "main")
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "not pushed")
	head := gittest.Run(t, dir, "rev-parse", "HEAD")
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })

	unpushed := func(notices []string) string {
		for _, n := range notices {
			if strings.Contains(n, "no remote-tracking branch contains") {
				return n
			}
		}
		return ""
	}
	end := func() handoff.EndResult {
		t.Helper()
		res, err := handoff.End(ctx, st, handoff.EndOptions{Session: "s1", Next: []string{"go on"}}, clock)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := end()
	n := unpushed(res.Notices)
	if n == "" {
		t.Fatalf("notices = %q, want one saying HEAD is not pushed", res.Notices)
	}
	if !strings.Contains(n, head[:12]) || !strings.Contains(n, "git push") || !strings.Contains(n, res.Handoff.ID) {
		t.Errorf("notice = %q, want the baton, the commit %s and `git push` named", n, head[:12])
	}

	gittest.Run(t, dir, "push", "-q", "origin", "main")
	if res := end(); unpushed(res.Notices) != "" {
		t.Errorf("after the push: notices = %q", res.Notices)
	}

	// No remote at all: nobody fetches from it, nothing to say.
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "local only")
	gittest.Run(t, dir, "remote", "remove", "origin")
	if res := end(); unpushed(res.Notices) != "" {
		t.Errorf("without a remote: notices = %q", res.Notices)
	}
}
