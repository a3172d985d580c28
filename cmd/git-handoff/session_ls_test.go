package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

var updateSessionTable = flag.Bool("update-session-table", false, "rewrite testdata/listing/session_ls*.txt from this build's output")

// The session table is written without tabwriter (writeTable): these
// goldens were written by the tabwriter table before that change, over
// the records of TestListingsMatchGoldens (hostile text, lineage
// problems, records skipped), and the table must still print them byte
// for byte, loose refs and packed.
func TestSessionTableMatchesGoldens(t *testing.T) {
	goldens, err := filepath.Abs(filepath.Join("testdata", "listing"))
	if err != nil {
		t.Fatal(err)
	}
	gittest.Isolate(t)
	dir := gittest.Init(t)
	writeListingRecords(t, dir)
	for _, layout := range []string{"loose", "packed"} {
		if layout == "packed" {
			gittest.Run(t, dir, "pack-refs", "--all")
		}
		for _, c := range []struct {
			golden string
			args   []string
		}{
			{"session_ls_all.txt", []string{"session", "ls", "--all"}},
			{"session_ls.txt", []string{"session", "ls"}},
		} {
			got := runListing(t, dir, c.args...)
			path := filepath.Join(goldens, c.golden)
			if *updateSessionTable && layout == "loose" {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%v (%s refs) differs from %s:\n%s", c.args, layout, path, firstDiff(got, want))
			}
		}
	}
}
