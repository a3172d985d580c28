package hooks

// The hooks git-handoff installs. Each has a shim template in shim.go and a
// body in run.go.
const (
	PrepareCommitMsg = "prepare-commit-msg"
	PostCheckout     = "post-checkout"
	PrePush          = "pre-push"
)

// Names returns the hooks git-handoff installs, in a fixed order.
func Names() []string {
	return []string{PrepareCommitMsg, PostCheckout, PrePush}
}

func isOurs(name string) bool {
	for _, n := range Names() {
		if n == name {
			return true
		}
	}
	return false
}

// GuardEnv is set (to "1") while git-handoff's part of a hook runs, and is
// inherited by every process it starts. A shim or Run that sees it does
// nothing, so a git command started from our own hook can never re-enter us.
const GuardEnv = "GIT_HANDOFF_IN_HOOK"

// SessionEnv, when non-empty, names the session bound to this worktree and
// overrides the symbolic ref refs/worktree/ao/session.
const SessionEnv = "GIT_HANDOFF_SESSION"

// chainedSuffix is appended to a user's own hook when Install moves it aside.
// The file stays in the same directory, so a hook that finds its helpers
// through dirname "$0" still finds them.
const chainedSuffix = ".handoff-chained"
