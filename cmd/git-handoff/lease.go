package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/lease"
	"github.com/git-handoff/git-handoff/refstore"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/view"
)

// leaseCommand groups the lease commands: thin translations to the
// handoff lease workflows, at the board teamsync.LeaseBoard chooses.
func leaseCommand(d *deps) *cli.Command {
	sessionFlag := &cli.StringFlag{Name: "session", Usage: "the session `ID` (default: GIT_HANDOFF_SESSION, else this worktree's)"}
	offlineFlag := &cli.BoolFlag{Name: "offline", Usage: "decide in this clone only, without asking the arbiter; the next sync settles it"}
	return &cli.Command{
		Name:  "lease",
		Usage: "exclusive, expiring claims on work: issues, pull requests, paths, named things",
		Description: "A lease says one session works on something; no other session can take it until it is released,\n" +
			"broken, or expires. KEY is issue:N (also #N, OWNER/REPO#N or an issue URL), pr:N (or a pull request\n" +
			"URL), path:PATHSPEC (git's pathspec rules; overlapping path leases conflict) or key:NAME. Leases are\n" +
			"decided by compare-and-swap at the arbiter (git config handoff.arbiter), else in this clone.\n" +
			"A lease expires when its holder stops renewing it: once this machine has seen the same version of it\n" +
			"unchanged for its time to live, by this machine's clock (no clock of another machine is trusted).",
		Subcommands: []*cli.Command{
			{
				Name:      "take",
				Usage:     "take leases on KEYs, all or none (exit 5 when another session holds one)",
				ArgsUsage: "KEY...",
				Flags: []cli.Flag{
					&cli.DurationFlag{Name: "ttl", Value: lease.DefaultTTL, Usage: "time to live `D`: how long others wait after the holder stops renewing",
						Action: func(c *cli.Context, v time.Duration) error {
							if err := lease.CheckTTL(v); err != nil {
								return usageErrorf(c, "--ttl: %v", err)
							}
							return nil
						}},
					&cli.StringFlag{Name: "note", Usage: "what the session does with it"},
					sessionFlag, offlineFlag, jsonFlag,
				},
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return usageErrorf(c, "lease take needs at least one KEY")
					}
					return runLease(c, d, c.Bool("offline"), handoff.LeaseTake, handoff.LeaseOptions{
						Keys: c.Args().Slice(), Session: c.String("session"), TTL: c.Duration("ttl"), Note: c.String("note"),
					})
				},
			},
			{
				Name:      "renew",
				Usage:     "renew the session's leases (KEYs, else all) whose renewal is due (half their TTL passed)",
				ArgsUsage: "[KEY...]",
				Flags:     []cli.Flag{sessionFlag, offlineFlag, jsonFlag},
				Action: func(c *cli.Context) error {
					return runLease(c, d, c.Bool("offline"), handoff.LeaseRenew, handoff.LeaseOptions{Keys: c.Args().Slice(), Session: c.String("session")})
				},
			},
			{
				Name:      "release",
				Usage:     "release the session's leases on KEYs at once",
				ArgsUsage: "KEY...",
				Flags:     []cli.Flag{sessionFlag, offlineFlag, jsonFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return usageErrorf(c, "lease release needs at least one KEY")
					}
					return runLease(c, d, c.Bool("offline"), handoff.LeaseRelease, handoff.LeaseOptions{Keys: c.Args().Slice(), Session: c.String("session")})
				},
			},
			{
				Name:      "break",
				Usage:     "free another session's lease now (a dead holder's), with a reason kept in `git handoff log`",
				ArgsUsage: "KEY",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "reason", Usage: "why (required)"},
					sessionFlag, offlineFlag, jsonFlag,
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf(c, "lease break takes exactly one KEY")
					}
					if strings.TrimSpace(c.String("reason")) == "" {
						return usageErrorf(c, "lease break needs --reason")
					}
					return runLease(c, d, c.Bool("offline"), handoff.LeaseBreak, handoff.LeaseOptions{
						Keys: c.Args().Slice(), Session: c.String("session"), Reason: c.String("reason"),
					})
				},
			},
			{
				Name:  "list",
				Usage: "list the leases held (--all: also released and broken ones)",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "also leases nobody holds"}, sessionFlag, offlineFlag, jsonFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return usageErrorf(c, "lease list takes no arguments")
					}
					return runLeaseList(c, d)
				},
			},
			{
				Name:      "show",
				Usage:     "show one key's lease and its history",
				ArgsUsage: "KEY",
				Flags:     []cli.Flag{sessionFlag, offlineFlag, jsonFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageErrorf(c, "lease show takes exactly one KEY")
					}
					return runLeaseShow(c, d)
				},
			},
		},
	}
}

type leaseWorkflow func(context.Context, refstore.Clone, lease.Board, handoff.LeaseOptions, handoff.Clock) (handoff.LeaseResult, error)

// leaseBoard opens the store and the board leases are decided at.
func leaseBoard(c *cli.Context, d *deps, offline bool) (*refstore.Store, lease.Board, error) {
	st, err := d.Store(c.Context)
	if err != nil {
		return nil, nil, err
	}
	b, err := teamsync.LeaseBoard(c.Context, st, offline)
	if err != nil {
		return nil, nil, withHint(fmt.Errorf("finding where leases are decided: %w", err), "leases go to one remote per team (git config "+teamsync.ArbiterKey+"), set by `git handoff init --remote <name>`; or decide in this clone with --offline")
	}
	return st, b, nil
}

func runLease(c *cli.Context, d *deps, offline bool, wf leaseWorkflow, opts handoff.LeaseOptions) error {
	st, b, err := leaseBoard(c, d, offline)
	if err != nil {
		return err
	}
	res, err := wf(c.Context, st, b, opts, d.Now)
	if errors.Is(err, lease.ErrBadKey) {
		return usageErrorf(c, "%v", err)
	}
	if err != nil {
		notify(d.stderr, res.Notices)
		var ue *teamsync.UnreachableError
		if errors.As(err, &ue) {
			return withHint(err, "retry when the remote is reachable, or decide in this clone with --offline")
		}
		return err
	}
	now := d.Now()
	if c.Bool("json") {
		return d.printJSON(view.OfLeaseResult(res, res.Notices, now))
	}
	notify(d.stderr, res.Notices)
	for _, o := range res.Leases {
		l := o.Lease
		switch o.Action {
		case lease.Taken:
			fmt.Fprintf(d.stdout, "%s taken by session %s for %s (decided at %s)\n", o.Key, l.Session, l.TTL(), res.Where)
		case lease.TookOver:
			fmt.Fprintf(d.stdout, "%s taken by session %s from %s, whose lease expired (decided at %s)\n", o.Key, l.Session, o.From, res.Where)
		case lease.Mine:
			fmt.Fprintf(d.stdout, "%s is already held by session %s\n", o.Key, l.Session)
		case lease.Renewed:
			fmt.Fprintf(d.stdout, "%s renewed for %s\n", o.Key, l.TTL())
		case lease.NotDue:
			fmt.Fprintf(d.stdout, "%s held; renewal not due yet\n", o.Key)
		case lease.Released:
			fmt.Fprintf(d.stdout, "%s released\n", o.Key)
		case lease.NotHeld:
			fmt.Fprintf(d.stdout, "%s was not held\n", o.Key)
		case lease.Broken:
			fmt.Fprintf(d.stdout, "%s broken (held by session %s)\n", o.Key, o.From)
		}
	}
	return nil
}

// The JSON shapes of the lease commands are package view's, shared with
// the MCP lease tools.
type (
	leaseJSON       = view.Lease
	leaseListJSON   = view.LeaseList
	leaseResultJSON = view.LeaseResult
)

func runLeaseList(c *cli.Context, d *deps) error {
	st, b, err := leaseBoard(c, d, c.Bool("offline"))
	if err != nil {
		return err
	}
	vs, err := handoff.LeaseList(c.Context, st, b, handoff.LeaseOptions{Session: c.String("session"), All: c.Bool("all")}, d.Now)
	if err != nil {
		return err
	}
	now := d.Now()
	if c.Bool("json") {
		return d.printJSON(view.OfLeaseList(vs, vs.Notices, now))
	}
	notify(d.stderr, vs.Notices)
	if len(vs.Leases) == 0 {
		fmt.Fprintf(d.stderr, "no leases held (at %s)\n", vs.Where)
		return nil
	}
	tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSTATE\tSESSION\tOWNER\tAGENT\tFREES\tNOTE")
	for _, v := range vs.Leases {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.Record.Key, stateWord(v), v.Session, dash(v.Owner), dash(v.Agent), freesWord(v, now), v.Note)
	}
	return tw.Flush()
}

func runLeaseShow(c *cli.Context, d *deps) error {
	st, b, err := leaseBoard(c, d, c.Bool("offline"))
	if err != nil {
		return err
	}
	v, vs, err := handoff.LeaseShow(c.Context, st, b, handoff.LeaseOptions{Keys: c.Args().Slice(), Session: c.String("session")}, d.Now)
	if errors.Is(err, lease.ErrBadKey) {
		return usageErrorf(c, "%v", err)
	}
	notify(d.stderr, vs.Notices)
	if err != nil {
		return err
	}
	now := d.Now()
	if c.Bool("json") {
		return d.printJSON(view.OfLease(v, now))
	}
	tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
	showLease(tw, v, now)
	return tw.Flush()
}

func showLease(w io.Writer, v lease.View, now time.Time) {
	fmt.Fprintf(w, "%s\t%s\n", v.Record.Key, stateWord(v))
	fmt.Fprintf(w, "session\t%s\nowner\t%s\nagent\t%s\nttl\t%s\nfrees\t%s\n", v.Session, dash(v.Owner), dash(v.Agent), v.TTL(), freesWord(v, now))
	if v.Note != "" {
		fmt.Fprintf(w, "note\t%s\n", v.Note)
	}
	if v.Offline {
		fmt.Fprintln(w, "offline\ttaken without the arbiter")
	}
	for _, e := range v.History {
		line := fmt.Sprintf("  %s  %s", e.At.Local().Format("2006-01-02 15:04:05"), e.Action)
		for _, part := range [][2]string{{"session", e.Session}, {"from", e.From}, {"by", e.By}} {
			if part[1] != "" {
				line += " " + part[0] + " " + part[1]
			}
		}
		if e.Reason != "" {
			line += ": " + e.Reason
		}
		fmt.Fprintln(w, line)
	}
}

func stateWord(v lease.View) string {
	switch {
	case v.Mine:
		return "held (mine)"
	case v.Expired:
		return "held (expired here)"
	case v.Archived:
		return v.State + " (archived)"
	}
	return v.State
}

func freesWord(v lease.View, now time.Time) string {
	switch {
	case !v.Held():
		return "-"
	case v.FreesAt.IsZero():
		return "unknown"
	case v.Expired:
		return "now"
	}
	return "in " + v.FreesAt.Sub(now).Round(time.Second).String() + " unless renewed"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// leasesAfterEnd releases the leases an ended session held; leasesAfter
// Replace hands them to the successor. Only when this clone's copies show
// the session holding one (a session that took none costs no fetch). A
// board that cannot be reached is a notice: the leases then expire after
// their TTL.
func leasesAfterEnd(ctx context.Context, st *refstore.Store, id string, now handoff.Clock) []string {
	if id == "" || !holdsHere(ctx, st, id) {
		return nil
	}
	b, err := teamsync.LeaseBoard(ctx, st, false)
	if err == nil {
		_, err = handoff.LeasesOfEnded(ctx, st, b, id, now)
	}
	if err != nil {
		return []string{fmt.Sprintf("the leases of session %s were not released (%v): they free once their holder's version is unchanged for its TTL", id, err)}
	}
	return nil
}

func leasesAfterReplace(ctx context.Context, st *refstore.Store, from, to string, now handoff.Clock) []string {
	if from == "" || to == "" || !holdsHere(ctx, st, from) {
		return nil
	}
	b, err := teamsync.LeaseBoard(ctx, st, false)
	if err == nil {
		_, err = handoff.LeasesToSuccessor(ctx, st, b, from, to, now)
	}
	if err != nil {
		return []string{fmt.Sprintf("the leases of session %s were not handed to %s (%v): take them again with `git handoff lease take --session %s`", from, to, err, to)}
	}
	return nil
}

func holdsHere(ctx context.Context, st *refstore.Store, id string) bool {
	s, err := lease.ReadBoard(ctx, st, lease.Prefix, lease.GuardRef, refstore.ArchivePrefix)
	if err != nil {
		return true // cannot tell: ask the board
	}
	for _, l := range s.Leases {
		if l.Held() && l.Session == id {
			return true
		}
	}
	return false
}

// withLeaseEvents adds the events the lease records keep (take, takeover,
// release, break, handover: kind "lease-<action>", id the key, owner who
// broke it or the holder's person) to the baton events, newest first, at
// most limit. A lease that cannot be read adds nothing. A lease retired
// to the archive keeps its events there (its key's floor); a key taken
// again since carries them in its live version.
func withLeaseEvents(ctx context.Context, st refstore.Records, events []baton.Event, limit int) []baton.Event {
	s, err := lease.ReadBoardWithArchive(ctx, st, lease.Prefix, lease.GuardRef, refstore.ArchivePrefix)
	if err != nil {
		return events
	}
	list := slices.Collect(maps.Values(s.Leases))
	if retired, err := lease.Retired(ctx, st, s); err == nil {
		list = append(list, retired...)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Ref < list[j].Ref })
	for _, l := range list {
		for _, e := range l.History {
			who := e.By
			if who == "" {
				who = l.Owner
			}
			events = append(events, baton.Event{At: e.At, Kind: "lease-" + e.Action, ID: l.Record.Key, Owner: who,
				Session: e.Session, Ref: l.Ref, Reason: e.Reason})
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].At.After(events[j].At) })
	if limit > 0 && len(events) > limit {
		events = events[:limit]
	}
	return events
}
