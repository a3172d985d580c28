package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/view"
)

// killAfterTombstonePush kills git-handoff itself (the parent of the git
// running this hook) at the first write of this clone that moves a baton
// ref, its own or its copy of the remote's, to a tombstone, and aborts that
// write: a cancel's first write after the push of its tombstone, so the
// kill lands right after git push returned, before the tracking ref moved
// and before the local record.
const killAfterTombstonePush = `#!/bin/sh
[ "$1" = prepared ] || exit 0
while read old new ref; do
	case "$ref" in
	refs/ao/handoffs/*|refs/ao/remotes/*/handoffs/*)
		if git cat-file -p "$new" 2>/dev/null | grep -q '"deleted"'; then
			kill -9 "$(awk '{print $4}' /proc/$PPID/stat)"
			exit 1
		fi
		;;
	esac
done
exit 0
`

// TestCancelKilledAfterItsPushIsNotDeliveredByTheNextStart: a cancel is
// killed right after git push returned with its tombstone taken by the
// remote, before it recorded anything here. A teammate away all along
// writes batons of its own and cancels the newest, whose tombstone replaces
// ours at the remote by the join's tie-break; a third clone retires it, and
// the remote holds nothing of the baton. Nothing of the cancel but the note
// it wrote before its push is left here: the next start must not deliver
// the waiting copy of the baton the team saw cancelled (the simulation's
// default seed 11, with the cancel killed).
func TestCancelKilledAfterItsPushIsNotDeliveredByTheNextStart(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find the process to kill")
	}
	c := newCLI(t)
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	a, b, m := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "m")
	c.must(dir, "init", "-q", "--bare", remote)
	c.must(dir, "clone", "-q", remote, a)
	c.must(a, "commit", "-q", "--allow-empty", "-m", "first")
	c.must(a, "push", "-q", "origin", "main")
	for _, clone := range []string{a, b, m} {
		if clone != a {
			c.must(dir, "clone", "-q", remote, clone)
		}
		c.must(clone, "handoff", "init", "--no-hooks")
	}
	if _, stderr, code := c.run(a, at(0), "handoff", "end", "--next", "the cancelled step"); code != 0 {
		t.Fatalf("end: %s", stderr)
	}
	hook(t, a, killAfterTombstonePush)
	if _, stderr, code := c.run(a, at(1), "handoff", "cancel"); !strings.Contains(stderr, "died of signal 9") {
		t.Fatalf("the cancel was not killed: exit %d: %s", code, stderr)
	}
	hook(t, a, "")
	if got := remoteTombstone(c, remote); got.ID == "" || got.Deleted == nil {
		t.Fatalf("the remote should hold the cancel's tombstone: %+v", got)
	}
	cancelled := remoteTombstone(c, remote).ID
	tracking := "refs/ao/remotes/origin/" + strings.TrimPrefix(batonRef, "refs/ao/")
	if out, _, code := c.run(a, nil, "cat-file", "-p", tracking); code == 0 && strings.Contains(out, `"deleted"`) {
		t.Fatalf("the tracking ref moved to the tombstone before the kill: nothing to test")
	}
	// The teammate, away all along: more writes than a's, so that its
	// tombstone wins the tie-break at the remote.
	for i, next := range []string{"first from b", "second from b", "third from b"} {
		if _, stderr, code := c.run(b, at(2+i), "handoff", "end", "--next", next); code != 0 {
			t.Fatalf("b's end: %s", stderr)
		}
	}
	if _, stderr, code := c.run(b, at(5), "handoff", "cancel"); code != 0 {
		t.Fatalf("b's cancel: %s", stderr)
	}
	if got := remoteTombstone(c, remote); got.ID == cancelled || got.Deleted == nil {
		t.Fatalf("the remote should hold b's tombstone in place of a's: %+v", got)
	}
	if _, stderr, code := c.run(m, []string{"GIT_HANDOFF_NOW=2031-02-05T12:00:00Z"}, "handoff", "sync", "--retire"); code != 0 {
		t.Fatalf("retiring: %s", stderr)
	}
	if out := c.must(remote, "for-each-ref", batonRef); out != "" {
		t.Fatalf("the remote's baton ref did not retire: %s", out)
	}
	out, stderr, code := c.run(a, []string{"GIT_HANDOFF_NOW=2031-02-07T12:00:00Z"}, "handoff", "start", "--json", "--session", "s-next")
	var started view.Start
	if code != 0 || json.Unmarshal([]byte(out), &started) != nil {
		t.Fatalf("start: exit %d: %s%s", code, out, stderr)
	}
	if started.Claimed || strings.Contains(started.Brief, "the cancelled step") {
		t.Fatalf("the start delivered the baton cancelled at the remote (claimed %v):\n%s", started.Claimed, started.Brief)
	}
	if local, _, code := c.run(a, nil, "cat-file", "-p", batonRef); code == 0 && !strings.Contains(local, `"deleted"`) {
		t.Errorf("a's baton ref holds %s, want the tombstone (or nothing)", local)
	}
	if ents, _ := os.ReadDir(filepath.Join(a, ".git", "handoff", "unrecorded")); len(ents) != 0 {
		t.Errorf("notes of deletions left: %v", ents)
	}
}

// remoteTombstone is the baton the bare remote holds, with its deletion.
func remoteTombstone(c *procs, remote string) (b struct {
	ID      string
	Deleted *struct{ Reason string }
}) {
	c.t.Helper()
	if err := json.Unmarshal([]byte(c.must(remote, "cat-file", "-p", batonRef)), &b); err != nil {
		c.t.Fatal(err)
	}
	return b
}
