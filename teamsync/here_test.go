package teamsync

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/session"
)

// In a clone with no remote, RetireHere moves the final records to the
// archive by the rules sync retires by (what a live session needs stays),
// a dry run changes nothing, a second run finds nothing, and a clone with
// a remote is refused: there a record leaves its ref only with the
// remote's.
func TestRetireHereRetiresWhatIsFinalWithNoRemote(t *testing.T) {
	gittest.Isolate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := gittest.Init(t)
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, r := range []session.Record{
		sess("s-old", session.StatusEnded, "", 0),
		sess("s-prev", session.StatusReplaced, "", 0),
		sess("s-live", session.StatusActive, "s-prev", 10),
		sess("s-owner", session.StatusEnded, "", 0),
		sess("s-recent", session.StatusEnded, "s-old", 30),
	} {
		put(t, st, sessRef(t, r.ID), r)
	}
	open7, _ := refstore.PRRef("o", "r", 7)
	merged8, _ := refstore.PRRef("o", "r", 8)
	put(t, st, open7, prown.Record{Schema: prown.Schema, Number: 7, Repo: "o/r", OwnerSession: "s-owner", ClaimedAt: at(0)})
	put(t, st, merged8, prown.Record{Schema: prown.Schema, Number: 8, Repo: "o/r", OwnerSession: "s-old", ClaimedAt: at(0), MergedAt: atp(1)})
	live := func() string {
		return git(t, dir, "for-each-ref", "--format=%(refname)", "refs/ao/sessions/", "refs/ao/prs/")
	}
	before := live()
	opts := Options{Now: at(40), DryRun: true}
	if !RetireHereDue(ctx, st, at(40)) {
		t.Fatal("no retirement due in a clone with no remote that never retired")
	}
	res, err := RetireHere(ctx, st, opts)
	if err != nil || res.Retired != 3 {
		t.Fatalf("dry run: retired %d (%v), want s-old, s-recent and pull request 8", res.Retired, err)
	}
	if got := live(); got != before {
		t.Fatalf("a dry run changed the live records:\n%s\nwas\n%s", got, before)
	}
	opts.DryRun = false
	if res, err = RetireHere(ctx, st, opts); err != nil || res.Retired != 3 {
		t.Fatalf("retired %d (%v), want 3", res.Retired, err)
	}
	want := strings.Join([]string{"refs/ao/prs/o/r/7", sessRef(t, "s-live"), sessRef(t, "s-owner"), sessRef(t, "s-prev")}, "\n")
	if got := live(); got != want {
		t.Fatalf("live records:\n%s\nwant\n%s", got, want)
	}
	month := archive.Month(at(0))
	if got := git(t, dir, "ls-tree", "-r", "--name-only", "refs/ao/archive/"+month); got != "prs/o/r/8\nsessions/s-old\nsessions/s-recent" {
		t.Errorf("the archive of %s holds:\n%s", month, got)
	}
	git(t, dir, "gc", "-q", "--prune=now")
	if s, err := session.Find(ctx, st, "s-old"); err != nil || s.Status != session.StatusEnded {
		t.Fatalf("s-old after retirement and a prune: %+v, %v", s, err)
	}
	if RetireHereDue(ctx, st, at(40).Add(time.Minute)) {
		t.Fatal("a retirement due a minute after the last")
	}
	if res, err = RetireHere(ctx, st, opts); err != nil || res.Retired != 0 {
		t.Fatalf("again: retired %d (%v), want 0", res.Retired, err)
	}

	// With a remote, it refuses, and changes nothing.
	bare := t.TempDir()
	gittest.Run(t, "", "init", "-q", "--bare", bare)
	git(t, dir, "remote", "add", "origin", bare)
	st2, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if RetireHereDue(ctx, st2, at(400)) {
		t.Fatal("a retirement here is due in a clone with a remote")
	}
	git(t, dir, "update-ref", sessRef(t, "s-live"), blobOf(t, st2, sess("s-live", session.StatusEnded, "s-prev", 50)))
	if _, err := RetireHere(ctx, st2, Options{Now: at(400)}); !errors.Is(err, ErrHasRemote) {
		t.Fatalf("with a remote: %v, want ErrHasRemote", err)
	}
	if got := live(); got != want {
		t.Fatalf("a refused retirement changed the live records:\n%s\nwant\n%s", got, want)
	}
}
