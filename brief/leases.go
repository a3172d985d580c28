package brief

import (
	"fmt"
	"strings"
	"time"
)

// Lease is one lease a brief or a handoff package lists: a claim on work
// (an issue, a pull request, the files of a pathspec, a named thing) that
// one session holds until it releases it or stops renewing it.
type Lease struct {
	Key                   string // canonical: issue:42, pr:17, path:src/**, key:name
	Session, Owner, Agent string
	Note                  string
	Mine                  bool // held by the session the text is for
	// FreesAt is when it frees by this clone's clock if its holder stops
	// renewing it; zero when this clone cannot tell.
	FreesAt time.Time
	// Expired: another's, seen unchanged here for its whole time to live.
	Expired bool
}

// maxLeaseLines bounds each list: a brief is read whole at every start,
// and `git handoff lease list` has the rest.
const maxLeaseLines = 10

// leaseSection lists the leases other sessions hold (the work to leave
// alone) and then the session's own, as whole lines for appendTrimmed; nil
// when there are none.
func leaseSection(ls []Lease, now time.Time) []string {
	var others, mine []Lease
	for _, l := range ls {
		if l.Mine {
			mine = append(mine, l)
		} else {
			others = append(others, l)
		}
	}
	if len(others) == 0 && len(mine) == 0 {
		return nil
	}
	// Each list's heading shares an entry with its first line, so that
	// trimming never leaves a heading without a lease under it.
	out := []string{"## Leases\n\n"}
	group := func(heading string, ls []Lease) {
		lines := leaseLines(ls, now)
		lines[0] = heading + lines[0]
		lines[len(lines)-1] += "\n"
		out = append(out, lines...)
	}
	if len(others) > 0 {
		group("Held by other sessions, as this clone last saw them: leave this work to them, or ask.\n", others)
	}
	if len(mine) > 0 {
		group("Yours (renewed at the end of each turn while you work; `git handoff lease release KEY` when done):\n", mine)
	}
	return out
}

func leaseLines(ls []Lease, now time.Time) []string {
	var out []string
	for i, l := range ls {
		if i == maxLeaseLines {
			out = append(out, fmt.Sprintf("- … and %d more (`git handoff lease list`)\n", len(ls)-i))
			break
		}
		out = append(out, "- "+leaseLine(l, now)+"\n")
	}
	return out
}

// leaseLine is one lease in a line: key, holder (for another's), when it
// frees, the note.
func leaseLine(l Lease, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s`", OneLine(l.Key))
	if !l.Mine {
		who := "session " + OneLine(l.Session)
		if l.Agent != "" {
			who = OneLine(l.Agent) + " " + who
		}
		if l.Owner != "" {
			who += " of " + OneLine(l.Owner)
		}
		b.WriteString(" — " + who)
	}
	switch {
	case l.Expired:
		b.WriteString(", free to take: its holder stopped renewing it")
	case l.FreesAt.IsZero() && l.Mine:
		b.WriteString(", renewal due")
	case l.FreesAt.IsZero():
		b.WriteString(", frees when its holder releases it or stops renewing it")
	default:
		fmt.Fprintf(&b, ", frees in %s unless renewed", Until(now, l.FreesAt))
	}
	if n := OneLine(l.Note); n != "" {
		fmt.Fprintf(&b, " (%s)", capText(n, 120))
	}
	return b.String()
}

// Until says how long from now to t, to the minute (seconds under one).
func Until(now, t time.Time) string {
	d := t.Sub(now)
	switch {
	case d < time.Second:
		return "0 s"
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		h := int(d.Hours())
		if m := int(d.Minutes()) - 60*h; m > 0 {
			return fmt.Sprintf("%d h %d min", h, m)
		}
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// PackageLeases is the handoff package's section on the leases the
// replaced session held, handed to the new one with the replacement; ""
// when it held none. When they free is left out: the handover writes
// each anew, and the new session's brief says.
func PackageLeases(ls []Lease) string {
	if len(ls) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n### Leases it held (handed to you)\n\n")
	b.WriteString("No other session can take this work while you hold them; they are renewed at the end of each turn. `git handoff lease list` shows them, `git handoff lease release KEY` gives one up.\n\n")
	for _, l := range ls {
		fmt.Fprintf(&b, "- `%s`", OneLine(l.Key))
		if n := OneLine(l.Note); n != "" {
			fmt.Fprintf(&b, " (%s)", capText(n, 120))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}
