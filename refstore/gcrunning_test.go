package refstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// gc's lock counts as held as git judges it: by a live process on this
// host, or by anyone on another host, or when it cannot be read; a
// process that has died (a killed gc) leaves a lock nobody holds.
func TestGCRunningReadsGitsLock(t *testing.T) {
	dir := t.TempDir()
	s := &Store{commonDir: dir}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, pid string // pid "" leaves no gc.pid
		want      bool
	}{
		{"no gc.pid", "", false},
		{"this process", strconv.Itoa(os.Getpid()) + " " + host, true},
		{"a process that ended", strconv.Itoa(dead.Process.Pid) + " " + host, false},
		{"another host", strconv.Itoa(dead.Process.Pid) + " elsewhere.invalid", true},
		{"unreadable", "garbage", true},
	} {
		os.Remove(filepath.Join(dir, gcLockFile))
		if c.pid != "" {
			if err := os.WriteFile(filepath.Join(dir, gcLockFile), []byte(c.pid), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.gcRunning(); got != c.want {
			t.Errorf("%s (%q): gcRunning = %v, want %v", c.name, c.pid, got, c.want)
		}
	}
}
