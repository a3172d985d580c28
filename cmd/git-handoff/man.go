package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// manCommand prints the man page generated from the app itself, which
// `make install` puts where `git handoff --help` (that is, `man
// git-handoff`) finds it.
func manCommand(d *deps) *cli.Command {
	return &cli.Command{
		Name:   "man",
		Usage:  "print the git-handoff(1) man page",
		Hidden: true,
		Action: func(c *cli.Context) error {
			return writeMan(d.stdout, c.App)
		},
	}
}

// environment is every variable git-handoff reads, for ENVIRONMENT (a test
// holds it to the code's os.Getenv calls).
var environment = []struct{ name, meaning string }{
	{"GIT_HANDOFF_SESSION", "the session a command acts for when --session is not given; agents launched by git handoff run with it set. Without it, the session this worktree is bound to."},
	{"GIT_HANDOFF_BRIEFED", "set by a fresh launch to the session's id when the agent's first prompt holds the session's whole brief, so that the agent's session-start hook does not give it again; not for users to set."},
	{"GIT_HANDOFF_SKIP", "set to 1 in a coding agent's environment, keeps git-handoff out of that agent session: its hooks start no session and ask for no baton."},
	{"GIT_HANDOFF_TMUX_SOCKET", "the tmux server agents run on, as tmux -L names it (default: the user's own server)."},
	{"GIT_HANDOFF_NOW", "pins the clock (RFC 3339), for reproducible scripts and tests, as GIT_COMMITTER_DATE pins git's."},
	{"GIT_HANDOFF_IN_HOOK", "set by git-handoff while its part of a git hook runs, so that the git commands it runs there do not run it again; not for users to set."},
	{"GH_TOKEN, GITHUB_TOKEN, GH_ENTERPRISE_TOKEN", "the GitHub token for the pr commands (else `gh auth token`, else git's credential helper)."},
	{"GH_REPO, GH_HOST, GITHUB_API_URL, GITHUB_GRAPHQL_URL", "which GitHub repository and API the pr commands talk to."},
}

// files is what git-handoff keeps, for FILES.
var files = []struct{ name, meaning string }{
	{"refs/ao/handoffs/private/OWNER/BRANCH", "the owner's baton for that branch (a JSON blob; git cat-file -p shows it)"},
	{"refs/ao/handoffs/shared/OWNER/BRANCH", "a shared baton, eligible on any branch"},
	{"refs/ao/objectives/OWNER/BRANCH", "the session objective"},
	{"refs/ao/sessions/ID", "a session record, with its lineage (supersedes, replacedBy)"},
	{"refs/ao/prs/OWNER/REPO/NUMBER", "who owns that pull request"},
	{"refs/ao/snapshots/ID", "a session's uncommitted work, as a commit"},
	{"refs/ao/archive/", "retired records, a ref per month"},
	{"refs/ao/remotes/REMOTE/", "the last fetched copy of a remote's records (never pushed)"},
	{"refs/worktree/ao/session", "this worktree's session: a symbolic ref to refs/ao/sessions/ID"},
	{"$GIT_COMMON_DIR/handoff/", "local state: claims won at the remote but not yet recorded (pending/), sync conflicts, briefs and launch files of agents, an interrupted transaction's journal, config hook shims"},
	{"handoff.remote, handoff.arbiter, handoff.owner (git config)", "the remote that carries the team's records, the one that decides claims, and who I am (else user.email, user.name)"},
}

// examples are for EXAMPLES; a test runs each through the command line's
// parser, so an example cannot name a flag that is gone.
var examples = []struct{ what, cmd string }{
	{"A session that stops leaves a baton; each flag gives one item, commas and all:",
		`git handoff end --next "handle block comments" --failed "regexp pre-pass: breaks strings, comments" --question "keep doc comments in the AST?"`},
	{"The next session on the same owner and branch claims it and reads its brief:",
		`git handoff start --harness codex --objective "finish the lexer"`},
	{"A session with nothing to hand over ends without a baton:", `git handoff end`},
	{"What waits, as JSON (\"handoff\": null when nothing does):", `git handoff show --json`},
	{"Replace a stuck session; its successor starts from a handoff package:", `git handoff session replace s-abc --reason stuck --harness claude`},
	{"Completion for bash, also for `git handoff <TAB>` through git's own completion:", `source <(git handoff completion bash)`},
}

// writeMan writes git-handoff(1) in roff, from the command definitions:
// every command's synopsis, its description and its options, so the page
// cannot drift from what the command accepts.
func writeMan(w io.Writer, app *cli.App) error {
	var b strings.Builder
	leaves := manCommands(app.Commands, "")
	fmt.Fprintf(&b, ".TH GIT\\-HANDOFF 1 \"\" \"git\\-handoff %s\" \"Git Manual\"\n", roff(buildVersion()))
	b.WriteString(".SH NAME\ngit\\-handoff \\- " + roff(app.Usage) + "\n")

	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, c := range leaves {
		if len(c.cmd.Subcommands) == 0 {
			b.WriteString(roff(wrapSynopsis(synopsisOf(c.path, c.cmd), 78)) + "\n")
		}
	}
	b.WriteString(roff(progName+" --version") + "\n.fi\n")

	b.WriteString(".SH DESCRIPTION\n" + roffText(app.Description) + "\n")
	b.WriteString(".PP\nOptions may follow arguments, as in git. A repeatable option gives one item each time it is given; its value is never split at commas.\n")
	for _, c := range leaves {
		fmt.Fprintf(&b, ".SS \"%s\"\n", roff(progName+" "+c.path))
		b.WriteString(roffText(c.cmd.Usage) + ".\n")
		if c.cmd.Description != "" {
			b.WriteString(".PP\n" + roffText(c.cmd.Description) + "\n")
		}
	}

	b.WriteString(".SH OPTIONS\n")
	b.WriteString(".TP\n\\fB\\-\\-version\\fR\nprint the version of git\\-handoff and exit.\n")
	for _, c := range leaves {
		flags := visibleFlags(c.cmd.Flags)
		if len(flags) == 0 || len(c.cmd.Subcommands) > 0 {
			continue
		}
		fmt.Fprintf(&b, ".SS \"%s\"\n", roff(progName+" "+c.path))
		for _, f := range flags {
			fl := describeFlag(f)
			var names []string
			for _, n := range fl.names {
				s := "\\fB" + roff(dashed(n)) + "\\fR"
				if fl.placeholder != "" {
					s += " \\fI" + roff(fl.placeholder) + "\\fR"
				}
				names = append(names, s)
			}
			text := fl.usage
			if fl.defaultText != "" {
				text += " (default: " + fl.defaultText + ")"
			}
			if fl.repeatable {
				text += "; repeatable"
			}
			fmt.Fprintf(&b, ".TP\n%s\n%s\n", strings.Join(names, ", "), roffText(text))
		}
	}

	b.WriteString(".SH \"EXIT STATUS\"\n")
	for _, e := range exitCodes {
		fmt.Fprintf(&b, ".TP\n\\fB%d\\fR\n%s\n", e.code, roffText(e.meaning))
	}

	b.WriteString(".SH ENVIRONMENT\n")
	for _, e := range environment {
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", roff(e.name), roffText(e.meaning))
	}

	b.WriteString(".SH FILES\n")
	for _, f := range files {
		fmt.Fprintf(&b, ".TP\n\\fI%s\\fR\n%s\n", roff(f.name), roffText(f.meaning))
	}

	b.WriteString(".SH EXAMPLES\n")
	for _, e := range examples {
		fmt.Fprintf(&b, ".PP\n%s\n.PP\n.RS 4\n.nf\n%s\n.fi\n.RE\n", roffText(e.what), roff(e.cmd))
	}
	b.WriteString(".SH \"SEE ALSO\"\n\\fBgit\\fR(1), \\fBgit\\-update\\-ref\\fR(1)\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// synopsisWord is one word of a synopsis as it wraps: an option in its
// brackets with its value and repetition, or a bare word.
var synopsisWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[^\]]*\](\.\.\.)?|\S+`) })

// wrapSynopsis breaks a synopsis line between options, the lines after the
// first indented, as git's own pages do (man does not fill a synopsis).
func wrapSynopsis(line string, width int) string {
	var b strings.Builder
	col := 0
	for i, w := range synopsisWord().FindAllString(line, -1) {
		switch {
		case i == 0:
		case col+1+len(w) > width:
			b.WriteString("\n    ")
			col = 4
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

type manEntry struct {
	path string
	cmd  *cli.Command
}

// manCommands lists the commands a user is told about, parents before
// their subcommands, in the order the app declares them.
func manCommands(cmds []*cli.Command, parent string) []manEntry {
	var out []manEntry
	for _, c := range cmds {
		if c.Hidden || c.Name == "help" {
			continue
		}
		path := strings.TrimSpace(parent + " " + c.Name)
		out = append(out, manEntry{path, c})
		out = append(out, manCommands(c.Subcommands, path)...)
	}
	return out
}

// roff escapes text for a roff line: backslashes, and hyphens as the
// minus signs they are in options and command names.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// roffText is roff for a paragraph: lines the source broke by hand join
// in fill mode, and a line that would start with a control character is
// guarded.
func roffText(s string) string {
	lines := strings.Split(roff(strings.TrimSpace(s)), "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}
