package baton_test

import (
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
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
)

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// team is two clones of one bare remote, each set up for sync; put writes
// a shared baton in clone a.
type team struct {
	t    *testing.T
	ctx  context.Context
	a, b *refstore.Store
}

func newTeam(t *testing.T) *team {
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	ctx := context.Background()
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	gittest.Run(t, dir, "init", "-q", "--bare", remote)
	seed := gittest.Init(t)
	gittest.Run(t, seed, "push", "-q", remote, "main")
	clone := func(name string) *refstore.Store {
		gittest.Run(t, dir, "clone", "-q", remote, name)
		st, err := refstore.Open(ctx, filepath.Join(dir, name), refstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if _, err := teamsync.Init(ctx, st, "origin"); err != nil {
			t.Fatal(err)
		}
		return st
	}
	return &team{t: t, ctx: ctx, a: clone("a"), b: clone("b")}
}

func (tm *team) sync(st *refstore.Store, min int) {
	tm.t.Helper()
	if _, err := teamsync.Sync(tm.ctx, st, teamsync.Options{Remote: "origin", Now: t0.Add(time.Duration(min) * time.Minute), Retention: teamsync.DefaultRetention}); err != nil {
		tm.t.Fatalf("sync: %v", err)
	}
}

func (tm *team) put(owner, branch string, min int) baton.Stored {
	tm.t.Helper()
	n, err := baton.New(baton.Draft{Owner: owner, Branch: branch, Shared: true, NextSteps: []string{"go on"}}, t0.Add(time.Duration(min)*time.Minute))
	if err != nil {
		tm.t.Fatal(err)
	}
	s, up, err := baton.Written(tm.ctx, tm.a, n)
	if err != nil {
		tm.t.Fatal(err)
	}
	if err := tm.a.Apply(tm.ctx, "test: end", up); err != nil {
		tm.t.Fatal(err)
	}
	return s
}

func (tm *team) eligible(st *refstore.Store) string {
	tm.t.Helper()
	s, _, err := baton.Eligible(tm.ctx, st, "reader", "main")
	if err != nil {
		tm.t.Fatal(err)
	}
	if s == nil {
		return ""
	}
	if !s.Live() {
		tm.t.Fatalf("delivered %s, which is not waiting", s.ID)
	}
	return s.ID
}

// settled starts once after every stamp has settled, so that the next
// start trusts the notes and lists only what moved.
func (tm *team) settled(st *refstore.Store) {
	time.Sleep(80 * time.Millisecond)
	tm.eligible(st)
}

// A shared baton that this clone has seen waiting (and noted so) and that
// another clone then claims comes back claimed through sync's merge of the
// fetched records: the next start here must not deliver it.
func TestEligibleSharedClaimedByAnotherCloneSync(t *testing.T) {
	tm := newTeam(t)
	a, b := tm.a, tm.b
	older := tm.put("alice", "one", 1)
	newer := tm.put("bob", "two", 2)
	tm.sync(a, 3)
	tm.sync(b, 4)
	if got := tm.eligible(b); got != newer.ID {
		t.Fatalf("clone b: eligible = %q, want %s", got, newer.ID)
	}
	// Clone a claims the newer one and pushes the claim.
	s, up, err := baton.Claimed(tm.ctx, a, newer, "a-session", t0.Add(5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Apply(tm.ctx, "test: claim", up); err != nil {
		t.Fatal(err)
	}
	tm.sync(a, 6)
	tm.sync(b, 7)
	// Claimed, it is final: b's sync retires its waiting copy.
	if cur, err := baton.Read(tm.ctx, b, s.Ref); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("clone b still holds the claimed baton live: %+v, %v", cur.Baton, err)
	}
	if got := tm.eligible(b); got != older.ID {
		t.Fatalf("after the claim came through sync, clone b: eligible = %q, want %s", got, older.ID)
	}
}

// Shared batons a teammate ends arrive through sync's merge of the fetched
// records, into a directory this clone knows and into a new one, while
// this clone's notes are warm and settled: the next start here finds each.
func TestEligibleSharedArrivesBySync(t *testing.T) {
	tm := newTeam(t)
	a, b := tm.a, tm.b
	first := tm.put("alice", "one", 1)
	tm.sync(a, 2)
	tm.sync(b, 3)
	if got := tm.eligible(b); got != first.ID {
		t.Fatalf("clone b: eligible = %q, want %s", got, first.ID)
	}
	tm.settled(b)
	same := tm.put("alice", "two", 4) // a directory b has noted
	tm.sync(a, 5)
	tm.sync(b, 6)
	if got := tm.eligible(b); got != same.ID {
		t.Fatalf("arrived by sync into a known directory: eligible = %q, want %s", got, same.ID)
	}
	tm.settled(b)
	fresh := tm.put("carol", "three", 7) // a directory b has never seen
	tm.sync(a, 8)
	tm.sync(b, 9)
	if got := tm.eligible(b); got != fresh.ID {
		t.Fatalf("arrived by sync into a new directory: eligible = %q, want %s", got, fresh.ID)
	}
	// After b packs its refs, the next arrival still comes through.
	tm.settled(b)
	gittest.Run(t, b.CommonDir(), "pack-refs", "--all")
	tm.settled(b)
	last := tm.put("alice", "four", 10)
	tm.sync(a, 11)
	tm.sync(b, 12)
	if got := tm.eligible(b); got != last.ID {
		t.Fatalf("arrived by sync after pack-refs: eligible = %q, want %s", got, last.ID)
	}
}

// raceEnv names the repository a racing start helper runs in.
const raceEnv = "GIT_HANDOFF_TEST_SHARED_RACE"

// TestSharedStartRaceHelper is one racing `start`, run as its own process
// by TestSharedStartRace: it waits for the go file, starts a session and
// prints the id of the baton it claimed, or "none".
func TestSharedStartRaceHelper(t *testing.T) {
	repo := os.Getenv(raceEnv)
	if repo == "" {
		t.Skip("run by TestSharedStartRace")
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Microsecond) {
		if _, err := os.Stat(filepath.Join(repo, ".git", "race-go")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never told to go")
		}
	}
	ctx := context.Background()
	st, err := refstore.Open(ctx, repo, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := handoff.Start(ctx, st, handoff.StartOptions{Session: os.Getenv(raceEnv + "_SESSION"), Owner: "reader", Branch: "main"}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if res.Claimed && res.Handoff != nil {
		fmt.Printf("claimed=%s\n", res.Handoff.ID)
	} else {
		fmt.Printf("claimed=none\n")
	}
}

// Starts racing as real processes for one waiting shared baton (among
// many claimed ones, the notes warm): exactly one claims it, and its ref
// says which session did. Rounds run loose and packed.
func TestSharedStartRace(t *testing.T) {
	gittest.Isolate(t)
	t.Setenv("GIT_HANDOFF_SESSION", "")
	ctx := context.Background()
	repo := gittest.Init(t)
	st, err := refstore.Open(ctx, repo, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ups []refstore.Update
	for i := 0; i < 300; i++ {
		n, err := baton.New(baton.Draft{Owner: fmt.Sprintf("o%d", i%5), Branch: fmt.Sprintf("b%d", i), Shared: true, NextSteps: []string{"x"}}, t0)
		if err != nil {
			t.Fatal(err)
		}
		n.Claimed = true
		_, up, err := baton.Written(ctx, st, n)
		if err != nil {
			t.Fatal(err)
		}
		ups = append(ups, up)
	}
	if err := st.ApplyEach(ctx, "test: claimed ones", ups...); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const racers = 6
	for round := 0; round < 4; round++ {
		if round == 2 {
			gittest.Run(t, repo, "pack-refs", "--all")
		}
		if _, _, err := baton.Eligible(ctx, st, "reader", "main"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(80 * time.Millisecond) // the notes' stamps settle
		if _, _, err := baton.Eligible(ctx, st, "reader", "main"); err != nil {
			t.Fatal(err)
		}
		n, err := baton.New(baton.Draft{Owner: fmt.Sprintf("o%d", round%5), Branch: fmt.Sprintf("wanted-%d", round), Shared: true, NextSteps: []string{"take me"}}, t0.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		want, up, err := baton.Written(ctx, st, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Apply(ctx, "test: end", up); err != nil {
			t.Fatal(err)
		}
		goFile := filepath.Join(repo, ".git", "race-go")
		os.Remove(goFile)
		var cmds []*exec.Cmd
		var outs []*strings.Builder
		for i := 0; i < racers; i++ {
			c := exec.Command(self, "-test.run=^TestSharedStartRaceHelper$", "-test.v")
			c.Env = append(os.Environ(), raceEnv+"="+repo, fmt.Sprintf("%s_SESSION=s-%d-%d", raceEnv, round, i))
			out := &strings.Builder{}
			c.Stdout, c.Stderr = out, out
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, c), append(outs, out)
		}
		time.Sleep(300 * time.Millisecond) // every helper is up and polling
		if err := os.WriteFile(goFile, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		winners := 0
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("round %d, racer %d: %v\n%s", round, i, err, outs[i])
			}
			switch o := outs[i].String(); {
			case strings.Contains(o, "claimed="+want.ID+"\n"):
				winners++
			case !strings.Contains(o, "claimed=none\n"):
				t.Fatalf("round %d, racer %d claimed something else:\n%s", round, i, o)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d racers claimed %s, want exactly 1", round, winners, want.ID)
		}
		got, err := baton.Read(ctx, st, want.Ref)
		if err != nil || !got.Claimed || !strings.HasPrefix(got.ClaimedBySession, fmt.Sprintf("s-%d-", round)) {
			t.Fatalf("round %d: the ref says %+v, %v", round, got.Baton, err)
		}
	}
}
