package handoff

import (
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/prown"
	"github.com/git-handoff/git-handoff/refstore"
)

// PRRoute says which session should receive CI and review work on a pull
// request now (prown.Route). It only reads, and makes no GitHub request.
func PRRoute(ctx context.Context, st refstore.Clone, repo string, number int) (prown.Routing, error) {
	r, err := prown.Route(ctx, st, repo, number)
	if err != nil {
		return r, fmt.Errorf("routing #%d: %w", number, err)
	}
	return r, nil
}
