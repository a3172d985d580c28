package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/teamsync"
	"github.com/git-handoff/git-handoff/view"
)

func syncCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "exchange batons, objectives, sessions and PR records with a remote",
		ArgsUsage: "[REMOTE]",
		Description: "Fetches the remote's records, joins each with the local one (the same answer in any order on any\n" +
			"machine), updates the local refs and pushes every changed ref with a lease on what was fetched.\n" +
			"Where two versions could not be ordered, the one kept is chosen by a fixed rule, and sync says which\n" +
			"rule and which fields differ (--json adds the whole line diff); another baton dropped goes to the archive,\n" +
			"and another version of the same record stays in the reflog until its ref retires. --dry-run\n" +
			"says what it would change. Only records whose two sides differ are read:\n" +
			"a sync with nothing new reads no record and moves no ref.\n\n" +
			"Sync also retires final records at once: ended sessions no live session needs, claimed or\n" +
			"cancelled batons, cleared objectives, merged pull requests' records, and dismissed batons older than\n" +
			"git config " + teamsync.RetentionKey + " (default 7d; the undo window of a dismissal, and how far back\n" +
			"`session ls --all` reaches). They leave the live refs here and on the remote and move to the monthly\n" +
			"archive under refs/ao/archive/, where `session show`, `session lineage`, `pr show`, `log` and the\n" +
			"status page still find them. In a clone with no remote at all, sync retires what is final here alone\n" +
			"(\"no remote to sync with: …\"), as the writing commands there also do once an hour.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "fetch and show what would change, change nothing"},
			&cli.BoolFlag{Name: "retire", Usage: "judge every record for retirement now, even with nothing new (sync does once a day on its own)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			st, err := d.Store(c.Context)
			if err != nil {
				return err
			}
			retention, err := teamsync.Retention(c.Context, st)
			if err != nil {
				return err
			}
			now := d.Now()
			remote := c.Args().First()
			if remote == "" {
				if names, err := st.Remotes(c.Context); err != nil {
					return err
				} else if len(names) == 0 {
					// Nothing to exchange with: what is final retires here.
					res, err := teamsync.RetireHere(c.Context, st, teamsync.Options{DryRun: c.Bool("dry-run"), Retention: retention, Now: now})
					return printHere(d, c.Bool("json"), res, err)
				}
				if remote, err = teamsync.DefaultRemote(c.Context, st); err != nil {
					return err
				}
			}
			opts := teamsync.Options{Remote: remote, DryRun: c.Bool("dry-run"), Retention: retention, Now: now,
				Retire: c.Bool("retire") || teamsync.RetireDue(st, remote, now)}
			if f, ok := d.stderr.(*os.File); ok && syncIsTerminal(f) {
				opts.Progress = d.stderr
			}
			res, err := teamsync.Sync(c.Context, st, opts)
			if err != nil {
				if errors.Is(err, teamsync.ErrUnknownRemote) {
					return withHint(fmt.Errorf("syncing: %w", err), "name a remote (`git handoff sync upstream`), or set one up with `git handoff init --remote NAME`")
				}
				var ce *teamsync.ContentionError
				if errors.As(err, &ce) {
					return withHint(fmt.Errorf("syncing with %s: %w", remote, err), "others are writing the same records right now; nothing was lost: run git handoff sync again")
				}
				return fmt.Errorf("syncing with %s: %w", remote, err)
			}
			if c.Bool("json") {
				return d.printJSON(syncJSON{
					Remote: res.Remote, DryRun: res.DryRun, Records: res.Records, Attempts: res.Attempts, Retired: res.Retired,
					Local: syncChanges(res.Local), Pushed: syncChanges(res.Pushed),
					Conflicts: view.NonNil(res.Conflicts), Withheld: syncChanges(res.Withheld),
					Snapshots: syncChanges(res.Snapshots),
					Notices:   view.NonNil(res.Warnings),
				})
			}
			notify(d.stderr, d.notYetSaid(res.Warnings))
			printConflicts(d.stdout, res.Conflicts)
			if w := withheldNotice(res); w != "" {
				fmt.Fprintf(d.stderr, "warning: %s\n", w)
			}
			for _, sc := range res.Snapshots {
				where := "here"
				if sc.Reason == "pushed" {
					where = "to " + res.Remote
				}
				if res.DryRun {
					verb := "update"
					if sc.Reason == "pushed" {
						verb = "push"
					}
					fmt.Fprintf(d.stderr, "would %s the %s %s (%s)\n", verb, sc.What, where, syncShortID(sc.New))
					continue
				}
				fmt.Fprintf(d.stderr, "%s %s: %s\n", sc.What, where, syncShortID(sc.New))
			}
			fmt.Fprintln(d.stderr, syncSummary(res))
			return nil
		},
	}
}

// printHere says what a sync with no remote retired here (RetireHere).
func printHere(d *deps, asJSON bool, res teamsync.Result, err error) error {
	if err != nil {
		return fmt.Errorf("retiring final records (no remote): %w", err)
	}
	if asJSON {
		return d.printJSON(syncJSON{
			Remote: "", DryRun: res.DryRun, Records: res.Records, Attempts: res.Attempts, Retired: res.Retired,
			Local: syncChanges(res.Local), Pushed: syncChanges(nil), Conflicts: view.NonNil(res.Conflicts),
			Withheld: syncChanges(nil), Snapshots: syncChanges(res.Snapshots), Notices: view.NonNil(res.Warnings),
		})
	}
	notify(d.stderr, d.notYetSaid(res.Warnings))
	verb, what := "retired", "to the archive"
	if res.DryRun {
		verb, what = "would retire", "to the archive (dry run: nothing changed)"
	}
	fmt.Fprintf(d.stderr, "no remote to sync with: judged %d record%s here, %s %d %s\n", res.Records, plural(res.Records), verb, res.Retired, what)
	return nil
}

// syncSummary is the closing line of a sync; a dry run says what it would
// have done, in the conditional, so that no one reads it as done.
func syncSummary(res teamsync.Result) string {
	if res.DryRun {
		retired := ""
		if res.Retired > 0 {
			retired = fmt.Sprintf(", would retire %d to the archive", res.Retired)
		}
		return fmt.Sprintf("dry run: compared %d record%s with %s: would update %d here, would push %d, %d conflict%s%s (dry run: nothing changed)",
			res.Records, plural(res.Records), res.Remote, len(res.Local), len(res.Pushed), len(res.Conflicts), plural(len(res.Conflicts)), retired)
	}
	retired := ""
	if res.Retired > 0 {
		retired = fmt.Sprintf(", %d retired to the archive", res.Retired)
	}
	return fmt.Sprintf("synced %d record%s with %s: %d updated here, %d pushed, %d conflict%s%s",
		res.Records, plural(res.Records), res.Remote, len(res.Local), len(res.Pushed), len(res.Conflicts), plural(len(res.Conflicts)), retired)
}

// withheldNotice is the one line that tells of records sync withheld, or
// "" when there are none.
func withheldNotice(res teamsync.Result) string {
	n := len(res.Withheld)
	if n == 0 {
		return ""
	}
	more := ""
	if n > 1 {
		more = fmt.Sprintf(" and %d more", n-1)
	}
	return fmt.Sprintf("%s no longer has %s%s, which it held at the last sync (retired there?); unchanged here, so kept here and not pushed back",
		res.Remote, res.Withheld[0].What, more)
}

func syncIsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0 && !strings.EqualFold(os.Getenv("TERM"), "dumb")
}

func syncShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

type syncJSON struct {
	Remote    string             `json:"remote"`
	DryRun    bool               `json:"dryRun"`
	Records   int                `json:"records"`
	Attempts  int                `json:"attempts"`
	Retired   int                `json:"retired"` // records retention moved to the archive (each in local or pushed, reason "retired")
	Local     []syncChangeJSON   `json:"local"`
	Pushed    []syncChangeJSON   `json:"pushed"`
	Conflicts []handoff.Conflict `json:"conflicts"`
	Withheld  []syncChangeJSON   `json:"withheld"`
	Snapshots []syncChangeJSON   `json:"snapshots,omitempty"` // snapshot refs moved (commit ids), here ("merged") or at the remote ("pushed")
	Notices   []string           `json:"notices"`             // what the text output says on stderr
}

// syncChangeJSON is one ref sync moved; old and new are blob ids, "" for
// absent.
type syncChangeJSON struct {
	Ref    string `json:"ref"`
	Old    string `json:"old"`
	New    string `json:"new"`
	Reason string `json:"reason"`
	What   string `json:"what"`
}

func syncChanges(cs []teamsync.Change) []syncChangeJSON {
	out := make([]syncChangeJSON, len(cs))
	for i, c := range cs {
		out[i] = syncChangeJSON{Ref: c.Ref, Old: c.Old, New: c.New, Reason: c.Reason, What: c.What}
	}
	return out
}

// printLost reports a claim or take-back that failed: what its join
// replaced here (conflicts) is data, as sync's is, so --json prints the
// command's own shape (asJSON) when there were any, and otherwise they are
// lines on stderr after the notices.
func (d *deps) printLost(c *cli.Context, notices []string, conflicts []handoff.Conflict, asJSON any) {
	if c.Bool("json") && len(conflicts) > 0 {
		_ = d.printJSON(asJSON)
	}
	notify(d.stderr, notices)
	if !c.Bool("json") {
		printConflicts(d.stderr, conflicts)
	}
}

// printConflicts writes each conflict a join settled as a user reads it:
// which record, which version was kept and why, and the fields that
// differ. Bookkeeping fields never show here; --json has the whole diff.
func printConflicts(w io.Writer, cs []handoff.Conflict) {
	for _, cf := range cs {
		fmt.Fprintf(w, "conflict: %s\n", cf.Summary)
		fmt.Fprintf(w, "  why: %s\n", cf.Why)
		width := 0
		for _, f := range cf.Fields {
			width = max(width, len(f.Field))
		}
		for _, f := range cf.Fields {
			fmt.Fprintf(w, "  %-*s kept %s, dropped %s\n", width+1, f.Field+":", conflictValue(f.Kept), conflictValue(f.Dropped))
		}
		fmt.Fprintf(w, "  the dropped version: git cat-file -p %s\n", cf.Dropped)
	}
}

// conflictValue shows one field's JSON value on one short line.
func conflictValue(v json.RawMessage) string {
	if len(v) == 0 {
		return "(absent)"
	}
	s := string(v)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// arbiterFor is who decides a claim: the remote that knows the baton, or
// with --offline this clone alone.
func arbiterFor(offline bool) handoff.Arbiter {
	if offline {
		return handoff.Local{}
	}
	return teamsync.Arbiter{}
}
