package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

// prRouteJSON is the result of `pr route --json`.
type prRouteJSON struct {
	Repo    string   `json:"repo"`
	Number  int      `json:"number"`
	URL     string   `json:"url"`
	Owner   string   `json:"owner"`   // the session the record names
	Session string   `json:"session"` // where CI and review work goes now
	Status  string   `json:"status"`  // that session's status; "" when this clone has no record of it
	Chain   []string `json:"chain"`   // owner … session, along replacedBy
	Merged  bool     `json:"merged"`
	Notices []string `json:"notices"`
}

func prRouteCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "route",
		Usage:     "print the session that should receive CI and review work on a pull request now",
		ArgsUsage: "NUMBER|URL",
		Description: "Reads the owner from git and follows replacedBy to the newest session of its line. Prints its id\n" +
			"on stdout (notices, such as a terminated session, on stderr). Exit 6 when nobody owns the pull\n" +
			"request. Makes no GitHub request: an orchestrator can call it for every event.",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			st, t, err := localTarget(c, d)
			if err != nil {
				return err
			}
			r, err := handoff.PRRoute(c.Context, st, t.name(), t.Number)
			if err != nil {
				return prHint(t.Number, err)
			}
			if c.Bool("json") {
				return d.printJSON(prRouteJSON{
					Repo: r.Repo, Number: r.Number, URL: r.URL, Owner: r.Owner, Session: r.Session,
					Status: r.Status, Chain: view.NonNil(r.Chain), Merged: r.Merged, Notices: view.NonNil(r.Notices),
				})
			}
			notify(d.stderr, r.Notices)
			fmt.Fprintln(d.stdout, r.Session)
			return nil
		},
	}
}
