package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/view"
)

func sessionShowCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one session record (default: this worktree's session)",
		ArgsUsage: "[ID]",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			st, id, err := d.storeAndSession(c)
			if err != nil {
				return err
			}
			res, err := handoff.SessionFind(c.Context, st, id)
			if err != nil {
				return sessionError(c, "showing session", id, err)
			}
			summary := res.Lineage
			if c.Bool("json") {
				out := view.OfSession(res.Session.Record, true)
				out.Lineage = summary
				out.Status = res.Status
				out.WithRuntime(res.Runtime)
				out.MarkArchived(res.Session.Archived, res.Session.Ref)
				return d.printJSON(out)
			}
			s := res.Session.Record
			w := d.stdout
			fmt.Fprintf(w, "session   %s\n", summary)
			fmt.Fprintf(w, "status    %s\n", res.Status)
			if a := res.Session.Archived; a != "" {
				fmt.Fprintf(w, "archived  %s (%s)\n", a, res.Session.Ref)
			}
			if res.Runtime != nil {
				fmt.Fprintf(w, "runtime   %s, tmux session %s on %s\n", runtimeText(res.Runtime), res.Runtime.Name, orDash(res.Runtime.Socket))
			}
			agent := orDash(s.Harness)
			if s.Model != "" {
				agent += " (" + orDash(s.Model) + ")"
			}
			fmt.Fprintf(w, "agent     %s\n", agent)
			fmt.Fprintf(w, "owner     %s\n", orDash(s.Owner))
			fmt.Fprintf(w, "branch    %s\n", orDash(s.Branch))
			fmt.Fprintf(w, "worktree  %s\n", orDash(s.Worktree))
			if s.Host != "" {
				fmt.Fprintf(w, "host      %s\n", s.Host)
			}
			fmt.Fprintf(w, "created   %s\n", stamp(s.CreatedAt))
			fmt.Fprintf(w, "updated   %s\n", stamp(s.UpdatedAt))
			if s.EndedAt != nil {
				fmt.Fprintf(w, "ended     %s\n", stamp(*s.EndedAt))
			}
			if s.Supersedes != "" {
				fmt.Fprintf(w, "replaces  %s (%s, context %s)\n", s.Supersedes, orDash(s.HandoffReason), orDash(s.HandoffContextMode))
			}
			if s.ReplacedBy != "" {
				fmt.Fprintf(w, "replaced  by %s\n", s.ReplacedBy)
			}
			if s.Switching != nil {
				fmt.Fprintf(w, "switching to %s by %s until %s\n", s.Switching.To, s.Switching.By, stamp(s.Switching.Until))
			}
			printContinued(w, s)
			names := make([]string, 0, len(s.Launched))
			for h := range s.Launched {
				names = append(names, h)
			}
			slices.Sort(names)
			for _, h := range names {
				l := s.Launched[h]
				fmt.Fprintf(w, "launched  %s: native id %s, first %s, last %s\n", h, orDash(l.NativeID), stamp(l.First), stamp(l.Last))
			}
			if s.PR != nil {
				fmt.Fprintf(w, "pr        %s#%d\n", s.PR.Repo, s.PR.Number)
			}
			if s.Prompt != "" {
				fmt.Fprintf(w, "\nprompt:\n%s\n", indent(s.Prompt))
			}
			if s.Summary != "" {
				fmt.Fprintf(w, "\nsummary:\n%s\n", indent(s.Summary))
			}
			if s.HandoffPackage != "" {
				fmt.Fprintf(w, "\nhandoff package:\n%s\n", indent(strings.TrimRight(s.HandoffPackage, "\n")))
			}
			return nil
		},
	}
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
