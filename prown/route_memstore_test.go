package prown

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/refstore/memstore"
	"github.com/git-handoff/git-handoff/session"
)

// create stores v at ref as a bare record: the JSON alone, with no causal
// clock (a record as an older writer, or a hand, left it).
func create(t *testing.T, st refstore.Records, ref string, v any) {
	t.Helper()
	ctx := context.Background()
	data, err := refstore.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	oid, err := st.WriteBlob(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "test: create", refstore.Update{Ref: ref, New: oid}); err != nil {
		t.Fatal(err)
	}
}

// TestRouteOverMemstore runs the routing of work on a pull request, and
// the session reads under it (session.Read, Line, LineGraph, Each), over
// the in-memory store: the workflows' read side needs nothing but
// refstore.Records.
func TestRouteOverMemstore(t *testing.T) {
	ctx := context.Background()
	st, err := memstore.New(refstore.FormatSHA1)
	if err != nil {
		t.Fatal(err)
	}
	line := []session.Record{
		{ID: "s1", Status: session.StatusReplaced, ReplacedBy: "s2", CreatedAt: t0},
		{ID: "s2", Status: session.StatusReplaced, Supersedes: "s1", ReplacedBy: "s3", HandoffReason: "context full", CreatedAt: t0.Add(time.Hour)},
		{ID: "s3", Status: session.StatusActive, Supersedes: "s2", HandoffReason: "context full", CreatedAt: t0.Add(2 * time.Hour)},
		{ID: "other", Status: session.StatusEnded, CreatedAt: t0},
	}
	for _, s := range line {
		s.Schema, s.Owner, s.Branch, s.Harness = session.Schema, "dev", "main", "claude"
		ref, err := refstore.SessionRef(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		create(t, st, ref, s)
	}
	ref, err := Ref(repo, 7)
	if err != nil {
		t.Fatal(err)
	}
	create(t, st, ref, Record{Schema: Schema, Repo: repo, Number: 7, OwnerSession: "s1", ClaimedAt: t0,
		History: []Transfer{{Session: "s1", At: t0, Reason: "claim"}}})

	r, err := Route(ctx, st, repo, 7)
	if err != nil {
		t.Fatal(err)
	}
	if r.Owner != "s1" || r.Session != "s3" || strings.Join(r.Chain, " ") != "s1 s2 s3" || r.Status != session.StatusActive || len(r.Notices) != 0 {
		t.Fatalf("Route = %+v; want the work to go from s1 along its line to s3", r)
	}

	// A pull request nobody claimed is unowned.
	if _, err := Route(ctx, st, repo, 8); !errors.Is(err, refstore.ErrNotFound) {
		t.Fatalf("Route of an unclaimed pull request: %v", err)
	}

	// The line read record by record, and the listing.
	g, err := session.LineGraph(ctx, st, "s2")
	if err != nil {
		t.Fatal(err)
	}
	if live := g.Live("s1"); live != "s3" {
		t.Fatalf("the line's live session is %q, want s3", live)
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("the line does not validate: %v", err)
	}
	var ids []string
	var warns []session.Warning
	if err := session.Each(ctx, st, func(s *session.Stored) { ids = append(ids, s.ID) }, &warns); err != nil || len(warns) != 0 {
		t.Fatalf("session.Each: %v, %v", err, warns)
	}
	if got := strings.Join(ids, " "); got != "other s1 s2 s3" {
		t.Fatalf("session.Each lists %q", got)
	}

	// A record at the wrong place is a warning there as in git.
	s, err := session.Read(ctx, st, "s3")
	if err != nil {
		t.Fatal(err)
	}
	s.ID = "elsewhere"
	create(t, st, refstore.SessionPrefix+"misplaced", s.Record)
	warns = nil
	ids = nil
	if err := session.Each(ctx, st, func(s *session.Stored) { ids = append(ids, s.ID) }, &warns); err != nil || len(warns) != 1 || warns[0].Ref != refstore.SessionPrefix+"misplaced" {
		t.Fatalf("session.Each with a misplaced record: %v, warnings %v", err, warns)
	}
}
