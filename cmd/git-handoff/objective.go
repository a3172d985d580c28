package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func objectiveCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "objective",
		Usage:     "show, set or clear the objective for me on this branch",
		ArgsUsage: "[TEXT...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "clear", Usage: "clear the objective"},
			ownerFlag(), branchFlag(),
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			text := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
			if text != "" && c.Bool("clear") {
				return usageErrorf(c, "give TEXT or --clear, not both")
			}
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			res, err := handoff.Objective(c.Context, st, handoff.ObjectiveOptions{
				Owner: c.String("owner"), Branch: c.String("branch"), Text: text, Clear: c.Bool("clear"),
			}, d.Now)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return d.printJSON(objectiveResultJSON{Objective: view.OfObjective(res.Objective), Changed: res.Changed, Redacted: view.NonNil(res.Redacted)})
			}
			notify(d.stderr, res.Notices)
			switch {
			case res.Objective != nil:
				fmt.Fprintln(d.stdout, res.Objective.Text)
			case c.Bool("clear") && res.Changed:
				fmt.Fprintln(d.stderr, "objective cleared")
			default:
				fmt.Fprintf(d.stderr, "no objective for %s on %s\n", res.Who.Owner, res.Who.Branch)
			}
			return nil
		},
	}
}
