package teamsync

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// The soak's kill trials (seed 2055): an end killed with its process group
// while it unbound the worktree left the session's ended record and the
// binding's lock file. Every later bind and unbind failed on the lock, and
// the sync that retired the session left the binding naming a ref that
// was gone, on which git fsck (2.55) fails. Now the dead git's lock stops
// neither the end run again nor, without it, the retiring sync: the
// binding goes, and git fsck passes with every git at hand.
func TestUnbindingPastAKilledEndsLock(t *testing.T) {
	for _, again := range []bool{false, true} {
		name := "sync retires it"
		if again {
			name = "end runs again"
		}
		t.Run(name, func(t *testing.T) {
			tm := newTeam(t, 1)
			a := tm.clones[0]
			if _, err := os.Stat(filepath.Join(a.Dir(), ".git", "reftable")); err == nil {
				t.Skip("a reftable's lock is every ref's (refstore.BackendLock), not the binding's own")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if _, err := handoff.Start(ctx, a, handoff.StartOptions{Session: "s-k", Owner: "dev", Branch: "main"}, clock(1)); err != nil {
				t.Fatal(err)
			}
			if got := git(t, a.Dir(), "symbolic-ref", "-q", refstore.WorktreeSession); got != sessRef(t, "s-k") {
				t.Fatalf("start bound %q", got)
			}
			// What the killed end left: the ended record, the binding, and
			// git's lock on the binding.
			if _, err := session.Modify(ctx, a, "s-k", "handoff: end session s-k", func(s *session.Record) error {
				s.EndAt(at(2))
				s.UpdatedAt = at(2)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			lock := filepath.Join(a.GitDir(), filepath.FromSlash(refstore.WorktreeSession)+".lock")
			if err := os.WriteFile(lock, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			then := time.Now().Add(-time.Minute)
			if err := os.Chtimes(lock, then, then); err != nil {
				t.Fatal(err)
			}
			if again {
				res, err := handoff.End(ctx, a, handoff.EndOptions{Session: "s-k", Owner: "dev", Branch: "main", NoBaton: true}, clock(3))
				if err != nil {
					t.Fatal(err)
				}
				if !res.Unbound {
					t.Errorf("the end run again did not unbind: %q", res.Notices)
				}
			}
			res := syncAt(t, a, 4)
			if res.Retired == 0 {
				t.Fatalf("the ended session did not retire: %+v", res)
			}
			if !again && !slices.Contains(res.Unbound, a.Dir()) {
				t.Errorf("the retiring sync unbound %q, not %s (warnings %q)", res.Unbound, a.Dir(), res.Warnings)
			}
			if _, err := session.Read(ctx, a, "s-k"); err == nil {
				t.Fatal("s-k is still live")
			}
			cmd := exec.CommandContext(ctx, "git", "symbolic-ref", "-q", refstore.WorktreeSession)
			cmd.Dir = a.Dir()
			if out, _ := cmd.Output(); len(out) > 0 {
				t.Errorf("the worktree is still bound to %s after its session retired", strings.TrimSpace(string(out)))
			}
			if _, err := os.Stat(lock); err == nil {
				t.Errorf("the dead git's lock is still there")
			}
			for _, g := range fsckGits(t) {
				cmd := exec.CommandContext(ctx, g, "fsck", "--no-dangling")
				cmd.Dir = a.Dir()
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("%s fsck: %v\n%s", g, err, out)
				}
			}
		})
	}
}

// fsckGits are the gits to run git fsck with: the first on PATH and the
// newest at hand (gittest.NewestGitEnv, else one scripts/newest-git.sh
// built), whose fsck, unlike 2.39's, checks symbolic refs' targets.
func fsckGits(t *testing.T) []string {
	gits := []string{"git"}
	newest := os.Getenv(gittest.NewestGitEnv)
	if found, _ := filepath.Glob("/root/.cache/git-handoff/git-*/bin/git"); newest == "" && len(found) > 0 {
		newest = found[len(found)-1]
	}
	if newest != "" {
		gits = append(gits, newest)
	} else {
		t.Log("no newer git: git fsck of the first git on PATH only, which may not check the binding's target")
	}
	return gits
}
