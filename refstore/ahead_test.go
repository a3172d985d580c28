package refstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// An update-ref started ahead (WriteRefsAhead) runs the transaction under
// its message, so the transaction starts no git of its own; one never used
// ends without committing anything (no reference-transaction hook runs for
// it), also when a transaction under another message ran meanwhile.
func TestWriteRefsAhead(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	dir := gittest.Init(t)
	hookLog := filepath.Join(t.TempDir(), "hook.log")
	hook := filepath.Join(dir, ".git", "hooks", "reference-transaction")
	os.MkdirAll(filepath.Dir(hook), 0o777)
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n{ echo \"$1\"; cat; } >>'"+hookLog+"'\n"), 0o777); err != nil {
		t.Fatal(err)
	}
	// The first write sets the gc configuration (ensureGCConfig), whose
	// change makes a writer started before it give way to a new one.
	st := open(t, dir, refstore.Options{})
	first, err := st.WriteBlob(ctx, []byte(`{"n":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: first", refstore.Update{Ref: "refs/ao/test/first", New: first}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	trace := filepath.Join(t.TempDir(), "trace2")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	updateRefs := func() int {
		events, _ := os.ReadFile(trace)
		n := 0
		for _, l := range strings.Split(string(events), "\n") {
			if strings.Contains(l, `"event":"start"`) && strings.Contains(l, `"update-ref"`) {
				n++
			}
		}
		return n
	}

	// Used: one update-ref (git lists no reflog of a blob ref: the
	// count says the transaction ran in the one started ahead).
	st = open(t, dir, refstore.Options{})
	st.WriteRefsAhead("test: ahead")
	blob, err := st.WriteBlob(ctx, []byte(`{"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: ahead", refstore.Update{Ref: "refs/ao/test/a", New: blob}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if n := updateRefs(); n != 1 {
		t.Errorf("%d update-ref processes for a transaction under the message started ahead, want 1", n)
	}
	if got := gittest.Run(t, dir, "rev-parse", "refs/ao/test/a"); got != blob {
		t.Errorf("refs/ao/test/a = %s, want %s", got, blob)
	}

	// Unused: the transaction under another message runs in its own
	// update-ref, and the one started ahead commits nothing.
	os.Remove(hookLog)
	st = open(t, dir, refstore.Options{})
	st.WriteRefsAhead("test: never")
	if err := st.Apply(ctx, "test: other", refstore.Update{Ref: "refs/ao/test/b", New: blob}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if n := updateRefs(); n != 3 {
		t.Errorf("%d update-ref processes in all, want 3 (one more started ahead, one for the other message)", n)
	}
	log, _ := os.ReadFile(hookLog)
	if got := strings.Count(string(log), "prepared\n"); got != 1 {
		t.Errorf("the reference-transaction hook ran at prepared %d times, want once (for refs/ao/test/b):\n%s", got, log)
	}
	if got := gittest.Run(t, dir, "rev-parse", "refs/ao/test/b"); got != blob {
		t.Errorf("refs/ao/test/b = %s, want %s", got, blob)
	}
}
