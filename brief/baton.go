package brief

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/baton"
)

// Baton renders one baton in full, as Markdown for a model to read (what
// `git handoff show` prints for a person): who left it and when, whether it
// is claimed, and its notes, fenced as data when they are not verifiably
// the owner's; an automatic handoff as the brief shows it. A nil baton is
// "".
func Baton(h *baton.Stored, now time.Time) string {
	if h == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Baton %s\n\n", h.ID)
	who := h.Owner
	if h.Harness != "" {
		who += " with " + h.Harness
	}
	if h.SessionID != "" {
		who += " (session " + h.SessionID + ")"
	}
	scope := "for " + h.Owner + " on `" + h.Branch + "`"
	if h.Shared {
		scope = "shared, from branch `" + h.Branch + "`"
	}
	fmt.Fprintf(&b, "Left by %s, %s, %s (%s).\n", who, scope, h.CreatedAt.UTC().Format("2006-01-02 15:04 MST"), Age(now, h.CreatedAt))
	if h.Head != "" {
		fmt.Fprintf(&b, "Written at commit %s.\n", shortID(h.Head))
	}
	switch {
	case h.Deleted != nil:
		fmt.Fprintf(&b, "Taken away (%s) %s.\n", h.Deleted.Reason, Age(now, h.Deleted.At))
	case h.Claimed && h.ClaimedAt != nil:
		fmt.Fprintf(&b, "Claimed by session %s %s.\n", h.ClaimedBySession, Age(now, *h.ClaimedAt))
	case h.Claimed:
		fmt.Fprintf(&b, "Claimed by session %s.\n", h.ClaimedBySession)
	default:
		b.WriteString("Waiting: the next session to start here claims it.\n")
	}
	if r := h.Reoffered; r != nil {
		fmt.Fprintf(&b, "Offered again: session %s claimed it but never acted on it (%s).\n", r.Session, Age(now, r.At))
	}
	if s := h.Signature; s != nil && (s.Format != "" || h.Fenced) {
		fmt.Fprintf(&b, "Signature: %s.\n", s)
	}
	b.WriteString("\n")
	if h.Auto != nil {
		// Gathered, not written by anyone: said first, shown as data.
		autoSection(&b, Input{Baton: &h.Baton, Now: now})
		return strings.TrimRight(b.String(), "\n") + "\n"
	}
	if h.Fenced {
		writeFenced(&b, &h.Baton)
	} else {
		list(&b, "Next steps", h.NextSteps, true)
		list(&b, "Failed approaches (do not retry)", h.FailedApproaches, false)
		list(&b, "Open questions", h.OpenQuestions, false)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
