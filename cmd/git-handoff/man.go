package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// manCommand prints the man page generated from the app itself, which
// `make install` puts where `git handoff --help` (that is, `man
// git-handoff`) finds it.
func manCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:   "man",
		Usage:  "print the git-handoff(1) man page",
		Hidden: true,
		Action: func(c *cli.Context) error {
			page, err := c.App.ToManWithSection(1)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(d.stdout, page)
			return err
		},
	}
}
