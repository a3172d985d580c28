package teamsync

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// startDaemon serves tm's bare remote over git:// on a free loopback port
// (receive-pack enabled) until the test ends, and returns its URL.
func startDaemon(t *testing.T, tm *team) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--base-path="+tm.dir, "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), tm.dir)
	if err := cmd.Start(); err != nil {
		t.Skipf("git daemon: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("git daemon did not listen on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "git://" + addr + "/remote.git"
}

// The same rules over a real network transport: git daemon on loopback.
func TestOverGitDaemon(t *testing.T) {
	tm := newTeam(t, 0)
	url := startDaemon(t, tm)
	a := tm.clone(t, "a", url)
	b := tm.clone(t, "b", url)
	ctx := context.Background()

	// A baton travels, and a claim is decided at the remote.
	h := end(t, a, 0, "over the wire")
	syncAt(t, a, 1)
	syncAt(t, b, 1)
	if got := readBaton(t, b, mainRef); got.ID != h.ID {
		t.Fatalf("b has %+v", got)
	}

	// Ten contested rounds, two clones claiming at once in goroutines.
	for i := 0; i < 10; i++ {
		branch := fmt.Sprintf("r-%d", i)
		if _, err := handoff.End(ctx, a, handoff.EndOptions{Owner: "dev", Branch: branch, Next: []string{"x"}}, clock(10+i)); err != nil {
			t.Fatal(err)
		}
	}
	syncAt(t, a, 30)
	syncAt(t, b, 30)
	for i := 0; i < 10; i++ {
		branch := fmt.Sprintf("r-%d", i)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for j, st := range []*refstore.Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[j] = handoff.Claim(ctx, st, handoff.ClaimOptions{Session: fmt.Sprintf("s%d-%d", j, i), Owner: "dev", Branch: branch, Arbiter: Arbiter{}}, clock(40))
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			var ce *baton.ClaimedError
			switch {
			case err == nil:
				wins++
			case errors.As(err, &ce):
			default:
				t.Fatalf("round %d: %v", i, err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d winners (%v)", i, wins, errs)
		}
	}

	// Offline claims settle by the join at the next sync.
	if _, err := claim(a, "s-late", 50, handoff.Local{}); err != nil {
		t.Fatal(err)
	}
	if _, err := claim(b, "s-early", 45, handoff.Local{}); err != nil {
		t.Fatal(err)
	}
	syncAt(t, a, 51)
	if res := syncAt(t, b, 52); len(res.Conflicts) != 1 {
		t.Fatalf("conflicts: %+v", res.Conflicts)
	}
	syncAt(t, a, 53)
	for _, st := range []*refstore.Store{a, b} {
		if got := lastBaton(t, st, mainRef); got.ClaimedBySession != "s-early" {
			t.Fatalf("%s: %+v", filepath.Base(st.Dir()), got.Baton)
		}
	}
	// Claimed, the baton retired: the remote's archive holds the claim
	// that won.
	if got := lastBaton(t, open(t, tm.remote), mainRef); got.ClaimedBySession != "s-early" {
		t.Fatalf("remote: %+v", got.Baton)
	}
}
