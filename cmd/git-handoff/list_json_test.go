package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/gittest"
	"github.com/git-handoff/git-handoff/internal/safetext"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/view"
)

// list --json encodes each item as it is read, keeps it as text and
// prints it indented once all are sorted: what it prints must be what one
// Encoder prints of the same listing through safetext.Writer, byte for byte: with text a terminal must not
// see, with a snapshot of uncommitted work (the Encoder's part of an
// item), and past the 512 batons that start the reading pipeline.
func TestListJSONMatchesEncoder(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.Init(t)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "add", "a.txt")
	gittest.Run(t, dir, "commit", "-q", "-m", "files")
	runListing(t, dir, "init", "--no-hooks")
	hostile := "c1 \u0085\u009b2J del \x7f bidi \u202e\u2066 esc \x1b[31m tab\t \u2028 <&> \"q\" \\"
	runListing(t, dir, "start", "--session", "s-snap", "--harness", "claude-code")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runListing(t, dir, "end", "--next", "snapshot "+hostile, "--snapshot")
	gittest.Run(t, dir, "checkout", "-q", "-f", "-b", "other")
	runListing(t, dir, "end", "--next", hostile, "--next", "second step")
	// Many more, written as raw records (as the benchmarks write them).
	writeManyBatons(t, dir, 600, hostile)
	for _, layout := range []string{"loose", "packed"} {
		if layout == "packed" {
			gittest.Run(t, dir, "pack-refs", "--all")
		}
		got := runListing(t, dir, "list", "--all", "--json")
		if !bytes.Contains(got, []byte(`"snapshot": {`)) || !bytes.Contains(got, []byte(`\u202e`)) {
			t.Fatalf("%s: the listing lacks what the test is for:\n%.2000s", layout, got)
		}
		if want := encodedListing(t, dir); !bytes.Equal(got, want) {
			t.Fatalf("%s refs: list --json differs from the Encoder's through safetext:\n%s", layout, firstDiff(got, want))
		}
	}
}

// encodedListing is list --all --json as encoding/json writes the whole
// listing, through safetext.Writer.
func encodedListing(t *testing.T, dir string) []byte {
	t.Helper()
	ctx := context.Background()
	st, err := refstore.Open(ctx, dir, refstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := handoff.List(ctx, st, handoff.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	items := make([]view.Listed, len(res.Handoffs))
	for i := range res.Handoffs {
		h := &res.Handoffs[i]
		sn, ok := res.Snapshots[h.SessionID]
		items[i] = view.OfListed(h, sn, ok)
	}
	var out bytes.Buffer
	w := safetext.NewWriter(&out)
	// The whole listing as one value through one Encoder: not the item
	// by item printing list --json does.
	if err := printJSON(w, view.List{Handoffs: items, Notices: view.NonNil(res.Notices)}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return out.Bytes()
}

// writeManyBatons writes n batons of other owners, each with text in its
// first next step, through one fast-import and one update-ref.
func writeManyBatons(t *testing.T, dir string, n int, text string) {
	t.Helper()
	step, err := json.Marshal(text)
	if err != nil {
		t.Fatal(err)
	}
	var blobs, refs strings.Builder
	for i := range n {
		body := fmt.Sprintf(`{"schema":"handoff/v1","id":"h-many%03d","owner":"o%d@example.com","branch":"b%d","shared":false,"nextSteps":[%s,"%d"],"createdAt":"2026-11-01T12:%02d:00Z","claimed":%v}`,
			i, i%7, i, step, i, i%60, i%3 == 0)
		fmt.Fprintf(&blobs, "blob\nmark :%d\ndata %d\n%s\n", i+1, len(body), body)
	}
	marks := filepath.Join(t.TempDir(), "marks")
	cmd := exec.Command("git", "fast-import", "--quiet", "--export-marks="+marks)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(blobs.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	data, err := os.ReadFile(marks)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var i int
		var id string
		if _, err := fmt.Sscanf(line, ":%d %s", &i, &id); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&refs, "create refs/ao/handoffs/private/o%d@example.com/b%d %s\n", (i-1)%7, i-1, id)
	}
	cmd = exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(refs.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("update-ref: %v\n%s", err, out)
	}
}
