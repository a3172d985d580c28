package hooks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/git-handoff/git-handoff/refstore"
)

// Session is the session bound to the worktree a hook runs in.
type Session struct {
	ID      string // the <id> of refs/ao/sessions/<id>
	Harness string // the agent harness, e.g. "claude-code"; may be empty
}

// Waiting is a baton a session starting on some branch would be given.
type Waiting struct {
	ID     string
	Owner  string
	Branch string // the branch it was left on
	Shared bool   // eligible on any branch, not only Branch
	Step   string // its first next step
}

// Deps is what a hook body needs from the rest of git-handoff; the CLI
// implements it. Every method must honour ctx: Run gives up on a call that
// outlives its deadline, but a process the call started would linger.
// Implementations that run git against another repository must drop git's
// hook environment first (refstore.Git with clean=true).
type Deps interface {
	// BoundSession returns the session bound to this worktree:
	// GIT_HANDOFF_SESSION if set, else the target of the symbolic ref
	// refs/worktree/ao/session. ok is false when none is bound or the
	// session has ended.
	BoundSession(ctx context.Context) (s Session, ok bool, err error)
	// WaitingBaton returns the baton the current owner's next session on
	// branch (a short name such as "main") would be given, if any: the
	// owner's own for branch, else a shared one left on any branch.
	WaitingBaton(ctx context.Context, branch string) (w Waiting, ok bool, err error)
	// PushRecords pushes our records to remote (a remote name, or the URL
	// when the user pushed to a URL) with --no-verify. It decides itself
	// whether that remote takes our records, and returns nil if not.
	PushRecords(ctx context.Context, remote, url string) error
}

// Timeouts bound each hook body. A commit or checkout must not wait on us
// for long; a push already waits on the network, and ours is one more push.
var Timeouts = map[string]time.Duration{
	PrepareCommitMsg: 2 * time.Second,
	PostCheckout:     1 * time.Second,
	PrePush:          5 * time.Second,
}

// Run is the body of `git handoff hook <name> <args>...`. It never fails
// the user's operation: every failure, timeout or panic becomes one
// "warning: git-handoff: ..." line on stderr, so Run has no error to
// return and the CLI should exit 0 after it. stdin is not taken: the shim
// gives our part /dev/null and leaves pre-push's ref list to the user's
// hook. Run expects the working directory git gives hooks (the top of the
// work tree, or the git dir of a bare repository). With GuardEnv set Run
// does nothing; while it runs it sets GuardEnv in the process environment,
// so that git commands it starts cannot re-enter it.
func Run(ctx context.Context, name string, args []string, stderr io.Writer, deps Deps) {
	if os.Getenv(GuardEnv) != "" {
		return
	}
	if !isOurs(name) {
		warn(stderr, name, fmt.Errorf("unknown hook (a shim newer than this git-handoff?)"))
		return
	}
	os.Setenv(GuardEnv, "1")
	defer os.Unsetenv(GuardEnv)

	timeout := Timeouts[name]
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("internal error: %v", p)
			}
		}()
		done <- runHook(ctx, name, args, stderr, deps)
	}()
	select {
	case err := <-done:
		if err != nil {
			warn(stderr, name, err)
		}
	case <-ctx.Done():
		// The body may still be running; the process exits right after us
		// and takes it along.
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			warn(stderr, name, fmt.Errorf("gave up after %v; carrying on without it", timeout))
		} else {
			warn(stderr, name, ctx.Err())
		}
	}
}

func warn(w io.Writer, hook string, err error) {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	fmt.Fprintf(w, "warning: git-handoff: %s hook: %s\n", hook, msg)
}

func runHook(ctx context.Context, name string, args []string, stderr io.Writer, deps Deps) error {
	if deps == nil {
		return errors.New("internal error: no dependencies")
	}
	switch name {
	case PrepareCommitMsg:
		return prepareCommitMsg(ctx, args, stderr, deps)
	case PostCheckout:
		return postCheckout(ctx, args, stderr, deps)
	case PrePush:
		return prePush(ctx, args, deps)
	}
	return nil
}

// prepareCommitMsg adds our trailers, and warns when the commit touches
// another session's path lease; args are the message file, then
// optionally the source and a commit id.
func prepareCommitMsg(ctx context.Context, args []string, stderr io.Writer, deps Deps) error {
	if len(args) < 1 {
		return errors.New("missing message file argument")
	}
	s, ok, err := deps.BoundSession(ctx)
	if err != nil {
		return fmt.Errorf("reading bound session: %w", err)
	}
	id := ""
	if ok {
		id = s.ID
	}
	var leaseErr error
	if err := warnLeased(ctx, stderr, deps, id); err != nil {
		leaseErr = fmt.Errorf("checking leases: %w", err)
	}
	// A message from commit.template or -t opens in an editor, and git
	// aborts if it comes back unchanged; our trailers would defeat that.
	if !ok || len(args) > 1 && args[1] == "template" {
		return leaseErr
	}
	if err := addTrailers(ctx, args[0], s); err != nil {
		return errors.Join(fmt.Errorf("adding trailers: %w", err), leaseErr)
	}
	return leaseErr
}

// postCheckout prints one line when a baton waits on the branch just
// checked out; args are old HEAD, new HEAD and 1 for a branch checkout.
func postCheckout(ctx context.Context, args []string, stderr io.Writer, deps Deps) error {
	if len(args) < 3 || args[2] != "1" {
		return nil
	}
	out, err := refstore.Git(ctx, ".", false, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return nil // detached HEAD: no branch, no baton
	}
	branch := strings.TrimSpace(string(out))
	w, ok, err := deps.WaitingBaton(ctx, branch)
	if err != nil {
		return fmt.Errorf("looking for a baton on %q: %w", branch, err)
	}
	if ok {
		fmt.Fprintln(stderr, waitingLine(branch, w))
	}
	return nil
}

// waitingLine tells of the baton w a session started on branch would get.
// A shared baton left on another branch is not waiting on this one: it is
// eligible here, and the line says where it came from.
func waitingLine(branch string, w Waiting) string {
	kind, where := "baton", " is waiting on "+branch
	if w.Shared {
		kind = "shared baton"
		if w.Branch != branch {
			where = fmt.Sprintf(", left on %s, is eligible here on %s", w.Branch, branch)
		}
	}
	step := ""
	if s := oneLine(w.Step, 200); s != "" {
		step = ": " + s
	}
	return fmt.Sprintf("git-handoff: %s %s from %s%s%s (git handoff start)", kind, w.ID, w.Owner, where, step)
}

// prePush pushes our records to the remote the user pushes to; args are the
// remote's name (or URL) and its URL.
func prePush(ctx context.Context, args []string, deps Deps) error {
	if len(args) < 1 {
		return errors.New("missing remote argument")
	}
	remote, url := args[0], args[0]
	if len(args) > 1 {
		url = args[1]
	}
	if err := deps.PushRecords(ctx, remote, url); err != nil {
		return fmt.Errorf("pushing records to %s: %w", remote, err)
	}
	return nil
}

// oneLine folds s onto one line of at most max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
