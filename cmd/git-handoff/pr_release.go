package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/prown"
)

// prReleaseJSON is the result of `pr release --json`.
type prReleaseJSON struct {
	Record        prRecordJSON `json:"record"`
	PreviousOwner string       `json:"previousOwner"`
	Changed       bool         `json:"changed"`
}

func prReleaseCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "release",
		Usage:     "leave a pull request without an owning session (local; GitHub is not told)",
		UsageText: "git handoff pr release NUMBER|URL [--json]",
		Description: "Clears the owner and the owner session's pr pointer in one transaction; the history keeps the\n" +
			"release. Releasing what nobody owns changes nothing. The ownership comment on GitHub is edited\n" +
			"by the next claim.",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf(c, "pr release takes exactly one pull request")
			}
			ctx := c.Context
			st, t, err := localTarget(c, d)
			if err != nil {
				return err
			}
			res, err := prown.Release(ctx, st, t.name(), t.Number, d.Now())
			if err != nil {
				return prError(fmt.Sprintf("releasing #%d", t.Number), t, err)
			}
			if c.Bool("json") {
				return printJSON(d.stdout, prReleaseJSON{Record: toPRRecordJSON(res.Record), PreviousOwner: res.Previous, Changed: res.Changed})
			}
			if res.Changed {
				fmt.Fprintf(d.stderr, "released %s#%d (was owned by %s)\n", res.Record.Repo, res.Record.Number, res.Previous)
			} else {
				fmt.Fprintf(d.stderr, "%s#%d has no owner; nothing to release\n", res.Record.Repo, res.Record.Number)
			}
			return nil
		},
	}
}
