package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// The prepare-commit-msg shim is "armed" (present in the hooks directory)
// only while it may have something to do: see "prepare-commit-msg only
// while a session is bound" in doc.go. It is armed while some worktree of
// the repository is bound to a session, while handoff.commitHook is
// "always", or when the hooks directory lies outside the repository (a
// core.hooksPath such as ~/.githooks), where other repositories may run the
// same shim and this one cannot see their bindings.

// CommitHookKey is the git config key that says when the prepare-commit-msg
// shim is installed: CommitHookBound (the default) or CommitHookAlways.
const (
	CommitHookKey    = "handoff.commitHook"
	CommitHookBound  = "bound"
	CommitHookAlways = "always"
)

// idleDetail says when an idle prepare-commit-msg is installed.
const idleDetail = "installed while a worktree is bound to a session"

// lockName is the lock file, in the common git dir, that serialises every
// change to the hooks directory (Install, Uninstall, Refresh).
const lockName = "handoff-hooks.lock"

// lockWait is how long a change waits for a running git-handoff to release
// the lock. A holder that died releases it at once (see lockHooks).
var lockWait = 2 * time.Second

// Refresh arms or disarms the prepare-commit-msg shim in repoDir's hooks
// directory to match the bindings of every worktree of the repository (see
// the comment at the top of this file). It does nothing unless
// git-handoff's hooks are installed there, that is unless our shim is at
// post-checkout or pre-push, so `init --no-hooks` and `hooks uninstall`
// stay respected; it arms with the command those shims record, so a shim
// installed with Options.Command keeps it. Arming is Install's own step, so
// a user's hook is chained exactly as Install chains it; disarming renames
// the chained hook back over our shim (content, mode and symlinks kept) or
// removes the shim, and never touches a hook that is not ours.
//
// Call Refresh after changing a binding, never before. It decides under a
// lock file in the common git dir, reading every binding afresh, so when a
// bind races an unbind the Refresh that runs last sees both changes: a
// bound worktree is never left without the shim. It starts one git process,
// two when nothing is bound (to read handoff.commitHook).
func Refresh(ctx context.Context, repoDir string) (HookResult, error) {
	l, err := locate(ctx, repoDir)
	if err != nil {
		return skipped(HookResult{Name: PrepareCommitMsg}, err)
	}
	return refresh(ctx, repoDir, l)
}

// RefreshIn is Refresh for the repository of an open Store, found already
// (st.Layout()): a command that bound a worktree need not find it twice.
func RefreshIn(ctx context.Context, repoDir string, rl refstore.Layout) (HookResult, error) {
	l, err := locateIn(ctx, repoDir, rl)
	if err != nil {
		return skipped(HookResult{Name: PrepareCommitMsg}, err)
	}
	return refresh(ctx, repoDir, l)
}

func refresh(ctx context.Context, repoDir string, l layout) (HookResult, error) {
	res := HookResult{Name: PrepareCommitMsg, Path: filepath.Join(l.hooks, PrepareCommitMsg), Action: Skipped,
		Detail: "git-handoff's hooks are not installed"}
	if _, ok := installedCommand(l.hooks); !ok {
		return res, nil
	}
	unlock, err := lockHooks(ctx, l.common)
	if err != nil {
		return skipped(res, err)
	}
	defer unlock()
	// Again under the lock: an Uninstall may have finished meanwhile.
	command, ok := installedCommand(l.hooks)
	if !ok {
		return res, nil
	}
	return commitHook(ctx, repoDir, l, command)
}

// commitHook arms or disarms prepare-commit-msg. The caller holds the lock.
func commitHook(ctx context.Context, repoDir string, l layout, command string) (HookResult, error) {
	want, why, werr := commitHookWanted(ctx, repoDir, l)
	var res HookResult
	var err error
	if want {
		res, err = installOne(l.hooks, PrepareCommitMsg, command)
		if res.Detail == "" && res.Action != Unchanged {
			res.Detail = why
		}
	} else {
		res, err = disarm(l.hooks)
	}
	return res, errors.Join(werr, err)
}

// commitHookWanted reports whether prepare-commit-msg must be installed,
// and why. An unreadable setting still gives an answer, with the error.
func commitHookWanted(ctx context.Context, repoDir string, l layout) (bool, string, error) {
	if !l.ownHooks() {
		return true, "hooks directory " + l.hooks + " is outside the repository, where others may share it", nil
	}
	if wt, err := boundWorktree(l.common); wt != "" || err != nil {
		if err != nil {
			return true, "cannot tell which worktrees are bound", err
		}
		return true, wt + " is bound to a session", nil
	}
	mode, err := commitHookMode(ctx, repoDir)
	if mode == CommitHookAlways {
		return true, CommitHookKey + " is " + CommitHookAlways, nil
	}
	return false, "", err
}

// boundWorktree names a worktree of the repository whose git dir has a
// binding, or returns "" when none has. It reads the files directly, so its
// cost does not grow with a git process per worktree.
func boundWorktree(common string) (string, error) {
	binding := filepath.FromSlash(refstore.WorktreeSession)
	if _, err := os.Lstat(filepath.Join(common, binding)); err == nil {
		return "the main worktree", nil
	}
	entries, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", err
	}
	for _, e := range entries {
		if _, err := os.Lstat(filepath.Join(common, "worktrees", e.Name(), binding)); err == nil {
			return "worktree " + e.Name(), nil
		}
	}
	return "", nil
}

// commitHookMode reads handoff.commitHook: CommitHookBound when unset. An
// unknown value is an error, and counts as the default.
func commitHookMode(ctx context.Context, repoDir string) (string, error) {
	out, err := refstore.Git(ctx, repoDir, false, nil, "config", "--get", CommitHookKey)
	if err != nil {
		var ge *refstore.GitError
		if errors.As(err, &ge) && ge.ExitCode() == 1 {
			return CommitHookBound, nil // not set
		}
		return CommitHookBound, fmt.Errorf("reading %s: %w", CommitHookKey, err)
	}
	switch v := strings.ToLower(strings.TrimSpace(string(out))); v {
	case CommitHookBound, CommitHookAlways:
		return v, nil
	default:
		return CommitHookBound, fmt.Errorf("%s is %q: want %q or %q (taken as %q)",
			CommitHookKey, v, CommitHookBound, CommitHookAlways, CommitHookBound)
	}
}

// disarm takes our prepare-commit-msg shim out of dir, putting the user's
// hook back in its place when Install chained one: Uninstall's own step,
// reported as the idle half of arming. A hook that is not ours stays as it
// is.
func disarm(dir string) (HookResult, error) {
	res, err := uninstallOne(dir, PrepareCommitMsg)
	switch res.Action {
	case Unchanged:
		if res.Detail != "" { // the user's own hook, alone
			res.Action, res.Detail = Idle, "your hook runs alone; ours is "+idleDetail
		} else {
			res.Action, res.Detail = Idle, idleDetail
		}
	case Removed:
		res.Detail = idleDetail
	case Restored:
		res.Detail += "; ours is " + idleDetail
	case Skipped:
		if err == nil { // the user's hook and a chained one both present
			return bothExist(res, res.Path+chainedSuffix)
		}
	}
	return res, err
}

// installedCommand reports whether git-handoff's hooks are installed in dir
// (our shim of any version at post-checkout or pre-push) and the command
// that shim records.
func installedCommand(dir string) (string, bool) {
	for _, name := range []string{PostCheckout, PrePush} {
		if content, err := os.ReadFile(filepath.Join(dir, name)); err == nil && isShim(content) {
			return shimCommand(content), true
		}
	}
	return "", false
}
