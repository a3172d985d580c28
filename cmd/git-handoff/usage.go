package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// progName is how every message names the command: git runs us as
// `git-handoff` (argv[0] "git-handoff") when the user typed `git handoff`,
// so argv[0] cannot tell the two apart, and what the user typed is what a
// hint must repeat.
const progName = "git handoff"

// usageError is wrong use of a command: exit 129, with a pointer to its
// help.
type usageError struct {
	msg  string
	help string
}

func (e *usageError) Error() string { return e.msg }

func usageErrorf(c *cli.Context, format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...), help: helpFor(commandPath(c))}
}

// helpFor is the help command for the command at path ("pr claim").
func helpFor(path string) string {
	return strings.TrimSpace(progName+" "+path) + " --help"
}

// commandPath names the command c runs from the top ("pr claim"), so a hint
// points at help that exists. urfave/cli v2's Command.FullName never learns
// the parents (it reads a path nothing sets), so walk the contexts instead.
func commandPath(c *cli.Context) string {
	if c == nil {
		return ""
	}
	var names []string
	for _, ctx := range c.Lineage() {
		// The app's own root command is named after the app.
		if ctx.Command == nil || ctx.Command.Name == "" || (ctx.App != nil && ctx.Command.Name == ctx.App.Name) {
			continue
		}
		if len(names) > 0 && names[0] == ctx.Command.Name {
			continue // a command with subcommands appears in two contexts
		}
		names = append([]string{ctx.Command.Name}, names...)
	}
	return strings.Join(names, " ")
}

// onUsageError turns the flag package's complaints, which name every flag
// with one dash ("flag provided but not defined: -nxt"), into git's
// wording with the flag as the user writes it, and suggests the flag that
// was probably meant.
func onUsageError(c *cli.Context, err error, _ bool) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var flags []cli.Flag
		if c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name {
			flags = c.Command.Flags
		} else {
			flags = c.App.Flags
		}
		var names []string
		for _, f := range visibleFlags(flags) {
			names = append(names, f.Names()...)
		}
		names = append(names, "help")
		return usageErrorf(c, "unknown option `%s`%s", dashed(name), didYouMean(name, names, dashed))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usageErrorf(c, "option `%s` needs a value", dashed(name))
	}
	// invalid value "x" for flag -max-bytes: parse error
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if i := strings.Index(rest, " for flag -"); i >= 0 {
			value := rest[:i]
			name, cause, _ := strings.Cut(rest[i+len(" for flag -"):], ": ")
			return usageErrorf(c, "invalid value %s for option `%s`: %s", value, dashed(name), cause)
		}
	}
	return usageErrorf(c, "%s", msg)
}

// dashed writes a flag's name as it is typed: -n, --next.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// unknownCommand is the error for a command word nobody defined: path is
// the command it was given to ("" at the top), candidates the commands
// there.
func unknownCommand(path, name string, candidates []*cli.Command) error {
	var names []string
	for _, c := range candidates {
		if !c.Hidden && c.Name != "help" {
			names = append(names, c.Name)
		}
	}
	word := strings.TrimSpace(path + " " + name)
	prefix := func(s string) string { return strings.TrimSpace(path + " " + s) }
	return &usageError{
		msg:  fmt.Sprintf("unknown command `%s`%s", word, didYouMean(name, names, prefix)),
		help: helpFor(path),
	}
}

// didYouMean is ", did you mean `x`?" naming the closest of names to typed
// (each written by show), or "" when none is close enough to be a typo.
// Close is git's idea of it: a few edits (a swapped pair counts as one),
// or typed being the start of a name.
func didYouMean(typed string, names []string, show func(string) string) string {
	best, bestD := []string(nil), -1
	for _, n := range names {
		d := editDistance(typed, n)
		if strings.HasPrefix(n, typed) && len(typed) >= 2 {
			d = 0
		}
		if d > 1+min(len(typed), len(n))/4 {
			continue
		}
		switch {
		case bestD < 0 || d < bestD:
			best, bestD = []string{n}, d
		case d == bestD && !contains(best, n):
			best = append(best, n)
		}
	}
	if len(best) == 0 {
		return ""
	}
	sort.Strings(best)
	quoted := make([]string, len(best))
	for i, n := range best {
		quoted[i] = "`" + show(n) + "`"
	}
	if len(quoted) == 1 {
		return ", did you mean " + quoted[0] + "?"
	}
	return ", did you mean one of " + strings.Join(quoted, ", ") + "?"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours cost one each, so
// "strat" is one edit from "start".
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// arity reads how many arguments a command takes from its ArgsUsage, the
// same words its synopsis shows, so the check and the documentation
// cannot disagree: "ID" is one required argument, "[ID]" an optional one,
// and "..." after a word (or inside its brackets) lets it repeat. max is
// -1 for no limit.
func arity(argsUsage string) (lo, hi int) {
	for _, w := range strings.Fields(argsUsage) {
		repeat := strings.HasSuffix(w, "...") || strings.HasSuffix(w, "...]")
		if !strings.HasPrefix(w, "[") {
			lo++
		}
		if repeat || hi < 0 {
			hi = -1
		} else {
			hi++
		}
	}
	return lo, hi
}

// checkArgs refuses a command given too few or too many arguments before
// it does anything, naming the argument that is one too many.
func checkArgs(c *cli.Context) error {
	cmd := c.Command
	if cmd == nil || hasSubcommands(cmd) {
		return nil
	}
	lo, hi := arity(cmd.ArgsUsage)
	n := c.NArg()
	path := commandPath(c)
	switch {
	case hi == 0 && n > 0:
		return usageErrorf(c, "%s %s takes no arguments, got %q", progName, path, c.Args().First())
	case hi >= 0 && n > hi:
		return usageErrorf(c, "unexpected argument %q: %s %s takes %s", c.Args().Get(hi), progName, path, cmd.ArgsUsage)
	case n < lo:
		return usageErrorf(c, "%s %s needs %s", progName, path, cmd.ArgsUsage)
	}
	return nil
}

// visibleFlags are the flags a user is told about.
func visibleFlags(flags []cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		out = append(out, f)
	}
	return out
}

// hasSubcommands reports whether c dispatches to subcommands of its own
// (urfave/cli gives every command a "help" one when it runs).
func hasSubcommands(c *cli.Command) bool {
	for _, sub := range c.Subcommands {
		if sub.Name != "help" {
			return true
		}
	}
	return false
}
