package refstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// A rejected push says what the server said: the reason git reports per
// ref, and the lines the server's hooks printed.
func TestPushRejectedShowsServerReason(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	hidden := gittest.Init(t, "--bare")
	gittest.Run(t, hidden, "config", "receive.hideRefs", "refs/ao")
	hooked := gittest.Init(t, "--bare")
	hook := filepath.Join(hooked, "hooks", "pre-receive")
	os.MkdirAll(filepath.Dir(hook), 0o777)
	os.WriteFile(hook, []byte("#!/bin/sh\ncat >/dev/null\necho 'DENIED by policy: refs/ao is read-only for you' >&2\nprintf 'colour \\033[31mred\\033[0m\\n' >&2\nexit 1\n"), 0o777)

	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	id, err := st.WriteBlob(ctx, []byte(`{"schema":"session/v1","id":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	const ref = "refs/ao/sessions/a"
	for _, tc := range []struct {
		name, remote, reason, said string
	}{
		{"hidden ref", hidden, "remote rejected: deny updating a hidden ref", ""},
		{"pre-receive hook", hooked, "remote rejected: pre-receive hook declined", "DENIED by policy: refs/ao is read-only for you"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := st.Push(ctx, tc.remote, []refstore.Update{{Ref: ref, New: id}}, refstore.PushOptions{Atomic: true})
			var pe *refstore.PushError
			if !errors.As(err, &pe) {
				t.Fatalf("Push = %v, want a *PushError", err)
			}
			if len(pe.Rejected) != 1 || pe.Rejected[0] != ref || pe.Reasons[ref] != tc.reason {
				t.Errorf("rejected %v, reasons %q; want %s for %s", pe.Rejected, pe.Reasons, tc.reason, ref)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.reason) || !strings.Contains(msg, tc.said) {
				t.Errorf("message %q does not carry the server's reason %q / %q", msg, tc.reason, tc.said)
			}
			if tc.said != "" && (len(pe.Remote) == 0 || pe.Remote[0] != tc.said) {
				t.Errorf("Remote = %q, want it to start with %q", pe.Remote, tc.said)
			}
			if strings.ContainsRune(msg, '\033') {
				t.Errorf("message passes the server's escape sequences on: %q", msg)
			}
		})
	}
}

// An atomic push refused for one ref says that ref's reason first, not
// the echo git gives every other ref: the one refused may sort after the
// three refs the message names.
func TestAtomicPushRefusalNamesTheCauseFirst(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	remote := gittest.Init(t, "--bare")
	hook := filepath.Join(remote, "hooks", "update")
	os.MkdirAll(filepath.Dir(hook), 0o777)
	os.WriteFile(hook, []byte("#!/bin/sh\n[ \"$1\" != refs/ao/sessions/z ]\n"), 0o777)
	st := open(t, gittest.Init(t), refstore.Options{})
	id, err := st.WriteBlob(ctx, []byte(`{"schema":"session/v1","id":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	var ups []refstore.Update
	for _, name := range []string{"a", "b", "c", "d", "z"} {
		ups = append(ups, refstore.Update{Ref: "refs/ao/sessions/" + name, New: id})
	}
	err = st.Push(ctx, remote, ups, refstore.PushOptions{Atomic: true})
	var pe *refstore.PushError
	if !errors.As(err, &pe) || len(pe.Rejected) != 5 {
		t.Fatalf("Push = %v, want all five refs rejected", err)
	}
	if msg, want := err.Error(), "push rejected for refs/ao/sessions/z (remote rejected: hook declined), refs/ao/sessions/a (remote rejected: atomic push failure)"; !strings.HasPrefix(msg, want) {
		t.Errorf("message %q\ndoes not start with %q", msg, want)
	}
}

// TestPushOfThousandsGoesInChunks: a push of more refs than one git push's
// arguments may hold goes in several pushes, and every ref arrives; so do
// their deletions. Retention pushes thousands at once (teamsync's
// TestRetentionOfThousands, over the in-memory twins); this is the part
// only git can show. The names are long (over 200 bytes) so that 1,500
// refs with their leases (840 KB) and their deletions (710 KB) are each
// over refstore's bound of 512 KiB: git's time for one push grows faster
// than its number of refs (6,000 short names took a minute).
func TestPushOfThousandsGoesInChunks(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	remote := gittest.Init(t, "--bare")
	dir := gittest.Init(t)
	st := open(t, dir, refstore.Options{})
	id, err := st.WriteBlob(ctx, []byte(`{"schema":"session/v1","id":"many"}`))
	if err != nil {
		t.Fatal(err)
	}
	// The real bound splits pushes of many thousands of refs; a push of
	// 300 long names at a bound of 24 KiB is split the same way, into
	// chunks of about 45 refs, without the minutes git push takes over
	// thousands of refspecs. The real bound stays far below the kernel's
	// limit on a command line (ARG_MAX, 2 MiB on Linux by default).
	if b := refstore.MaxPushArgs(); b > 1<<20 {
		t.Fatalf("a push is given up to %d bytes of arguments: too near the kernel's 2 MiB", b)
	}
	defer refstore.SetMaxPushArgs(24 << 10)()
	const n = 300
	long := strings.Repeat("x", 194)
	ups := make([]refstore.Update, n)
	for i := range ups {
		ups[i] = refstore.Update{Ref: fmt.Sprintf("refs/ao/sessions/%s-%05d", long, i), New: id}
	}
	if err := st.Apply(ctx, "test", ups...); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		return len(strings.Fields(gittest.Run(t, remote, "for-each-ref", "--format=x", "refs/ao/sessions/")))
	}
	// The remote counts the pushes it receives.
	pushes := filepath.Join(t.TempDir(), "pushes")
	hook := filepath.Join(remote, "hooks", "post-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho push >>'"+pushes+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	received := func() int {
		t.Helper()
		data, err := os.ReadFile(pushes)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(data), "push\n")
	}
	if err := st.Push(ctx, remote, ups, refstore.PushOptions{}); err != nil {
		t.Fatalf("pushing %d refs: %v", n, err)
	}
	if got := count(); got != n {
		t.Fatalf("the remote holds %d refs, want %d", got, n)
	}
	if got := received(); got < 5 {
		t.Fatalf("%d refs arrived in %d pushes, want them split in at least 5", n, got)
	}
	dels := make([]refstore.Update, n)
	for i, u := range ups {
		dels[i] = refstore.Update{Ref: u.Ref, Old: id}
	}
	if err := st.Push(ctx, remote, dels, refstore.PushOptions{}); err != nil {
		t.Fatalf("pushing %d deletions: %v", n, err)
	}
	if got := count(); got != 0 {
		t.Errorf("the remote holds %d refs after their deletions, want 0", got)
	}
}
