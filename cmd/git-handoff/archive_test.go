package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/refstore"
)

// A session retired into the archive (its blob put in the month's tree,
// its live ref deleted, as sync will do) stays answerable: session show
// finds it, marked archived; session lineage follows links into it from
// either end; session ls --archived lists it and session ls --all does not;
// and no command that changes a session finds it to write back.
func TestArchivedSessionCLI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	gittest.Isolate(t)
	dir := gittest.Init(t)
	runListing(t, dir, "start", "--session", "a-1", "--harness", "claude-code")
	runListing(t, dir, "session", "replace", "a-1", "--new-id", "a-2", "--reason", "stuck", "--carry-context", "none")

	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	live, err := st.Get(ctx, "refs/ao/sessions/a-1")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := archive.SessionPath("a-1")
	if _, err := archive.Add(ctx, st, "2026-01", []archive.Entry{{Path: p, OID: live.OID}}, "archive: retire a-1"); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "archive: retire a-1", refstore.Update{Ref: live.Ref, Old: live.OID}); err != nil {
		t.Fatal(err)
	}

	show := string(runListing(t, dir, "session", "show", "a-1"))
	for _, want := range []string{"status    replaced\n", "archived  2026-01 (refs/ao/archive/2026-01:sessions/a-1)\n", "replaced  by a-2\n"} {
		if !strings.Contains(show, want) {
			t.Fatalf("session show a-1 lacks %q:\n%s", want, show)
		}
	}
	js := string(runListing(t, dir, "session", "show", "a-1", "--json"))
	for _, want := range []string{`"archived": "2026-01"`, `"ref": "refs/ao/archive/2026-01:sessions/a-1"`, `"status": "replaced"`} {
		if !strings.Contains(js, want) {
			t.Fatalf("session show a-1 --json lacks %s:\n%s", want, js)
		}
	}
	// The live successor's line reaches into the archive, and back.
	if got := string(runListing(t, dir, "session", "show", "a-2")); !strings.Contains(got, "a-2 ← a-1 (stuck)") || strings.Contains(got, "archived") {
		t.Fatalf("session show a-2:\n%s", got)
	}
	for _, id := range []string{"a-1", "a-2"} {
		got := string(runListing(t, dir, "session", "lineage", id, "--format", "json"))
		if !strings.Contains(got, `"a-1"`) || !strings.Contains(got, `"a-2"`) || strings.Contains(got, "missing") {
			t.Fatalf("session lineage %s:\n%s", id, got)
		}
	}
	if got := string(runListing(t, dir, "session", "ls", "--all")); strings.Contains(got, "a-1 ") || !strings.Contains(got, "a-2") {
		t.Fatalf("session ls --all:\n%s", got)
	}
	ls := string(runListing(t, dir, "session", "ls", "--archived"))
	if !strings.Contains(ls, "replaced, archived 2026-01") || !strings.Contains(ls, "a-2") {
		t.Fatalf("session ls --archived:\n%s", ls)
	}
	if got := string(runListing(t, dir, "session", "ls", "--archived", "--json")); !strings.Contains(got, `"archived": "2026-01"`) {
		t.Fatalf("session ls --archived --json:\n%s", got)
	}
	// Writers read live records only: an archived session is not found
	// to be changed (and so never written back as a live one).
	var stdout, stderr bytes.Buffer
	t.Chdir(dir)
	if code := run(ctx, []string{"git-handoff", "session", "summary", "a-1", "changed"}, strings.NewReader(""), &stdout, &stderr); code != exitNotFound {
		t.Fatalf("session summary of an archived session: exit %d, want %d\n%s", code, exitNotFound, stderr.String())
	}
	if code := run(ctx, []string{"git-handoff", "session", "show", "nobody"}, strings.NewReader(""), &stdout, &stderr); code != exitNotFound {
		t.Fatalf("session show of an unknown session: exit %d, want %d", code, exitNotFound)
	}
	if ids, _ := st.RefIDs(ctx, "refs/ao/sessions/a-1"); len(ids) != 0 {
		t.Fatalf("the archived session is live again: %v", ids)
	}
}

// A baton retired into the archive keeps its events in `log`, under the
// ref it had.
func TestArchivedBatonLog(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	gittest.Isolate(t)
	dir := gittest.Init(t)
	runListing(t, dir, "start", "--session", "b-1", "--harness", "codex")
	runListing(t, dir, "end", "--session", "b-1", "--next", "the next step")
	runListing(t, dir, "start", "--session", "b-2", "--harness", "codex")

	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	batons, err := st.RefIDs(ctx, refstore.HandoffsPrefix)
	if err != nil || len(batons) != 1 {
		t.Fatalf("batons: %v, %v", batons, err)
	}
	e, err := st.Get(ctx, batons[0].Ref)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ ID string }
	if err := json.Unmarshal(e.Data, &rec); err != nil || rec.ID == "" {
		t.Fatalf("baton record %s: %v", e.Data, err)
	}
	before := string(runListing(t, dir, "log", "--json"))
	p, _ := archive.BatonPath(rec.ID)
	if _, err := archive.Add(ctx, st, "2026-01", []archive.Entry{{Path: p, OID: batons[0].OID}}, "archive: retire"); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "archive: retire", refstore.Update{Ref: batons[0].Ref, Old: batons[0].OID}); err != nil {
		t.Fatal(err)
	}
	after := string(runListing(t, dir, "log", "--json"))
	if !strings.Contains(after, `"kind": "claimed"`) || !strings.Contains(after, rec.ID) || after != before {
		t.Fatalf("log after the baton was archived:\n%s\nbefore:\n%s", after, before)
	}
}
