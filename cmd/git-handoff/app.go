package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/ghpr/prdata"
	"github.com/git-handoff/git-handoff/handoff"
	"github.com/git-handoff/git-handoff/internal/safetext"
	"github.com/git-handoff/git-handoff/refstore"
)

// Exit codes, the same for every command. Not finding something is one
// rule: a command that looks at what waits for me (show, list, brief,
// objective, log) or tidies it (cancel) and finds nothing has nothing to do
// and exits 0, saying so; exitNotFound is for what the command was given
// or exists to take and is not there (an id no record here has; for claim,
// a baton); a record that is there in a state that rules the action out
// (claimed, cancelled, dismissed, replaced, already waiting) is a conflict.
const (
	exitOK       = 0
	exitError    = 1
	exitAuth     = 4
	exitConflict = 5
	exitNotFound = 6
	exitUsage    = 129 // what git's own commands exit with on wrong usage
)

// exitCodes documents the table above, for the man page's EXIT STATUS.
var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "success, including nothing to do: show with no baton waiting (it says so on stderr; --json gives \"handoff\": null), " +
		"cancel with no baton to take back, end with no baton flags (the session ends, no baton is written)"},
	{exitError, "an error not listed below"},
	{exitAuth, "GitHub refused: no token, or the token lacks permission"},
	{exitConflict, "conflict: the record named is there, in a state that rules the action out (a baton already claimed, cancelled or dismissed; " +
		"undismiss of a baton that waits), a lost compare-and-swap, a switch in progress, the pull request owned elsewhere"},
	{exitNotFound, "not found: what the command was given or exists to take is not there: an id no record in this clone has " +
		"(dismiss ID, undismiss ID, session show ID, snapshot show ID), pr route N with no owner, claim with no baton waiting; " +
		"a command that only looks at what waits for me (show, list, brief, objective, log) or cancel, finding nothing, exits 0"},
	{exitUsage, "wrong usage: an unknown command or option, a missing or extra argument, a value out of range"},
}

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	// Everything printed may carry a teammate's text: one filter for every
	// output path keeps escape sequences and bidi controls off the terminal
	// (and leaves JSON decoding to the same values).
	safeOut, safeErr := safetext.NewWriter(stdout), safetext.NewWriter(stderr)
	defer safeErr.Flush()
	defer safeOut.Flush()
	stdout, stderr = safeOut, safeErr
	// A panic is our bug, not the user's mistake: without this the runtime
	// exits 2, which scripts read as "wrong usage".
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "error: this is a bug in git-handoff: %v\nhint: please report it with the stack below\n%s", r, debug.Stack())
			code = exitError
		}
	}()
	d := newDeps(stdin, stdout, stderr)
	defer d.close()
	app := newApp(d)
	err := app.RunContext(ctx, interspersed(app, args))
	if err == nil {
		// After the command's answer, written already: the retirement
		// is the clone's housekeeping, not part of it.
		d.retireHereWhenDue(ctx)
	}
	// Notices kept for a JSON answer that never came (the command failed).
	notify(stderr, d.withOpenNotices(nil))
	if err == nil && d.notFound != nil {
		err = d.notFound
	}
	if err == nil {
		return exitOK
	}
	code = exitCode(err)
	if !errors.Is(err, errSilent) {
		printError(stderr, err)
	}
	return code
}

func newApp(d *deps) *cli.App {
	app := &cli.App{
		Name:      "git-handoff",
		HelpName:  "git handoff",
		Usage:     "hand work from one coding-agent session to the next",
		UsageText: "git handoff <command> [options] [arguments]\ngit handoff --version",
		Description: "Batons (single-use notes a session leaves for the next), session lineage and pull-request ownership,\n" +
			"kept as JSON records under refs/ao/ in the repository itself.",
		Reader:                 d.stdin,
		Writer:                 d.stdout,
		ErrWriter:              d.stderr,
		HideVersion:            true,
		UseShortOptionHandling: false,
		// Prose keeps its commas: `--failed "tried a, b, and c"` is one
		// failed approach, as the MCP tool takes it; more items come from
		// repeating the flag.
		DisableSliceFlagSeparator: true,
		Flags:                     []cli.Flag{versionFlag},
		Action: func(c *cli.Context) error {
			if c.Bool("version") {
				if c.NArg() > 0 {
					return usageErrorf(c, "--version takes no arguments, got %q", c.Args().First())
				}
				return printVersion(d.stdout)
			}
			if c.NArg() > 0 {
				return unknownCommand("", c.Args().First(), c.App.Commands)
			}
			return cli.ShowAppHelp(c)
		},
		// urfave/cli exits the process itself on an ExitCoder unless this is
		// set; run owns exit codes.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
		// A mistyped subcommand (`session lss`) ends in urfave/cli's help
		// lookup, which calls this and carries on as if all went well.
		CommandNotFound: func(c *cli.Context, name string) {
			d.notFound = unknownCommand(commandPath(c), name, c.Command.Subcommands)
		},
		Commands: []*cli.Command{
			startCommand(d),
			endCommand(d),
			claimCommand(d),
			briefCommand(d),
			showCommand(d),
			listCommand(d),
			cancelCommand(d),
			dismissCommand(d),
			undismissCommand(d),
			objectiveCommand(d),
			logCommand(d),
			sessionCommand(d),
			continueCommand(d),
			snapshotCommand(d),
			prCommand(d),
			leaseCommand(d),
			initCommand(d),
			syncCommand(d),
			serveCommand(d),
			hooksCommand(d),
			hookCommand(d),
			handoverCommand(d),
			mcpCommand(d),
			pluginCommand(d),
			manCommand(d),
			completionCommand(d),
			versionCommand(d),
		},
	}
	for _, c := range app.Commands {
		prepareCommand(d, c, "")
	}
	return app
}

// readOnlyCommands only read records: their store skips the lazy merge (a
// write), so reading never changes a ref. Every other command merges what
// a plain `git fetch` brought before it writes.
var readOnlyCommands = map[string]bool{
	"list": true, "show": true, "brief": true, "log": true,
	"session ls": true, "session show": true, "session lineage": true,
	"pr show": true, "pr status": true, "pr route": true,
	"hooks check": true, "snapshot show": true,
}

// retireHereAfter are the commands (by their first word) a person or an
// agent runs to write records, in the foreground: after them a clone with
// no remote retires what is final, when due (deps.retireHereWhenDue).
// Not the hooks, which must stay cheap, nor what runs in the background
// or for long (continue and its watch, serve, mcp), nor sync, which
// retires on its own.
var retireHereAfter = map[string]bool{
	"start": true, "end": true, "claim": true, "cancel": true, "dismiss": true, "undismiss": true,
	"objective": true, "session": true, "pr": true, "lease": true, "snapshot": true, "init": true,
}

// retireHereNot are the subcommands of those that start or attach to an
// agent: they run for as long as it does.
var retireHereNot = map[string]bool{"session launch": true, "session attach": true, "session switch": true, "session restore": true}

// readLaterCommands most likely read no record: a sync with nothing new
// compares the two sides' ref listings and is done. Their store starts
// git cat-file when first asked to read, not beside rev-parse.
var readLaterCommands = map[string]bool{"sync": true}

// prepareCommand readies every command in c's tree before its action runs:
//   - it tells deps whether the command only reads records, and whether it
//     prints JSON (what opening the store has to say then goes into it);
//   - every bad flag is a usage error (exit 129) instead of urfave/cli's
//     "Incorrect Usage" on stdout, and so is every argument too many or too
//     few, before the command does anything;
//   - a command without subcommands gets the usage line generated from its
//     flags and ArgsUsage, the one the man page shows.
func prepareCommand(d *deps, c *cli.Command, parent string) {
	path := strings.TrimSpace(parent + " " + c.Name)
	if c.OnUsageError == nil {
		c.OnUsageError = onUsageError
	}
	if len(c.Subcommands) == 0 && c.UsageText == "" {
		c.UsageText = synopsisOf(path, c)
	}
	before := c.Before
	c.Before = func(ctx *cli.Context) error {
		d.readOnly = d.readOnly || readOnlyCommands[path]
		d.readLater = d.readLater || readLaterCommands[path]
		d.retireHere = retireHereAfter[strings.Fields(path)[0]] && !readOnlyCommands[path] && !retireHereNot[path]
		d.json = d.json || ctx.Bool("json")
		if err := checkArgs(ctx); err != nil {
			return err
		}
		if before != nil {
			return before(ctx)
		}
		return nil
	}
	for _, sub := range c.Subcommands {
		prepareCommand(d, sub, path)
	}
}

// errSilent marks an error already reported on stderr.
var errSilent = errors.New("already reported")

// hinted is an error with a line telling the user what to do about it.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() }
func (h *hinted) Unwrap() error { return h.err }

func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hinted{err: err, hint: hint}
}

// exitCode maps an error to the exit code table; the first match wins.
func exitCode(err error) int {
	var ue *usageError
	var ce *baton.ClaimedError
	var ae *prdata.AuthError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ae):
		return exitAuth
	case errors.As(err, &ce), errors.Is(err, refstore.ErrConflict):
		return exitConflict
	case errors.Is(err, refstore.ErrNotFound):
		return exitNotFound
	case errors.Is(err, errSilent):
		var se *silentCode
		if errors.As(err, &se) {
			return se.code
		}
	}
	return exitError
}

// silentCode exits with code without printing anything more.
type silentCode struct{ code int }

func (s *silentCode) Error() string { return "exit" }
func (s *silentCode) Is(t error) bool {
	return t == errSilent
}

func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "error: %s\n", err)
	var h *hinted
	var ue *usageError
	var lock *refstore.LockedError
	switch {
	case errors.As(err, &h):
		fmt.Fprintf(w, "hint: %s\n", h.hint)
	case errors.As(err, &ue):
		fmt.Fprintf(w, "hint: see '%s'\n", ue.help)
	case errors.As(err, &lock):
		fmt.Fprintf(w, "hint: a git process was probably killed while writing; check with `ps` and remove %s\n", lock.Path)
	case errors.Is(err, handoff.ErrNoSession):
	case errors.Is(err, refstore.ErrNotRepository):
		fmt.Fprintln(w, "hint: run git handoff inside a git repository")
	case prdata.ErrorHint(err) != "":
		fmt.Fprintf(w, "hint: %s\n", prdata.ErrorHint(err))
	}
}

// interspersed lets flags follow positional arguments, as git users expect
// (`git handoff dismiss ID --json`): urfave/cli v2 stops at the first
// argument that is not a flag, so the flags of the leaf command are moved in
// front of its arguments. "--" ends flags as usual.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	cmds := app.Commands
	var leaf *cli.Command
	i := 1
	for ; i < len(args); i++ {
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(args[i]) {
				next = c
				break
			}
		}
		if next == nil {
			break
		}
		leaf, cmds = next, next.Subcommands
	}
	if leaf == nil || len(leaf.Subcommands) > 0 {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range leaf.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, pos []string
	rest := args[i:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			pos = append(pos, rest[j:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && j+1 < len(rest) {
				j++
				flags = append(flags, rest[j])
			}
			continue
		}
		pos = append(pos, a)
	}
	out := append([]string{}, args[:i]...)
	out = append(out, flags...)
	return append(out, pos...)
}
