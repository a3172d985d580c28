package webui_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/webui"
)

// takeLease makes session id hold key, decided in the fixture's clone
// (it has no arbiter), as `git handoff lease take KEY --session ID` would.
func (f *fixture) takeLease(t *testing.T, id, key, note string) {
	t.Helper()
	st := f.store(t)
	if _, err := handoff.LeaseTake(context.Background(), st, lease.LocalBoard{St: st}, handoff.LeaseOptions{
		Keys: []string{key}, Session: id, Note: note,
	}, clock); err != nil {
		t.Fatalf("session %s taking %s: %v", id, key, err)
	}
}

// lease reads key's lease afresh, as `lease show KEY` does.
func (f *fixture) lease(t *testing.T, key string) lease.View {
	t.Helper()
	st := f.store(t)
	v, _, err := handoff.LeaseShow(context.Background(), st, lease.LocalBoard{St: st}, handoff.LeaseOptions{Keys: []string{key}}, clock)
	if err != nil {
		t.Fatalf("lease show %s: %v", key, err)
	}
	return v
}

// leaseItems are the listing's leases by key.
func leaseItems(t *testing.T, out map[string]any) map[string]map[string]any {
	t.Helper()
	items, ok := out["items"].([]any)
	if !ok {
		t.Fatalf("no items in %v", out)
	}
	m := map[string]map[string]any{}
	for _, it := range items {
		l := it.(map[string]any)
		m[l["key"].(string)] = l
	}
	return m
}

// The page acts for dev@example.com (the repository's git identity): it
// releases the lease of dev's session s7, refuses to release the lease of
// bob's s5, and breaks that one only with a reason, which the lease's
// history keeps.
func TestLeasesAPI(t *testing.T) {
	f := newFixture(t, webui.Options{})
	f.takeLease(t, "s5", "issue:42", "the lexer rewrite")
	f.takeLease(t, "s7", "path:src/lexer/**", "")

	code, out := f.do(t, "GET", "/api/leases?project=repo", "", nil)
	wantStatus(t, "leases", code, http.StatusOK, out)
	items := leaseItems(t, out)
	bobs, devs := items["issue:42"], items["path:src/lexer/**"]
	if len(items) != 2 || bobs == nil || devs == nil || out["person"] != "dev@example.com" || out["where"] == "" {
		t.Fatalf("leases = %v", out)
	}
	if bobs["session"] != "s5" || bobs["owner"] != "bob" || bobs["agent"] != "claude-code" || bobs["note"] != "the lexer rewrite" ||
		bobs["yours"] != false || bobs["freesInSeconds"] != lease.DefaultTTL.Seconds() {
		t.Fatalf("bob's lease listed as %v", bobs)
	}
	if devs["session"] != "s7" || devs["yours"] != true {
		t.Fatalf("dev's lease listed as %v", devs)
	}

	for _, c := range []struct {
		what, path, body string
		want             int
	}{
		{"release another person's lease", "release", `{"key":"issue:42","session":"s5"}`, http.StatusForbidden},
		{"release a lease now held by another session", "release", `{"key":"path:src/lexer/**","session":"s5"}`, http.StatusConflict},
		{"release without a key", "release", `{}`, http.StatusBadRequest},
		{"release a bad key", "release", `{"key":"issue:forty-two"}`, http.StatusBadRequest},
		{"release a lease never taken", "release", `{"key":"key:nothing"}`, http.StatusNotFound},
		{"break without a reason", "break", `{"key":"issue:42","session":"s5","reason":"  "}`, http.StatusBadRequest},
		{"break a lease now held by another session", "break", `{"key":"issue:42","session":"s7","reason":"gone"}`, http.StatusConflict},
		{"unknown field", "break", `{"key":"issue:42","why":"gone"}`, http.StatusBadRequest},
	} {
		code, out := f.do(t, "POST", "/api/leases/"+c.path+"?project=repo", c.body, nil)
		wantStatus(t, c.what, code, c.want, out)
	}
	code, out = f.do(t, "POST", "/api/leases/break?project=repo", `{"key":"issue:42","reason":"x"}`, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") })
	wantStatus(t, "break from another origin", code, http.StatusForbidden, out)
	if v := f.lease(t, "issue:42"); !v.Held() || v.Session != "s5" {
		t.Fatalf("refused requests changed bob's lease: %+v", v.Record)
	}

	code, out = f.do(t, "POST", "/api/leases/release?project=repo", `{"key":"path:src/lexer/**","session":"s7"}`, nil)
	wantStatus(t, "release", code, http.StatusOK, out)
	if got := out["leases"].([]any)[0].(map[string]any); got["action"] != lease.Released {
		t.Fatalf("release = %v", out)
	}
	if v := f.lease(t, "path:src/lexer/**"); v.Held() {
		t.Fatalf("after the release from the page: %+v", v.Record)
	}

	const why = "s5's agent crashed an hour ago"
	code, out = f.do(t, "POST", "/api/leases/break?project=repo", `{"key":"issue:42","session":"s5","reason":"`+why+`"}`, nil)
	wantStatus(t, "break", code, http.StatusOK, out)
	if got := out["leases"].([]any)[0].(map[string]any); got["action"] != lease.Broken || got["from"] != "s5" {
		t.Fatalf("break = %v", out)
	}
	v := f.lease(t, "issue:42")
	last := v.History[len(v.History)-1]
	if v.Held() || last.Action != "break" || last.Reason != why || !strings.HasPrefix(last.By, "dev@example.com") {
		t.Fatalf("after the break from the page: %+v, last event %+v", v.Record, last)
	}
	code, out = f.do(t, "GET", "/api/leases?project=repo", "", nil)
	wantStatus(t, "leases after", code, http.StatusOK, out)
	if len(leaseItems(t, out)) != 0 {
		t.Fatalf("leases held after release and break: %v", out)
	}
	code, out = f.do(t, "GET", "/api/leases?project=repo&all=true", "", nil)
	wantStatus(t, "all leases", code, http.StatusOK, out)
	if all := leaseItems(t, out); all["issue:42"]["state"] != lease.StateBroken || all["path:src/lexer/**"]["state"] != lease.StateReleased {
		t.Fatalf("all leases after release and break: %v", out)
	}
	code, out = f.do(t, "POST", "/api/leases/break?project=repo", `{"key":"issue:42","reason":"again"}`, nil)
	wantStatus(t, "break a broken lease", code, http.StatusConflict, out)
}
