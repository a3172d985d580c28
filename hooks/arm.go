package hooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// Arming the prepare-commit-msg shim, and the protocol that keeps a bound
// worktree from committing without it: see "prepare-commit-msg once a
// session is bound" in doc.go.

// CommitHookKey is the git config key that says when the prepare-commit-msg
// shim is installed: CommitHookBound (the default) or CommitHookAlways.
const (
	CommitHookKey    = "handoff.commitHook"
	CommitHookBound  = "bound"
	CommitHookAlways = "always"
)

// idleDetail says when an idle prepare-commit-msg is installed.
const idleDetail = "installed while a worktree is bound to a session"

// stickyDetail says why a hook file shim of prepare-commit-msg, once armed,
// stays until `hooks uninstall` (doc.go says more).
const stickyDetail = "armed since a worktree was bound; stays until hooks uninstall, as removing it could fail a commit running in another worktree"

// lockName is the lock file, in the common git dir, that serialises every
// change to the hooks directory (Install, Uninstall, Refresh).
const lockName = "handoff-hooks.lock"

// lockWait is how long a change that is not a binding's (Install,
// Uninstall, a Refresh after an unbind) waits for a running git-handoff to
// release the lock. Giving up there is harmless: the hook stays as it was,
// and an armed hook with nothing to do costs time, not trailers. A holder
// that died releases it at once (see lockHooks).
var lockWait = 2 * time.Second

// armWait is how long a Refresh for a bound worktree waits for the lock.
// It must not give up the way lockWait does: until it holds the lock, a
// disarm that read the bindings before this one was written may still be
// under way. On a busy machine a queue of refreshes can hold the lock past
// lockWait; only a holder that stopped altogether should outlast armWait.
var armWait = time.Minute

// ErrNotArmed is returned by Refresh when the worktree it was called for is
// bound to a session but the prepare-commit-msg shim cannot be made sure to
// stay in place: its commits would carry no trailer. The caller should undo
// the binding (a worktree left unbound commits as it would without us) and
// say so.
var ErrNotArmed = errors.New("the commit hook could not be armed")

// Refresh arms or disarms the prepare-commit-msg shim in repoDir's hooks
// directory to match the bindings of every worktree of the repository, by
// the protocol doc.go describes. It does nothing unless git-handoff's hooks
// are installed there (our shim at post-checkout or pre-push), so
// `init --no-hooks` and `hooks uninstall` stay respected; it arms with the
// command those shims record, chaining a user's hook as Install does.
//
// Call Refresh after changing a binding, never before, and do not commit in
// a newly bound worktree before it returns.
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
	form, _, err := installedForm(ctx, repoDir, l)
	switch {
	case err != nil:
		return skipped(notInstalled(l), err)
	case form == "" && l.noHooks:
		// Hook files of ours may be there, out of git's sight and ours.
		return skipped(notInstalled(l), fmt.Errorf("finding the hooks directory: %w", refstore.ErrHooksDisabled))
	case form == "":
		return notInstalled(l), nil
	}
	bound, berr := worktreeBound(ctx, repoDir, l)
	if bound || berr != nil {
		// A binding that cannot be read counts as one: arming is safe.
		res, err := arm(ctx, repoDir, l, armWait, "this worktree is bound to a session", nil)
		if err != nil {
			err = fmt.Errorf("%w: %w", ErrNotArmed, err)
		}
		return res, errors.Join(berr, err)
	}
	want, why, werr := commitHookWanted(ctx, repoDir, l, form)
	if want {
		res, err := arm(ctx, repoDir, l, lockWait, why, nil)
		return res, errors.Join(werr, err)
	}
	res, err := settle(ctx, repoDir, l)
	return res, errors.Join(werr, err)
}

// notInstalled is Refresh's result where git-handoff's hooks are not.
func notInstalled(l layout) HookResult {
	return HookResult{Name: PrepareCommitMsg, Path: filepath.Join(l.hooks, PrepareCommitMsg), Action: Skipped,
		Detail: "git-handoff's hooks are not installed"}
}

// arm makes sure our current shim is at prepare-commit-msg, or our config
// hook for it armed, in the form the hooks are installed in (installedForm),
// waiting up to wait for the lock, then runs during (if not nil) while
// still holding it. The common case, a hook already armed, takes the lock
// shared only, so bound worktrees do not queue behind each other; arming
// takes it exclusively.
func arm(ctx context.Context, repoDir string, l layout, wait time.Duration, why string, during func() error) (HookResult, error) {
	res := notInstalled(l)
	unlock, err := lockHooks(ctx, l.common, true, wait)
	if err != nil {
		return skipped(res, err)
	}
	form, command, err := installedForm(ctx, repoDir, l)
	armed := true
	if err == nil && form != "" {
		armed, err = isArmedIn(ctx, repoDir, l, form, command)
	}
	if err != nil {
		unlock()
		return skipped(res, err)
	}
	if armed {
		defer unlock()
		if form != "" {
			res = armedResult(l, form)
		} // else uninstalled meanwhile
		return res, runDuring(during)
	}
	unlock()
	if unlock, err = lockHooks(ctx, l.common, false, wait); err != nil {
		return skipped(res, err)
	}
	defer unlock()
	if form, command, err = installedForm(ctx, repoDir, l); err != nil {
		return skipped(res, err)
	}
	if form != "" {
		res, err = armIn(ctx, repoDir, l, form, command)
		if res.Detail == "" && res.Action != Unchanged {
			res.Detail = why
		}
		if err != nil {
			return res, err
		}
	}
	return res, runDuring(during)
}

// isArmedIn reports whether prepare-commit-msg is armed in form with
// command.
func isArmedIn(ctx context.Context, repoDir string, l layout, form Form, command string) (bool, error) {
	if form == FormConfig {
		return isArmedConfig(l, command)
	}
	return isArmed(l.hooks, command), nil
}

// armIn arms prepare-commit-msg in form with command: Install's own step.
// The caller holds the lock exclusively.
func armIn(ctx context.Context, repoDir string, l layout, form Form, command string) (HookResult, error) {
	if form == FormConfig {
		return armConfig(ctx, repoDir, l, command)
	}
	res, err := installOne(l.hooks, PrepareCommitMsg, command)
	res.Form = FormFiles
	return res, err
}

// armedResult is arm's result where prepare-commit-msg was armed already.
func armedResult(l layout, form Form) HookResult {
	if form == FormConfig {
		return HookResult{Name: PrepareCommitMsg, Path: configShimPath(l.common, PrepareCommitMsg),
			Form: FormConfig, Config: configName(PrepareCommitMsg), Action: Unchanged}
	}
	res := HookResult{Name: PrepareCommitMsg, Path: filepath.Join(l.hooks, PrepareCommitMsg), Form: FormFiles, Action: Unchanged}
	if exists(res.Path + chainedSuffix) {
		res.Detail = "runs " + res.Path + chainedSuffix
	}
	return res
}

func runDuring(during func() error) error {
	if during == nil {
		return nil
	}
	return during()
}

// BindGuard returns the refstore.BindGuard of the worktree at repoDir
// (found as rl): the binding is written under the hooks lock once
// prepare-commit-msg is armed, or not at all (an error wrapping
// ErrNotArmed). Where git-handoff's hooks are not installed the binding is
// written as it is.
func BindGuard(repoDir string, rl refstore.Layout) refstore.BindGuard {
	return func(bind func() error) error {
		ctx := context.Background()
		l, err := locateIn(ctx, repoDir, rl)
		if err != nil {
			return bind() // and Refresh, which cannot find the hooks either, says so
		}
		if form, _, err := installedForm(ctx, repoDir, l); form == "" && err == nil {
			return bind()
		} // an error: arm meets it too, and does not bind
		bound := false
		_, err = arm(ctx, repoDir, l, armWait, "this worktree is being bound to a session", func() error {
			bound = true
			return bind()
		})
		if err != nil && !bound {
			return fmt.Errorf("%w: %w", ErrNotArmed, err)
		}
		return err
	}
}

// isArmed reports whether our current shim with command is at
// prepare-commit-msg in dir, executable.
func isArmed(dir, command string) bool {
	path := filepath.Join(dir, PrepareCommitMsg)
	content, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	shim, err := Shim(PrepareCommitMsg, command)
	if err != nil || string(content) != shim {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode()&0o111 != 0
}

// settle disarms prepare-commit-msg if, under the exclusive lock, no
// worktree is bound: the only way our shim leaves the hooks directory
// while git-handoff's hooks are installed. The caller found nothing that
// wants it armed.
func settle(ctx context.Context, repoDir string, l layout) (HookResult, error) {
	res := notInstalled(l)
	unlock, err := lockHooks(ctx, l.common, false, lockWait)
	if err != nil {
		return skipped(res, err)
	}
	defer unlock()
	if form, _, err := installedForm(ctx, repoDir, l); form == "" || err != nil {
		return res, err
	}
	// Again under the lock: a binding written since the caller looked has
	// a Refresh waiting for this lock, which arms if need be; the shim
	// must stay for it.
	if wt, err := boundWorktree(ctx, repoDir, l); wt != "" || err != nil {
		if err != nil {
			return skipped(res, err)
		}
		res.Action, res.Detail = Unchanged, wt+" is bound to a session"
		return res, nil
	}
	return disarmAll(ctx, repoDir, l)
}

// disarmAll disarms prepare-commit-msg where the hooks are installed in
// config; hook files stay armed (stickyDetail), and their result says so
// where the hooks are files only. The caller holds the lock exclusively.
func disarmAll(ctx context.Context, repoDir string, l layout) (HookResult, error) {
	var res HookResult
	var errs []error
	done := false
	if configInstalled(l.common) {
		// The shim says whether the event is set: an idle end pays no git.
		res = HookResult{Name: PrepareCommitMsg, Path: configShimPath(l.common, PrepareCommitMsg), Form: FormConfig,
			Config: configName(PrepareCommitMsg), Action: Idle, Detail: idleDetail}
		removed, err := disarmConfig(ctx, repoDir, l, false)
		if removed {
			res.Action = Removed
		}
		errs = append(errs, err)
		done = true
	}
	if l.hooks != "" && !done {
		if _, ok := installedCommand(l.hooks); ok {
			// Hook files are left as they are: see stickyDetail. Only a
			// shim of ours that is not there yet could be "disarmed", and
			// that is nothing to do.
			res = HookResult{Name: PrepareCommitMsg, Path: filepath.Join(l.hooks, PrepareCommitMsg), Form: FormFiles, Action: Idle, Detail: idleDetail}
			if shimAt(l.hooks) {
				res.Action, res.Detail = Unchanged, stickyDetail
			}
			done = true
		}
	}
	if !done {
		res = notInstalled(l)
	}
	return res, errors.Join(errs...)
}

// commitHook arms or disarms prepare-commit-msg. The caller holds the lock
// exclusively.
func commitHook(ctx context.Context, repoDir string, l layout, command string) (HookResult, error) {
	want, why, werr := commitHookWanted(ctx, repoDir, l, FormFiles)
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

// commitHookWanted reports whether prepare-commit-msg must be installed in
// form, and why. An unreadable setting or binding still gives an answer,
// with the error. A hooks directory outside the repository matters to hook
// files only: config hooks are the repository's own. So does a shim armed
// already: hook files stay armed (stickyDetail).
func commitHookWanted(ctx context.Context, repoDir string, l layout, form Form) (bool, string, error) {
	if form == FormFiles && !l.ownHooks() {
		return true, "hooks directory " + l.hooks + " is outside the repository, where others may share it", nil
	}
	if wt, err := boundWorktree(ctx, repoDir, l); wt != "" || err != nil {
		if err != nil {
			return true, "cannot tell which worktrees are bound", err
		}
		return true, wt + " is bound to a session", nil
	}
	mode, err := commitHookMode(ctx, repoDir)
	if mode == CommitHookAlways {
		return true, CommitHookKey + " is " + CommitHookAlways, nil
	}
	if form == FormFiles && shimAt(l.hooks) {
		return true, stickyDetail, err
	}
	return false, "", err
}

// worktreeBound reports whether the worktree at repoDir is bound: whether
// git resolves its symbolic ref refs/worktree/ao/session. git, not a file
// test, because on reftable the ref is no file; but a binding file counts
// too, whatever git says, as the shim's own test finds it first.
func worktreeBound(ctx context.Context, repoDir string, l layout) (bool, error) {
	if l.top == "" {
		return false, nil // a bare repository or a git dir: nothing to bind
	}
	if exists(filepath.Join(l.gitDir, filepath.FromSlash(refstore.WorktreeSession))) {
		return true, nil
	}
	_, err := refstore.Git(ctx, repoDir, false, nil, "symbolic-ref", "--quiet", refstore.WorktreeSession)
	var ge *refstore.GitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ge) && ge.ExitCode() == 1:
		return false, nil
	default:
		return false, fmt.Errorf("reading this worktree's binding: %w", err)
	}
}

// boundWorktree names a worktree of the repository that is bound to a
// session, or returns "" when none is. One git process resolves every
// worktree's binding by git's names for other worktrees' refs
// (main-worktree/<ref>, worktrees/<id>/<ref>), on reftable as on files. A
// binding whose session ref is gone resolves to nothing and counts as
// unbound: no trailer names a session without its record. A binding file
// counts whatever git says, as in worktreeBound.
func boundWorktree(ctx context.Context, repoDir string, l layout) (string, error) {
	binding := filepath.FromSlash(refstore.WorktreeSession)
	if exists(filepath.Join(l.common, binding)) {
		return "the main worktree", nil
	}
	names := []string{"main-worktree/" + refstore.WorktreeSession}
	labels := []string{"the main worktree"}
	entries, err := os.ReadDir(filepath.Join(l.common, "worktrees"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if exists(filepath.Join(l.common, "worktrees", e.Name(), binding)) {
			return "worktree " + e.Name(), nil
		}
		if strings.ContainsAny(e.Name(), "\n\r") {
			return "worktree " + strconv.Quote(e.Name()), nil // cannot ask: count it bound
		}
		names = append(names, "worktrees/"+e.Name()+"/"+refstore.WorktreeSession)
		labels = append(labels, "worktree "+e.Name())
	}
	out, err := refstore.Git(ctx, repoDir, false, []byte(strings.Join(names, "\n")+"\n"),
		"cat-file", "--batch-check")
	if err != nil {
		return "", fmt.Errorf("reading the worktrees' bindings: %w", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		return "", fmt.Errorf("reading the worktrees' bindings: git cat-file --batch-check answered %d lines for %d names", len(lines), len(names))
	}
	for i, line := range lines {
		if !strings.HasSuffix(line, " missing") {
			return labels[i], nil
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

// shimAt reports whether a shim of ours, of any version, is at
// prepare-commit-msg in dir.
func shimAt(dir string) bool {
	content, err := os.ReadFile(filepath.Join(dir, PrepareCommitMsg))
	return err == nil && isShim(content)
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
