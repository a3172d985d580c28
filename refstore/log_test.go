package refstore_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// Log lists the branch's first-parent line for a history with a merge, the
// merge one entry (issue 9: an in-process walk gave 3 commits, `git log`
// without --first-parent 5).
func TestLogFirstParentOnBothPaths(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t) // "first" on main
	gittest.Run(t, dir, "checkout", "-q", "-b", "side")
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "side one")
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "side two")
	gittest.Run(t, dir, "checkout", "-q", "main")
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "main two")
	base := gittest.Run(t, dir, "rev-parse", "HEAD")
	gittest.Run(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	head := gittest.Run(t, dir, "rev-parse", "HEAD")

	want := map[string][]string{
		"":   {"merge side", "main two", "first"},
		base: {"merge side"},
	}
	got := map[string]map[string][]string{}
	for name, opts := range readPaths {
		st := open(t, dir, opts)
		got[name] = map[string][]string{}
		for since, subjects := range want {
			commits, total, err := st.Log(context.Background(), head, since, 10)
			if err != nil {
				t.Fatalf("%s: log since %q: %v", name, since, err)
			}
			var s []string
			for _, c := range commits {
				s = append(s, c.Subject)
			}
			if !reflect.DeepEqual(s, subjects) {
				t.Errorf("%s: log since %q = %q, want %q", name, since, s, subjects)
			}
			if total != len(subjects) {
				t.Errorf("%s: log since %q counts %d, want %d", name, since, total, len(subjects))
			}
			got[name][since] = s
		}
	}
}

// Log gives the id, the author's name and the time in the zone it was
// written in.
func TestLogAuthorAndZoneOnBothPaths(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	t.Setenv("GIT_AUTHOR_NAME", "Ada  de Lovelace")
	t.Setenv("GIT_AUTHOR_DATE", "2026-03-04T05:06:07+0530")
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "  zoned subject  \nsecond line\n\nbody line")
	head := gittest.Run(t, dir, "rev-parse", "HEAD")
	for name, opts := range readPaths {
		commits, _, err := open(t, dir, opts).Log(context.Background(), head, "", 1)
		if err != nil || len(commits) != 1 {
			t.Fatalf("%s: %v %v", name, commits, err)
		}
		c := commits[0]
		_, off := c.When.Zone()
		if c.ID != head || c.Author != "Ada  de Lovelace" || c.Subject != "  zoned subject second line" || c.When.Unix() != 1772580967 || off != 5*3600+30*60 {
			t.Errorf("%s: got %+v (offset %d)", name, c, off)
		}
	}
}

// A log LogAhead started is the answer Log gives when asked the same, and
// is not taken for another question: at and under the limit, and beyond
// it (total -1).
func TestLogAhead(t *testing.T) {
	gittest.Isolate(t)
	ctx := context.Background()
	dir := gittest.Init(t) // "first"
	for _, m := range []string{"two", "three"} {
		gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", m)
	}
	head := gittest.Run(t, dir, "rev-parse", "HEAD")
	parent := gittest.Run(t, dir, "rev-parse", "HEAD~")
	for _, limit := range []int{2, 3, 10} {
		plain := open(t, dir, refstore.Options{})
		wantCommits, wantTotal, err := plain.Log(ctx, head, "", limit)
		if err != nil {
			t.Fatal(err)
		}
		st := open(t, dir, refstore.Options{})
		st.LogAhead(head, limit)
		// Another question than the one asked ahead: git is asked.
		other, _, err := st.Log(ctx, parent, "", limit)
		if err != nil || len(other) == 0 || other[0].ID != parent {
			t.Fatalf("limit %d: log of HEAD~ after LogAhead(HEAD) = %v, %v", limit, other, err)
		}
		st.LogAhead(head, limit)
		commits, total, err := st.Log(ctx, head, "", limit)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(commits, wantCommits) || total != wantTotal {
			t.Errorf("limit %d: Log after LogAhead = %v, %d; without = %v, %d", limit, commits, total, wantCommits, wantTotal)
		}
	}
}
