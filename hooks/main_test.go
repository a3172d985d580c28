package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-handoff/git-handoff/hooks"
	"github.com/git-handoff/git-handoff/refstore"
)

// The test binary doubles as git-handoff: TestMain links it onto PATH under
// that name, and when git runs it with testbinEnv set it behaves as
// `git handoff hook ...` with Deps driven by environment variables. That
// runs the real shims, the real Run and real git, with no stubbed git.
const (
	testbinEnv  = "GIT_HANDOFF_TESTBIN"      // "1": act as git-handoff
	logEnv      = "GIT_HANDOFF_TEST_LOG"     // append one line per start here
	failEnv     = "GIT_HANDOFF_TEST_FAIL"    // error | panic | hang
	harnessEnv  = "GIT_HANDOFF_TEST_HARNESS" // harness of the bound session
	timeoutEnv  = "GIT_HANDOFF_TEST_TIMEOUT" // overrides every hook timeout
	batonOwner  = "me"                       // batons are read from refs/ao/handoffs/private/me/<branch>
	defaultHarn = "test-agent"
)

var binDir string

func TestMain(m *testing.M) {
	if os.Getenv(testbinEnv) == "1" {
		os.Exit(testbinMain(os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "hooks-testbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	self, err := os.Executable()
	if err == nil {
		err = os.Symlink(self, filepath.Join(dir, "git-handoff"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func testbinMain(args []string) int {
	if p := os.Getenv(logEnv); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "start %s\n", strings.Join(args, " "))
			f.Close()
		}
	}
	if len(args) < 2 || args[0] != "hook" {
		fmt.Fprintln(os.Stderr, "usage: git-handoff hook <name> [args]")
		return 2
	}
	if d, err := time.ParseDuration(os.Getenv(timeoutEnv)); err == nil {
		for k := range hooks.Timeouts {
			hooks.Timeouts[k] = d
		}
	}
	hooks.Run(context.Background(), args[1], args[2:], os.Stderr, envDeps{})
	return 0
}

// envDeps is the test's git-handoff: sessions and batons are real refs, and
// a failure mode can be injected through failEnv.
type envDeps struct{}

func (envDeps) fail(ctx context.Context) error {
	switch os.Getenv(failEnv) {
	case "error":
		return fmt.Errorf("injected failure")
	case "panic":
		panic("injected panic")
	case "hang":
		select {} // ignores ctx on purpose: Run must still give up
	}
	return nil
}

func (d envDeps) BoundSession(ctx context.Context) (hooks.Session, bool, error) {
	if err := d.fail(ctx); err != nil {
		return hooks.Session{}, false, err
	}
	harness := os.Getenv(harnessEnv)
	if harness == "" {
		harness = defaultHarn
	}
	if id := os.Getenv(hooks.SessionEnv); id != "" {
		return hooks.Session{ID: id, Harness: harness}, true, nil
	}
	out, err := refstore.Git(ctx, ".", false, nil, "symbolic-ref", "--quiet", "refs/worktree/ao/session")
	if err != nil {
		return hooks.Session{}, false, nil
	}
	id := strings.TrimPrefix(strings.TrimSpace(string(out)), "refs/ao/sessions/")
	return hooks.Session{ID: id, Harness: harness}, true, nil
}

// WaitingBaton finds batonOwner's private baton for branch, else the
// first shared baton of any branch; the blob holds its one next step.
func (d envDeps) WaitingBaton(ctx context.Context, branch string) (hooks.Waiting, bool, error) {
	if err := d.fail(ctx); err != nil {
		return hooks.Waiting{}, false, err
	}
	out, err := refstore.Git(ctx, ".", false, nil, "cat-file", "-p", "refs/ao/handoffs/private/"+batonOwner+"/"+branch)
	if err == nil {
		return hooks.Waiting{ID: "h-1", Owner: batonOwner, Branch: branch, Step: string(out)}, true, nil
	}
	refs, err := refstore.Git(ctx, ".", false, nil, "for-each-ref", "--count=1", "--format=%(refname)", "refs/ao/handoffs/shared/")
	ref := strings.TrimSpace(string(refs))
	if err != nil || ref == "" {
		return hooks.Waiting{}, false, nil
	}
	out, err = refstore.Git(ctx, ".", false, nil, "cat-file", "-p", ref)
	if err != nil {
		return hooks.Waiting{}, false, err
	}
	owner, left, _ := strings.Cut(strings.TrimPrefix(ref, "refs/ao/handoffs/shared/"), "/")
	return hooks.Waiting{ID: "h-1", Owner: owner, Branch: left, Shared: true, Step: string(out)}, true, nil
}

func (d envDeps) PushRecords(ctx context.Context, remote, url string) error {
	if err := d.fail(ctx); err != nil {
		return err
	}
	_, err := refstore.Git(ctx, ".", false, nil, "push", "--no-verify", "--quiet", remote,
		"+refs/ao/sessions/*:refs/ao/sessions/*", "+refs/ao/handoffs/*:refs/ao/handoffs/*")
	return err
}

// PathLeases reads the path leases under refs/ao/leases/path/ held by
// another session than session; the test writes them as plain JSON with
// the record's key, state and holder.
func (d envDeps) PathLeases(ctx context.Context, session string) ([]hooks.PathLease, error) {
	if err := d.fail(ctx); err != nil {
		return nil, err
	}
	out, err := refstore.Git(ctx, ".", false, nil, "for-each-ref", "--format=%(objectname)", "refs/ao/leases/path/")
	if err != nil {
		return nil, err
	}
	var held []hooks.PathLease
	for _, oid := range strings.Fields(string(out)) {
		blob, err := refstore.Git(ctx, ".", false, nil, "cat-file", "blob", oid)
		if err != nil {
			return nil, err
		}
		var r struct{ Key, State, Session, Owner, Agent string }
		if err := json.Unmarshal(blob, &r); err != nil {
			return nil, err
		}
		if r.State == "held" && r.Session != session {
			held = append(held, hooks.PathLease{Key: r.Key, Session: r.Session, Owner: r.Owner, Agent: r.Agent})
		}
	}
	return held, nil
}
