package teamsync

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
)

// A teammate's baton reaches the next start without a sync: the start
// fetches the batons it may claim from the arbiter. A remote that stalls
// costs the start its timeout and a notice, never the start.
func TestStartFetchesTheBatonsWaiting(t *testing.T) {
	tm := newTeam(t, 2)
	a, b := tm.clones[0], tm.clones[1]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := end(t, a, 0, "write the parser")
	syncAt(t, a, 1)
	res, err := handoff.Start(ctx, b, handoff.StartOptions{Session: "s-b", Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(2))
	if err != nil {
		t.Fatal(err)
	}
	if res.Handoff == nil || res.Handoff.ID != h.ID || !res.Claimed {
		t.Fatalf("start did not receive the teammate's baton: %+v notices %q", res.Handoff, res.Notices)
	}
	if out := git(t, tm.remote, "cat-file", "-p", mainRef); !strings.Contains(out, `"claimedBySession":"s-b"`) {
		t.Fatalf("the claim was not decided at the remote: %s", out)
	}

	// A record at the remote that cannot be read, among the batons a
	// start may claim, is named (by its copy here) and skipped.
	bad := git(t, a.Dir(), "hash-object", "-w", "--stdin", "--path", "x")
	git(t, a.Dir(), "push", "-q", "origin", bad+":refs/ao/handoffs/shared/dev/x")
	res, err = handoff.Start(ctx, open(t, b.Dir()), handoff.StartOptions{Session: "s-b1", Owner: "dev", Branch: "main", Arbiter: Arbiter{}}, clock(3))
	if err != nil || !hasWarning(res.Notices, "skipping refs/ao/remotes/origin/handoffs/shared/dev/x") {
		t.Fatalf("a malformed shared baton: %v, notices %q", err, res.Notices)
	}
	git(t, a.Dir(), "push", "-q", "origin", ":refs/ao/handoffs/shared/dev/x")

	// A remote whose upload-pack never answers.
	git(t, b.Dir(), "config", "remote.origin.uploadpack", "sleep 60; git-upload-pack")
	end(t, a, 3, "next one")
	began := time.Now()
	res, err = handoff.Start(ctx, open(t, b.Dir()), handoff.StartOptions{Session: "s-b2", Owner: "dev", Branch: "other", Arbiter: Arbiter{RefreshTimeout: 300 * time.Millisecond}}, clock(4))
	if err != nil {
		t.Fatalf("a stalled remote failed the start: %v", err)
	}
	if !hasWarning(res.Notices, "could not ask remote origin") {
		t.Errorf("no notice of the stalled remote: %q", res.Notices)
	}
	t.Logf("start against a stalled remote took %v", time.Since(began))
}
