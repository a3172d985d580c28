package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/brief"
)

func init() {
	// --help lists flags the way the man page and the synopsis write
	// them: `--max-bytes N`, a repeatable one marked as such, and no
	// "(default: false)" on every switch.
	cli.FlagStringer = func(f cli.Flag) string {
		fl := describeFlag(f)
		names := make([]string, len(fl.names))
		for i, n := range fl.names {
			names[i] = dashed(n)
			if fl.placeholder != "" {
				names[i] += " " + fl.placeholder
			}
		}
		usage := fl.usage
		if fl.defaultText != "" {
			usage += " (default: " + fl.defaultText + ")"
		}
		return strings.Join(names, ", ") + "\t" + usage
	}
}

// flagDoc is what help, the man page, the synopsis and completion say of a
// flag, read from its definition.
type flagDoc struct {
	names       []string // the first is the long name
	placeholder string   // "" for a switch
	usage       string
	defaultText string // "" when the default says nothing (off, empty)
	repeatable  bool
}

func describeFlag(f cli.Flag) flagDoc {
	doc := flagShape(f)
	if df, ok := f.(cli.DocGenerationFlag); ok && df.TakesValue() && !doc.repeatable {
		doc.defaultText = df.GetDefaultText()
		if doc.defaultText == `""` {
			doc.defaultText = ""
		}
	}
	return doc
}

// flagShape is describeFlag without the default: all a synopsis shows,
// which every start makes for every command (prepareCommand), where
// formatting each flag's default would cost a tenth of a millisecond.
func flagShape(f cli.Flag) flagDoc {
	doc := flagDoc{names: f.Names()}
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return doc
	}
	doc.placeholder, doc.usage = placeholder(df.GetUsage())
	if sf, ok := f.(cli.DocGenerationSliceFlag); ok && sf.IsSliceFlag() {
		doc.repeatable = true
	}
	if _, ok := f.(*cli.GenericFlag); ok {
		doc.repeatable = true // serve --repo: each value adds one
	}
	if !df.TakesValue() {
		doc.placeholder = ""
		return doc
	}
	if doc.placeholder == "" {
		switch f.(type) {
		case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag:
			doc.placeholder = "N"
		case *cli.DurationFlag:
			doc.placeholder = "DURATION"
		default:
			doc.placeholder = strings.ToUpper(doc.names[0])
		}
	}
	return doc
}

// placeholder splits a flag's usage at its `PLACEHOLDER`, as urfave/cli
// does: the word in backquotes names the value and stays in the text.
func placeholder(usage string) (name, text string) {
	start := strings.IndexByte(usage, '`')
	if start < 0 {
		return "", usage
	}
	end := strings.IndexByte(usage[start+1:], '`')
	if end < 0 {
		return "", usage
	}
	name = usage[start+1 : start+1+end]
	return name, usage[:start] + name + usage[start+1+end+1:]
}

// synopsisOf is the command's usage line, flags and arguments as the
// user types them: `git handoff end [--next TEXT]... [--shared]`.
func synopsisOf(path string, c *cli.Command) string {
	parts := []string{progName, path}
	for _, f := range visibleFlags(c.Flags) {
		fl := flagShape(f)
		if fl.names[0] == "help" {
			continue
		}
		s := "[" + dashed(fl.names[0])
		if fl.placeholder != "" {
			s += " " + fl.placeholder
		}
		s += "]"
		if fl.repeatable {
			s += "..."
		}
		parts = append(parts, s)
	}
	if args := strings.TrimSpace(c.ArgsUsage); args != "" {
		parts = append(parts, args)
	}
	return strings.Join(parts, " ")
}

// prose is a repeatable flag holding text: commas stay in the item (the
// app turns urfave/cli's comma splitting off), and each --name gives one
// more item, which the usage says.
func prose(name, usage string) *cli.StringSliceFlag {
	return &cli.StringSliceFlag{Name: name, Usage: usage + "; repeat the flag for more, each `TEXT` kept whole, commas and all"}
}

// atLeast refuses a value of int flag name below lo, naming the smallest
// it takes; why says what the floor is for.
func atLeast(name string, lo int, why string) func(*cli.Context, int) error {
	return func(c *cli.Context, v int) error {
		if v >= lo {
			return nil
		}
		msg := fmt.Sprintf("%s %d is too small: it takes at least %d", dashed(name), v, lo)
		if why != "" {
			msg += " (" + why + ")"
		}
		return usageErrorf(c, "%s", msg)
	}
}

// positiveDuration refuses a duration flag of zero or less.
func positiveDuration(name string) func(*cli.Context, time.Duration) error {
	return func(c *cli.Context, v time.Duration) error {
		if v <= 0 {
			return usageErrorf(c, "%s %s: give a duration above zero, such as 10s", dashed(name), v)
		}
		return nil
	}
}

// maxBytesFlag is start's and brief's budget for the brief.
func maxBytesFlag() cli.Flag {
	return &cli.IntFlag{
		Name: "max-bytes", Value: brief.DefaultMaxBytes,
		Usage:  fmt.Sprintf("largest brief to print, in bytes (at least %d)", brief.MinMaxBytes),
		Action: atLeast("max-bytes", brief.MinMaxBytes, "a smaller brief has no room to say what waits"),
	}
}
