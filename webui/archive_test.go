package webui_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/archive"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/webui"
)

// The status page answers for a session retired into the archive: its
// record, marked archived, and the line through it.
func TestArchivedSessionAPI(t *testing.T) {
	f := newFixture(t, webui.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := f.store(t)
	live, err := st.Get(ctx, "refs/ao/sessions/s3")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := archive.SessionPath("s3")
	if _, err := archive.Add(ctx, st, "2026-01", []archive.Entry{{Path: p, OID: live.OID}}, "archive: retire s3"); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, "archive: retire s3", refstore.Update{Ref: live.Ref, Old: live.OID}); err != nil {
		t.Fatal(err)
	}
	code, out := f.do(t, "GET", "/api/sessions/s3?project=repo", "", nil)
	wantStatus(t, "show archived", code, http.StatusOK, out)
	if s := out["session"].(map[string]any); s["archived"] != "2026-01" || s["replacedBy"] != "s5" || s["ref"] != "refs/ao/archive/2026-01:sessions/s3" {
		t.Fatalf("show archived = %v", out)
	}
	code, out = f.do(t, "GET", "/api/sessions/s5?project=repo", "", nil)
	wantStatus(t, "show live", code, http.StatusOK, out)
	if _, ok := out["session"].(map[string]any)["archived"]; ok {
		t.Fatalf("a live session marked archived: %v", out)
	}
	for _, id := range []string{"s3", "s5"} {
		code, out = f.do(t, "GET", "/api/sessions/"+id+"/lineage?project=repo", "", nil)
		wantStatus(t, "lineage through the archive", code, http.StatusOK, out)
		chain := out["lineage"].(map[string]any)["chain"].([]any)
		if len(chain) != 2 || chain[0].(map[string]any)["id"] != "s3" || chain[1].(map[string]any)["id"] != "s5" {
			t.Fatalf("lineage of %s = %v", id, out)
		}
	}
}
