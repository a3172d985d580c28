package brief

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// Caps keep the package small: it heads the brief, which readers want in
// one or two kilobytes and which is never trimmed.
const (
	maxTerminalBytes  = 2048
	maxTerminalLines  = 40
	maxSummaryBytes   = 2048
	MaxPackageCommits = 15 // commits of the old session a package lists
)

// Predecessor is what a handoff package says of the session it replaces
// (the fields of its session record the package shows).
type Predecessor struct {
	ID, Harness, Model, Branch, Status, Worktree string
	Prompt, Summary                              string
	UpdatedAt                                    time.Time
	PR                                           *PRLink // the pull request it owns, if any
}

// PRLink names a pull request.
type PRLink struct {
	Repo   string // owner/name
	Number int
	URL    string
}

// PackageInput is what a handoff package is made from.
type PackageInput struct {
	Old    Predecessor
	NewID  string
	Reason string
	Baton  *baton.Baton // the old session's unclaimed baton, carried over
	// Task is the baton the old session had claimed, when it left none
	// of its own: its work, unfinished, is the new session's task.
	Task *baton.Baton
	// Transcript is the end of the old agent's transcript (its own
	// file, or an automatic handoff's quote of it), already bounded.
	Transcript string
	Commits    []refstore.Commit // its commits, newest first
	Total      int               // all its commits, even beyond Commits
	Terminal   string            // an excerpt, already cleaned by TerminalExcerpt
	Truncated  bool              // the excerpt is the tail of a longer terminal
	Extra      string            // more Markdown, e.g. pull request facts
	Now        time.Time
}

// BuildPackage writes the handoff package: the new session's first
// instruction, in Markdown. It ends by telling the new agent to confirm the
// current state before changing code.
func BuildPackage(in PackageInput) string {
	o := in.Old
	var b strings.Builder
	fmt.Fprintf(&b, "%syou replace session %s\n\n", packageTitle, OneLine(o.ID))
	agent := o.Harness
	if agent == "" {
		agent = "an unrecorded agent"
	}
	if o.Model != "" {
		agent += " (" + OneLine(o.Model) + ")"
	}
	fmt.Fprintf(&b, "- Previous session: %s, run by %s\n", OneLine(o.ID), OneLine(agent))
	fmt.Fprintf(&b, "- Reason: %s\n", OneLine(in.Reason))
	fmt.Fprintf(&b, "- Branch: `%s`\n", OneLine(o.Branch))
	fmt.Fprintf(&b, "- Its last status: %s (updated %s)\n", o.Status, o.UpdatedAt.UTC().Format("2006-01-02 15:04 MST"))
	if o.Worktree != "" {
		fmt.Fprintf(&b, "- Worktree: %s\n", OneLine(o.Worktree))
	}
	if o.PR != nil {
		fmt.Fprintf(&b, "- Pull request: %s#%d %s (its checks and review threads were not fetched here)\n", OneLine(o.PR.Repo), o.PR.Number, OneLine(o.PR.URL))
	}
	b.WriteString("\n")
	if o.Prompt != "" {
		fmt.Fprintf(&b, "### Its task\n\n%s\n\n", capText(o.Prompt, maxSummaryBytes))
	}
	b.WriteString("### Its last summary\n\n")
	if o.Summary == "" {
		b.WriteString("It left none.\n\n")
	} else {
		fmt.Fprintf(&b, "%s\n\n", capText(o.Summary, maxSummaryBytes))
	}
	switch h := in.Baton; {
	case h != nil && h.Auto != nil:
		fmt.Fprintf(&b, "### The automatic handoff git-handoff wrote for it (%s, carried over to you)\n\n", h.ID)
		if h.Auto.Task != "" {
			fmt.Fprintf(&b, "It had claimed baton %s and did not hand it on; its task:\n\n", OneLine(h.Auto.Task))
		}
		items(&b, "Next steps", h.NextSteps, true)
		items(&b, "Failed approaches (do not retry)", h.FailedApproaches, false)
		items(&b, "Open questions", h.OpenQuestions, false)
	case h != nil:
		fmt.Fprintf(&b, "### Its baton %s (carried over to you)\n\n", h.ID)
		items(&b, "Next steps", h.NextSteps, true)
		items(&b, "Failed approaches (do not retry)", h.FailedApproaches, false)
		items(&b, "Open questions", h.OpenQuestions, false)
	case in.Task != nil:
		t := in.Task
		fmt.Fprintf(&b, "### The task it had claimed (baton %s), unfinished: now yours\n\n", t.ID)
		items(&b, "Next steps", t.NextSteps, true)
		items(&b, "Failed approaches (do not retry)", t.FailedApproaches, false)
		items(&b, "Open questions", t.OpenQuestions, false)
	}
	b.WriteString("### Commits since it started\n\n")
	if in.Total == 0 {
		b.WriteString("None found.\n\n")
	} else {
		for _, c := range in.Commits {
			fmt.Fprintf(&b, "- %s %s\n", c.ID[:min(10, len(c.ID))], OneLine(c.Subject))
		}
		if more := in.Total - len(in.Commits); more > 0 {
			fmt.Fprintf(&b, "- … and %d more\n", more)
		}
		b.WriteString("\n")
	}
	if in.Terminal != "" {
		b.WriteString("### The end of its terminal\n\n")
		if in.Truncated {
			b.WriteString("(earlier output cut)\n")
		}
		fence := fenceFor(in.Terminal)
		fmt.Fprintf(&b, "%s\n%s\n%s\n\n", fence, in.Terminal, fence)
	}
	if in.Transcript != "" {
		b.WriteString("### The end of its transcript (quoted by git-handoff)\n\n")
		fence := fenceFor(in.Transcript)
		fmt.Fprintf(&b, "%stext\n%s\n%s\n\n", fence, strings.TrimRight(in.Transcript, "\n"), fence)
	}
	if in.Extra != "" {
		b.WriteString(strings.TrimRight(in.Extra, "\n") + "\n\n")
	}
	b.WriteString("**Before changing any code, confirm the current state:** run `git status` and `git log`, " +
		"rebuild and rerun the tests, and check that what is written above still holds. The previous session " +
		"may have stopped halfway through a change.\n\n")
	return b.String()
}

func items(b *strings.Builder, title string, list []string, numbered bool) {
	WriteList(b, title+":", list, numbered)
}

// fenceFor returns a code fence longer than any run of backticks in s, so
// the excerpt cannot close its own block.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// OneLine makes s one line of plain text: controls become spaces.
func OneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// capText keeps at most n bytes of s, cut at a rune boundary.
func capText(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " … (cut)"
}

// TerminalExcerpt cleans raw terminal output and keeps its end: escape and
// control sequences are removed (colours, cursor moves, window titles), a
// carriage return keeps only what overwrote the line, backspaces erase, and
// at most maxTerminalLines lines and maxTerminalBytes bytes remain.
// truncated says whether anything was cut.
func TerminalExcerpt(raw []byte) (text string, truncated bool) {
	clean := stripControls(raw)
	lines := strings.Split(strings.TrimRight(clean, "\n \t"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) > maxTerminalLines {
		lines, truncated = lines[len(lines)-maxTerminalLines:], true
	}
	text = strings.Join(lines, "\n")
	if len(text) > maxTerminalBytes {
		cut := len(text) - maxTerminalBytes
		for cut < len(text) && !utf8.RuneStart(text[cut]) {
			cut++
		}
		if i := strings.IndexByte(text[cut:], '\n'); i >= 0 && i < 200 {
			cut += i + 1 // start on a whole line when one is near
		}
		text, truncated = text[cut:], true
	}
	return text, truncated
}

func stripControls(raw []byte) string {
	var out bytes.Buffer
	var line []rune // current line, so \r and \b can act on it
	flush := func() {
		out.WriteString(strings.TrimRight(string(line), " \t"))
		line = line[:0]
	}
	s := raw
	for len(s) > 0 {
		c := s[0]
		switch {
		case c == 0x1b:
			s = skipEscape(s)
			continue
		case c == 0x9b: // 8-bit CSI
			s = skipCSI(s[1:])
			continue
		case c == '\n':
			flush()
			out.WriteByte('\n')
		case c == '\r':
			if len(s) > 1 && s[1] == '\n' {
				break // CRLF: the newline follows
			}
			line = line[:0] // the rest overwrites the line
		case c == '\b':
			if len(line) > 0 {
				line = line[:len(line)-1]
			}
		case c == '\t':
			line = append(line, '\t')
		case c < 0x20 || c == 0x7f:
			// other control bytes say nothing to a reader
		default:
			r, size := utf8.DecodeRune(s)
			if r == utf8.RuneError && size <= 1 {
				r = '�'
				size = 1
			}
			if r >= 0x80 && r < 0xa0 { // C1 controls
				s = s[size:]
				continue
			}
			line = append(line, r)
			s = s[size:]
			continue
		}
		s = s[1:]
	}
	flush()
	return out.String()
}

// skipEscape skips one escape sequence starting at s[0] == ESC.
func skipEscape(s []byte) []byte {
	if len(s) < 2 {
		return nil
	}
	switch s[1] {
	case '[':
		return skipCSI(s[2:])
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to BEL or ST
		rest := s[2:]
		for i := 0; i < len(rest); i++ {
			if rest[i] == 0x07 {
				return rest[i+1:]
			}
			if rest[i] == 0x1b && i+1 < len(rest) && rest[i+1] == '\\' {
				return rest[i+2:]
			}
		}
		return nil
	case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ': // charset and similar: one more byte
		if len(s) < 3 {
			return nil
		}
		return s[3:]
	}
	return s[2:]
}

// skipCSI skips parameters and intermediates up to the final byte.
func skipCSI(s []byte) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x40 && s[i] <= 0x7e {
			return s[i+1:]
		}
	}
	return nil
}
