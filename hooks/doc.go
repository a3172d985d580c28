// Package hooks installs, checks and removes git-handoff's git hooks, and is
// the body of `git handoff hook <name>` that they call.
//
// Install, Check and Uninstall manage prepare-commit-msg, post-checkout and
// pre-push (Names) in one of two forms (Form); Refresh and BindGuard arm the
// commit hook as worktrees bind; Run is the hook body.
//
// # prepare-commit-msg once a session is bound
//
// Starting any hook at all, even an empty `exit 0`, costs a third of a
// commit on a small machine, and most commits belong to no session. So the
// prepare-commit-msg shim is not in the hooks directory until it is
// "armed": when some worktree of the repository is bound to a session
// (its per-worktree symbolic ref refs/worktree/ao/session resolves), or
// while git config handoff.commitHook is "always" (for orchestrators that
// name the session in GIT_HANDOFF_SESSION without binding a worktree;
// "bound" is the default), or when the hooks directory lies outside the
// repository, where other repositories may share it.
//
// Hook files, once armed, stay armed until `hooks uninstall`. git looks a
// hook file up (access) and then runs it (fork, exec, and sh opening the
// script) as separate steps; a shim removed in between fails the commit
// that found it ("cannot run .git/hooks/prepare-commit-msg: No such file
// or directory"), and a commit in another worktree can be there at any
// moment (TestUnboundCommitsWhileAnotherWorktreeBindsAndUnbinds). An armed
// shim with nothing to do costs one sh start. Config hooks do disarm,
// safely: git has read the event before it runs the command, and the
// command holds the shim open before it reads it (configCommand).
// Install leaves prepare-commit-msg to Refresh (Action Idle, StateIdle in
// Check: healthy); post-checkout and pre-push are not on the commit path
// and stay installed.
//
// The hooks directory is shared by every worktree, so arming is a state of
// the repository that bindings come and go under, and a bound worktree must
// never commit while it is disarmed (issue 27: a commit made while bound
// carried no trailer). Install, Uninstall and Refresh change the directory
// under a kernel lock (flock) on <common git dir>/handoff-hooks.lock (a
// killed holder blocks nobody), and:
//
//   - only a disarm (config form) or Uninstall removes the shim, deciding
//     on every binding and removing it with the lock held exclusively;
//   - a Refresh for a bound worktree runs after its binding was written and
//     takes the lock, shared, before it returns: any disarm that read the
//     bindings before has finished by then (and the Refresh arms if it
//     did), and any later one sees the binding. It waits for the lock up to
//     a minute, not the 2 s other changes wait, and when even that fails it
//     returns ErrNotArmed and the command undoes the binding: a worktree
//     that is bound has its shim;
//   - a Refresh after an unbind disarms only when no binding is left, and
//     when it cannot take the lock in time the shim simply stays;
//   - stores the commands open write bindings through BindGuard
//     (refstore.Store.GuardBindings), which arms first and writes the
//     binding under the same lock: a command killed at any point leaves
//     its worktree unbound, or bound and armed, and one that cannot arm
//     does not bind (ErrNotArmed).
//
// Bindings are read through git, so the decision holds on reftable too; a
// binding file counts whatever git says, since the shim finds it first.
//
// # Leases at commit time
//
// A commit is never blocked by a lease. While a path lease ref exists
// (refs/ao/leases/path/, which the shim tests with builtins, or git on
// reftable) the commit goes to git-handoff instead of the shim's fast
// path, and prepare-commit-msg warns on stderr when the staged paths fall
// under another session's path lease (leases.go; Deps that implement
// LeaseReader). With no path lease the commit costs what it did: whether
// packed-refs holds one is kept in <git dir>/handoff-hook-leased while that
// is newer than packed-refs.
//
// # Two forms
//
// Hook files (FormFiles) are what every git runs: our shim takes the hook's
// name in the hooks directory and the user's hook, if any, is moved aside
// and chained (see Shims). Hooks from config (FormConfig, config.go; git
// 2.54 and later) leave the hooks directory alone: the repository's config
// names one hook per event, hook.git-handoff-<name>, whose command is a line
// of sh builtins reading the shim <common dir>/handoff/hooks/<name>; git
// runs it first and the user's hook file, if any, after it. A disarmed
// prepare-commit-msg costs nothing there: its event is set only while armed.
// The user's hooks then run after ours whatever our status, so a user's
// prepare-commit-msg sees our trailers, and a pre-push of theirs that
// refuses the push no longer keeps our records from that remote.
//
// Install (FormAuto) keeps the form a repository has, drops config hooks
// that the git on PATH would not run, and otherwise picks config where git
// runs it; hook files of an earlier install keep working under a newer git
// until `hooks install --hooks=config` moves them (Migrated, the user's
// hooks put back). Refresh and BindGuard arm in the form installed.
//
// # Shims
//
// Each installed hook is a short POSIX sh script. It first runs the hook the
// user had, which Install moved to <name>.handoff-chained in the same
// directory (by hard link, then the shim renamed over the old name, or by
// rename: the file itself, so content, mode and symlinks are kept, and
// Uninstall renames it back). The user's hook gets the same arguments and the same stdin (for
// pre-push, git's ref list, untouched: our part reads /dev/null), and its
// exit status still decides: a prepare-commit-msg or pre-push that fails
// stops the commit or push before our part runs; post-checkout's status
// becomes the checkout's, as without us. A chained hook that reads its own
// name from basename "$0" sees "<name>.handoff-chained"; dirname "$0" is
// unchanged.
//
// Then, only if a test made of shell builtins (no git, no Go binary) says
// there may be something to do, the shim runs git-handoff's part and ignores
// its exit status:
//
//   - prepare-commit-msg (while armed): GIT_HANDOFF_SESSION is set, or the
//     per-worktree symbolic ref file <git dir>/refs/worktree/ao/session exists
//     (per-worktree refs are never packed, so the file test is exact), or,
//     in a reftable repository (a reftable directory in the common dir),
//     `git symbolic-ref -q refs/worktree/ao/session` names one.
//     The common bound case, `git commit -m` in a worktree bound to a
//     session whose id needs no encoding, is finished by the shim itself,
//     without starting git-handoff: the record's answer (active? which
//     agent?) is cached in <git dir>/handoff-hook-cache under the record's
//     blob id, read from its loose ref (`git cat-file` when the cache is
//     stale or the ref packed), and the trailers are appended in sh where
//     the message's last paragraph is plainly prose or plainly canonical
//     trailers (`git interpret-trailers` otherwise).
//     TestShimTrailersMatchGitHandoff holds the two paths together. Any
//     other source, an existing Handoff-* or comment line, a message
//     without its final newline or a record it cannot read with certainty
//     goes to git-handoff, and so does any commit where git reads a
//     trailer.* setting (separators, a key's own rules): the shim looks for
//     a [trailer section in the repository's, the user's and the system's
//     config files and in `git -c` (not in files pulled in by include), and
//     git-handoff then asks git and leaves the message to
//     git interpret-trailers. A plain answer is kept in
//     <git dir>/handoff-hook-plain while it is newer than every one of those
//     files and the variables that chose them are the same: sh reads a byte
//     per system call, so a ~/.gitconfig of a few kilobytes had cost every
//     bound commit milliseconds.
//   - post-checkout: a branch checkout ($3 = 1) in a repository with batons,
//     as a refs/ao/handoffs directory or, once packed, a packed-refs line
//     (one grep, only on branch changes).
//   - pre-push: the repository holds records of ours (sessions, handoffs,
//     objectives or prs, loose or packed). Whether the remote takes them is
//     Deps.PushRecords' decision, which also pushes with --no-verify.
//
// The git dir comes from GIT_DIR when git exported it (linked worktrees and
// explicit GIT_DIR), else from .git in the hook's working directory, which
// git makes the top of the worktree: a directory, or a "gitdir: <path>" file.
// Shared refs live in the common dir named by <git dir>/commondir. The
// default shim calls git-handoff straight from PATH (command -v is a
// builtin) and falls back to `git handoff`, which also searches git's
// exec-path; Options.Command replaces both with a fixed command.
//
// GIT_HANDOFF_IN_HOOK (GuardEnv) set to anything makes the shims skip our
// part and Run do nothing; Run sets it for everything it starts, so a git
// command run from our hook never re-enters us.
//
// # Failure never blocks the user
//
// Run bounds each body (Timeouts: 2s prepare-commit-msg, 1s post-checkout,
// 5s pre-push), gives up on a Deps call that ignores its context, recovers
// from panics, and turns every failure into one line on stderr,
// "warning: git-handoff: <hook> hook: <cause>". The shim ignores our exit
// status besides.
//
// # Trailers
//
// prepare-commit-msg gives a bound session's commits "Handoff-Session: <id>"
// and "Handoff-Agent: <harness>" as the last trailers; nothing else records
// which session made a commit. They are added to messages from -m, -F, merge
// and squash, not to a template's (git aborts a commit whose template comes
// back unedited) nor to an empty one (quitting the editor must still abort),
// and kept once written (addTrailers).
package hooks
