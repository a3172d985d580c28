package handoff_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/session"
)

// The brief lists the leases other sessions hold on this repository and
// the session's own, and has no lease section when none is held.
func TestBriefListsLeases(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := open(t)
	b := lease.LocalBoard{St: st}
	res, err := handoff.Brief(ctx, st, handoff.BriefOptions{}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Brief, "Leases") {
		t.Fatalf("nothing leased, yet a lease section:\n%s", res.Brief)
	}
	start(t, st, "s-other")
	start(t, st, "s-me")
	take := func(id string, keys ...string) {
		t.Helper()
		if _, err := handoff.LeaseTake(ctx, st, b, handoff.LeaseOptions{Session: id, Keys: keys, Note: "work of " + id}, clock); err != nil {
			t.Fatal(err)
		}
	}
	take("s-other", "#42", "path:src/lexer/**")
	take("s-me", "pr:17")
	res, err = handoff.Brief(ctx, st, handoff.BriefOptions{Session: "s-me"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	others := strings.Index(res.Brief, "Held by other sessions")
	mine := strings.Index(res.Brief, "Yours (")
	if others < 0 || mine < others {
		t.Fatalf("want others' leases, then the session's own:\n%s", res.Brief)
	}
	for _, want := range []string{
		"- `issue:42` — claude-code session s-other of ", "frees in 30 min unless renewed (work of s-other)",
		"- `path:src/lexer/**` — claude-code session s-other",
	} {
		if !strings.Contains(res.Brief[others:mine], want) {
			t.Errorf("others' leases lack %q:\n%s", want, res.Brief)
		}
	}
	if !strings.Contains(res.Brief[mine:], "- `pr:17`, frees in 30 min unless renewed (work of s-me)") {
		t.Errorf("the session's own lease is not listed as its own:\n%s", res.Brief)
	}
	if strings.Contains(res.Brief[others:mine], "pr:17") {
		t.Errorf("the session's own lease is listed as another's:\n%s", res.Brief)
	}
}

// A replaced session's handoff package lists the leases it held, which
// the replacement hands on.
func TestPackageListsLeases(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := open(t)
	start(t, st, "s1")
	b := lease.LocalBoard{St: st}
	if _, err := handoff.LeaseTake(ctx, st, b, handoff.LeaseOptions{Session: "s1", Keys: []string{"path:src/**"}, Note: "the lexer"}, clock); err != nil {
		t.Fatal(err)
	}
	res, err := handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{
		ReplaceOptions: session.ReplaceOptions{OldID: "s1", NewID: "s2", Reason: "stuck"},
	}, clock)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Package, "### Leases it held (handed to you)") || !strings.Contains(res.Package, "- `path:src/**` (the lexer)") {
		t.Fatalf("the package lacks the leases:\n%s", res.Package)
	}
	start(t, st, "t1")
	res, err = handoff.SessionReplace(ctx, st, handoff.SessionReplaceOptions{
		ReplaceOptions: session.ReplaceOptions{OldID: "t1", NewID: "t2"},
	}, clock)
	if err != nil || strings.Contains(res.Package, "Leases it held") {
		t.Fatalf("a session without leases: package lists some (%v):\n%q", err, res.Package)
	}
}
