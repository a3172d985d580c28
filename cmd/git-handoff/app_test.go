package main

import (
	"context"
	"strings"
	"testing"
)

// panicWriter stands in for a bug anywhere below run: the first write
// panics, as a nil dereference in a renderer would.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("boom from a writer") }

// A panic exits 1 with "this is a bug" and the stack, not the runtime's
// exit 2 that means wrong usage.
func TestRunRecoversPanic(t *testing.T) {
	var stderr strings.Builder
	code := run(context.Background(), []string{"git-handoff", "--help"}, strings.NewReader(""), panicWriter{}, &stderr)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	out := stderr.String()
	for _, want := range []string{"error: this is a bug in git-handoff: ", "boom from a writer", "goroutine ", "panicWriter"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}
