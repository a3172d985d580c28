package refstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Layout is where a repository's parts are, as git's setup finds them from
// some directory.
type Layout struct {
	GitDir    string // this worktree's git dir, absolute
	CommonDir string // the git dir all worktrees share, absolute
	// WorkTree is the top of the worktree the directory is inside; "" in a
	// bare repository or inside a git dir.
	WorkTree string
	Bare     bool // core.bare: the repository has no worktree

	hooks string // where git looks for hooks (rev-parse --git-path hooks)
	// noHooks: core.hooksPath is the empty string, with which git runs no
	// hooks at all (Gemini CLI sets it so for every shell command it runs).
	noHooks      bool
	objectFormat string // "sha1" or "sha256"
	// head is the ref HEAD names ("HEAD" when detached); binding the
	// session ref this worktree's binding names when that record exists
	// (name "" when there is no binding, or it names a record that is
	// gone). Unknown when HEAD is unborn or ambiguous.
	head, binding resolved
}

// Locate finds the repository containing dir through one git rev-parse:
// git's own setup (GIT_DIR, GIT_WORK_TREE, GIT_COMMON_DIR, ceilings,
// core.worktree, safe.directory) decides. The same process says what HEAD
// and this worktree's binding name (Layout.head, Layout.binding), which
// every command asks next: two git processes fewer.
func Locate(ctx context.Context, dir string) (Layout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Layout{}, err
	}
	args := []string{"rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--is-bare-repository", "--show-object-format",
		"--is-inside-work-tree", "--show-cdup"}
	// After --revs-only, a name that does not resolve (an unborn HEAD, no
	// binding, a binding to a record that is gone) prints nothing and
	// everything after it is taken for a path, unprinted: so these come
	// last, HEAD first, with a line git always prints
	// (--is-bare-repository) between the two names.
	names := []string{"--revs-only", "--symbolic-full-name", "HEAD", "--is-bare-repository", WorktreeSession}
	hooksArgs := append(append(args[:len(args):len(args)], "--git-path", "hooks"), names...)
	out, err := Git(ctx, abs, false, nil, hooksArgs...)
	noHooks := false
	if hooksPathEmpty(err) {
		noHooks = true
		out, err = Git(ctx, abs, false, nil, append(args, names...)...)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return Layout{}, fmt.Errorf("%w (or any of the parent directories): %s", ErrNotRepository, dir)
		}
		return Layout{}, err
	}
	if len(lines) < 5 {
		return Layout{}, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	l := Layout{
		GitDir:       filepath.Clean(lines[0]),
		CommonDir:    filepath.Clean(lines[1]),
		Bare:         lines[2] == "true",
		objectFormat: lines[3],
		noHooks:      noHooks,
	}
	rest := lines[5:]
	// --show-cdup prints a line (empty at the top) only inside a
	// worktree; the way up to the top, and git's paths are real paths,
	// so is this one.
	if lines[4] == "true" {
		if len(rest) == 0 {
			return Layout{}, fmt.Errorf("git rev-parse: unexpected output %q", out)
		}
		l.WorkTree = filepath.Join(realPath(abs), rest[0])
		rest = rest[1:]
	}
	if !noHooks {
		if len(rest) == 0 {
			return Layout{}, fmt.Errorf("git rev-parse: unexpected output %q", out)
		}
		l.hooks = filepath.Clean(rest[0])
		rest = rest[1:]
	}
	l.head, l.binding = parseNames(rest)
	return l, nil
}

// parseNames reads what rev-parse said of HEAD and the binding: nothing
// when HEAD did not resolve (unborn, whereupon the binding was not asked
// either); else HEAD's full name unless git found it ambiguous, the
// separator, and the binding's target when it resolves.
func parseNames(rest []string) (head, binding resolved) {
	if len(rest) == 0 {
		return resolved{}, resolved{}
	}
	if rest[0] != "true" && rest[0] != "false" {
		head = resolved{name: rest[0], known: true}
		rest = rest[1:]
	}
	if len(rest) == 0 || rest[0] != "true" && rest[0] != "false" {
		return head, resolved{} // not the shape asked for: git is asked again later
	}
	binding.known, binding.at = true, time.Now()
	if len(rest) > 1 {
		binding.name = rest[1]
	}
	return head, binding
}

// resolved is a symbolic name as rev-parse resolved it while the Store
// opened: known says it answered (name "" then: nothing resolved), at
// when.
type resolved struct {
	name  string
	known bool
	at    time.Time
}

// fresh is r when it was resolved moments ago, else nothing known: a
// command asks right after it opens, but a long-lived Store (the MCP
// server, the status page, a test) may first ask long after another
// process moved the binding (found by TestReplaceAndRoute).
func (r resolved) fresh() resolved {
	if !r.known || time.Since(r.at) > bindingFresh {
		return resolved{}
	}
	return r
}

// bindingFresh is how long Open's answer of the binding may stand for
// git's: a command's first question comes within milliseconds.
const bindingFresh = time.Second

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// HooksDir is where git looks for dir's repository's hooks (git rev-parse
// --git-path hooks), as Locate found it.
func HooksDir(ctx context.Context, dir string, l Layout) (string, error) {
	if l.noHooks {
		return "", ErrHooksDisabled
	}
	if l.hooks != "" {
		return l.hooks, nil
	}
	out, err := Git(ctx, dir, false, nil, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if hooksPathEmpty(err) {
		return "", ErrHooksDisabled
	}
	if err != nil {
		return "", err
	}
	return filepath.Clean(strings.TrimSpace(string(out))), nil
}

// ErrHooksDisabled: core.hooksPath is set to the empty string here, so git
// runs no hooks and there is no hooks directory to install into or check.
var ErrHooksDisabled = errors.New("git runs no hooks here: core.hooksPath is set to the empty string (git config --show-origin core.hooksPath says where)")

// hooksPathEmpty reports git refusing to make an empty core.hooksPath
// absolute: git then runs no hooks, and every other answer still stands.
func hooksPathEmpty(err error) bool {
	var ge *GitError
	return errors.As(err, &ge) && strings.Contains(ge.Stderr, "The empty string is not a valid path")
}
