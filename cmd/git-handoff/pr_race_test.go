package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
	"github.com/git-handoff/git-handoff/internal/gittest"
)

// TestPRClaimRace starts 8 real `git handoff pr claim` processes on one pull
// request against the fake GitHub. With --no-takeover exactly one owns it,
// the others exit 5 naming it, and GitHub gets exactly one comment. With
// takeover every claimer wins in turn: the history is one unbroken chain
// ending at the owner, and only the owner's session points at the PR.
func TestPRClaimRace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts dozens of processes")
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	gittest.Run(t, dir, "remote", "add", "origin", "https://github.com/octo-org/hello-world.git")
	s := ghprtest.NewServer(t, ghprtest.WithState(ghprtest.State{Token: "tok", PRs: []ghprtest.PR{
		{Number: 7, Head: "a", HeadSHA: strings.Repeat("7", 40)},
		{Number: 8, Head: "b", HeadSHA: strings.Repeat("8", 40)},
	}}))
	t.Setenv("GITHUB_API_URL", s.URL)
	t.Setenv("GH_TOKEN", "tok")
	const claimers = 8
	for i := 0; i < claimers; i++ {
		for _, round := range []string{"n", "t"} {
			gittest.Run(t, dir, "handoff", "start", "--session", fmt.Sprintf("%s%d", round, i))
			// Each as if in a worktree of its own: a start ends the
			// session bound to its worktree.
			gittest.Run(t, dir, "symbolic-ref", "--delete", "refs/worktree/ao/session")
		}
	}

	type result struct {
		code           int
		stdout, stderr string
	}
	race := func(args func(i int) []string) []result {
		results := make([]result, claimers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < claimers; i++ {
			cmd := exec.Command("git", args(i)...)
			cmd.Dir = dir
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				err := cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					code = -1
				}
				results[i] = result{code: code, stdout: out.String(), stderr: errb.String()}
			}(i)
		}
		close(start)
		wg.Wait()
		return results
	}
	type record struct {
		OwnerSession string
		History      []struct{ Session, From string }
	}
	read := func(n int) record {
		var r record
		out := gittest.Run(t, dir, "cat-file", "-p", fmt.Sprintf("refs/ao/prs/octo-org/hello-world/%d", n))
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	pointing := func(round string, n int) []string {
		var ids []string
		for i := 0; i < claimers; i++ {
			id := fmt.Sprintf("%s%d", round, i)
			if strings.Contains(gittest.Run(t, dir, "cat-file", "-p", "refs/ao/sessions/"+id), fmt.Sprintf(`"number":%d`, n)) {
				ids = append(ids, id)
			}
		}
		return ids
	}

	// --no-takeover: one winner.
	res := race(func(i int) []string {
		return []string{"handoff", "pr", "claim", "7", "--no-takeover", "--session", fmt.Sprintf("n%d", i)}
	})
	rec := read(7)
	winners := 0
	for i, r := range res {
		switch r.code {
		case 0:
			winners++
			if want := fmt.Sprintf("n%d", i); want != rec.OwnerSession {
				t.Errorf("n%d exited 0 but %s owns #7", i, rec.OwnerSession)
			}
		case 5:
			if !strings.Contains(r.stderr, fmt.Sprintf("is owned by active session %q", rec.OwnerSession)) {
				t.Errorf("n%d lost without naming the owner %s: %s", i, rec.OwnerSession, r.stderr)
			}
		default:
			t.Errorf("n%d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	if winners != 1 || len(rec.History) != 1 {
		t.Fatalf("%d winners, history %+v\n%+v", winners, rec.History, res)
	}
	if p := pointing("n", 7); len(p) != 1 || p[0] != rec.OwnerSession {
		t.Errorf("sessions pointing at #7: %v, owner %s", p, rec.OwnerSession)
	}
	if n := len(s.Comments(7)); n != 1 {
		t.Errorf("%d comments on #7, want 1", n)
	}

	// Takeover: everyone wins once, in some order.
	res = race(func(i int) []string {
		return []string{"handoff", "pr", "claim", "8", "--no-comment", "--session", fmt.Sprintf("t%d", i)}
	})
	for i, r := range res {
		if r.code != 0 {
			t.Errorf("t%d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	rec = read(8)
	if len(rec.History) != claimers || rec.History[claimers-1].Session != rec.OwnerSession {
		t.Fatalf("history %+v, owner %s", rec.History, rec.OwnerSession)
	}
	seen := map[string]bool{}
	for i, h := range rec.History {
		prev := ""
		if i > 0 {
			prev = rec.History[i-1].Session
		}
		if h.From != prev || seen[h.Session] {
			t.Errorf("history broken at %d: %+v", i, rec.History)
		}
		seen[h.Session] = true
	}
	if p := pointing("t", 8); len(p) != 1 || p[0] != rec.OwnerSession {
		t.Errorf("sessions pointing at #8: %v, owner %s", p, rec.OwnerSession)
	}
	// The lease goes with the ownership: held by the owner, however the
	// takeovers interleaved.
	var l struct{ State, Session string }
	if err := json.Unmarshal([]byte(gittest.Run(t, dir, "handoff", "lease", "show", "pr:8", "--json")), &l); err != nil {
		t.Fatal(err)
	}
	if l.State != "held" || l.Session != rec.OwnerSession {
		t.Errorf("the lease pr:8 is %s by %s, and %s owns #8", l.State, l.Session, rec.OwnerSession)
	}
}
