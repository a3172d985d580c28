//go:build urfave_cli_no_docs

package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// manCommand, in a build without urfave/cli's documentation support (which
// links a Markdown engine and costs every start a millisecond), says where
// the page comes from instead.
func manCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:   "man",
		Usage:  "print the git-handoff(1) man page",
		Hidden: true,
		Action: func(c *cli.Context) error {
			return withHint(errors.New("this git-handoff was built without man page support"), "run `make git-handoff.1`, which builds the page from the source")
		},
	}
}
