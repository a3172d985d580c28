package handoff

import (
	"context"
	"fmt"

	"github.com/git-handoff/git-handoff/baton"
	"github.com/git-handoff/git-handoff/refstore"
)

// supersededWaiting returns the baton that up replaced when it was still
// waiting (neither claimed nor cancelled), with a notice saying so: a second
// `end` on the same owner and branch drops the first baton from the queue,
// and its author should hear of it. The old blob stays reachable from the
// ref's reflog (Apply writes one), which the notice names. Nil when up
// created the ref or replaced a baton already claimed or cancelled, or when
// the old record cannot be read (then nothing is known to have been lost).
func supersededWaiting(ctx context.Context, st refstore.Records, up refstore.Update, by string) (*baton.Stored, []string) {
	if up.Old == "" {
		return nil, nil
	}
	e, err := st.ReadObject(ctx, up.Old)
	if err != nil {
		return nil, nil
	}
	b, err := baton.DecodeVersion(e)
	if err != nil || !b.Live() {
		return nil, nil
	}
	old := &baton.Stored{Baton: b, Ref: up.Ref, OID: up.Old}
	from := ""
	if b.SessionID != "" {
		from = " from session " + b.SessionID
	}
	return old, []string{fmt.Sprintf("baton %s%s was still waiting and is now superseded by %s; it stays in the reflog of %s (read it with `git cat-file -p %s`)",
		b.ID, from, by, up.Ref, up.Old)}
}
