package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
)

func objectiveCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "objective",
		Usage:     "show, set or clear the objective for me on this branch",
		ArgsUsage: "[TEXT]",
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
			st, who, err := d.storeAndWho(c)
			if err != nil {
				return err
			}
			changed := false
			if text != "" || c.Bool("clear") {
				session, _ := handoff.SessionID(st, "")
				if changed, err = baton.SetObjective(c.Context, st, who.Owner, who.Branch, text, session, d.Now()); err != nil {
					return fmt.Errorf("setting the objective: %w", err)
				}
			}
			obj, _, err := baton.ReadObjective(c.Context, st, who.Owner, who.Branch)
			if err != nil {
				return fmt.Errorf("reading the objective: %w", err)
			}
			if c.Bool("json") {
				return printJSON(d.stdout, map[string]any{"objective": obj, "changed": changed})
			}
			switch {
			case obj != nil:
				fmt.Fprintln(d.stdout, obj.Text)
			case c.Bool("clear") && changed:
				fmt.Fprintln(d.stderr, "objective cleared")
			default:
				fmt.Fprintf(d.stderr, "no objective for %s on %s\n", who.Owner, who.Branch)
			}
			return nil
		},
	}
}
