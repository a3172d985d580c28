package session

import (
	"context"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// Restore revives a session under its own id with its current harness: the
// worktree is re-created if it is gone, the harness resumes its own
// conversation where it has a native id, and otherwise starts fresh with the
// brief. Restoring an active session whose worktree is in place changes
// nothing (NoOp). A replaced
// session names its successor; a merged one is read-only. It takes the same
// guard as a switch, so a restore and a switch never run together.
func Restore(ctx context.Context, st refstore.Clone, opts RelaunchOptions, now time.Time) (RelaunchResult, error) {
	opts.Restore, opts.Harness = true, ""
	return relaunch(ctx, st, opts, now)
}
