//go:build !lean

package main

import (
	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/session"
)

// prFactsCommand is how the lean build's brief gets a pull request's facts
// (lean.go): it has no HTTP stack, so it asks this build, once per brief,
// and only for a session that owns a pull request.
func prFactsCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:   "facts",
		Usage:  "a brief's section on a pull request, as JSON (for git-handoff's lean build)",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Required: true, Usage: "OWNER/NAME the session's record names"},
			&cli.IntFlag{Name: "number", Required: true},
			&cli.StringFlag{Name: "url"},
		},
		Action: func(c *cli.Context) error {
			md, notices := d.prFacts(c.Context, &session.PRPointer{Repo: c.String("repo"), Number: c.Int("number"), URL: c.String("url")})
			if notices == nil {
				notices = []string{}
			}
			return d.printJSON(prFactsJSON{Markdown: md, Notices: notices})
		},
	}
}
