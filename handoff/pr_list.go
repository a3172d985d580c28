package handoff

import (
	"context"

	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// PRListResult is every pull-request ownership record of this clone.
type PRListResult struct {
	PRs     []prown.Stored
	Notices []string // records that could not be read, skipped
}

// PRList reads every ownership record, from git alone (no GitHub request),
// for surfaces that show them all at once (the status page).
func PRList(ctx context.Context, st refstore.Clone) (PRListResult, error) {
	list, warns, err := prown.List(ctx, st)
	if err != nil {
		return PRListResult{}, err
	}
	res := PRListResult{PRs: list}
	for _, w := range warns {
		res.Notices = append(res.Notices, w.String())
	}
	return res, nil
}
