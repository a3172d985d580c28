package refstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// A gc prunes what was just written only when it prunes to "now" or
// "all": by its last --prune, else by gc.pruneExpire; git's default, two
// weeks, keeps it.
func TestPrunesAll(t *testing.T) {
	for _, c := range []struct {
		args       []string
		configured string
		want       bool
	}{
		{[]string{"git", "gc", "--prune=now"}, "", true},
		{[]string{"git", "gc", "--quiet", "--prune=all"}, "", true},
		{[]string{"git", "gc"}, "", false},
		{[]string{"git", "gc", "--auto"}, "", false},
		{[]string{"git", "gc"}, "now", true},
		{[]string{"git", "gc", "--prune=2.weeks.ago"}, "now", false},
		{[]string{"git", "gc", "--prune=now", "--no-prune"}, "", false},
		{[]string{"git", "gc", "--prune"}, "now", true},
		{[]string{"git", "gc", "--prune=now", "--prune=1.hour.ago"}, "", false},
		{[]string{"git", "-C", "/r", "gc", "--prune=now"}, "", true},
	} {
		if got := prunesAll(c.args, c.configured); got != c.want {
			t.Errorf("prunesAll(%q, %q) = %v, want %v", c.args, c.configured, got, c.want)
		}
	}
}

// gc's lock names the gc to wait for as git judges the lock: a live
// process on this host, by its command line; anyone on another host, or a
// lock that cannot be read; not a process that has died (a killed gc).
func TestPruningGCReadsGitsLock(t *testing.T) {
	dir := t.TempDir()
	s := &Store{commonDir: dir, cfgRead: true}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	// Live stand-ins for a gc: sh's arguments are its command line.
	start := func(arg string) int {
		cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 30", "gc", arg)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd.Process.Pid
	}
	now, old := start("--prune=now"), start("--prune=2.weeks.ago")
	for _, c := range []struct {
		name, lock string // lock "" leaves no gc.pid
		want       bool
	}{
		{"no gc.pid", "", false},
		{"a gc pruning to now", strconv.Itoa(now) + " " + host, true},
		{"a gc keeping two weeks", strconv.Itoa(old) + " " + host, false},
		{"a process that ended", strconv.Itoa(dead.Process.Pid) + " " + host, false},
		{"another host", strconv.Itoa(dead.Process.Pid) + " elsewhere.invalid", true},
		{"unreadable", "garbage", true},
	} {
		os.Remove(filepath.Join(dir, gcLockFile))
		if c.lock != "" {
			if err := os.WriteFile(filepath.Join(dir, gcLockFile), []byte(c.lock), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, got := s.pruningGC(ctx); got != c.want {
			t.Errorf("%s (%q): pruningGC = %v, want %v", c.name, c.lock, got, c.want)
		}
	}
}
