package handoff_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/refstore"
)

// Without a GitHub repository (Repo ""), PRShow finds the record here by
// number, or by the session's pointer; it names the repositories when
// several hold that number, and a number nobody recorded is not found.
func TestPRShowWithoutAGitHubRepository(t *testing.T) {
	ctx := deadline(t)
	st := ownedPR7(t)

	rec, err := handoff.PRShow(ctx, st, handoff.PRShowOptions{Number: 7})
	if err != nil || rec.Repo != "octo-org/hello-world" || rec.OwnerSession != "s1" {
		t.Fatalf("by number: %+v, %v", rec.Record, err)
	}
	rec, err = handoff.PRShow(ctx, st, handoff.PRShowOptions{Session: "s1"})
	if err != nil || rec.Repo != "octo-org/hello-world" || rec.Number != 7 {
		t.Fatalf("by the session's pointer: %+v, %v", rec.Record, err)
	}
	if _, err := handoff.PRShow(ctx, st, handoff.PRShowOptions{Number: 8}); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("a number nobody recorded: %v, want not found", err)
	}

	// Another repository's #7, copied into this clone.
	e, err := st.Get(ctx, "refs/ao/prs/octo-org/hello-world/7")
	if err != nil {
		t.Fatal(err)
	}
	oid, err := st.WriteBlob(ctx, bytes.ReplaceAll(e.Data, []byte("octo-org/hello-world"), []byte("octo-org/other")))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test", refstore.Update{Ref: "refs/ao/prs/octo-org/other/7", New: oid}); err != nil {
		t.Fatal(err)
	}
	var amb *handoff.AmbiguousPRError
	if _, err := handoff.PRShow(ctx, st, handoff.PRShowOptions{Number: 7}); !errors.As(err, &amb) || len(amb.Repos) != 2 {
		t.Fatalf("two repositories' #7: %v", err)
	}
	// Named, the repository decides as before.
	if rec, err := handoff.PRShow(ctx, st, handoff.PRShowOptions{Repo: "octo-org/hello-world", Number: 7}); err != nil || rec.OwnerSession != "s1" {
		t.Fatalf("named repository: %+v, %v", rec.Record, err)
	}
}

// A merged pull request's record retires to the archive at the next sync:
// shown by number alone, without a GitHub repository to name it, it is
// still found there, marked archived.
func TestPRShowByNumberFindsTheArchive(t *testing.T) {
	ctx := deadline(t)
	st := ownedPR7(t)
	const ref = "refs/ao/prs/octo-org/hello-world/7"
	e, err := st.Get(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	p, err := archive.PRPath("octo-org", "hello-world", 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := archive.Put(ctx, st, "2026-11", "test: retired", []archive.Entry{{Path: p, OID: e.OID}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: retired", refstore.Update{Ref: ref, Old: e.OID}); err != nil {
		t.Fatal(err)
	}
	rec, err := handoff.PRShow(ctx, st, handoff.PRShowOptions{Number: 7})
	if err != nil || rec.Repo != "octo-org/hello-world" || rec.OwnerSession != "s1" || rec.Archived != "2026-11" {
		t.Fatalf("an archived #7 by number: %+v archived %q, %v", rec.Record, rec.Archived, err)
	}
	if _, err := handoff.PRShow(ctx, st, handoff.PRShowOptions{Number: 8}); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("a number nobody recorded: %v, want not found", err)
	}
}

// ownedPR7 is a clone where session s1 claimed octo-org/hello-world#7.
func ownedPR7(t *testing.T) *refstore.Store {
	t.Helper()
	st := open(t)
	start(t, st, "s1")
	_, gh := fakeGitHub(t, token)
	if _, err := handoff.PRClaim(deadline(t), st, gh, handoff.PRClaimOptions{Number: 7, Session: "s1"}, clock); err != nil {
		t.Fatal(err)
	}
	return st
}
