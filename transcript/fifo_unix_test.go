//go:build unix

package transcript_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO given as the transcript path is refused, not opened: opening it
// would wait for a writer that never comes.
func TestFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	for _, agent := range fixtureAgents {
		_, _, err := read(t, agent, p)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s reading a FIFO: %v", agent, err)
		}
	}
}
