package hooks

// LockWait lets tests shorten how long a change waits for the hooks lock.
var LockWait = &lockWait

// ArmWait lets tests shorten how long a bound worktree's Refresh waits.
var ArmWait = &armWait
