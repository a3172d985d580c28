package handoff

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// objectiveCleared is the notice for an objective that start or end just
// took away (up, the objective's update in their transaction; text, what
// it was set to): it names the objective that was there, read from the
// very blob the update replaced, so the notice tells what was lost even if
// someone changes the objective a moment later. why says which workflow
// cleared it. "" when nothing was taken away: no update (a zero up), none
// was there, it was already cleared, or it was set again to the same text.
func objectiveCleared(ctx context.Context, st refstore.Records, up refstore.Update, text, why string) string {
	if up.Old == "" {
		return ""
	}
	e, err := st.ReadObject(ctx, up.Old)
	if err != nil {
		return ""
	}
	e.Ref = up.Ref
	old, err := baton.DecodeObjective(e)
	if err != nil || strings.TrimSpace(old.Text) == "" || old.Text == strings.TrimSpace(text) {
		return ""
	}
	if strings.TrimSpace(text) != "" {
		return fmt.Sprintf("objective %q was replaced by the one given to this session", oneLine(old.Text, 120))
	}
	return fmt.Sprintf("objective %q was cleared (%s): set it again with `git handoff objective TEXT`", oneLine(old.Text, 120), why)
}

// oneLine folds s onto one line of at most max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
