// Package hooks installs, checks and removes git-handoff's git hooks, and is
// the body of `git handoff hook <name>` that they call.
//
// # API
//
//   - Names lists the hooks we install: prepare-commit-msg, post-checkout,
//     pre-push.
//   - Dir finds the hooks directory with `git rev-parse --git-path hooks`,
//     which honours core.hooksPath, linked worktrees and bare repositories.
//   - Install writes the shims; Check reports each hook as installed,
//     missing, stale, not-executable or foreign, and what it chains to;
//     Uninstall removes the shims and puts the user's hooks back.
//   - Shim returns a shim's text.
//   - Run is the hook body. The CLI supplies a Deps (the bound session, a
//     waiting baton, pushing records) and exits 0 afterwards.
//
// # Shims
//
// Each installed hook is a short POSIX sh script. It first runs the hook the
// user had, which Install renamed to <name>.handoff-chained in the same
// directory (rename keeps content, mode and symlinks, and Uninstall renames it
// back). The user's hook gets the same arguments and the same stdin (for
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
//   - prepare-commit-msg: GIT_HANDOFF_SESSION is set, or the per-worktree
//     symbolic ref file <git dir>/refs/worktree/ao/session exists
//     (per-worktree refs are never packed, so the file test is exact).
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
//     goes to git-handoff. A trailer.separators setting other than ":" is
//     not seen by the shim.
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
// prepare-commit-msg gives a bound session's commits
//
//	Handoff-Session: <id>
//	Handoff-Agent: <harness>
//
// as the last lines of the trailer block; nothing else records which session
// made a commit (no ref is written per commit). The trailers behave like the
// author: written when a message is first made and then kept. A message that
// already has either key is left alone, so --amend, rebase, cherry-pick and
// commit -c/-C keep the session that first wrote it and a pair is never split
// between two sessions (interpret-trailers' --if-exists doNothing, for both
// keys together).
//
// Decisions on message sources:
//
//   - message (-m, -F): trailers added. Agents commit this way.
//   - merge, squash: added; the message is git's own and a bound worktree's
//     merges are the session's work.
//   - template (commit.template, -t): skipped. git aborts a commit whose
//     template comes back unedited, and our trailers would defeat that check.
//   - an empty message (a plain `git commit` about to open the editor):
//     skipped, so that quitting the editor still aborts. Commits written in
//     the editor from nothing therefore get no trailers.
//
// Plain messages (no comment-like, conflict or whitespace-only lines, a last
// paragraph that is prose or wholly canonical trailers) are edited in
// process, leaving every existing byte in place; the rest goes to
// `git interpret-trailers --in-place --where end --if-exists doNothing`,
// which knows core.commentChar, scissors lines and trailer configuration but
// rewrites existing trailers into canonical "Key: value" form.
// TestAppendTrailersMatchesGit checks the in-process path against git.
// Comment lines are assumed to start with '#' when judging whether a message
// is empty.
package hooks
