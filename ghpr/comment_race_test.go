package ghpr_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/ghpr"
	"github.com/git-handoff/git-handoff/ghpr/ghprtest"
)

// ourComments are the marker comments by agent-bot on #7, oldest first.
func ourComments(s *ghprtest.Server) []ghprtest.Comment {
	var out []ghprtest.Comment
	for _, c := range s.Comments(7) {
		if c.User == "agent-bot" && strings.HasPrefix(c.Body, ghpr.OwnershipMarker+"\n") {
			out = append(out, c)
		}
	}
	return out
}

// untouched checks that nobody edited or deleted the comment id.
func untouched(t *testing.T, s *ghprtest.Server, want ghprtest.Comment) {
	t.Helper()
	suffix := fmt.Sprintf("/issues/comments/%d", want.ID)
	for _, r := range s.Requests() {
		if r.Method != "GET" && strings.HasSuffix(r.Path, suffix) {
			t.Errorf("%s %s: someone else's comment was written to", r.Method, r.Path)
		}
	}
	for _, c := range s.Comments(want.Issue) {
		if c.ID == want.ID {
			if c.Body != want.Body || !c.UpdatedAt.Equal(want.UpdatedAt) || c.User != want.User {
				t.Errorf("someone else's comment changed: %+v, was %+v", c, want)
			}
			return
		}
	}
	t.Errorf("someone else's comment %d is gone", want.ID)
}

// Several processes (each its own client) upserting the ownership comment of
// one pull request at the same moment leave exactly one comment by our
// login, carrying one of the bodies written; every call returns its id and
// exactly one says it created it. On even rounds the fake holds each
// client's first list back until all have listed, so all find none and all
// post; on every round it delays answers to lists and posts at random.
func TestConcurrentUpsertsConverge(t *testing.T) {
	const workers, rounds = 3, 40
	st := baseState()
	// Someone else quoting the marker, older than anything we post.
	st.Comments = []ghprtest.Comment{{Issue: 7, User: "mallory", Body: ghpr.OwnershipMarker + "\nI own this now"}}
	s, _, _ := setup(t, st, token)
	defer s.SetHook(nil)
	mallory := s.Comments(7)[0]
	clients := make([]*ghpr.Client, workers)
	bodies := map[string]bool{}
	for i := range clients {
		c, err := ghpr.New(context.Background(), ghpr.Options{
			Repo: ghpr.Repo{Host: "github.com", Owner: st.Owner, Name: st.Repo}, Token: token, APIURL: s.URL, HTTPClient: s.Client(),
		})
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c
	}
	bodyOf := func(round, i int) string {
		b := ghpr.RenderOwnershipComment(ghpr.OwnershipInfo{Session: fmt.Sprintf("s%d-%d", round, i)})
		bodies[b] = true
		return b
	}
	allPosted := 0
	for round := 0; round < rounds; round++ {
		s.Update(func(st *ghprtest.State) { st.Comments = st.Comments[:1] })
		before := len(s.Requests())
		var mu sync.Mutex
		rng := rand.New(rand.NewPCG(uint64(round), 7))
		listed, barrier := 0, round%2 == 0
		open := make(chan struct{})
		s.SetHook(func(r ghprtest.Request) {
			if r.Op != "issues/list-comments" && r.Op != "issues/create-comment" {
				return
			}
			mu.Lock()
			wait := time.Duration(rng.IntN(2000)) * time.Microsecond
			first := false
			if barrier && r.Op == "issues/list-comments" && listed < workers {
				listed++
				first = true
				if listed == workers {
					close(open)
				}
			}
			mu.Unlock()
			if first {
				select {
				case <-open:
				case <-time.After(10 * time.Second):
					t.Error("barrier: not every client listed")
				}
			}
			time.Sleep(wait)
		})
		want := make([]string, workers)
		for i := range want {
			want[i] = bodyOf(round, i)
		}
		ids := make([]int64, workers)
		created := make([]bool, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for i := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ids[i], created[i], errs[i] = clients[i].UpsertOwnershipComment(context.Background(), 7, want[i])
			}()
		}
		wg.Wait()
		s.SetHook(nil)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, client %d: %v", round, i, err)
			}
		}
		ours := ourComments(s)
		if len(ours) != 1 {
			t.Fatalf("round %d: %d ownership comments remain, want 1: %+v", round, len(ours), ours)
		}
		if !bodies[ours[0].Body] || !strings.Contains(ours[0].Body, fmt.Sprintf("s%d-", round)) {
			t.Fatalf("round %d: the comment carries no body of this round:\n%s", round, ours[0].Body)
		}
		nCreated := 0
		for i := range ids {
			if ids[i] != ours[0].ID {
				t.Errorf("round %d, client %d: returned id %d, kept %d", round, i, ids[i], ours[0].ID)
			}
			if created[i] {
				nCreated++
			}
		}
		if nCreated != 1 {
			t.Errorf("round %d: %d calls say they created the kept comment, want 1", round, nCreated)
		}
		posts := countOps(s.Requests()[before:], "POST", "issues/create-comment")
		if posts > workers {
			t.Errorf("round %d: %d POSTs from %d calls: a POST was retried", round, posts, workers)
		}
		if barrier && posts != workers {
			t.Errorf("round %d: %d POSTs, want %d: the race did not happen", round, posts, workers)
		}
		if posts == workers {
			allPosted++
		}
	}
	if allPosted < rounds/2 {
		t.Errorf("all clients posted in only %d rounds", allPosted)
	}
	if len(s.DeletedComments(7)) == 0 {
		t.Error("no duplicate was ever deleted")
	}
	for _, d := range s.DeletedComments(7) {
		if d.User != "agent-bot" {
			t.Errorf("deleted someone else's comment: %+v", d)
		}
	}
	untouched(t, s, mallory)
}

// Duplicates left by an earlier race or failure are swept by the next
// upsert, which keeps the oldest of ours; comments by others that quote the
// marker, before and after ours, are never edited or deleted. A duplicate
// already gone (404) is not an error.
func TestUpsertSweepsOurDuplicatesOnly(t *testing.T) {
	st := baseState()
	old := ghpr.OwnershipMarker + "\nold"
	st.Comments = []ghprtest.Comment{
		{Issue: 7, User: "mallory", Body: ghpr.OwnershipMarker + "\nolder than ours"},
		{Issue: 7, User: "agent-bot", Body: old},
		{Issue: 7, User: "agent-bot", Body: old},
		{Issue: 7, User: "eve", Body: ghpr.OwnershipMarker + "\nbetween ours"},
		{Issue: 7, User: "Agent-Bot", Body: ghpr.OwnershipMarker + "\nnewest"},
	}
	s, c, _ := setup(t, st, token)
	cs := s.Comments(7)
	others := []ghprtest.Comment{cs[0], cs[3]}
	keep := cs[1].ID
	body := ghpr.RenderOwnershipComment(ghpr.OwnershipInfo{Session: "s-1"})
	// The first duplicate was deleted by someone else already.
	s.AddFault(ghprtest.Fault{Op: "issues/delete-comment", Status: 404})
	id, created, err := c.UpsertOwnershipComment(context.Background(), 7, body)
	if err != nil || created || id != keep {
		t.Fatalf("upsert: id %d created %v err %v; want %d", id, created, err, keep)
	}
	// The fault answered the DELETE of cs[2], which therefore still
	// exists; the newest (same login, other case) is gone.
	ours := ourComments(s)
	if len(ours) != 2 || ours[0].ID != keep || ours[0].Body != body || ours[1].ID != cs[2].ID {
		t.Fatalf("ours = %+v", ours)
	}
	if d := s.DeletedComments(7); len(d) != 1 || d[0].ID != cs[4].ID {
		t.Fatalf("deleted = %+v", d)
	}
	// The next upsert removes it and leaves the kept body alone.
	if id, created, err := c.UpsertOwnershipComment(context.Background(), 7, body); err != nil || created || id != keep {
		t.Fatalf("second upsert: id %d created %v err %v", id, created, err)
	}
	if ours := ourComments(s); len(ours) != 1 || ours[0].ID != keep || ours[0].Body != body {
		t.Fatalf("ours after the second upsert = %+v", ours)
	}
	if n := len(s.Comments(7)); n != 3 {
		t.Fatalf("%d comments after the second upsert, want 3: %+v", n, s.Comments(7))
	}
	if n := countOps(s.Requests(), "PATCH", "issues/update-comment"); n != 1 {
		t.Errorf("PATCHes = %d, want 1", n)
	}
	if n := countOps(s.Requests(), "POST", "issues/create-comment"); n != 0 {
		t.Errorf("POSTs = %d, want 0", n)
	}
	for _, o := range others {
		untouched(t, s, o)
	}
}

// A release edits our comment to say nobody owns the pull request, keeping
// the marker first so a later claim edits the same comment; where there is
// no comment of ours, nothing is posted.
func TestEditOwnershipCommentNeverPosts(t *testing.T) {
	st := baseState()
	st.Comments = []ghprtest.Comment{{Issue: 7, User: "mallory", Body: ghpr.OwnershipMarker + "\nquoted"}}
	s, c, _ := setup(t, st, token)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	released := ghpr.RenderOwnershipComment(ghpr.OwnershipInfo{ReleasedBy: "s-1", ReleasedAt: t0.Add(time.Hour),
		History: []ghpr.Transfer{{At: t0, To: "s-1", Reason: "claimed"}, {At: t0.Add(time.Hour), From: "s-1", Reason: "released"}}})
	if id, err := c.EditOwnershipComment(ctx, 7, released); err != nil || id != 0 {
		t.Fatalf("edit without a comment: %d %v", id, err)
	}
	if n := countOps(s.Requests(), "POST", "issues/create-comment"); n != 0 {
		t.Fatalf("%d POSTs", n)
	}
	id, _, err := c.UpsertOwnershipComment(ctx, 7, ghpr.RenderOwnershipComment(ghpr.OwnershipInfo{Session: "s-1", ClaimedAt: t0}))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.EditOwnershipComment(ctx, 7, released); err != nil || got != id {
		t.Fatalf("edit: %d %v, want %d", got, err, id)
	}
	ours := ourComments(s)
	if len(ours) != 1 || ours[0].Body != released {
		t.Fatalf("ours = %+v", ours)
	}
	for _, want := range []string{
		ghpr.OwnershipMarker + "\n**No session owns this pull request any more**: released by session `s-1` at 2026-03-01 13:00 UTC.\n",
		"go to no session until one claims it",
		"| 2026-03-01 13:00 | `s-1` | — | released |",
	} {
		if !strings.Contains(released, want) {
			t.Errorf("released comment lacks %q:\n%s", want, released)
		}
	}
	// A later claim edits the same comment.
	if again, created, err := c.UpsertOwnershipComment(ctx, 7, ghpr.RenderOwnershipComment(ghpr.OwnershipInfo{Session: "s-2"})); err != nil || created || again != id {
		t.Fatalf("claim after release: %d %v %v", again, created, err)
	}
	if n := countOps(s.Requests(), "POST", "issues/create-comment"); n != 1 {
		t.Errorf("%d POSTs, want 1", n)
	}
}
