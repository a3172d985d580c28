package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

func cancelCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "cancel",
		Usage: "take back my unclaimed private baton for this branch",
		Flags: []cli.Flag{
			ownerFlag(), branchFlag(),
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, who, err := d.storeAndWho(c)
			if err != nil {
				return err
			}
			ref, err := refstore.HandoffRef(false, who.Owner, who.Branch)
			if err != nil {
				return err
			}
			var cancelled *baton.Stored
			h, err := baton.Read(c.Context, st, ref)
			switch {
			case errors.Is(err, refstore.ErrNotFound):
			case err != nil:
				return fmt.Errorf("cancelling the baton: %w", err)
			case h.Claimed:
				notify(d.stderr, []string{fmt.Sprintf("baton %s was already claimed by session %s: nothing to cancel", h.ID, h.ClaimedBySession)})
			case h.Live():
				out, err := baton.Delete(c.Context, st, h, "cancelled", d.Now())
				if err != nil {
					return fmt.Errorf("cancelling baton %s: %w", h.ID, err)
				}
				cancelled = &out
			}
			if c.Bool("json") {
				return printJSON(d.stdout, map[string]any{"cancelled": cancelled != nil, "handoff": toJSON(cancelled)})
			}
			if cancelled == nil {
				fmt.Fprintf(d.stderr, "no baton of %s is waiting on %s\n", who.Owner, who.Branch)
				return nil
			}
			fmt.Fprintf(d.stdout, "cancelled baton %s\n", cancelled.ID)
			return nil
		},
	}
}
