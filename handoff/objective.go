package handoff

import (
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/redact"
	"github.com/git-handoff/git-handoff/refstore"
)

// ObjectiveOptions are what `git handoff objective` was asked.
type ObjectiveOptions struct {
	Owner  string
	Branch string
	Text   string // set it; "" with Clear false only reads
	Clear  bool
}

// ObjectiveResult is the objective after the workflow.
type ObjectiveResult struct {
	Who       Who
	Objective *baton.Objective // nil when there is none
	Changed   bool
	Redacted  []redact.Hit // taken out of the text before it was written
	Notices   []string
}

// Objective shows, sets or clears the objective for owner on branch. A set
// names the current session (GIT_HANDOFF_SESSION, else this worktree's).
func Objective(ctx context.Context, st refstore.Clone, opts ObjectiveOptions, clock Clock) (ObjectiveResult, error) {
	if opts.Text != "" && opts.Clear {
		return ObjectiveResult{}, fmt.Errorf("give a text or clear, not both")
	}
	who, err := Resolve(ctx, st, opts.Owner, opts.Branch)
	if err != nil {
		return ObjectiveResult{}, err
	}
	res := ObjectiveResult{Who: who}
	opts.Text, res.Redacted = scrubText(opts.Text)
	if n := redactedNotice(res.Redacted); n != "" {
		res.Notices = append(res.Notices, n)
	}
	if opts.Text != "" || opts.Clear {
		session, _ := SessionID(st, "")
		if res.Changed, err = baton.SetObjective(ctx, st, who.Owner, who.Branch, opts.Text, session, clock()); err != nil {
			return res, fmt.Errorf("setting the objective: %w", err)
		}
	}
	if res.Objective, _, err = baton.ReadObjective(ctx, st, who.Owner, who.Branch); err != nil {
		return res, fmt.Errorf("reading the objective: %w", err)
	}
	return res, nil
}
