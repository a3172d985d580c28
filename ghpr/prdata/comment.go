package prdata

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// OwnershipMarker opens the first line of the one ownership comment per pull
// request. It is an HTML comment, invisible on the page, by which the
// comment is found again and edited instead of posting another (editing
// notifies nobody; posting notifies every subscriber).
const OwnershipMarker = "<!-- git-handoff:pr-owner -->"

// OwnershipInfo is what the comment says. Plain values only: ids, harness
// names, times and a short reason. Nothing else reaches GitHub.
type OwnershipInfo struct {
	Session   string     // owning session id; "" once released
	Harness   string     // e.g. "claude-code"; may be empty
	ClaimedAt time.Time  // when the current owner claimed
	History   []Transfer // oldest first, the current claim (or release) included
	// ReleasedBy and ReleasedAt say, when Session is "", which session
	// released the pull request and when.
	ReleasedBy string
	ReleasedAt time.Time
}

// Transfer is one change of owner.
type Transfer struct {
	At      time.Time
	From    string // previous session id; "" for the first claim
	To      string
	Harness string // the new owner's harness
	Reason  string // e.g. "replaced", "claimed", "handoff"; shortened, paths and tokens removed
}

// historyShown bounds the table, so a long-lived pull request's comment
// stays readable and far below GitHub's 65536-character limit.
const historyShown = 20

// RenderOwnershipComment writes the comment body: the marker, who owns the
// pull request since when (or, with no Session, that no session owns it
// any more, who released it and when), and the transfers so far. The
// marker stays the first line either way, so a later claim edits the same
// comment.
func RenderOwnershipComment(in OwnershipInfo) string {
	var b strings.Builder
	b.WriteString(OwnershipMarker + "\n")
	if in.Session == "" {
		b.WriteString("**No session owns this pull request any more**")
		if in.ReleasedBy != "" || !in.ReleasedAt.IsZero() {
			b.WriteString(": released")
			if in.ReleasedBy != "" {
				fmt.Fprintf(&b, " by session %s", code(in.ReleasedBy))
			}
			if !in.ReleasedAt.IsZero() {
				fmt.Fprintf(&b, " at %s UTC", stamp(in.ReleasedAt))
			}
		}
		b.WriteString(".\n\nCI failures and review comments on this pull request go to no session until one claims it.\n")
	} else {
		fmt.Fprintf(&b, "**Owned by session %s**", code(in.Session))
		if h := plain(in.Harness, 40); h != "" {
			fmt.Fprintf(&b, " (%s)", h)
		}
		if !in.ClaimedAt.IsZero() {
			fmt.Fprintf(&b, " since %s", stamp(in.ClaimedAt))
		}
		b.WriteString(".\n\nCI failures and review comments on this pull request go to that session.\n")
	}
	if len(in.History) > 0 {
		b.WriteString("\n| when (UTC) | from | to | reason |\n|---|---|---|---|\n")
		hist := in.History
		if len(hist) > historyShown {
			fmt.Fprintf(&b, "| … | | | %d earlier transfers |\n", len(hist)-historyShown)
			hist = hist[len(hist)-historyShown:]
		}
		for _, t := range hist {
			from := "—"
			if t.From != "" {
				from = code(t.From)
			}
			to := code(t.To)
			if h := plain(t.Harness, 40); h != "" {
				to += " (" + h + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", stamp(t.At), from, to, plain(t.Reason, 120))
		}
	}
	b.WriteString("\n<sub>Kept up to date by `git handoff pr claim`; edited in place on every transfer.</sub>\n")
	return b.String()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// code shows an id as inline code; ids never contain backticks, but a
// value that did must not break out of the span.
func code(s string) string {
	s = plain(s, 80)
	if s == "" {
		return "—"
	}
	return "`" + strings.ReplaceAll(s, "`", "") + "`"
}

// Compiled at first use, not at start-up: every git-handoff process would
// pay for them, and only the comment writers need them.
var (
	// Token shapes GitHub issues: classic, OAuth, user-to-server,
	// server-to-server, refresh, fine-grained.
	tokenLike = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9_]{16,}|github_pat_[A-Za-z0-9_]{20,})\b`)
	})
	// Absolute and home-relative paths (POSIX and Windows).
	pathLike = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[\s(\[=:])(~|/|[A-Za-z]:\\)[^\s)\]]*`) })
)

// plain turns a value into one line of inert markdown: no control bytes or
// newlines, no table or HTML syntax, no token-shaped strings or paths, at
// most n runes.
func plain(s string, n int) string {
	s = tokenLike().ReplaceAllString(s, "(redacted)")
	s = pathLike().ReplaceAllString(s, "${1}(path)")
	s = strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f:
			return ' '
		case strings.ContainsRune("|<>`*_[]\\", r):
			return -1
		}
		return r
	}, s)
	return Clip(s, n)
}

// Clip collapses runs of white space to one space and cuts s to n runes,
// the last of them "…" when anything was cut.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
