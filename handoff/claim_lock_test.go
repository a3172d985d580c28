package handoff_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// takesEveryPush stands for a remote whose leases fail the way git's files
// backend fails with a pack-refs running beside two pushes leased on the
// same version: it takes both, and holds whichever landed last. Each push
// is noted in dir (arbitrated-<session>); with hold, the push waits in the
// remote (dir/entered) until dir/release exists, and lands after.
type takesEveryPush struct {
	dir, session string
	hold         bool
}

func (r takesEveryPush) Arbitrate(ctx context.Context, st refstore.Clone, up refstore.Update) error {
	if err := os.WriteFile(filepath.Join(r.dir, "arbitrated-"+r.session), nil, 0o666); err != nil {
		return err
	}
	if r.hold {
		if err := os.WriteFile(filepath.Join(r.dir, "entered"), nil, 0o666); err != nil {
			return err
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(r.dir, "release")); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return errors.New("never released")
			}
		}
	}
	return os.WriteFile(filepath.Join(r.dir, "remote"), []byte(up.New), 0o666)
}

func (r takesEveryPush) Held(ctx context.Context, st refstore.Clone, ref string) (string, error) {
	data, err := os.ReadFile(filepath.Join(r.dir, "remote"))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return string(data), err
}

const claimHelperEnv = "GIT_HANDOFF_TEST_CLAIM_HELPER"

// TestClaimHelperProcess is the other process of the tests below: a
// claim by session c1 (owner dev, the branch it is given) whose push the
// remote holds. It prints what it was delivered, or its error.
func TestClaimHelperProcess(t *testing.T) {
	spec := os.Getenv(claimHelperEnv)
	if spec == "" {
		t.Skip("run by the tests below")
	}
	repo, rest, _ := strings.Cut(spec, "\n")
	scratch, branch, _ := strings.Cut(rest, "\n")
	ctx := context.Background()
	st, err := refstore.Open(ctx, repo, refstore.Options{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	defer st.Close()
	res, err := handoff.Claim(ctx, st, handoff.ClaimOptions{Session: "c1", Owner: "dev", Branch: branch,
		Arbiter: takesEveryPush{dir: scratch, session: "c1", hold: true}}, fixed(1))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("delivered:", res.Handoff.ID, "to", res.Handoff.ClaimedBySession)
}

// TestClaimsOfOneCloneTakeTurns: two processes of one clone claim the same
// baton while the first one's push is in flight, at a remote that takes
// both pushes (as the soak's remote did, twice: one baton delivered to two
// claims racing in one clone). The second claim waits for the first, then
// reads the baton claimed here and pushes nothing: one delivery.
func TestClaimsOfOneCloneTakeTurns(t *testing.T) {
	st := open(t)
	dir, ctx := st.Dir(), context.Background()
	if _, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: "main", Next: []string{"the notes"}}, fixed(0)); err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	_, exited, out := startHeldClaim(t, dir, scratch, "main")
	type answer struct {
		res handoff.ClaimResult
		err error
	}
	second := make(chan answer, 1)
	go func() {
		res, err := handoff.Claim(ctx, st, handoff.ClaimOptions{Session: "c2", Owner: "dev", Branch: "main",
			Arbiter: takesEveryPush{dir: scratch, session: "c2"}}, fixed(2))
		second <- answer{res, err}
	}()
	// Unserialised, the second claim pushes and is answered at once;
	// serialised, it waits for the first: give it the time to show which.
	var got *answer
	select {
	case a := <-second:
		got = &a
	case <-time.After(2 * time.Second):
	}
	first := releaseHeldClaim(t, scratch, exited, out)
	if got == nil {
		select {
		case a := <-second:
			got = &a
		case <-time.After(time.Minute):
			t.Fatal("the second claim never finished")
		}
	}

	if _, err := os.Stat(filepath.Join(scratch, "arbitrated-c2")); err == nil {
		t.Errorf("the second claim pushed while the first one's push was in flight; the remote took both")
	}
	if !strings.Contains(first, "delivered: ") || !strings.HasSuffix(first, " to c1") {
		t.Errorf("the first claim, whose push the remote took first: %s", first)
	}
	var ce *baton.ClaimedError
	if got.err == nil {
		t.Errorf("the second claim was delivered %s too (the first: %s)", got.res.Handoff.ID, first)
	} else if !errors.As(got.err, &ce) || ce.Baton.ClaimedBySession != "c1" {
		t.Errorf("the second claim: %v, want the baton claimed by c1", got.err)
	}
}

// startHeldClaim starts TestClaimHelperProcess on the clone at dir and
// returns once the remote holds its push.
func startHeldClaim(t *testing.T, dir, scratch, branch string) (*exec.Cmd, chan error, *strings.Builder) {
	t.Helper()
	helper := exec.Command(os.Args[0], "-test.run=^TestClaimHelperProcess$", "-test.count=1")
	helper.Env = append(os.Environ(), claimHelperEnv+"="+dir+"\n"+scratch+"\n"+branch)
	out := &strings.Builder{}
	helper.Stdout, helper.Stderr = out, out
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- helper.Wait() }()
	for {
		if _, err := os.Stat(filepath.Join(scratch, "entered")); err == nil {
			return helper, exited, out
		}
		select {
		case err := <-exited:
			t.Fatalf("the first claim ended before its push reached the remote (%v): %s", err, out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// releaseHeldClaim lets the remote answer the held claim and returns the
// line its process printed.
func releaseHeldClaim(t *testing.T, scratch string, exited chan error, out *strings.Builder) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(scratch, "release"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("the first claim's process: %v: %s", err, out.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("the first claim never finished")
	}
	// The helper's line, among the test framework's.
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "delivered: ") || strings.HasPrefix(line, "error: ") {
			return line
		}
	}
	return out.String()
}

// TestClaimsOfOtherBatonsDoNotWait: a claim of another baton in the same
// clone is decided while the first one's push is in flight (they share no
// lock file: the ids are chosen so).
func TestClaimsOfOtherBatonsDoNotWait(t *testing.T) {
	st := open(t)
	dir, ctx := st.Dir(), context.Background()
	prev := baton.IDSource
	defer func() { baton.IDSource = prev }()
	var ids []string
	for i, branch := range []string{"main", "topic"} {
		baton.IDSource = bytes.NewReader(bytes.Repeat([]byte{byte(i)}, 64))
		res, err := handoff.End(ctx, st, handoff.EndOptions{Owner: "dev", Branch: branch, Next: []string{"the notes of " + branch}}, fixed(0))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Handoff.ID)
	}
	if handoff.BatonLockName(ids[0]) == handoff.BatonLockName(ids[1]) {
		t.Fatalf("batons %s and %s share a lock file: choose other ids", ids[0], ids[1])
	}
	scratch := t.TempDir()
	_, exited, out := startHeldClaim(t, dir, scratch, "main")
	done := make(chan error, 1)
	go func() {
		_, err := handoff.Claim(ctx, st, handoff.ClaimOptions{Session: "c2", Owner: "dev", Branch: "topic",
			Arbiter: takesEveryPush{dir: scratch, session: "c2"}}, fixed(2))
		done <- err
	}()
	waited := false
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the claim of the other baton: %v", err)
		}
	case <-time.After(20 * time.Second):
		waited = true
		t.Errorf("the claim of the other baton waited for the first claim's push")
	}
	if first := releaseHeldClaim(t, scratch, exited, out); !strings.HasSuffix(first, " to c1") {
		t.Errorf("the first claim: %s", first)
	}
	if waited {
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatal("the claim of the other baton never finished")
		}
	}
}
