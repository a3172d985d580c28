package handoff

import (
	"context"
	"fmt"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// unpushedWait bounds how long end asks git whether the baton's commit was
// pushed: the answer only adds a notice, and end must not hang on it in a
// huge history.
const unpushedWait = 3 * time.Second

// unpushedHead is the notice for a baton that names a commit (head, the
// HEAD it was left at) no remote-tracking ref contains: a teammate, or
// this owner on another machine, cannot fetch it, and the brief's "fetch
// to compare" cannot help them. "" when it was pushed, when the repository
// has no remote (nobody fetches from it), or when git could not tell in
// time.
func unpushedHead(ctx context.Context, st refstore.Clone, batonID, head string) string {
	if head == "" {
		return ""
	}
	if remotes, err := st.Remotes(ctx); err != nil || len(remotes) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, unpushedWait)
	defer cancel()
	ref, err := st.RemoteTracking(ctx, head)
	if err != nil || ref != "" {
		return ""
	}
	return fmt.Sprintf("baton %s names commit %s (HEAD), which no remote-tracking branch contains: push it (`git push`) so whoever takes the baton can fetch it",
		batonID, head[:min(12, len(head))])
}
