package main

import (
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-handoff/git-handoff/internal/gittest"
)

// TestScriptsMatrix runs testdata/matrix/*.txtar with the scenarios' own
// setup: under `make test-git`, the git the scripts run is the row's and
// the repositories it makes have the row's formats (gittest.Row), so the
// scenarios cannot silently run on another git. Outside the matrix the
// `gitmatrix` command only checks that git answers.
func TestScriptsMatrix(t *testing.T) {
	row, inMatrix, err := gittest.MatrixRow()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/matrix",
		Setup: setupScript,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			// gitmatrix [DIR...]: the git on the script's PATH is the
			// row's, and each DIR is a repository in the row's formats.
			"gitmatrix": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg {
					ts.Fatalf("unsupported: ! gitmatrix")
				}
				git := func(args ...string) (string, error) {
					err := ts.Exec("git", args...)
					return strings.TrimSpace(ts.ReadFile("stdout")), err
				}
				if !inMatrix {
					_, err := git("--version")
					ts.Check(err)
					return
				}
				ts.Check(row.CheckGit(git))
				for _, dir := range args {
					ts.Check(row.CheckRepo(git, ts.MkAbs(dir)))
				}
			},
		},
	})
}
