package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/view"
)

func claimCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:  "claim",
		Usage: "claim the baton waiting for this session (exactly one claimer wins)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "the claiming session `ID` (default: GIT_HANDOFF_SESSION, else this worktree's)"},
			ownerFlag(), branchFlag(),
			&cli.BoolFlag{Name: "offline", Usage: "claim locally even when a remote knows the baton; the next sync settles it"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			res, err := handoff.Claim(c.Context, st, handoff.ClaimOptions{
				Session: c.String("session"), Owner: c.String("owner"), Branch: c.String("branch"),
				Arbiter: arbiterFor(c.Bool("offline")),
			}, d.Now)
			if err != nil {
				d.printLost(c, res.Notices, res.Conflicts, claimJSON{Notices: view.NonNil(res.Notices), Conflicts: res.Conflicts})
				if errors.Is(err, handoff.ErrNoArbiter) {
					return withHint(fmt.Errorf("claiming the baton: %w", err), "claims go to one remote per team (git config "+teamsync.ArbiterKey+"), set by `git handoff init --remote <name>`")
				}
				return fmt.Errorf("claiming the baton: %w", err)
			}
			if c.Bool("json") {
				return d.printJSON(claimJSON{Handoff: view.OfBaton(&res.Handoff), Claimed: true, Notices: view.NonNil(res.Notices), Conflicts: res.Conflicts})
			}
			notify(d.stderr, res.Notices)
			fmt.Fprintf(d.stdout, "claimed baton %s for session %s\n", res.Handoff.ID, res.Handoff.ClaimedBySession)
			return nil
		},
	}
}
